//! Sessions of the handshake's revisions shared through Redis: quickstart replicas started
//! with `--session-store redis://…` answer any session's request, whichever replica opened
//! it, and go on answering it after that replica is killed. A session ended on one is ended
//! on all; a client holds at most `--sessions-per-client`; while Redis is down a session's
//! request gets 503 with `Retry-After`, and the replicas recover by themselves when it is
//! back.
//!
//! `scripts/test.sh` installs redis-server; without it this test fails rather than skips.

use std::time::Duration;

use mcp_tests::redis::Redis;
use mcp_tests::{HttpServer, quickstart_bin};
use reqwest::StatusCode;
use serde_json::{Value, json};

/// A replica of the quickstart keeping its sessions in `redis`, a client holding at most
/// three.
fn replica(redis: &Redis) -> HttpServer {
    HttpServer::spawn(
        quickstart_bin(),
        &[
            "--session-store",
            redis.url.as_str(),
            "--session-namespace",
            "shared-sessions",
            "--sessions-per-client",
            "3",
        ],
    )
}

/// What a POST was answered: its status, its `Retry-After`, its session id, and its body,
/// as JSON, or each SSE event's JSON.
#[derive(Debug)]
struct Answer {
    status: StatusCode,
    retry_after: Option<String>,
    session: Option<String>,
    messages: Vec<Value>,
}

async fn post(url: &str, session: Option<&str>, message: &Value) -> Answer {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2025-11-25")
        .json(message);
    if let Some(session) = session {
        request = request.header("Mcp-Session-Id", session);
    }
    let response = request.send().await.expect("the replica answers");
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .map(|value| value.to_str().expect("text").to_owned())
    };
    let (status, retry_after, session) = (
        response.status(),
        header("retry-after"),
        header("mcp-session-id"),
    );
    let streamed = header("content-type").is_some_and(|kind| kind.starts_with("text/event-stream"));
    let body = response.text().await.expect("a body");
    let messages = if streamed {
        body.lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .map(|data| serde_json::from_str(data.trim()).expect("JSON events"))
            .collect()
    } else if body.is_empty() {
        Vec::new()
    } else {
        vec![serde_json::from_str(&body).expect("a JSON body")]
    };
    Answer {
        status,
        retry_after,
        session,
        messages,
    }
}

async fn delete(url: &str, session: &str) -> StatusCode {
    reqwest::Client::new()
        .delete(url)
        .header("Mcp-Session-Id", session)
        .send()
        .await
        .expect("the replica answers")
        .status()
}

fn initialize() -> Value {
    json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": { "elicitation": {} },
            "clientInfo": { "name": "shared-sessions", "version": "1" },
        },
    })
}

/// A session opened on `url`: its id.
async fn open(url: &str) -> String {
    let opened = post(url, None, &initialize()).await;
    assert_eq!(opened.status, StatusCode::OK, "{opened:?}");
    opened.session.expect("a session id")
}

/// A call of the quickstart's file reader, which logs `reading PATH` at `info`.
fn read_call(id: u64) -> Value {
    json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {
            "name": "file_utility.read_file_content",
            "arguments": { "file_path": concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"), "max_chars": 10 },
        },
    })
}

/// The log messages among `answer`'s messages.
fn logged(answer: &Answer) -> Vec<&Value> {
    answer
        .messages
        .iter()
        .filter(|message| message["method"] == "notifications/message")
        .collect()
}

#[test]
fn replicas_share_sessions_through_redis_and_a_session_outlives_its_replica() {
    let mut redis = Redis::start();
    let first = replica(&redis);
    let second = replica(&redis);
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let (session, quiet) = runtime.block_on(async {
        let session = open(&first.url()).await;
        // The level set on the second replica holds on the first: its call logs.
        let set = json!({ "jsonrpc": "2.0", "id": 2, "method": "logging/setLevel", "params": { "level": "info" } });
        let answer = post(&second.url(), Some(&session), &set).await;
        assert_eq!(answer.status, StatusCode::OK, "{answer:?}");
        let called = post(&first.url(), Some(&session), &read_call(3)).await;
        assert_eq!(called.status, StatusCode::OK, "{called:?}");
        let logs = logged(&called);
        assert_eq!(logs.len(), 1, "{called:?}");
        assert!(
            logs[0]["params"]["data"]
                .as_str()
                .is_some_and(|data| data.starts_with("reading ")),
            "{called:?}"
        );
        assert_eq!(called.messages.last().unwrap()["id"], 3, "{called:?}");
        // A session that set no level gets no log messages, on either replica.
        let quiet = open(&second.url()).await;
        let called = post(&first.url(), Some(&quiet), &read_call(4)).await;
        assert_eq!(logged(&called).len(), 0, "{called:?}");
        (session, quiet)
    });

    // The replica that opened the session is killed; a new one takes its requests.
    let first_stderr = first.stop();
    let third = replica(&redis);
    runtime.block_on(async {
        let set = json!({ "jsonrpc": "2.0", "id": 5, "method": "logging/setLevel", "params": { "level": "info" } });
        assert_eq!(post(&second.url(), Some(&session), &set).await.status, StatusCode::OK);
        let called = post(&third.url(), Some(&session), &read_call(6)).await;
        assert_eq!(called.status, StatusCode::OK, "{called:?} {first_stderr}");
        assert_eq!(logged(&called).len(), 1, "{called:?}");

        // A session ended on one replica is ended on all.
        assert_eq!(delete(&third.url(), &quiet).await, StatusCode::NO_CONTENT);
        for url in [second.url(), third.url()] {
            let refused = post(&url, Some(&quiet), &read_call(7)).await;
            assert_eq!(refused.status, StatusCode::NOT_FOUND, "{refused:?}");
            assert_eq!(refused.messages[0]["error"]["code"], -32_001, "{refused:?}");
        }
        assert_eq!(delete(&second.url(), &quiet).await, StatusCode::NOT_FOUND);
        // An id never opened gets 404 everywhere.
        let guessed = post(&second.url(), Some("0123456789abcdef0123456789abcdef"), &read_call(8)).await;
        assert_eq!(guessed.status, StatusCode::NOT_FOUND, "{guessed:?}");
    });

    // This client holds at most three sessions across the replicas: `session` and two
    // more are open, so one more is refused until one ends.
    runtime.block_on(async {
        let more = [open(&second.url()).await, open(&third.url()).await];
        let refused = post(&third.url(), None, &initialize()).await;
        assert_eq!(refused.status, StatusCode::TOO_MANY_REQUESTS, "{refused:?}");
        let message = refused.messages[0]["error"]["message"]
            .as_str()
            .unwrap_or_default();
        assert!(message.contains("3 open sessions"), "{refused:?}");
        assert_eq!(refused.session, None);
        assert_eq!(
            delete(&second.url(), &more[0]).await,
            StatusCode::NO_CONTENT
        );
        open(&third.url()).await;
    });

    // Redis goes away: a session's request gets 503 with `Retry-After`, a clear refusal.
    let port = redis.port;
    redis.kill();
    runtime.block_on(async {
        let refused = post(&second.url(), Some(&session), &read_call(9)).await;
        assert_eq!(
            refused.status,
            StatusCode::SERVICE_UNAVAILABLE,
            "{refused:?}"
        );
        assert_eq!(refused.retry_after.as_deref(), Some("1"), "{refused:?}");
        let message = refused.messages[0]["error"]["message"]
            .as_str()
            .unwrap_or_default();
        assert!(message.contains("session store"), "{refused:?}");
    });
    // It comes back, empty (no persistence): the replicas use it again by themselves.
    redis = Redis::start_on(port).expect("redis-server starts again on its port");
    runtime.block_on(async {
        let mut reopened = None;
        for _ in 0..50 {
            let answer = post(&second.url(), None, &initialize()).await;
            if answer.status == StatusCode::OK {
                reopened = answer.session;
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let reopened = reopened.expect("a session opens once Redis is back");
        let called = post(&third.url(), Some(&reopened), &read_call(10)).await;
        assert_eq!(called.status, StatusCode::OK, "{called:?}");
        // The old session went with Redis's memory: 404, and the client opens a new one.
        let gone = post(&third.url(), Some(&session), &read_call(11)).await;
        assert_eq!(gone.status, StatusCode::NOT_FOUND, "{gone:?}");
    });
    drop(redis);
}
