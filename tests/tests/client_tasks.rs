//! The client runs tools as tasks (MCP's tasks extension) against the conformance server as
//! a real process: `tasks.failing_job` runs only as a task, and is run as one without being
//! asked (the server refused it before); `tasks.slow_compute` may run as a task, and does
//! when asked. Over stdio (what the client sent recorded on the way, with `tee`) and over
//! HTTP, at 2026-07-28 and at the handshake's revision; through a gateway too.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_runtime::client::{self, Client, ClientError, HttpServer, RequestOptions, StdioServer};
use mcp_runtime::server::Server;
use mcp_runtime::{Registry, TaskSupport};
use mcp_tests::HttpServer as Served;
use serde_json::{Map, Value, json};

const TASKS: &str = "io.modelcontextprotocol/tasks";

fn conformance_server() -> std::path::PathBuf {
    mcp_tests::workspace_bin("conformance-server", "CONFORMANCE_SERVER_BIN")
}

fn builder(handshake: bool) -> client::ClientBuilder {
    let builder = Client::builder().timeout(Duration::from_secs(20));
    if handshake {
        builder.handshake_only()
    } else {
        builder
    }
}

/// The conformance server over stdio, every message the client sends it written to
/// `record` on the way.
fn recorded_stdio(record: &Path) -> StdioServer {
    let command = format!(
        "tee '{}' | '{}' serve --stdio",
        record.display(),
        conformance_server().display()
    );
    StdioServer::new("sh").args(["-c", command.as_str()])
}

/// A new file to record what a client sends in.
fn record_file() -> std::path::PathBuf {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let next = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    std::env::temp_dir().join(format!("client-tasks-{}-{next}.jsonl", std::process::id()))
}

/// A file that records what a client sends, removed once read.
struct Recorded(std::path::PathBuf);

impl Drop for Recorded {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The messages of `record`, as JSON.
fn sent(record: &Path) -> Vec<Value> {
    std::fs::read_to_string(record)
        .unwrap_or_default()
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect()
}

fn declares_tasks(message: &Value) -> bool {
    message
        .pointer("/params/_meta/io.modelcontextprotocol~1clientCapabilities/extensions")
        .and_then(|extensions| extensions.get(TASKS))
        .is_some()
}

/// The calls and requests of the extension the client sent, as `method tool`.
fn task_traffic(record: &Path) -> Vec<(String, bool)> {
    sent(record)
        .iter()
        .filter_map(|message| {
            let method = message.get("method")?.as_str()?;
            let named = match message.pointer("/params/name").and_then(Value::as_str) {
                Some(name) => format!("{method} {name}"),
                None => method.to_owned(),
            };
            Some((named, declares_tasks(message)))
        })
        .filter(|(named, _)| named.starts_with("tools/call") || named.starts_with("tasks/"))
        .collect()
}

/// Checks what a client got from the required `tasks.failing_job` and the optional
/// `tasks.slow_compute` run as a task.
async fn runs_both(client: &Client, label: &str) {
    let failing = client
        .call_tool("tasks.failing_job", json!({}))
        .await
        .unwrap_or_else(|err| panic!("{label}: the required task tool was refused: {err}"));
    // The tool's own error, as the completed task inlines it: the call ran.
    assert!(!failing.is_success(), "{label}: {failing}");
    assert!(
        failing
            .to_string()
            .contains("the job failed, as it always does")
            || format!("{:?}", failing.error()).contains("the job failed, as it always does"),
        "{label}: {failing:?}"
    );
    let mut arguments = Map::new();
    arguments.insert("seconds".into(), json!(0.2));
    arguments.insert("label".into(), json!(label));
    let computed = client
        .call_tool_with(
            "tasks.slow_compute",
            arguments,
            RequestOptions::default().as_task(),
        )
        .await
        .unwrap_or_else(|err| panic!("{label}: {err}"));
    assert!(computed.is_success(), "{label}: {computed}");
    assert_eq!(computed.data().unwrap()["label"], label, "{label}");
}

#[tokio::test(flavor = "multi_thread")]
async fn over_stdio_a_required_task_tool_runs_as_a_task_and_an_optional_one_when_asked() {
    for handshake in [true, false] {
        let record = record_file();
        let _removed = Recorded(record.clone());
        let client = builder(handshake)
            .stdio(recorded_stdio(&record))
            .await
            .expect("connects");
        let label = format!("stdio, handshake: {handshake}");
        runs_both(&client, &label).await;
        // Not asked, the optional tool runs as any call does.
        let plain = client
            .call_tool(
                "tasks.slow_compute",
                json!({ "seconds": 0, "label": "plain" }),
            )
            .await
            .expect("answered");
        assert!(plain.is_success(), "{label}: {plain}");
        drop(client);

        let traffic = task_traffic(&record);
        let calls: Vec<&(String, bool)> = traffic
            .iter()
            .filter(|(named, _)| named.starts_with("tools/call"))
            .collect();
        // Each call that ran as a task declared the extension, on the call itself; the
        // plain one did not. Not asked to, the client first called the required tool as
        // any other at 2026-07-28 (it had no listing), was refused, and called it again
        // declaring tasks; at the handshake's revision too.
        assert_eq!(
            calls,
            [
                &("tools/call tasks.failing_job".to_owned(), false),
                &("tools/call tasks.failing_job".to_owned(), true),
                &("tools/call tasks.slow_compute".to_owned(), true),
                &("tools/call tasks.slow_compute".to_owned(), false),
            ],
            "{label}: {traffic:?}"
        );
        // Both tasks were polled, each poll declaring the extension.
        let polls: Vec<&(String, bool)> = traffic
            .iter()
            .filter(|(named, _)| named == "tasks/get")
            .collect();
        assert!(polls.len() >= 2, "{label}: {traffic:?}");
        assert!(
            polls.iter().all(|(_, declared)| *declared),
            "{label}: {traffic:?}"
        );
        // The session itself declares no tasks: an optional tool is a task only when asked.
        let initialize = sent(&record)
            .into_iter()
            .find(|message| message["method"] == "initialize");
        if handshake {
            let initialize = initialize.expect("an initialize");
            assert!(
                initialize["params"]["capabilities"]
                    .get("extensions")
                    .is_none(),
                "{initialize}"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_listed_required_task_tool_is_called_as_a_task_at_once() {
    let record = record_file();
    let _removed = Recorded(record.clone());
    let client = builder(true)
        .stdio(recorded_stdio(&record))
        .await
        .expect("connects");
    let tools = client.list_tools().await.expect("listed");
    let support = |name: &str| {
        tools
            .iter()
            .find(|tool| tool.name == name)
            .map(|tool| tool.task_support())
    };
    assert_eq!(support("tasks.failing_job"), Some(TaskSupport::Required));
    assert_eq!(support("tasks.slow_compute"), Some(TaskSupport::Optional));
    let failing = client
        .call_tool("tasks.failing_job", json!({}))
        .await
        .expect("answered");
    assert!(!failing.is_success(), "{failing}");
    drop(client);
    let calls: Vec<(String, bool)> = task_traffic(&record)
        .into_iter()
        .filter(|(named, _)| named.starts_with("tools/call"))
        .collect();
    assert_eq!(
        calls,
        [("tools/call tasks.failing_job".to_owned(), true)],
        "known from the listing, the tool is not called without tasks first"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_task_past_the_calls_timeout_is_cancelled_on_the_server() {
    let record = record_file();
    let _removed = Recorded(record.clone());
    let client = builder(true)
        .stdio(recorded_stdio(&record))
        .await
        .expect("connects");
    let mut arguments = Map::new();
    arguments.insert("seconds".into(), json!(60));
    let options = RequestOptions::default()
        .as_task()
        .timeout(Duration::from_millis(1500));
    let timed_out = client
        .call_tool_with("tasks.slow_compute", arguments, options)
        .await;
    assert!(
        matches!(timed_out, Err(ClientError::Timeout { .. })),
        "{timed_out:?}"
    );
    let task = sent(&record)
        .iter()
        .find_map(|message| {
            (message["method"] == "tasks/get").then(|| message["params"]["taskId"].clone())
        })
        .expect("the task was polled");
    // The cancellation is sent as the call gives up; the server then answers for the task
    // as cancelled.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let cancelled = sent(&record).iter().any(|message| {
            message["method"] == "tasks/cancel" && message["params"]["taskId"] == task
        });
        if cancelled {
            break;
        }
        assert!(Instant::now() < deadline, "no tasks/cancel was sent");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn over_http_a_required_task_tool_runs_as_a_task_and_an_optional_one_when_asked() {
    let served = Served::spawn(conformance_server(), &[]);
    for handshake in [false, true] {
        let client = builder(handshake)
            .http(HttpServer::new(served.url()))
            .await
            .expect("connects");
        runs_both(&client, &format!("HTTP, handshake: {handshake}")).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_mounted_required_task_tool_is_called_through_the_gateway() {
    for handshake in [true, false] {
        let upstream = builder(handshake)
            .stdio(
                StdioServer::new(conformance_server().to_string_lossy()).args(["serve", "--stdio"]),
            )
            .await
            .expect("connects");
        let mut registry = Registry::builder()
            .filter(|_| false)
            .build()
            .expect("an empty registry");
        client::mount(&mut registry, "up", Arc::new(upstream))
            .await
            .expect("mounted");
        let served = Arc::new(Server::new(registry));
        // The caller declares no tasks: the gateway runs the tool as a task upstream.
        let downstream = builder(handshake)
            .in_memory(Arc::clone(&served))
            .await
            .expect("connects");
        let failing = downstream
            .call_tool("up.tasks.failing_job", json!({}))
            .await
            .expect("answered");
        assert!(
            format!("{failing:?}").contains("the job failed, as it always does"),
            "handshake: {handshake}: {failing:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn registry_call_of_a_mounted_task_tool_runs_it_as_a_task_upstream() {
    let upstream = builder(true)
        .stdio(StdioServer::new(conformance_server().to_string_lossy()).args(["serve", "--stdio"]))
        .await
        .expect("connects");
    let mut registry = Registry::builder()
        .filter(|_| false)
        .build()
        .expect("an empty registry");
    client::mount(&mut registry, "up", Arc::new(upstream))
        .await
        .expect("mounted");
    // In the registry, a remote task tool may run as a task: the gateway's client runs it
    // as one upstream, whatever its caller supports.
    let support = |name: &str| {
        registry
            .get(name)
            .map(|tool| tool.definition().task_support())
    };
    assert_eq!(support("up.tasks.failing_job"), Some(TaskSupport::Optional));
    assert_eq!(
        support("up.tasks.slow_compute"),
        Some(TaskSupport::Optional)
    );
    assert_eq!(support("up.test.simple_text"), Some(TaskSupport::Forbidden));

    // Called in process, the required one runs upstream as a task, and is awaited.
    let call = mcp_runtime::MCPToolCall::new("up.tasks.failing_job", json!({})).expect("a call");
    let failing = registry.call(call).await;
    assert!(
        format!("{failing:?}").contains("the job failed, as it always does"),
        "{failing:?}"
    );

    // Served, a caller that supports tasks may ask for one.
    let served = Arc::new(Server::new(registry));
    let downstream = builder(false)
        .in_memory(Arc::clone(&served))
        .await
        .expect("connects");
    let listed = downstream.list_tools().await.expect("listed");
    let mounted = listed
        .iter()
        .find(|tool| tool.name == "up.tasks.slow_compute")
        .expect("listed");
    assert_eq!(mounted.task_support(), TaskSupport::Optional);
    let mut arguments = Map::new();
    arguments.insert("seconds".into(), json!(0.1));
    arguments.insert("label".into(), json!("through"));
    let computed = downstream
        .call_tool_with(
            "up.tasks.slow_compute",
            arguments,
            RequestOptions::default().as_task(),
        )
        .await
        .expect("answered");
    assert_eq!(computed.data().unwrap()["label"], "through", "{computed}");
}
