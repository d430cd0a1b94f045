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
