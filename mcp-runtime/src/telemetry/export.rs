//! OTLP export over HTTP/protobuf, set by the standard variables: spans and metrics go to
//! `OTEL_EXPORTER_OTLP_ENDPOINT` (`/v1/traces`, `/v1/metrics`), as the service that
//! `OTEL_SERVICE_NAME` names (the SDK's resource detectors read it, with
//! `OTEL_RESOURCE_ATTRIBUTES`).
//!
//! Spans ([`super::spans`]) and metrics ([`super::metrics`]) are the crate's own, written as
//! the official OTLP messages (`opentelemetry-proto`): the spans already encoded when they
//! end. One thread sends them, as the SDK's batch span processor and periodic metric reader
//! would, read from the same variables (`OTEL_BSP_SCHEDULE_DELAY`,
//! `OTEL_BSP_MAX_QUEUE_SIZE`, `OTEL_BSP_MAX_EXPORT_BATCH_SIZE`,
//! `OTEL_METRIC_EXPORT_INTERVAL`), to the endpoints, with the headers and timeouts, that
//! `opentelemetry-otlp` would use (`OTEL_EXPORTER_OTLP_[TRACES_|METRICS_]ENDPOINT`,
//! `…_HEADERS`, `…_TIMEOUT`).

use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use bytes::Bytes;

use opentelemetry_proto::tonic::common::v1::{InstrumentationScope, KeyValue};
use opentelemetry_proto::tonic::resource::v1::Resource as ProtoResource;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, ScopeSpans};
use opentelemetry_sdk::Resource;
use prost::Message;

use super::TelemetryError;
use super::metrics::Metrics;
use super::post::{Failure, Route};
use super::spans::{Batch, Bounds, Queue, Spans};
use super::trace::Otel;

/// The variable that turns OTLP export on, naming where it goes.
pub(super) const ENDPOINT_VARIABLE: &str = "OTEL_EXPORTER_OTLP_ENDPOINT";

/// The name spans and metrics are recorded under.
const SCOPE: &str = "mcp-runtime";

/// The field of `ResourceSpans` that holds its scopes' spans (`repeated ScopeSpans
/// scope_spans = 2`), and that of `ExportTraceServiceRequest` that holds the resources'
/// (`repeated ResourceSpans resource_spans = 1`).
const RESOURCE_SPANS_SCOPE_SPANS: u32 = 2;
const REQUEST_RESOURCE_SPANS: u32 = 1;

/// The exporter of spans and metrics: what they are kept in, and the thread that sends
/// them.
#[derive(Debug)]
pub(super) struct Exporters {
    endpoint: String,
    queue: Arc<Queue>,
    metrics: Arc<Metrics>,
    thread: Option<JoinHandle<()>>,
}

impl Exporters {
    /// The exporter the environment asks for: `None` unless `OTEL_EXPORTER_OTLP_ENDPOINT`
    /// is set (and not empty).
    pub(super) fn from_env() -> Result<Option<Self>, TelemetryError> {
        let Some(endpoint) = variable(ENDPOINT_VARIABLE) else {
            return Ok(None);
        };
        let resource = Resource::builder().build();
        let envelope = Envelope::new(&resource);
        let queue = Arc::new(Queue::with_room(bounds_from_env(), envelope.room()));
        let metrics = Arc::new(Metrics::default());
        let sending = Sending {
            queue: Arc::clone(&queue),
            metrics: Arc::clone(&metrics),
            envelope,
            traces: Target::from_env(&endpoint, "TRACES", "/v1/traces"),
            metrics_target: Target::from_env(&endpoint, "METRICS", "/v1/metrics"),
            delay: Duration::from_millis(number("OTEL_BSP_SCHEDULE_DELAY").unwrap_or(5000)),
            interval: Duration::from_millis(
                number("OTEL_METRIC_EXPORT_INTERVAL")
                    .unwrap_or(60_000)
                    .max(1),
            ),
        };
        let thread = std::thread::Builder::new()
            .name("mcp-otlp-export".into())
            .spawn(move || sending.run())
            .map_err(|source| TelemetryError::ExportThread {
                endpoint: endpoint.clone(),
                source,
            })?;
        Ok(Some(Self {
            endpoint,
            queue,
            metrics,
            thread: Some(thread),
        }))
    }

    /// Where spans and metrics go.
    pub(super) fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// What records into this exporter.
    pub(super) fn instruments(&self) -> Otel {
        let spans = Spans::from_env(Arc::clone(&self.queue));
        Otel::new(spans, Arc::clone(&self.metrics))
    }

    /// Exports what is left, then stops.
    pub(super) fn shutdown(mut self) {
        self.queue.stop();
        if let Some(thread) = self.thread.take() {
            if thread.join().is_err() {
                tracing::warn!("the OTLP exporter panicked");
            }
        }
    }
}

/// Where one signal goes, and how.
#[derive(Debug)]
struct Target {
    url: String,
    route: Route,
}

impl Target {
    /// `OTEL_EXPORTER_OTLP_{SIGNAL}_ENDPOINT` as it is, or `path` under `endpoint`; the
    /// headers of `OTEL_EXPORTER_OTLP_HEADERS` and `…_{SIGNAL}_HEADERS`, the latter
    /// winning; the timeout of `…_{SIGNAL}_TIMEOUT` or `…_TIMEOUT`, in milliseconds, 10 s
    /// by default.
    fn from_env(endpoint: &str, signal: &str, path: &str) -> Self {
        let url = variable(&format!("OTEL_EXPORTER_OTLP_{signal}_ENDPOINT"))
            .unwrap_or_else(|| format!("{}{path}", endpoint.trim_end_matches('/')));
        let mut headers = Vec::new();
        for name in [
            "OTEL_EXPORTER_OTLP_HEADERS".to_owned(),
            format!("OTEL_EXPORTER_OTLP_{signal}_HEADERS"),
        ] {
            if let Some(value) = variable(&name) {
                for (key, value) in parse_headers(&name, &value) {
                    headers
                        .retain(|(known, _): &(String, String)| !known.eq_ignore_ascii_case(&key));
                    headers.push((key, value));
                }
            }
        }
        let timeout = number(&format!("OTEL_EXPORTER_OTLP_{signal}_TIMEOUT"))
            .or_else(|| number("OTEL_EXPORTER_OTLP_TIMEOUT"))
            .unwrap_or(10_000);
        let route = Route::new(&url, &headers, Duration::from_millis(timeout));
        Self { url, route }
    }
}

/// `key=value` pairs separated by commas, the values percent-encoded, as the OTLP exporter
/// variables have them. A pair without `=`, or with an empty key, is left out and logged.
fn parse_headers(variable: &str, text: &str) -> Vec<(String, String)> {
    let mut headers = Vec::new();
    for pair in text.split(',').filter(|pair| !pair.trim().is_empty()) {
        match pair.split_once('=') {
            Some((key, value)) if !key.trim().is_empty() => {
                let value = percent_encoding::percent_decode_str(value.trim()).decode_utf8_lossy();
                headers.push((key.trim().to_owned(), value.into_owned()));
            }
            _ => tracing::warn!(
                variable,
                pair,
                "an OTLP header that is not `key=value` is left out"
            ),
        }
    }
    headers
}

/// What wraps a batch of spans into an `ExportTraceServiceRequest`, and the metrics into
/// an `ExportMetricsServiceRequest`: the resource and the scope, the spans' encoded once.
#[derive(Debug)]
struct Envelope {
    resource: ProtoResource,
    scope: InstrumentationScope,
    resource_spans: Vec<u8>,
    scope_spans: Vec<u8>,
}

impl Envelope {
    fn new(resource: &Resource) -> Self {
        let attributes = resource
            .iter()
            .map(|(key, value)| KeyValue {
                key: key.to_string(),
                value: Some(value.clone().into()),
            })
            .collect();
        let resource_message = ProtoResource {
            attributes,
            ..ProtoResource::default()
        };
        let scope = InstrumentationScope {
            name: SCOPE.to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            ..InstrumentationScope::default()
        };
        let resource_spans = ResourceSpans {
            resource: Some(resource_message.clone()),
            scope_spans: Vec::new(),
            schema_url: resource.schema_url().unwrap_or_default().to_owned(),
        };
        let scope_spans = ScopeSpans {
            scope: Some(scope.clone()),
            spans: Vec::new(),
            schema_url: String::new(),
        };
        Self {
            resource: resource_message,
            scope,
            resource_spans: resource_spans.encode_to_vec(),
            scope_spans: scope_spans.encode_to_vec(),
        }
    }

    /// The most bytes [`Self::spans_request`] writes before a batch's spans.
    fn room(&self) -> usize {
        use prost::encoding::key_len;
        const LONGEST_VARINT: usize = 10;
        key_len(REQUEST_RESOURCE_SPANS)
            + LONGEST_VARINT
            + self.resource_spans.len()
            + key_len(RESOURCE_SPANS_SCOPE_SPANS)
            + LONGEST_VARINT
            + self.scope_spans.len()
    }

    /// Makes `batch` (entries of `ScopeSpans.spans`, after [`Self::room`] bytes left free)
    /// the request that exports its spans, from the offset returned: the scope's message and
    /// the spans read as one `ScopeSpans`, within one `ResourceSpans`. The fields that hold
    /// them are written in the room before the spans, so that the spans are sent where they
    /// were queued.
    fn spans_request(&self, batch: &mut [u8]) -> usize {
        use super::fields::open;
        use prost::encoding::{encoded_len_varint, key_len};
        let room = self.room();
        let scope_spans = self.scope_spans.len() + batch.len() - room;
        let resource_spans = self.resource_spans.len()
            + key_len(RESOURCE_SPANS_SCOPE_SPANS)
            + encoded_len_varint(scope_spans as u64)
            + scope_spans;
        // Each field's head, then the first of what it holds.
        let mut front = Vec::with_capacity(room);
        open(REQUEST_RESOURCE_SPANS, resource_spans, &mut front);
        front.extend_from_slice(&self.resource_spans);
        open(RESOURCE_SPANS_SCOPE_SPANS, scope_spans, &mut front);
        front.extend_from_slice(&self.scope_spans);
        let start = room - front.len();
        batch[start..room].copy_from_slice(&front);
        start
    }
}

/// The thread that sends the spans queued and the metrics kept.
struct Sending {
    queue: Arc<Queue>,
    metrics: Arc<Metrics>,
    envelope: Envelope,
    traces: Target,
    metrics_target: Target,
    delay: Duration,
    interval: Duration,
}

impl Sending {
    fn run(mut self) {
        // The thread's own runtime, driven only while it sends: the request is written, and
        // its answer read, on this thread, with no hand-over to another.
        let runtime = match tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
        {
            Ok(runtime) => runtime,
            Err(error) => {
                tracing::warn!(%error, "no runtime: nothing is exported over OTLP");
                self.queue.stop();
                return;
            }
        };
        let mut next_metrics = Instant::now() + self.interval;
        loop {
            let wait = self
                .delay
                .min(next_metrics.saturating_duration_since(Instant::now()));
            let batch = self.queue.next_batch(wait);
            if batch.dropped > 0 {
                tracing::warn!(
                    dropped = batch.dropped,
                    "spans dropped: the OTLP export queue was full"
                );
            }
            if batch.spans > 0 {
                let what = spans_of(&batch);
                let mut encoded = batch.encoded;
                let start = self.envelope.spans_request(&mut encoded);
                let body = Bytes::from_owner(Outgoing {
                    encoded,
                    start,
                    queue: Arc::clone(&self.queue),
                });
                let sent = runtime.block_on(self.traces.route.send(body, &what));
                if let Some(earlier) = sent.earlier {
                    report(&self.traces, earlier.outcome, &earlier.what);
                }
                if let Err(failure) = sent.written {
                    report(&self.traces, Err(failure), &what);
                }
            }
            // With no batch due (the delay passed), or none to come, the answer left to
            // read is read now: how an export fared is known within the delay.
            if batch.spans == 0 || batch.last {
                if let Some(fared) = runtime.block_on(self.traces.route.settle()) {
                    report(&self.traces, fared.outcome, &fared.what);
                }
            }
            if batch.last || Instant::now() >= next_metrics {
                let request = self
                    .metrics
                    .request(&self.envelope.resource, &self.envelope.scope);
                let body = Bytes::from(request.encode_to_vec());
                runtime.block_on(post(&mut self.metrics_target, body, "metrics"));
                next_metrics = Instant::now() + self.interval;
            }
            if batch.last {
                return;
            }
        }
    }
}

/// A batch's request on its way: its bytes given back to the queue once sent.
struct Outgoing {
    encoded: Vec<u8>,
    start: usize,
    queue: Arc<Queue>,
}

impl AsRef<[u8]> for Outgoing {
    fn as_ref(&self) -> &[u8] {
        &self.encoded[self.start..]
    }
}

impl Drop for Outgoing {
    fn drop(&mut self) {
        self.queue.give_back(std::mem::take(&mut self.encoded));
    }
}

fn spans_of(batch: &Batch) -> String {
    format!("{} spans", batch.spans)
}

/// Posts `body` to `target`, and reads its answer; a failure is logged ([`report`]).
async fn post(target: &mut Target, body: Bytes, what: &str) {
    let fared = target.route.post(body).await;
    report(target, fared, what);
}

/// Logs how an export to `target` of `what` fared, where it failed: what it carried is
/// dropped, as the SDK's exporters drop it.
fn report(target: &Target, fared: Result<(), Failure>, what: &str) {
    match fared {
        Ok(()) => {}
        Err(Failure::Refused(status)) => tracing::warn!(
            url = %target.url,
            %status,
            "the OTLP endpoint refused {what}"
        ),
        Err(Failure::Failed(error)) => tracing::warn!(
            url = %target.url,
            %error,
            "{what} could not be exported over OTLP"
        ),
    }
}

/// The queue's bounds, from the batch processor's variables.
fn bounds_from_env() -> Bounds {
    let default = Bounds::default();
    let queue = number("OTEL_BSP_MAX_QUEUE_SIZE").map_or(default.queue, saturate);
    let batch = number("OTEL_BSP_MAX_EXPORT_BATCH_SIZE").map_or(default.batch, saturate);
    Bounds {
        queue: queue.max(1),
        batch: batch.clamp(1, queue.max(1)),
    }
}

fn saturate(number: u64) -> usize {
    usize::try_from(number).unwrap_or(usize::MAX)
}

/// A variable's value, when set and not blank.
fn variable(name: &str) -> Option<String> {
    std::env::var(name)
        .ok()
        .filter(|value| !value.trim().is_empty())
}

/// A variable's value as a whole number; `None`, logged, when it is not one.
fn number(name: &str) -> Option<u64> {
    let value = variable(name)?;
    match value.trim().parse() {
        Ok(number) => Some(number),
        Err(_) => {
            tracing::warn!(
                variable = name,
                value,
                "not a whole number: the default is used"
            );
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
    use opentelemetry_proto::tonic::trace::v1::Span;

    use super::*;

    #[test]
    fn a_batch_is_one_resource_and_scope_around_its_spans() {
        let resource = Resource::builder_empty()
            .with_service_name("calculator")
            .build();
        let envelope = Envelope::new(&resource);
        let mut spans = vec![0; envelope.room()];
        for name in ["tools/call add", "ping"] {
            let span = Span {
                name: name.to_owned(),
                ..Span::default()
            };
            prost::encoding::message::encode(
                super::super::spans::SCOPE_SPANS_SPANS,
                &span,
                &mut spans,
            );
        }
        let start = envelope.spans_request(&mut spans);
        let request =
            ExportTraceServiceRequest::decode(&spans[start..]).expect("a request OTLP reads");
        assert_eq!(request.resource_spans.len(), 1);
        let resource_spans = &request.resource_spans[0];
        let attributes = &resource_spans
            .resource
            .as_ref()
            .expect("a resource")
            .attributes;
        assert!(
            attributes
                .iter()
                .any(|attribute| attribute.key == "service.name"
                    && format!("{:?}", attribute.value).contains("calculator")),
            "{attributes:?}"
        );
        assert_eq!(resource_spans.scope_spans.len(), 1);
        let scope_spans = &resource_spans.scope_spans[0];
        assert_eq!(
            scope_spans.scope.as_ref().map(|scope| &*scope.name),
            Some(SCOPE)
        );
        let names: Vec<_> = scope_spans.spans.iter().map(|span| &*span.name).collect();
        assert_eq!(names, ["tools/call add", "ping"]);
    }

    #[test]
    fn headers_are_pairs_whose_values_are_percent_decoded() {
        assert_eq!(
            parse_headers("X", "api-key=a%20b, tenant = 7 ,broken,=empty,"),
            [
                ("api-key".to_owned(), "a b".to_owned()),
                ("tenant".to_owned(), "7".to_owned())
            ]
        );
    }
}
