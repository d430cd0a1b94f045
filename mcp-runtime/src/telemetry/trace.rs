//! Spans and the OpenTelemetry instruments: an operation's span, a child of the trace its
//! request carries in `params._meta` (W3C trace context, read and written by
//! OpenTelemetry's own `TraceContextPropagator`), and its metrics for OTLP.

use std::borrow::Cow;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use opentelemetry::metrics::{Counter, Histogram, Meter, ObservableUpDownCounter};
use opentelemetry::propagation::{Extractor, Injector, TextMapPropagator};
use opentelemetry::trace::{SpanKind, Status, TraceContextExt, Tracer};
use opentelemetry::{Context, KeyValue};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracer;
use rustc_hash::FxHashMap;
use serde_json::{Map, Value};

use super::labels::{Labels, Side};
use super::{DURATION_BUCKETS, Operation, Target};

/// How many sets of labels the in-flight counts and the attributes made keep, at most: as
/// many as the SDK keeps of an instrument's attribute sets.
const KEPT: usize = 2000;

/// The attributes made of each set of labels, by `error.type`.
type Made = FxHashMap<Labels, Vec<(Option<Cow<'static, str>>, Arc<[KeyValue]>)>>;

/// The spans' tracer and the metrics' instruments.
#[derive(Debug)]
pub(super) struct Otel {
    tracer: SdkTracer,
    server: Histogram<f64>,
    client: Histogram<f64>,
    /// The operations in flight, by their labels, which the observable counter
    /// `mcp.server.operations.in_flight` reports at each export: counting one costs a
    /// lookup, not a measurement of the SDK's.
    in_flight: Arc<Mutex<FxHashMap<Labels, i64>>>,
    _in_flight: ObservableUpDownCounter<i64>,
    /// The attributes of each set of labels and error, made once.
    attributes: Mutex<Made>,
    refusals: Counter<u64>,
}

impl Otel {
    pub(super) fn new(tracer: SdkTracer, meter: &Meter) -> Self {
        let duration = |name: &'static str, description: &'static str| {
            meter
                .f64_histogram(name)
                .with_unit("s")
                .with_description(description)
                .with_boundaries(DURATION_BUCKETS.to_vec())
                .build()
        };
        let in_flight: Arc<Mutex<FxHashMap<Labels, i64>>> = Arc::default();
        let counted = Arc::clone(&in_flight);
        let observed = meter
            .i64_observable_up_down_counter("mcp.server.operations.in_flight")
            .with_description("The MCP requests this server is answering now")
            .with_callback(move |observer| {
                for (attributes, count) in in_flight_counts(&lock(&counted)) {
                    observer.observe(count, &attributes);
                }
            })
            .build();
        Self {
            tracer,
            server: duration(
                "mcp.server.operation.duration",
                "The duration of the MCP requests this server answered",
            ),
            client: duration(
                "mcp.client.operation.duration",
                "The duration of the MCP requests this process sent, until their answer",
            ),
            in_flight,
            _in_flight: observed,
            attributes: Mutex::default(),
            refusals: meter
                .u64_counter("mcp.server.refusals")
                .with_description("The calls refused by a built-in layer, by layer and tool")
                .build(),
        }
    }

    /// Starts `operation`'s span: a server's continues the trace `meta` carries, a
    /// client's the active context's. The context returned holds the span.
    pub(super) fn begin(
        &self,
        side: Side,
        operation: &Operation<'_>,
        labels: &Labels,
        meta: Option<&Map<String, Value>>,
    ) -> Context {
        if side == Side::Server {
            let mut in_flight = lock(&self.in_flight);
            match in_flight.get_mut(labels) {
                Some(count) => *count += 1,
                None => {
                    // A client names the tools it calls: the sets that count nothing now
                    // go before the map grows past its bound.
                    if in_flight.len() >= KEPT {
                        in_flight.retain(|_, count| *count != 0);
                    }
                    in_flight.insert(labels.clone(), 1);
                }
            }
        }
        start_span(&self.tracer, side, operation, meta)
    }

    pub(super) fn end(
        &self,
        side: Side,
        labels: &Labels,
        error: Option<&Cow<'static, str>>,
        seconds: f64,
    ) {
        let attributes = self.attributes_of(labels, error);
        match side {
            Side::Server => {
                if let Some(count) = lock(&self.in_flight).get_mut(labels) {
                    *count -= 1;
                }
                self.server.record(seconds, &attributes);
            }
            Side::Client => self.client.record(seconds, &attributes),
        }
    }

    /// The attributes of an operation's duration: its labels, and `error.type` where it
    /// failed. Made once for each, and found again with no copy of the labels: they take
    /// few values, and an operation's errors fewer.
    fn attributes_of(&self, labels: &Labels, error: Option<&Cow<'static, str>>) -> Arc<[KeyValue]> {
        let mut attributes = lock(&self.attributes);
        let made = attributes
            .get(labels)
            .and_then(|by_error| by_error.iter().find(|(of, _)| of.as_ref() == error))
            .map(|(_, made)| Arc::clone(made));
        if let Some(made) = made {
            return made;
        }
        let made: Arc<[KeyValue]> = labels
            .pairs(error)
            .map(|(key, value)| KeyValue::new(key, value.to_owned()))
            .collect();
        if attributes.len() < KEPT {
            attributes
                .entry(labels.clone())
                .or_default()
                .push((error.cloned(), Arc::clone(&made)));
        }
        made
    }

    pub(super) fn refused(&self, layer: &'static str, tool: &str) {
        self.refusals.add(
            1,
            &[
                KeyValue::new("mcp.layer", layer),
                KeyValue::new("gen_ai.tool.name", tool.to_owned()),
            ],
        );
    }
}

/// The operations in flight by the attributes they are counted under: those of their
/// duration but `error.type`, not known yet, and `mcp.protocol.version`.
fn in_flight_counts(counts: &FxHashMap<Labels, i64>) -> Vec<(Vec<KeyValue>, i64)> {
    let mut by_attributes: FxHashMap<(&str, Option<&str>, &'static str), i64> =
        FxHashMap::default();
    for (labels, count) in counts {
        let key = (
            labels.method.as_str(),
            labels.tool.as_deref(),
            labels.transport,
        );
        *by_attributes.entry(key).or_default() += count;
    }
    by_attributes
        .into_iter()
        .map(|((method, tool, transport), count)| {
            let mut attributes = vec![KeyValue::new("mcp.method.name", method.to_owned())];
            if let Some(tool) = tool {
                attributes.push(KeyValue::new("gen_ai.tool.name", tool.to_owned()));
            }
            attributes.push(KeyValue::new("network.transport", transport));
            (attributes, count)
        })
        .collect()
}

/// A lock whose holder panicked still holds good counts.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The parent of a server's span: the trace `meta` carries, where its `traceparent` is a
/// valid one; the active context otherwise (a fresh trace, at the top of a request).
pub(super) fn parent(meta: Option<&Map<String, Value>>) -> Context {
    let current = Context::current();
    match meta {
        Some(meta) => {
            let carrier = Incoming {
                meta,
                traceparent: meta
                    .get("traceparent")
                    .and_then(Value::as_str)
                    .and_then(level_one),
            };
            TraceContextPropagator::new().extract_with_context(&current, &carrier)
        }
        None => current,
    }
}

/// `traceparent` with the flags W3C Trace Context level 1 knows, where it is a version-00
/// header whose flags set others: level 2 gives a new trace the flags `03` (sampled, and
/// `random`), which the propagator, of level 1, refuses, starting a trace of its own. The
/// `random` flag tells how the trace id was made, not whether to sample: the trace is
/// continued with the sampled flag alone. `None` for any other header, left to the
/// propagator as it is.
fn level_one(traceparent: &str) -> Option<String> {
    let (head, flags) = traceparent.rsplit_once('-')?;
    let known = u8::from_str_radix(flags, 16).ok()? & 0x01;
    let other = traceparent.len() == 55 && head.starts_with("00-") && flags.len() == 2;
    (other && flags != format!("{known:02x}") && flags != "02")
        .then(|| format!("{head}-{known:02x}"))
}

/// `params._meta` of a request, as a carrier of trace context, its `traceparent` as
/// [`level_one`] reads it.
struct Incoming<'a> {
    meta: &'a Map<String, Value>,
    traceparent: Option<String>,
}

impl Extractor for Incoming<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        match (key, &self.traceparent) {
            ("traceparent", Some(traceparent)) => Some(traceparent),
            _ => self.meta.get(key).and_then(Value::as_str),
        }
    }

    fn keys(&self) -> Vec<&str> {
        self.meta.keys().map(String::as_str).collect()
    }
}

/// Starts `operation`'s span with `tracer`, as the conventions name and describe it.
pub(super) fn start_span<T>(
    tracer: &T,
    side: Side,
    operation: &Operation<'_>,
    meta: Option<&Map<String, Value>>,
) -> Context
where
    T: Tracer,
    T::Span: Send + Sync + 'static,
{
    let (kind, parent) = match side {
        Side::Server => (SpanKind::Server, parent(meta)),
        Side::Client => (SpanKind::Client, Context::current()),
    };
    let span = tracer
        .span_builder(operation.span_name())
        .with_kind(kind)
        .with_attributes(span_attributes(operation))
        .start_with_context(tracer, &parent);
    parent.with_span(span)
}

/// A span's attributes at its start.
pub(super) fn span_attributes(operation: &Operation<'_>) -> Vec<KeyValue> {
    let mut attributes = vec![
        KeyValue::new("mcp.method.name", operation.method.to_owned()),
        KeyValue::new("network.transport", operation.transport.as_str()),
    ];
    let optional = [
        ("mcp.protocol.version", operation.protocol_version),
        ("mcp.session.id", operation.session_id),
        ("jsonrpc.request.id", operation.request_id),
    ];
    for (key, value) in optional {
        if let Some(value) = value {
            attributes.push(KeyValue::new(key, value.to_owned()));
        }
    }
    match operation.target {
        Target::None => {}
        Target::Tool(name) => {
            attributes.push(KeyValue::new("gen_ai.tool.name", name.to_owned()));
            attributes.push(KeyValue::new("gen_ai.operation.name", "execute_tool"));
        }
        Target::Prompt(name) => {
            attributes.push(KeyValue::new("gen_ai.prompt.name", name.to_owned()));
        }
        Target::Resource(uri) => attributes.push(KeyValue::new("mcp.resource.uri", uri.to_owned())),
    }
    attributes
}

/// Ends the span `context` holds: with `error.type` and an error status where it failed.
pub(super) fn end_span(context: &Context, error: Option<&Cow<'static, str>>) {
    let span = context.span();
    if let Some(error) = error {
        span.set_attribute(KeyValue::new("error.type", error.to_string()));
        if let Ok(code) = error.parse::<i64>() {
            span.set_attribute(KeyValue::new("rpc.response.status_code", code.to_string()));
        }
        span.set_status(Status::error(error.to_string()));
    }
    span.end();
}

/// Writes the trace context of `context` into `meta`: `traceparent`, and `tracestate`
/// where it is not empty.
pub(super) fn inject(context: &Context, meta: &mut Map<String, Value>) {
    TraceContextPropagator::new().inject_context(context, &mut MetaCarrier(meta));
}

/// `params._meta`, as a carrier of trace context: its string values by key.
struct MetaCarrier<M>(M);

impl Extractor for MetaCarrier<&Map<String, Value>> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(Value::as_str)
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(String::as_str).collect()
    }
}

impl Injector for MetaCarrier<&mut Map<String, Value>> {
    fn set(&mut self, key: &str, value: String) {
        if !value.is_empty() {
            self.0.insert(key.to_owned(), Value::String(value));
        }
    }
}

#[cfg(test)]
mod level_one_tests {
    use super::level_one;

    const HEAD: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7";

    #[test]
    fn a_level_two_new_trace_keeps_its_sampled_flag_alone() {
        assert_eq!(level_one(&format!("{HEAD}-03")), Some(format!("{HEAD}-01")));
        assert_eq!(level_one(&format!("{HEAD}-ff")), Some(format!("{HEAD}-01")));
        assert_eq!(level_one(&format!("{HEAD}-fe")), Some(format!("{HEAD}-00")));
    }

    #[test]
    fn what_level_one_reads_or_refuses_is_left_to_it() {
        for header in [
            format!("{HEAD}-01"),
            format!("{HEAD}-00"),
            format!("{HEAD}-02"),
            format!("{HEAD}-zz"),
            format!("ff{}-03", &HEAD[2..]),
            format!("{HEAD}0-03"),
            "00-03".to_owned(),
            String::new(),
        ] {
            assert_eq!(level_one(&header), None, "{header}");
        }
    }
}
