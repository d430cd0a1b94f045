//! The client over streamable HTTP against the quickstart served as a real process: at
//! 2026-07-28 (each request its own POST, a sampling ask answered over input-required
//! rounds) and at the handshake's revision (a session, the ask a request on the call's
//! event stream, answered with a POST), with a bearer token, and refused without one.
//! Against a hostile server in the test, whose event stream never ends its first event:
//! refused while it streams.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::header::CONTENT_TYPE;
use axum::response::Response;
use mcp_runtime::client::{Client, ClientError, HttpServer, MAX_MESSAGE_BYTES};
use mcp_tests::{HttpServer as Served, quickstart_bin};
use serde_json::{Value, json};
use tokio::sync::oneshot;

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

/// How much the hostile server writes at most: far past what a bounded client reads.
const HOSTILE_CAP: usize = 4 * MAX_MESSAGE_BYTES;

/// What may be in flight besides the event the client reads up to its limit: the socket
/// buffers of both ends and the HTTP buffers.
const IN_FLIGHT: usize = 16 << 20;

/// How long the client may take to refuse the event.
const REFUSAL: Duration = Duration::from_secs(60);

/// A hostile 2026-07-28 server: it answers `server/discover`, and any other request with an
/// event stream of one event that never ends: `opening`, then `filler` over and over, until
/// it has written [`HOSTILE_CAP`] bytes.
struct Endless {
    url: String,
    /// The bytes of the event stream handed to the connection so far.
    written: Arc<AtomicUsize>,
    /// Fires when the event stream is dropped: the client hung up, or the cap was reached.
    dropped: oneshot::Receiver<()>,
}

async fn endless(opening: &'static str, filler: Vec<u8>) -> Endless {
    let written = Arc::new(AtomicUsize::new(0));
    let (drop_tx, dropped) = oneshot::channel::<()>();
    let drop_tx = Arc::new(std::sync::Mutex::new(Some(drop_tx)));
    let filler = Bytes::from(filler);
    let app = axum::Router::new().route(
        "/mcp",
        axum::routing::post({
            let written = Arc::clone(&written);
            move |body: Bytes| async move {
                let request: Value = serde_json::from_slice(&body).unwrap_or_default();
                if request["method"] == "server/discover" {
                    let answer = json!({
                        "jsonrpc": "2.0",
                        "id": request["id"],
                        "result": { "supportedVersions": ["2026-07-28"], "capabilities": { "tools": {} } },
                    });
                    return Response::builder()
                        .header(CONTENT_TYPE, "application/json")
                        .body(Body::from(answer.to_string()))
                        .expect("a response");
                }
                // Dropped with the stream, which the connection drops when the client hangs up.
                let guard = drop_tx.lock().expect("not poisoned").take();
                let chunks = futures_util::stream::unfold(
                    (Some(Bytes::from_static(opening.as_bytes())), guard),
                    move |(opening, guard)| {
                        let written = Arc::clone(&written);
                        let filler = filler.clone();
                        async move {
                            let chunk = opening.unwrap_or(filler);
                            if written.fetch_add(chunk.len(), Ordering::SeqCst) >= HOSTILE_CAP {
                                return None;
                            }
                            Some((Ok::<_, std::io::Error>(chunk), (None, guard)))
                        }
                    },
                );
                Response::builder()
                    .header(CONTENT_TYPE, "text/event-stream")
                    .body(Body::from_stream(chunks))
                    .expect("a response")
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let url = format!("http://{}/mcp", listener.local_addr().expect("an address"));
    tokio::spawn(async move { axum::serve(listener, app).await });
    Endless {
        url,
        written,
        dropped,
    }
}

/// Calls a tool on `server` and checks the client refuses the endless event while it
/// streams: the call fails naming the limit, and the client hangs up having read little
/// more than the limit.
async fn refused_while_streaming(server: Endless) {
    let client = Client::builder()
        .http(HttpServer::new(&server.url))
        .await
        .expect("discovered");
    assert_eq!(client.server().protocol_version, "2026-07-28");
    let call = client.call_tool("anything", json!({}));
    let err = tokio::time::timeout(REFUSAL, call)
        .await
        .unwrap_or_else(|_| {
            panic!(
                "no refusal within {REFUSAL:?}; the server wrote {} bytes",
                server.written.load(Ordering::SeqCst)
            )
        })
        .expect_err("refused");
    let limit = MAX_MESSAGE_BYTES.to_string();
    assert!(
        matches!(&err, ClientError::Malformed(reason) if reason.contains(&limit)),
        "{err}; the server wrote {} bytes",
        server.written.load(Ordering::SeqCst)
    );
    // The sender is never used: the receiver wakes when the stream is dropped.
    let hung_up = tokio::time::timeout(REFUSAL, server.dropped).await;
    assert!(hung_up.is_ok(), "the client did not hang up");
    let written = server.written.load(Ordering::SeqCst);
    assert!(
        written <= MAX_MESSAGE_BYTES + IN_FLIGHT,
        "the server wrote {written} bytes before the client hung up"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_endless_event_is_refused_while_it_streams() {
    refused_while_streaming(endless("data: ", vec![b'x'; 64 << 10]).await).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn an_endless_run_of_comments_is_refused_while_it_streams() {
    let comment = [b": keep-alive ".as_slice(), &[b'.'; 1010], b"\n"].concat();
    refused_while_streaming(endless("", comment.repeat(64)).await).await;
}
