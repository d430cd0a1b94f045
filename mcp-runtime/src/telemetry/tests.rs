//! The trace context read from `params._meta`, and the spans' names and attributes, read
//! back from spans kept in memory.

use opentelemetry::Value as OtelValue;
use opentelemetry::trace::{SpanId, SpanKind, Status, TraceId};
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use serde_json::{Map, Value, json};

use super::record::Telemetry;
use super::trace::Otel;
use super::{Operation, Outcome, Target, Transport};

const TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT: &str = "00f067aa0ba902b7";

/// Telemetry recording into memory: its spans, read back from `exporter`.
struct Recording {
    telemetry: &'static Telemetry,
    exporter: InMemorySpanExporter,
}

impl Recording {
    fn new() -> Self {
        let exporter = InMemorySpanExporter::default();
        let tracers = SdkTracerProvider::builder()
            .with_simple_exporter(exporter.clone())
            .build();
        let meters = SdkMeterProvider::default();
        let otel = Otel::new(
            opentelemetry::trace::TracerProvider::tracer(&tracers, "test"),
            &opentelemetry::metrics::MeterProvider::meter(&meters, "test"),
        );
        let telemetry = Telemetry {
            #[cfg(feature = "http")]
            prometheus: Some(super::prometheus::Metrics::new()),
            otel: Some(otel),
        };
        Self {
            telemetry: Box::leak(Box::new(telemetry)),
            exporter,
        }
    }

    /// The one span a server operation with `meta` made, ended with `outcome`.
    fn server_span(
        &self,
        operation: &Operation<'_>,
        meta: Option<&Map<String, Value>>,
        outcome: Outcome,
    ) -> SpanData {
        self.telemetry
            .server_operation(operation, meta)
            .end(outcome);
        let mut spans = self.exporter.get_finished_spans().expect("spans kept");
        assert_eq!(spans.len(), 1, "one span per operation");
        self.exporter.reset();
        spans.remove(0)
    }
}

fn meta(entries: &[(&str, Value)]) -> Map<String, Value> {
    entries
        .iter()
        .map(|(key, value)| ((*key).to_owned(), value.clone()))
        .collect()
}

fn attribute(span: &SpanData, key: &str) -> Option<OtelValue> {
    span.attributes
        .iter()
        .find(|attribute| attribute.key.as_str() == key)
        .map(|attribute| attribute.value.clone())
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
    assert_eq!(
        span.span_context.trace_id(),
        TraceId::from_hex(TRACE).expect("hex")
    );
    assert_eq!(span.parent_span_id, SpanId::from_hex(PARENT).expect("hex"));
    assert_eq!(
        span.span_context.trace_state().get("rojo"),
        Some("00f067aa0ba902b7")
    );
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
            span.span_context.is_valid(),
            "{traceparent}: a span all the same"
        );
        assert_ne!(
            span.span_context.trace_id(),
            TraceId::from_hex(TRACE).expect("hex"),
            "{traceparent}: a trace of its own"
        );
        assert_eq!(
            span.parent_span_id,
            SpanId::INVALID,
            "{traceparent}: no parent"
        );
    }
}

#[test]
fn a_call_span_is_named_after_its_method_and_tool_with_the_conventions_attributes() {
    let recording = Recording::new();
    let operation = call("calculator.add").with_session_id(Some("s-1"));
    let span = recording.server_span(&operation, None, Outcome::Success);
    assert_eq!(span.name, "tools/call calculator.add");
    assert_eq!(span.span_kind, SpanKind::Server);
    for (key, value) in [
        ("mcp.method.name", "tools/call"),
        ("gen_ai.tool.name", "calculator.add"),
        ("gen_ai.operation.name", "execute_tool"),
        ("mcp.protocol.version", "2025-11-25"),
        ("mcp.session.id", "s-1"),
        ("jsonrpc.request.id", "7"),
        ("network.transport", "pipe"),
    ] {
        assert_eq!(attribute(&span, key), Some(value.into()), "{key}");
    }
    assert_eq!(attribute(&span, "error.type"), None);
    assert_eq!(span.status, Status::Unset);
}

#[test]
fn prompts_are_named_in_the_span_and_resources_only_in_an_attribute() {
    let recording = Recording::new();
    let prompt =
        Operation::new("prompts/get", Transport::Tcp).with_target(Target::Prompt("review"));
    let span = recording.server_span(&prompt, None, Outcome::Success);
    assert_eq!(span.name, "prompts/get review");
    assert_eq!(
        attribute(&span, "gen_ai.prompt.name"),
        Some("review".into())
    );
    assert_eq!(attribute(&span, "network.transport"), Some("tcp".into()));

    let read = Operation::new("resources/read", Transport::Tcp)
        .with_target(Target::Resource("file:///notes/1"));
    let span = recording.server_span(&read, None, Outcome::Success);
    assert_eq!(span.name, "resources/read");
    assert_eq!(
        attribute(&span, "mcp.resource.uri"),
        Some("file:///notes/1".into())
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
            Some(error_type.into()),
            "{outcome:?}"
        );
        assert!(
            matches!(span.status, Status::Error { .. }),
            "{outcome:?}: {:?}",
            span.status
        );
    }
}

#[test]
fn an_operation_dropped_unended_is_recorded_as_cancelled() {
    let recording = Recording::new();
    drop(recording.telemetry.server_operation(&call("slow"), None));
    let spans = recording.exporter.get_finished_spans().expect("spans kept");
    assert_eq!(spans.len(), 1);
    assert_eq!(attribute(&spans[0], "error.type"), Some("cancelled".into()));
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
    let client_span = recording.exporter.get_finished_spans().expect("spans")[0].clone();
    recording.exporter.reset();
    assert_eq!(client_span.span_kind, SpanKind::Client);
    assert_eq!(
        traceparent,
        format!(
            "00-{}-{}-01",
            client_span.span_context.trace_id(),
            client_span.span_context.span_id()
        )
    );
    let server = recording.server_span(&call("calculator.add"), Some(&meta), Outcome::Success);
    assert_eq!(
        server.span_context.trace_id(),
        client_span.span_context.trace_id()
    );
    assert_eq!(server.parent_span_id, client_span.span_context.span_id());
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
