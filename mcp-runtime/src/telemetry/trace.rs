//! Spans and the OpenTelemetry instruments: an operation's span, a child of the trace its
//! request carries in `params._meta` (W3C trace context, read and written by
//! OpenTelemetry's own `TraceContextPropagator`), and its metrics for OTLP.

use std::borrow::Cow;

use opentelemetry::metrics::{Counter, Histogram, Meter, UpDownCounter};
use opentelemetry::propagation::{Extractor, Injector, TextMapPropagator};
use opentelemetry::trace::{SpanKind, Status, TraceContextExt, Tracer};
use opentelemetry::{Context, KeyValue};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::SdkTracer;
use serde_json::{Map, Value};

use super::labels::{Labels, Side};
use super::{DURATION_BUCKETS, Operation, Target};

/// The spans' tracer and the metrics' instruments.
#[derive(Debug)]
pub(super) struct Otel {
    tracer: SdkTracer,
    server: Histogram<f64>,
    client: Histogram<f64>,
    in_flight: UpDownCounter<i64>,
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
            in_flight: meter
                .i64_up_down_counter("mcp.server.operations.in_flight")
                .with_description("The MCP requests this server is answering now")
                .build(),
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
        meta: Option<&Map<String, Value>>,
    ) -> Context {
        if side == Side::Server {
            self.in_flight.add(1, &in_flight_attributes(operation));
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
        let attributes: Vec<KeyValue> = labels
            .pairs(error)
            .map(|(key, value)| KeyValue::new(key, value.to_owned()))
            .collect();
        match side {
            Side::Server => {
                let in_flight: Vec<KeyValue> = labels
                    .pairs(None)
                    .map(|(key, value)| KeyValue::new(key, value.to_owned()))
                    .collect();
                self.in_flight.add(-1, &in_flight);
                self.server.record(seconds, &attributes);
            }
            Side::Client => self.client.record(seconds, &attributes),
        }
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

/// The attributes an operation in flight is counted under: those of its duration but
/// `error.type`, which is not known yet.
fn in_flight_attributes(operation: &Operation<'_>) -> Vec<KeyValue> {
    let mut attributes = vec![
        KeyValue::new("mcp.method.name", operation.method.to_owned()),
        KeyValue::new("network.transport", operation.transport.as_str()),
    ];
    if let Target::Tool(name) = operation.target {
        attributes.insert(1, KeyValue::new("gen_ai.tool.name", name.to_owned()));
    }
    attributes
}

/// The parent of a server's span: the trace `meta` carries, where its `traceparent` is a
/// valid one; the active context otherwise (a fresh trace, at the top of a request).
pub(super) fn parent(meta: Option<&Map<String, Value>>) -> Context {
    let current = Context::current();
    match meta {
        Some(meta) => {
            TraceContextPropagator::new().extract_with_context(&current, &MetaCarrier(meta))
        }
        None => current,
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
