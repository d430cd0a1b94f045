//! Spans and metrics for OTLP: an operation's span ([`super::spans`]), a child of the
//! trace its request carries in `params._meta` (W3C trace context, read and written by
//! OpenTelemetry's own `TraceContextPropagator`), and its metrics ([`super::metrics`]).

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use opentelemetry::Context;
use opentelemetry::propagation::{Extractor, Injector, TextMapPropagator};
use opentelemetry::trace::{SpanContext, TraceContextExt};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use serde_json::{Map, Value};

use super::Operation;
use super::labels::Side;
use super::metrics::{Held, Metrics};
use super::spans::{Begun, Head, Spans};

/// What begins spans, and what keeps the metrics.
#[derive(Debug)]
pub(super) struct Otel {
    spans: Spans,
    metrics: Arc<Metrics>,
}

/// An operation begun: what its labels keep, and its span.
#[derive(Debug)]
pub(super) struct Began {
    kept: Held,
    pub(super) span: Begun,
}

impl Otel {
    pub(super) fn new(spans: Spans, metrics: Arc<Metrics>) -> Self {
        Self { spans, metrics }
    }

    /// Begins `operation`'s span, at `started`: a server's continues the trace `meta`
    /// carries, a client's the active context's.
    pub(super) fn begin(
        &self,
        side: Side,
        operation: &Operation<'_>,
        meta: Option<&Map<String, Value>>,
        started: super::clock::Moment,
    ) -> Began {
        let kept = self.metrics.kept(side, operation);
        kept.began(side);
        let parent = match side {
            Side::Server => parent(meta),
            Side::Client => Context::current(),
        };
        let span = self
            .spans
            .begin(side, operation, &parent, head(&kept), started);
        Began { kept, span }
    }

    /// Ends the operation `began`, `elapsed` after it began: its span, and its duration.
    pub(super) fn end(
        &self,
        began: &mut Began,
        error: Option<&Cow<'static, str>>,
        elapsed: Duration,
    ) {
        self.spans
            .end(&mut began.span, head(&began.kept), error, elapsed);
        began.kept.ended(error, elapsed.as_secs_f64());
    }

    pub(super) fn refused(&self, layer: &'static str, tool: &str) {
        self.metrics.refused(layer, tool);
    }
}

/// The head of the spans of the labels `kept`: by reference where the labels are kept for
/// the process's life, written with each span where they are not.
fn head(kept: &Held) -> Head<'_> {
    match kept {
        Held::Kept(kept) => Head::Kept(&kept.head),
        Held::Overflow(kept) => Head::Inline(&kept.head),
    }
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

/// The context of a span: what the requests sent within it carry.
pub(super) fn context_of(span: &SpanContext) -> Context {
    Context::current().with_remote_span_context(span.clone())
}

/// Writes the trace context of `span` into `meta`: `traceparent`, and `tracestate` where
/// it is not empty.
pub(super) fn inject(span: &SpanContext, meta: &mut Map<String, Value>) {
    TraceContextPropagator::new().inject_context(&context_of(span), &mut MetaCarrier(meta));
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
