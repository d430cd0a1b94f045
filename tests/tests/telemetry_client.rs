//! The client's side of telemetry: with telemetry on, each request the client sends is
//! counted in `mcp.client.operation.duration` (`mcp_client_operation_duration_seconds` in
//! the Prometheus text), with the conventions' attributes, and `error.type` where it failed.
//! (The trace context the client writes into `params._meta` is checked across processes by
//! tests/python/otel, where the servers export their spans over OTLP.)
//!
//! Telemetry is installed once per process: this file is one test binary, and one test.

use mcp_runtime::client::Client;
use mcp_runtime::server::Server;
use mcp_runtime::telemetry::{self, Config};
use mcp_runtime::{Registry, ToolDefinition, ToolError};
use serde_json::json;

/// A registry with `probe.ok`, which answers, and `probe.fail`, which fails.
fn probes() -> Registry {
    let mut registry = Registry::builder().build().expect("empty");
    let schema = schemars::json_schema!({ "type": "object" });
    registry
        .register(
            ToolDefinition::new("probe.ok", schema.clone()).expect("a definition"),
            |_, _| async { Ok::<_, ToolError>(json!("fine")) },
        )
        .expect("registered");
    registry
        .register(
            ToolDefinition::new("probe.fail", schema).expect("a definition"),
            |_, _| async { Err::<serde_json::Value, _>(ToolError::execution("it broke")) },
        )
        .expect("registered");
    registry
}

/// The count of the client histogram's series whose labels include all of `labels`, and
/// `error_type` only when one of them names it.
fn client_count(text: &str, labels: &[&str]) -> Option<u64> {
    let wants_error = labels.iter().any(|label| label.starts_with("error_type="));
    let mut series = text
        .lines()
        .filter_map(|line| line.strip_prefix("mcp_client_operation_duration_seconds_count{"))
        .filter(|line| labels.iter().all(|label| line.contains(label)))
        .filter(|line| wants_error || !line.contains("error_type="));
    let line = series.next()?;
    assert!(
        series.next().is_none(),
        "more than one series matches {labels:?}:\n{text}"
    );
    line.rsplit(' ').next()?.parse().ok()
}

#[tokio::test(flavor = "multi_thread")]
async fn each_request_of_the_client_is_counted_in_the_client_duration_histogram() {
    let installed = telemetry::install(&Config::new().with_prometheus(true)).expect("installed");
    let client = Client::builder()
        .in_memory(Server::new(probes()))
        .await
        .expect("connects");
    for _ in 0..3 {
        let result = client
            .call_tool("probe.ok", json!({}))
            .await
            .expect("answered");
        assert!(result.is_success(), "{result}");
    }
    let failed = client
        .call_tool("probe.fail", json!({}))
        .await
        .expect("answered");
    assert!(!failed.is_success(), "{failed}");

    let text = telemetry::prometheus_text().expect("the Prometheus text, telemetry being on");
    let ok = [
        "mcp_method_name=\"tools/call\"",
        "gen_ai_tool_name=\"probe.ok\"",
        "network_transport=\"pipe\"",
    ];
    assert_eq!(client_count(&text, &ok), Some(3), "{text}");
    let fail = [
        "mcp_method_name=\"tools/call\"",
        "gen_ai_tool_name=\"probe.fail\"",
        "error_type=\"tool_error\"",
    ];
    assert_eq!(client_count(&text, &fail), Some(1), "{text}");
    // The handshake is a request too, counted under its method.
    let handshake = client_count(&text, &["mcp_method_name=\"initialize\""])
        .or_else(|| client_count(&text, &["mcp_method_name=\"server/discover\""]));
    assert!(handshake.is_some_and(|count| count >= 1), "{text}");
    installed.shutdown();
}
