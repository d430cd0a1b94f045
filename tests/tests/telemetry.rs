//! Telemetry over a real connection: the quickstart served with `serve --http --metrics`,
//! its tools called, and its metrics read back from `GET /metrics` in the Prometheus text
//! format, by method, tool and outcome.

use mcp_tests::{HttpServer, quickstart_bin};
use serde_json::{Value, json};

/// `POST /mcp` of one JSON-RPC request: the response's body, read as JSON.
async fn post(client: &reqwest::Client, served: &HttpServer, request: &Value) -> Value {
    client
        .post(served.url())
        .header("accept", "application/json, text/event-stream")
        .json(request)
        .send()
        .await
        .expect("the server answers")
        .json()
        .await
        .expect("a JSON answer")
}

/// `GET` of `path` on `served`: its status, content type and body.
async fn get(client: &reqwest::Client, served: &HttpServer, path: &str) -> (u16, String, String) {
    let response = client
        .get(format!("http://{}{path}", served.address))
        .send()
        .await
        .expect("the server answers");
    let status = response.status().as_u16();
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    (status, content_type, response.text().await.expect("a body"))
}

/// The value of the one line of `text` that starts with `series`, holds every label of
/// `labels`, and is of a call that succeeded (no `error_type`) when `succeeded`.
fn sample(text: &str, series: &str, labels: &[&str], succeeded: bool) -> f64 {
    let lines: Vec<&str> = text
        .lines()
        .filter(|line| line.starts_with(&format!("{series}{{")))
        .filter(|line| labels.iter().all(|label| line.contains(label)))
        .filter(|line| !succeeded || !line.contains("error_type="))
        .collect();
    assert_eq!(lines.len(), 1, "one `{series}` with {labels:?} in:\n{text}");
    let (_, value) = lines[0].rsplit_once(' ').expect("a value");
    value.parse().expect("a number")
}

fn call(id: u64, a: i64, b: i64) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": "tools/call",
        "params": { "name": "calculator.add", "arguments": { "a": a, "b": b } },
    })
}

#[tokio::test]
async fn metrics_count_each_call_by_method_tool_and_outcome() {
    let served = HttpServer::spawn(quickstart_bin(), &["--metrics"]);
    let client = reqwest::Client::new();
    for id in 1..=2 {
        let answer = post(&client, &served, &call(id, 2, 40)).await;
        assert_eq!(answer["result"]["structuredContent"]["sum"], 42, "{answer}");
    }
    let overflow = post(&client, &served, &call(3, i64::MAX, 1)).await;
    assert_eq!(overflow["result"]["isError"], true, "{overflow}");
    let listed = post(
        &client,
        &served,
        &json!({ "jsonrpc": "2.0", "id": 4, "method": "tools/list" }),
    )
    .await;
    assert!(listed["result"]["tools"].is_array(), "{listed}");

    let (status, content_type, text) = get(&client, &served, "/metrics").await;
    assert_eq!(status, 200, "{text}");
    assert!(content_type.starts_with("text/plain"), "{content_type}");
    assert!(
        text.contains("# TYPE mcp_server_operation_duration_seconds histogram"),
        "{text}"
    );
    let add = [
        r#"mcp_method_name="tools/call""#,
        r#"gen_ai_tool_name="calculator.add""#,
        r#"network_transport="tcp""#,
    ];
    let count = "mcp_server_operation_duration_seconds_count";
    assert_eq!(sample(&text, count, &add, true), 2.0, "{text}");
    let overflowed = [add.as_slice(), &[r#"error_type="tool_error""#]].concat();
    assert_eq!(sample(&text, count, &overflowed, false), 1.0, "{text}");
    let in_bounds = [overflowed.as_slice(), &[r#"le="+Inf""#]].concat();
    let bucket = "mcp_server_operation_duration_seconds_bucket";
    assert_eq!(sample(&text, bucket, &in_bounds, false), 1.0, "{text}");
    let listings = [r#"mcp_method_name="tools/list""#];
    assert_eq!(sample(&text, count, &listings, true), 1.0, "{text}");
    let in_flight = sample(&text, "mcp_server_operations_in_flight", &add, true);
    assert_eq!(in_flight, 0.0, "{text}");
}

#[tokio::test]
async fn metrics_are_served_at_the_path_given_and_only_when_asked_for() {
    let client = reqwest::Client::new();
    let elsewhere = HttpServer::spawn(quickstart_bin(), &["--metrics", "/internal/metrics"]);
    let (status, _, text) = get(&client, &elsewhere, "/internal/metrics").await;
    assert_eq!(status, 200, "{text}");
    assert!(text.ends_with("# EOF\n"), "{text}");
    let (status, _, _) = get(&client, &elsewhere, "/metrics").await;
    assert_eq!(status, 404);

    let plain = HttpServer::spawn(quickstart_bin(), &[]);
    let (status, _, _) = get(&client, &plain, "/metrics").await;
    assert_eq!(status, 404, "no metrics without --metrics");
}

#[test]
fn a_metrics_path_that_cannot_be_routed_is_a_usage_error() {
    for path in ["metrics", "/mcp", "/{name}"] {
        let output = std::process::Command::new(quickstart_bin())
            .args(["serve", "--http", "127.0.0.1:0", "--metrics", path])
            .output()
            .expect("the quickstart runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{path}: {stderr}");
        assert!(stderr.contains(path), "{path}: {stderr}");
    }
}
