//! The trace context read from `params._meta`, and the spans' names and attributes, read
//! back from spans kept in memory.

use std::sync::Arc;
use std::time::Duration;

use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::common::v1::{InstrumentationScope, KeyValue, any_value};
use opentelemetry_proto::tonic::metrics::v1::{
    AggregationTemporality, Histogram, Sum, metric, number_data_point,
};
use opentelemetry_proto::tonic::resource::v1::Resource;
use opentelemetry_proto::tonic::trace::v1::{ScopeSpans, Span, span, status};
use prost::Message;
use serde_json::{Map, Value, json};

use super::metrics::Metrics;
use super::record::Telemetry;
use super::spans::{Bounds, Queue, Spans};
use super::trace::Otel;
use super::{Operation, Outcome, Target, Transport};

const TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT: &str = "00f067aa0ba902b7";

/// The room the tests' queues leave before their batches' spans, as the exporter's does.
const ROOM: usize = 13;

/// Telemetry recording into memory: its spans, read back from `queue` as OTLP reads them.
struct Recording {
    telemetry: &'static Telemetry,
    queue: Arc<Queue>,
    metrics: Arc<Metrics>,
}

impl Recording {
    fn new() -> Self {
        Self::bounded(Bounds::default())
    }

    /// Recording, its queue of spans bounded by `bounds`.
    fn bounded(bounds: Bounds) -> Self {
        let queue = Arc::new(Queue::with_room(bounds, ROOM));
        let spans = Spans::from_env(Arc::clone(&queue));
        let metrics = Arc::new(Metrics::default());
        let otel = Otel::new(spans, Arc::clone(&metrics));
        let telemetry = Telemetry {
            #[cfg(feature = "http")]
            prometheus: Some(super::prometheus::Metrics::new()),
            otel: Some(otel),
        };
        Self {
            telemetry: Box::leak(Box::new(telemetry)),
            queue,
            metrics,
        }
    }

    /// The spans ended since the last call, decoded from their encoding, batch after batch.
    fn finished(&self) -> Vec<Span> {
        let mut all = Vec::new();
        loop {
            let (spans, _) = self.next_batch();
            if spans.is_empty() {
                return all;
            }
            all.extend(spans);
        }
    }

    /// The next batch's spans, decoded from their encoding, and whether it is the queue's
    /// last.
    fn next_batch(&self) -> (Vec<Span>, bool) {
        let batch = self.queue.next_batch(Duration::ZERO);
        assert!(batch.encoded[..ROOM].iter().all(|byte| *byte == 0));
        let spans = ScopeSpans::decode(&batch.encoded[ROOM..])
            .expect("spans OTLP reads")
            .spans;
        assert_eq!(spans.len(), batch.spans);
        (spans, batch.last)
    }

    /// The one span a server operation with `meta` made, ended with `outcome`.
    fn server_span(
        &self,
        operation: &Operation<'_>,
        meta: Option<&Map<String, Value>>,
        outcome: Outcome,
    ) -> Span {
        self.telemetry
            .server_operation(operation, meta)
            .end(outcome);
        let mut spans = self.finished();
        assert_eq!(spans.len(), 1, "one span per operation");
        spans.remove(0)
    }
}

fn meta(entries: &[(&str, Value)]) -> Map<String, Value> {
    entries
        .iter()
        .map(|(key, value)| ((*key).to_owned(), value.clone()))
        .collect()
}

/// The string attribute `key` of `span`.
fn attribute<'a>(span: &'a Span, key: &str) -> Option<&'a str> {
    let value = span
        .attributes
        .iter()
        .find(|attribute| attribute.key == key)?
        .value
        .as_ref()?;
    match &value.value {
        Some(any_value::Value::StringValue(text)) => Some(text),
        other => panic!("{key} is not a string: {other:?}"),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// Whether `span` is in error, as its status says.
fn in_error(span: &Span) -> bool {
    span.status
        .as_ref()
        .is_some_and(|status| status.code == status::StatusCode::Error as i32)
}

fn call(tool: &str) -> Operation<'_> {
    Operation::new("tools/call", Transport::Pipe)
        .with_target(Target::Tool(tool))
        .with_request_id("7")
        .with_protocol_version(Some("2025-11-25"))
}

#[test]
fn a_valid_traceparent_makes_the_server_span_its_child() {
    let recording = Recording::new();
    let traceparent = format!("00-{TRACE}-{PARENT}-01");
    let meta = meta(&[
        ("traceparent", json!(traceparent)),
        ("tracestate", json!("rojo=00f067aa0ba902b7")),
    ]);
    let span = recording.server_span(&call("calculator.add"), Some(&meta), Outcome::Success);
    assert_eq!(hex(&span.trace_id), TRACE);
    assert_eq!(hex(&span.parent_span_id), PARENT);
    assert_eq!(span.trace_state, "rojo=00f067aa0ba902b7");
    assert_eq!(span.span_id.len(), 8);
    // Sampled, its parent remote, as OTLP's flags say it.
    assert_eq!(span.flags, 0x301);
}

#[test]
fn a_hostile_traceparent_starts_a_fresh_trace() {
    let recording = Recording::new();
    let zeros = "0".repeat(32);
    let hostile = [
        json!(format!("00-{TRACE}-{PARENT}")),
        json!(format!("00-{TRACE}0-{PARENT}-01")),
        json!(format!("00-{zeros}-{PARENT}-01")),
        json!(format!("00-{TRACE}-0000000000000000-01")),
        json!(format!("ff-{TRACE}-{PARENT}-01")),
        json!(format!("00-{}-{PARENT}-01", "z".repeat(32))),
        json!(""),
        json!(42),
        json!({ "traceparent": "00" }),
    ];
    for traceparent in hostile {
        let meta = meta(&[("traceparent", traceparent.clone())]);
        let span = recording.server_span(&call("calculator.add"), Some(&meta), Outcome::Success);
        assert!(
            span.trace_id.len() == 16 && span.trace_id.iter().any(|byte| *byte != 0),
            "{traceparent}: a span all the same"
        );
        assert_ne!(
            hex(&span.trace_id),
            TRACE,
            "{traceparent}: a trace of its own"
        );
        assert!(span.parent_span_id.is_empty(), "{traceparent}: no parent");
    }
}

#[test]
fn a_call_span_is_named_after_its_method_and_tool_with_the_conventions_attributes() {
    let recording = Recording::new();
    let operation = call("calculator.add").with_session_id(Some("s-1"));
    let before = super::clock::unix_nanos();
    let span = recording.server_span(&operation, None, Outcome::Success);
    let after = super::clock::unix_nanos();
    assert_eq!(span.name, "tools/call calculator.add");
    assert_eq!(span.kind, span::SpanKind::Server as i32);
    for (key, value) in [
        ("mcp.method.name", "tools/call"),
        ("gen_ai.tool.name", "calculator.add"),
        ("gen_ai.operation.name", "execute_tool"),
        ("mcp.protocol.version", "2025-11-25"),
        ("mcp.session.id", "s-1"),
        ("jsonrpc.request.id", "7"),
        ("network.transport", "pipe"),
    ] {
        assert_eq!(attribute(&span, key), Some(value), "{key}");
    }
    assert_eq!(attribute(&span, "error.type"), None);
    assert!(!in_error(&span));
    // The wall clock, read from the monotonic one, may be off by the time between the two
    // clocks' reads: well under a millisecond.
    let slack = 1_000_000;
    assert!(
        before <= span.start_time_unix_nano + slack
            && span.start_time_unix_nano <= span.end_time_unix_nano
            && span.end_time_unix_nano <= after + slack,
        "{before} ≤ {} ≤ {} ≤ {after}",
        span.start_time_unix_nano,
        span.end_time_unix_nano
    );
}

#[test]
fn prompts_are_named_in_the_span_and_resources_only_in_an_attribute() {
    let recording = Recording::new();
    let prompt =
        Operation::new("prompts/get", Transport::Tcp).with_target(Target::Prompt("review"));
    let span = recording.server_span(&prompt, None, Outcome::Success);
    assert_eq!(span.name, "prompts/get review");
    assert_eq!(attribute(&span, "gen_ai.prompt.name"), Some("review"));
    assert_eq!(attribute(&span, "network.transport"), Some("tcp"));

    let read = Operation::new("resources/read", Transport::Tcp)
        .with_target(Target::Resource("file:///notes/1"));
    let span = recording.server_span(&read, None, Outcome::Success);
    assert_eq!(span.name, "resources/read");
    assert_eq!(
        attribute(&span, "mcp.resource.uri"),
        Some("file:///notes/1")
    );
    assert_eq!(attribute(&span, "mcp.session.id"), None);
}

#[test]
fn a_failure_sets_error_type_and_the_error_status() {
    let recording = Recording::new();
    for (outcome, error_type) in [
        (Outcome::RpcError(-32602), "-32602"),
        (Outcome::ToolError, "tool_error"),
        (Outcome::Cancelled, "cancelled"),
    ] {
        let span = recording.server_span(&call("calculator.add"), None, outcome);
        assert_eq!(
            attribute(&span, "error.type"),
            Some(error_type),
            "{outcome:?}"
        );
        let code = (error_type == "-32602").then_some("-32602");
        assert_eq!(
            attribute(&span, "rpc.response.status_code"),
            code,
            "{outcome:?}"
        );
        assert!(in_error(&span), "{outcome:?}: {:?}", span.status);
        // The attributes the span began with are kept beside those its end added.
        assert_eq!(attribute(&span, "gen_ai.tool.name"), Some("calculator.add"));
    }
}

#[test]
fn an_operation_dropped_unended_is_recorded_as_cancelled() {
    let recording = Recording::new();
    drop(recording.telemetry.server_operation(&call("slow"), None));
    let spans = recording.finished();
    assert_eq!(spans.len(), 1);
    assert_eq!(attribute(&spans[0], "error.type"), Some("cancelled"));
}

#[test]
fn a_client_injects_the_context_a_server_continues() {
    let recording = Recording::new();
    let client = recording
        .telemetry
        .client_operation(&call("calculator.add"));
    let mut meta = Map::new();
    client.inject(&mut meta);
    let traceparent = meta
        .get("traceparent")
        .and_then(Value::as_str)
        .expect("a traceparent injected")
        .to_owned();
    client.end(Outcome::Success);
    let client_span = recording.finished().remove(0);
    assert_eq!(client_span.kind, span::SpanKind::Client as i32);
    assert_eq!(
        traceparent,
        format!(
            "00-{}-{}-01",
            hex(&client_span.trace_id),
            hex(&client_span.span_id)
        )
    );
    let server = recording.server_span(&call("calculator.add"), Some(&meta), Outcome::Success);
    assert_eq!(server.trace_id, client_span.trace_id);
    assert_eq!(server.parent_span_id, client_span.span_id);
}

#[test]
fn a_trace_its_caller_did_not_sample_is_continued_unrecorded() {
    let recording = Recording::new();
    let meta = meta(&[("traceparent", json!(format!("00-{TRACE}-{PARENT}-00")))]);
    let server = recording
        .telemetry
        .server_operation(&call("calculator.add"), Some(&meta));
    server.end(Outcome::Success);
    assert!(recording.finished().is_empty(), "not sampled, not exported");
}

#[test]
fn a_span_after_one_with_more_attributes_has_only_its_own() {
    let recording = Recording::new();
    let busy = call("calculator.add").with_session_id(Some("s-1"));
    let _ = recording.server_span(&busy, None, Outcome::RpcError(-32602));
    let ping = recording.server_span(
        &Operation::new("ping", Transport::Tcp),
        None,
        Outcome::Success,
    );
    let keys: Vec<_> = ping.attributes.iter().map(|kv| kv.key.as_str()).collect();
    assert_eq!(keys, ["mcp.method.name", "network.transport"]);
    assert_eq!(ping.name, "ping");
    assert!(ping.parent_span_id.is_empty());
    assert!(!in_error(&ping));
}

#[test]
fn spans_past_the_queue_bound_are_dropped_and_counted() {
    let recording = Recording::bounded(Bounds { queue: 2, batch: 2 });
    for _ in 0..3 {
        recording
            .telemetry
            .server_operation(&call("calculator.add"), None)
            .end(Outcome::Success);
    }
    let batch = recording.queue.next_batch(Duration::ZERO);
    assert_eq!((batch.spans, batch.dropped), (2, 1));
    assert_eq!(recording.finished().len(), 0, "the batch took them all");
}

#[test]
fn a_batch_holds_at_most_the_batch_size_and_the_rest_waits_for_the_next() {
    let recording = Recording::bounded(Bounds {
        queue: 16,
        batch: 3,
    });
    let tools = ["t.a", "t.b", "t.c", "t.d", "t.e", "t.f", "t.g"];
    for tool in tools {
        recording
            .telemetry
            .server_operation(&call(tool), None)
            .end(Outcome::Success);
    }
    recording.queue.stop();
    let (mut sizes, mut names) = (Vec::new(), Vec::new());
    loop {
        let (spans, last) = recording.next_batch();
        sizes.push(spans.len());
        names.extend(spans.into_iter().map(|span| span.name));
        if last {
            break;
        }
        assert!(sizes.len() < 10, "no batch was the last: {sizes:?}");
    }
    let expected: Vec<String> = tools
        .iter()
        .map(|tool| format!("tools/call {tool}"))
        .collect();
    assert_eq!(names, expected, "every span, once, in the order they ended");
    assert_eq!(
        sizes,
        [3, 3, 1],
        "batches of three, the last one holding the rest"
    );
}

/// The data points of the metric `name` in `request`, with their string attributes.
fn points(
    request: &ExportMetricsServiceRequest,
    name: &str,
) -> Vec<(Vec<(String, String)>, metric::Data)> {
    let metrics = &request.resource_metrics[0].scope_metrics[0].metrics;
    let Some(found) = metrics.iter().find(|metric| metric.name == name) else {
        return Vec::new();
    };
    let attributes = |list: &[KeyValue]| -> Vec<(String, String)> {
        list.iter()
            .map(|kv| {
                let value = match kv.value.as_ref().and_then(|value| value.value.as_ref()) {
                    Some(any_value::Value::StringValue(text)) => text.clone(),
                    other => format!("{other:?}"),
                };
                (kv.key.clone(), value)
            })
            .collect()
    };
    match found.data.as_ref().expect("data") {
        metric::Data::Histogram(histogram) => histogram
            .data_points
            .iter()
            .map(|point| {
                let one = Histogram {
                    data_points: vec![point.clone()],
                    ..*histogram
                };
                (attributes(&point.attributes), metric::Data::Histogram(one))
            })
            .collect(),
        metric::Data::Sum(sum) => sum
            .data_points
            .iter()
            .map(|point| {
                let one = Sum {
                    data_points: vec![point.clone()],
                    ..*sum
                };
                (attributes(&point.attributes), metric::Data::Sum(one))
            })
            .collect(),
        other => panic!("{name}: {other:?}"),
    }
}

fn pair(key: &str, value: &str) -> (String, String) {
    (key.to_owned(), value.to_owned())
}

/// How many `tools/call` operations of `tool` ended, by the duration histograms of `recording`.
fn calls_counted(recording: &Recording, tool: &str) -> u64 {
    let request = recording
        .metrics
        .request(&Resource::default(), &InstrumentationScope::default());
    points(&request, "mcp.server.operation.duration")
        .iter()
        .filter(|(attributes, _)| attributes.contains(&pair("gen_ai.tool.name", tool)))
        .map(|(_, data)| match data {
            metric::Data::Histogram(histogram) => histogram.data_points[0].count,
            _ => panic!("{data:?}"),
        })
        .sum()
}

#[test]
fn each_recorder_counts_its_own_operations_on_a_thread_that_serves_two() {
    let (first, second) = (Recording::new(), Recording::new());
    for (recording, tool) in [
        (&first, "calculator.add"),
        (&second, "calculator.add"),
        (&first, "calculator.add"),
        (&first, "calculator.sub"),
        (&first, "calculator.add"),
    ] {
        let _ = recording.server_span(&call(tool), None, Outcome::Success);
    }
    assert_eq!(calls_counted(&first, "calculator.add"), 3);
    assert_eq!(calls_counted(&first, "calculator.sub"), 1);
    assert_eq!(calls_counted(&second, "calculator.add"), 1);
    assert_eq!(calls_counted(&second, "calculator.sub"), 0);
}

#[test]
fn the_metrics_count_durations_by_labels_and_error_in_flight_calls_and_refusals() {
    let recording = Recording::new();
    for outcome in [Outcome::Success, Outcome::Success, Outcome::ToolError] {
        let _ = recording.server_span(&call("calculator.add"), None, outcome);
    }
    let waiting = recording.telemetry.server_operation(&call("slow"), None);
    recording.telemetry.refused("rate_limit", "calculator.add");
    recording.telemetry.refused("rate_limit", "calculator.add");
    let request = recording
        .metrics
        .request(&Resource::default(), &InstrumentationScope::default());
    let durations = points(&request, "mcp.server.operation.duration");
    let succeeded = vec![
        pair("mcp.method.name", "tools/call"),
        pair("gen_ai.tool.name", "calculator.add"),
        pair("gen_ai.operation.name", "execute_tool"),
        pair("mcp.protocol.version", "2025-11-25"),
        pair("network.transport", "pipe"),
    ];
    let mut failed = succeeded.clone();
    failed.push(pair("error.type", "tool_error"));
    for (attributes, count) in [(succeeded, 2), (failed, 1)] {
        let (_, data) = durations
            .iter()
            .find(|(of, _)| *of == attributes)
            .unwrap_or_else(|| panic!("{attributes:?} in {durations:?}"));
        let metric::Data::Histogram(histogram) = data else {
            panic!("{data:?}")
        };
        let point = &histogram.data_points[0];
        assert_eq!(point.count, count);
        assert_eq!(point.bucket_counts.iter().sum::<u64>(), count);
        assert_eq!(point.explicit_bounds.len() + 1, point.bucket_counts.len());
        assert!(point.time_unix_nano >= point.start_time_unix_nano);
        assert_eq!(
            histogram.aggregation_temporality,
            AggregationTemporality::Cumulative as i32
        );
    }
    let in_flight = points(&request, "mcp.server.operations.in_flight");
    let count = |tool: &str| {
        in_flight.iter().find_map(|(attributes, data)| match data {
            metric::Data::Sum(sum) if attributes.contains(&pair("gen_ai.tool.name", tool)) => {
                sum.data_points[0].value
            }
            _ => None,
        })
    };
    assert_eq!(count("slow"), Some(number_data_point::Value::AsInt(1)));
    assert_eq!(
        count("calculator.add"),
        Some(number_data_point::Value::AsInt(0))
    );
    let refusals = points(&request, "mcp.server.refusals");
    assert_eq!(refusals.len(), 1, "{refusals:?}");
    let metric::Data::Sum(sum) = &refusals[0].1 else {
        panic!("{refusals:?}")
    };
    assert!(sum.is_monotonic);
    assert_eq!(
        sum.data_points[0].value,
        Some(number_data_point::Value::AsInt(2))
    );
    assert!(points(&request, "mcp.client.operation.duration").is_empty());
    drop(waiting);
}

#[test]
fn label_sets_past_the_bound_are_counted_together_as_overflow() {
    let recording = Recording::new();
    let names: Vec<String> = (0..2001).map(|index| format!("tool{index}")).collect();
    for name in &names {
        recording
            .telemetry
            .server_operation(&call(name), None)
            .end(Outcome::Success);
    }
    let spans = recording.finished();
    assert_eq!(
        spans.last().map(|span| span.name.as_str()),
        Some("tools/call tool2000")
    );
    let request = recording
        .metrics
        .request(&Resource::default(), &InstrumentationScope::default());
    let durations = points(&request, "mcp.server.operation.duration");
    assert_eq!(durations.len(), 2001);
    let overflow = durations
        .iter()
        .find(|(attributes, _)| {
            attributes
                .iter()
                .any(|(key, _)| key == "otel.metric.overflow")
        })
        .expect("an overflow point");
    let metric::Data::Histogram(histogram) = &overflow.1 else {
        panic!("{overflow:?}")
    };
    assert_eq!(histogram.data_points[0].count, 1);
}

#[test]
fn outcomes_are_read_from_responses() {
    for (response, outcome) in [
        (
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#,
            Outcome::Success,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":false}}"#,
            Outcome::Success,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":true}}"#,
            Outcome::ToolError,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"no"}}"#,
            Outcome::RpcError(-32601),
        ),
        ("not json", Outcome::Failed("_OTHER")),
    ] {
        assert_eq!(Outcome::of_response(response), outcome, "{response}");
    }
}

#[cfg(feature = "http")]
#[test]
fn the_prometheus_text_holds_the_duration_histogram_by_method_tool_and_error() {
    let recording = Recording::new();
    let _ = recording.server_span(&call("calculator.add"), None, Outcome::ToolError);
    let text = recording
        .telemetry
        .prometheus_text()
        .expect("prometheus on");
    assert!(
        text.contains("# TYPE mcp_server_operation_duration_seconds histogram"),
        "{text}"
    );
    let count = text
        .lines()
        .find(|line| line.starts_with("mcp_server_operation_duration_seconds_count{"))
        .expect("a count line");
    for label in [
        r#"mcp_method_name="tools/call""#,
        r#"gen_ai_tool_name="calculator.add""#,
        r#"error_type="tool_error""#,
        r#"network_transport="pipe""#,
    ] {
        assert!(count.contains(label), "{label} in {count}");
    }
    assert!(count.ends_with(" 1"), "{count}");
    assert!(
        text.lines().any(
            |line| line.starts_with("mcp_server_operations_in_flight{") && line.ends_with(" 0")
        ),
        "{text}"
    );
    recording.telemetry.refused("rate_limit", "calculator.add");
    let text = recording
        .telemetry
        .prometheus_text()
        .expect("prometheus on");
    assert!(
        text.contains(
            r#"mcp_server_refusals_total{mcp_layer="rate_limit",gen_ai_tool_name="calculator.add"} 1"#
        ),
        "{text}"
    );
}

#[test]
fn nothing_is_recorded_while_telemetry_is_off() {
    // No test of this crate installs telemetry: the process-wide switch stays off.
    assert!(!super::enabled());
    assert!(super::server_operation(&call("calculator.add"), None).is_none());
    assert!(super::client_operation(&call("calculator.add")).is_none());
    super::refused("rate_limit", "calculator.add");
}
