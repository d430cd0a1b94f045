//! The client over stdio against real processes: the quickstart, at 2026-07-28 and at the
//! handshake's revision, and a server that misbehaves on purpose (`hostile-server`), each
//! misbehaviour a typed error for the caller, in well under the request's timeout.

use std::time::{Duration, Instant};

use mcp_runtime::MCPToolCall;
use mcp_runtime::client::{Client, ClientError, StdioServer};
use mcp_tests::quickstart_bin;
use serde_json::json;

fn quickstart() -> StdioServer {
    StdioServer::new(quickstart_bin().to_string_lossy()).args(["serve", "--stdio"])
}

#[tokio::test(flavor = "multi_thread")]
async fn calls_the_quickstart_over_stdio_at_either_revision() {
    for handshake in [false, true] {
        let mut builder = Client::builder().info("client-test", "1.0");
        if handshake {
            builder = builder.handshake_only();
        }
        let client = builder.stdio(quickstart()).await.expect("connects");
        let version = client.server().protocol_version.clone();
        assert_eq!(
            version,
            if handshake {
                "2025-11-25"
            } else {
                "2026-07-28"
            }
        );
        assert_eq!(
            client.server().info,
            Some(json!({ "name": "quickstart", "version": quickstart_version() })),
            "{version}: serverInfo names the application, not the framework"
        );
        let tools = client.list_tools().await.expect("listed");
        assert!(
            tools.iter().any(|tool| tool.name == "calculator.add"),
            "{version}: {tools:?}"
        );
        let call = MCPToolCall::new("calculator.add", json!({ "a": 2, "b": 3 })).unwrap();
        let sum = client.call(&call).await.expect("answered");
        assert!(sum.is_success(), "{version}: {sum}");
        let data = sum.data().expect("data");
        assert!(
            data.values()
                .any(|value| value == &json!(5) || value == &json!(5.0)),
            "{version}: {sum}"
        );
        let missing = client
            .call_tool("calculator.nope", json!({}))
            .await
            .expect_err("no such tool");
        assert!(
            matches!(&missing, ClientError::Rpc(error) if error.message.contains("calculator.nope")),
            "{version}: {missing}"
        );
    }
}

/// The version in the quickstart's `Cargo.toml`.
fn quickstart_version() -> String {
    let manifest = include_str!("../../examples/quickstart/Cargo.toml");
    let line = manifest
        .lines()
        .find(|line| line.starts_with("version = "))
        .expect("the quickstart's manifest has a version");
    line.trim_start_matches("version = ")
        .trim_matches('"')
        .to_owned()
}

#[test]
fn the_quickstart_reports_its_own_version() {
    let output = std::process::Command::new(quickstart_bin())
        .arg("--version")
        .output()
        .expect("runs");
    assert!(output.status.success(), "{output:?}");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).trim(),
        format!("quickstart {}", quickstart_version())
    );
}

fn hostile(mode: &str) -> StdioServer {
    StdioServer::new(env!("CARGO_BIN_EXE_hostile-server")).args([mode])
}

/// Calls `poke` on a hostile server in `mode`: the error, and how long it took.
async fn poke(mode: &str) -> (ClientError, Duration) {
    let client = Client::builder()
        .timeout(Duration::from_secs(2))
        .stdio(hostile(mode))
        .await
        .expect("the handshake is proper");
    assert_eq!(client.server().protocol_version, "2025-11-25");
    let started = Instant::now();
    let err = client
        .call_tool("poke", json!({}))
        .await
        .expect_err("misbehaves");
    (err, started.elapsed())
}

#[tokio::test(flavor = "multi_thread")]
async fn a_response_with_neither_result_nor_error_is_malformed() {
    let (err, took) = poke("malformed").await;
    assert!(
        matches!(&err, ClientError::Malformed(reason) if reason.contains("neither")),
        "{err}"
    );
    assert!(took < Duration::from_secs(1), "{took:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_result_that_is_not_an_object_is_malformed() {
    let (err, _) = poke("not-object").await;
    assert!(
        matches!(&err, ClientError::Malformed(reason) if reason.contains("not an object")),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_oversized_message_ends_the_connection_with_a_clear_error() {
    let (err, _) = poke("oversized").await;
    assert!(
        matches!(&err, ClientError::Malformed(reason) if reason.contains("bytes")),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_response_to_nothing_is_ignored_and_the_call_times_out() {
    let (err, took) = poke("wrong-id").await;
    assert!(matches!(err, ClientError::Timeout { .. }), "{err}");
    assert!(took < Duration::from_secs(4), "{took:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_server_that_dies_mid_call_ends_it_with_its_last_words() {
    let (err, took) = poke("die").await;
    let ClientError::Closed(reason) = &err else {
        panic!("closed: {err}");
    };
    assert!(reason.contains("exit status: 3"), "{reason}");
    assert!(reason.contains("giving up on purpose"), "{reason}");
    assert!(took < Duration::from_secs(1), "{took:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_silent_server_is_cut_off_by_the_timeout() {
    let (err, took) = poke("silent").await;
    assert!(matches!(err, ClientError::Timeout { .. }), "{err}");
    assert!(
        took >= Duration::from_secs(2) && took < Duration::from_secs(4),
        "{took:?}"
    );
}

/// Many calls at once, some longer than a pipe takes in one write, some shorter: the short
/// ones are written by their callers when they overtake nothing, the rest by the writer
/// task. Every answer is the answer to its own call, whole: against a quick server, and
/// against a slow one whose input pipe stays full.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn calls_written_at_once_and_queued_arrive_whole() {
    let fixture = StdioServer::new(env!("CARGO_BIN_EXE_fixture-server")).args(["serve", "--stdio"]);
    for (server, tool) in [(fixture, "fixture.echo"), (hostile("slow-echo"), "poke")] {
        let client = Client::builder()
            .timeout(Duration::from_secs(10))
            .stdio(server)
            .await
            .expect("connects");
        let texts: Vec<String> = (0..400)
            .map(|i| {
                let length = if i % 3 == 0 { 6000 } else { 40 + i % 200 };
                format!("{i:04}-{}", "é".repeat(length / 2))
            })
            .collect();
        let calls = texts.iter().map(|text| {
            let client = &client;
            async move { (text, client.call_tool(tool, json!({ "text": text })).await) }
        });
        for (text, answer) in futures_util::future::join_all(calls).await {
            let answer = answer.unwrap_or_else(|err| panic!("{tool}, {}: {err}", &text[..4]));
            let data = answer.data().expect("data");
            assert!(
                data.values().any(|value| value == &json!(text)),
                "{tool}, {}: another answer",
                &text[..4]
            );
        }
    }
}

/// A server that stops reading its input: its pipe fills, and no call waits for room past
/// its timeout, nor stalls the thread it runs on. On a runtime of one thread, a write that
/// waited would stall every call: the watchdog then fails the test instead of hanging it.
#[test]
fn a_server_that_stops_reading_stalls_no_call_and_no_thread() {
    let (finished, watchdog) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let outcome = runtime.block_on(async {
            let client = Client::builder()
                .timeout(Duration::from_secs(1))
                .stdio(hostile("deaf"))
                .await
                .expect("the handshake is proper");
            // 200 calls of 3 KB: more than the pipe and the writer's queue hold.
            let padding = "x".repeat(3 * 1024);
            let started = Instant::now();
            let calls = (0..200).map(|_| client.call_tool("poke", json!({ "pad": padding })));
            let outcomes = futures_util::future::join_all(calls).await;
            (outcomes, started.elapsed())
        });
        let _ = finished.send(outcome);
    });
    let (outcomes, took) = watchdog
        .recv_timeout(Duration::from_secs(20))
        .expect("the calls ended: nothing waited on the full pipe");
    for outcome in &outcomes {
        assert!(
            matches!(outcome, Err(ClientError::Timeout { .. })),
            "{outcome:?}"
        );
    }
    assert!(took < Duration::from_secs(5), "{took:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_program_that_cannot_start_is_a_connect_error() {
    let err = Client::builder()
        .stdio(StdioServer::new("/nonexistent/mcp-server"))
        .await
        .expect_err("no such program");
    assert!(
        matches!(&err, ClientError::Connect(reason) if reason.contains("/nonexistent/mcp-server")),
        "{err}"
    );
}
