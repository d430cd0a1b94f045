//! The client over streamable HTTP against the quickstart served as a real process: at
//! 2026-07-28 (each request its own POST, a sampling ask answered over input-required
//! rounds) and at the handshake's revision (a session, the ask a request on the call's
//! event stream, answered with a POST), with a bearer token, and refused without one.

use std::time::Duration;

use mcp_runtime::client::{Client, ClientError, HttpServer};
use mcp_tests::{HttpServer as Served, quickstart_bin};
use serde_json::json;

fn summarizing() -> mcp_runtime::client::ClientBuilder {
    Client::builder()
        .timeout(Duration::from_secs(20))
        .on_sampling(|request| async move {
            let asked = request["messages"][0]["content"]["text"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            Ok(json!({
                "role": "assistant",
                "content": { "type": "text", "text": format!("summary of {} chars", asked.len()) },
                "model": "test-model",
            }))
        })
}

#[tokio::test(flavor = "multi_thread")]
async fn calls_the_quickstart_over_http_at_either_revision() {
    let served = Served::spawn(quickstart_bin(), &["--token", "s3cret"]);
    for handshake in [false, true] {
        let mut builder = summarizing();
        if handshake {
            builder = builder.handshake_only();
        }
        let client = builder
            .http(HttpServer::new(served.url()).bearer("s3cret"))
            .await
            .expect("connects");
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
            tools.iter().any(|tool| tool.name == "text.summarize"),
            "{version}"
        );

        let sum = client
            .call_tool("calculator.add", json!({ "a": 20, "b": 22 }))
            .await
            .expect("answered");
        assert!(sum.is_success(), "{version}: {sum}");

        let summary = client
            .call_tool("text.summarize", json!({ "text": "a long text" }))
            .await
            .expect("answered");
        assert!(
            summary.to_string().contains("summary of"),
            "{version}: the sampled text comes back: {summary}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_missing_token_is_refused_with_the_status() {
    let served = Served::spawn(quickstart_bin(), &["--token", "s3cret"]);
    for handshake in [false, true] {
        let mut builder = Client::builder();
        if handshake {
            builder = builder.handshake_only();
        }
        let err = builder
            .http(HttpServer::new(served.url()))
            .await
            .expect_err("refused");
        assert!(
            matches!(&err, ClientError::Http { status: 401, .. }),
            "{err}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn nothing_listening_is_a_connect_error() {
    let err = Client::builder()
        .http(HttpServer::new("http://127.0.0.1:9/mcp"))
        .await
        .expect_err("nothing there");
    assert!(matches!(err, ClientError::Connect(_)), "{err}");
    // With the `tls` feature, as here, https is tried, and fails the same way; the cause
    // is in the message.
    let tls = Client::builder()
        .http(HttpServer::new("https://127.0.0.1:9/mcp"))
        .await
        .expect_err("nothing there");
    assert!(matches!(tls, ClientError::Connect(_)), "{tls}");
    assert!(tls.to_string().contains("Connection refused"), "{tls}");
}
