//! Sessions of the handshake's revisions shared through Redis: quickstart replicas started
//! with `--session-store redis://…` answer any session's request, whichever replica opened
//! it, and go on answering it after that replica is killed. A session ended on one is ended
//! on all; a client holds at most `--sessions-per-client`; while Redis is down a session's
//! request gets 503 with `Retry-After`, and the replicas recover by themselves when it is
//! back.
//!
//! Changes cross the replicas too: a resource updated and a list changed on one reach the
//! session streams and the 2026-07-28 listen streams the others hold, once each, as do a
//! session's subscriptions and its end.
//!
//! `scripts/test.sh` installs redis-server; without it these tests fail rather than skip.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use mcp_runtime::server::{HttpConfig, Server, SessionLimits, SessionStore, serve_http};
use mcp_runtime::{Registry, ToolContext, ToolError, mcp_tool};
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
        // A priming event has no data.
        body.lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter(|data| !data.trim().is_empty())
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

/// Sends `message(id)` in `session` to `url` for each id of `ids`, 100 ms apart, until an
/// answer is `done`: that answer, or `None` when none was.
async fn until_answered(
    url: &str,
    session: &str,
    ids: std::ops::Range<u64>,
    message: impl Fn(u64) -> Value,
    done: impl Fn(&Answer) -> bool,
) -> Option<Answer> {
    for id in ids {
        let answer = post(url, Some(session), &message(id)).await;
        if done(&answer) {
            return Some(answer);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    None
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
        // The old session went with Redis's memory: 404 (once the replica's memory of it,
        // a second at most, is over), and the client opens a new one.
        let gone = until_answered(&third.url(), &session, 11..50, read_call, |answer| {
            answer.status != StatusCode::OK
        })
        .await
        .expect("the session Redis forgot is refused");
        assert_eq!(gone.status, StatusCode::NOT_FOUND, "{gone:?}");
    });
    drop(redis);
}

/// A tool for the in-process replicas, whose list changes when it is disabled.
#[mcp_tool(namespace = "probe")]
fn echo(
    /// What to say back.
    text: String,
) -> String {
    text
}

/// Asks its client whether to go on: what it answered.
#[mcp_tool(namespace = "probe")]
async fn ask(ctx: &ToolContext) -> Result<String, ToolError> {
    let form = json!({
        "type": "object",
        "properties": { "go": { "type": "boolean" } },
        "required": ["go"],
    });
    let answer = ctx.elicit_with("go", "Go on?", form).await?;
    let go = answer
        .accepted()
        .and_then(|content| content.get("go").cloned());
    Ok(format!("go: {go:?}"))
}

/// Says something at `info`, for the sessions that asked for log messages.
#[mcp_tool(namespace = "probe")]
fn say(ctx: &ToolContext) -> u8 {
    ctx.info("said");
    1
}

/// A replica of an in-process server keeping its sessions in the Redis at `url`: the
/// server, and where it listens.
async fn in_process(url: &str) -> (Arc<Server>, String) {
    let registry = Registry::builder()
        .inventory()
        .build()
        .expect("a valid registry");
    let server = Arc::new(Server::new(registry));
    let sessions = SessionStore::redis(url, "changes", SessionLimits::default())
        .await
        .expect("Redis answers");
    let config = HttpConfig {
        sessions,
        ..HttpConfig::default()
    };
    let (bound, address) = tokio::sync::oneshot::channel();
    tokio::spawn(serve_http(
        Arc::clone(&server),
        "127.0.0.1:0".parse().expect("an address"),
        config,
        move |address| bound.send(address).expect("the test listens"),
    ));
    let address = address.await.expect("bound");
    (server, format!("http://{address}/mcp"))
}

/// The JSON messages of an SSE response, as they come, each with its event's id.
struct Events {
    response: reqwest::Response,
    unread: String,
    ready: VecDeque<(Option<String>, Value)>,
    /// The id of the last event read, priming ones too.
    last_id: Option<String>,
}

impl Events {
    async fn open(request: reqwest::RequestBuilder) -> Self {
        let response = request
            .header("Accept", "text/event-stream, application/json")
            .send()
            .await
            .expect("a stream");
        assert_eq!(response.status(), StatusCode::OK, "{response:?}");
        Self {
            response,
            unread: String::new(),
            ready: VecDeque::new(),
            last_id: None,
        }
    }

    /// The next message within `within`; `None` when none came, or the stream ended.
    async fn next_within(&mut self, within: Duration) -> Option<Value> {
        tokio::time::timeout(within, async {
            loop {
                if let Some((id, message)) = self.ready.pop_front() {
                    if id.is_some() {
                        self.last_id = id;
                    }
                    return Some(message);
                }
                let chunk = self.response.chunk().await.ok()??;
                self.unread.push_str(&String::from_utf8_lossy(&chunk));
                while let Some(end) = self.unread.find("\n\n") {
                    let event: String = self.unread.drain(..end + 2).collect();
                    let id = event
                        .lines()
                        .find_map(|line| line.strip_prefix("id: "))
                        .map(str::to_owned);
                    // A priming event has no data: its id is kept all the same.
                    let data = event
                        .lines()
                        .filter_map(|line| line.strip_prefix("data:"))
                        .find(|data| !data.trim().is_empty());
                    match data {
                        Some(data) => self.ready.push_back((
                            id,
                            serde_json::from_str(data.trim()).expect("JSON events"),
                        )),
                        None if id.is_some() => self.last_id = id,
                        None => {}
                    }
                }
            }
        })
        .await
        .ok()
        .flatten()
    }

    /// Whether the stream ends within `within`, with no other message before.
    async fn ends_within(&mut self, within: Duration) -> bool {
        tokio::time::timeout(within, async {
            loop {
                match self.response.chunk().await {
                    // A comment, or a priming event.
                    Ok(Some(chunk))
                        if chunk.starts_with(b":") || chunk.ends_with(b"data: \n\n") => {}
                    Ok(Some(chunk)) => panic!("a message before the end: {chunk:?}"),
                    Ok(None) | Err(_) => return,
                }
            }
        })
        .await
        .is_ok()
    }
}

fn updated(uri: &str) -> Value {
    json!({ "jsonrpc": "2.0", "method": "notifications/resources/updated", "params": { "uri": uri } })
}

/// Updates `uri` on `server` until `events` hears of it: then the changes sent before it
/// reached `events`' replica, which hears the other's in order.
async fn until_heard(server: &Server, events: &mut Events, uri: &str) {
    for _ in 0..100 {
        server.notify_resource_updated(uri);
        if let Some(message) = events.next_within(Duration::from_millis(100)).await {
            assert_eq!(message, updated(uri), "only the probe was updated yet");
            // Later probes may still come: taken, so that they are not counted after.
            while let Some(message) = events.next_within(Duration::from_millis(300)).await {
                assert_eq!(message, updated(uri));
            }
            return;
        }
    }
    panic!("the replicas never heard of each other's changes");
}

#[tokio::test(flavor = "multi_thread")]
async fn changes_on_one_replica_reach_the_streams_the_others_hold_once_each() {
    let redis = Redis::start();
    let (first, first_url) = in_process(&redis.url).await;
    let (second, second_url) = in_process(&redis.url).await;
    let http = reqwest::Client::new();
    let session = open(&first_url).await;

    // The session's stream is held by the first replica; it subscribes through the second.
    let mut stream = Events::open(
        http.get(&first_url)
            .header("Mcp-Session-Id", &session)
            .header("MCP-Protocol-Version", "2025-11-25"),
    )
    .await;
    let subscribe = |id: u64, uri: &str| json!({ "jsonrpc": "2.0", "id": id, "method": "resources/subscribe", "params": { "uri": uri } });
    for (id, uri) in [(2, "probe://ready"), (3, "a://one")] {
        let answer = post(&second_url, Some(&session), &subscribe(id, uri)).await;
        assert_eq!(answer.status, StatusCode::OK, "{answer:?}");
    }
    until_heard(&second, &mut stream, "probe://ready").await;

    // A 2026-07-28 listen stream on the second replica, for `a://one` and the tool list.
    let listen = json!({
        "jsonrpc": "2.0", "id": 9, "method": "subscriptions/listen",
        "params": {
            "notifications": { "toolsListChanged": true, "resourceSubscriptions": ["a://one"] },
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        },
    });
    let mut listening = Events::open(
        http.post(&second_url)
            .header("MCP-Protocol-Version", "2026-07-28")
            .header("Mcp-Method", "subscriptions/listen")
            .json(&listen),
    )
    .await;
    let acknowledged = listening.next_within(Duration::from_secs(5)).await;
    assert_eq!(
        acknowledged.as_ref().map(|message| &message["method"]),
        Some(&json!("notifications/subscriptions/acknowledged")),
        "{acknowledged:?}"
    );

    // An update made on either replica reaches both streams, once each.
    for (server, uri) in [(&second, "a://one"), (&first, "a://one")] {
        server.notify_resource_updated(uri);
        assert_eq!(
            stream.next_within(Duration::from_secs(5)).await,
            Some(updated(uri))
        );
        let heard = listening
            .next_within(Duration::from_secs(5))
            .await
            .expect("heard");
        assert_eq!(
            heard["method"], "notifications/resources/updated",
            "{heard}"
        );
        assert_eq!(heard["params"]["uri"], uri, "{heard}");
    }
    // The tool list changed on the first replica: both hear of it, once.
    assert!(
        first
            .change(|registry| registry.disable("probe.echo"))
            .expect("changed")
    );
    let changed =
        json!({ "jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {} });
    assert_eq!(
        stream.next_within(Duration::from_secs(5)).await,
        Some(changed)
    );
    let heard = listening
        .next_within(Duration::from_secs(5))
        .await
        .expect("heard");
    assert_eq!(
        heard["method"], "notifications/tools/list_changed",
        "{heard}"
    );
    // Nothing more came: each was told once.
    assert_eq!(stream.next_within(Duration::from_millis(500)).await, None);
    assert_eq!(
        listening.next_within(Duration::from_millis(100)).await,
        None
    );

    // Unsubscribed through the second replica: the first's stream no longer hears of it.
    let unsubscribe = json!({ "jsonrpc": "2.0", "id": 4, "method": "resources/unsubscribe", "params": { "uri": "a://one" } });
    post(&second_url, Some(&session), &unsubscribe).await;
    until_heard(&second, &mut stream, "probe://ready").await;
    second.notify_resource_updated("a://one");
    first.notify_resource_updated("probe://ready");
    assert_eq!(
        stream.next_within(Duration::from_secs(5)).await,
        Some(updated("probe://ready")),
        "a://one is no longer heard of, and what came after it is"
    );

    // The session ended through the second replica: its stream on the first ends.
    assert_eq!(delete(&second_url, &session).await, StatusCode::NO_CONTENT);
    assert!(
        stream.ends_within(Duration::from_secs(5)).await,
        "the stream ends"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tools_question_is_answered_through_another_replica() {
    let redis = Redis::start();
    let (first, first_url) = in_process(&redis.url).await;
    let (_second, second_url) = in_process(&redis.url).await;
    let http = reqwest::Client::new();
    let session = open(&second_url).await;
    // Both replicas hear each other before the call: a probe subscription, as above.
    let mut stream = Events::open(
        http.get(&first_url)
            .header("Mcp-Session-Id", &session)
            .header("MCP-Protocol-Version", "2025-11-25"),
    )
    .await;
    let subscribe = json!({ "jsonrpc": "2.0", "id": 2, "method": "resources/subscribe", "params": { "uri": "probe://ready" } });
    post(&second_url, Some(&session), &subscribe).await;
    until_heard(&first, &mut stream, "probe://ready").await;

    // The call runs on the first replica, whose tool asks the client on the call's stream.
    let call = json!({ "jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": { "name": "probe.ask" } });
    let mut calling = Events::open(
        http.post(&first_url)
            .header("Mcp-Session-Id", &session)
            .header("MCP-Protocol-Version", "2025-11-25")
            .json(&call),
    )
    .await;
    let asked = calling
        .next_within(Duration::from_secs(5))
        .await
        .expect("the tool asks");
    assert_eq!(asked["method"], "elicitation/create", "{asked}");
    // The client's answer reaches the second replica, which passes it on.
    let answer = json!({ "jsonrpc": "2.0", "id": asked["id"], "result": { "action": "accept", "content": { "go": true } } });
    let taken = post(&second_url, Some(&session), &answer).await;
    assert_eq!(taken.status, StatusCode::ACCEPTED, "{taken:?}");
    let result = calling
        .next_within(Duration::from_secs(5))
        .await
        .expect("the call is answered");
    assert_eq!(result["id"], 3, "{result}");
    assert_eq!(
        result["result"]["structuredContent"]["result"], "go: Some(Bool(true))",
        "{result}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_level_set_on_one_replica_holds_on_another_that_read_the_session_before() {
    let redis = Redis::start();
    let (_first, first_url) = in_process(&redis.url).await;
    let (_second, second_url) = in_process(&redis.url).await;
    let session = open(&first_url).await;
    let say = |id: u64| json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": { "name": "probe.say" } });
    // The second replica reads the session, which wants no log messages yet.
    let quiet = post(&second_url, Some(&session), &say(2)).await;
    assert_eq!(quiet.status, StatusCode::OK, "{quiet:?}");
    assert_eq!(logged(&quiet).len(), 0, "{quiet:?}");
    let set = json!({ "jsonrpc": "2.0", "id": 3, "method": "logging/setLevel", "params": { "level": "info" } });
    assert_eq!(
        post(&first_url, Some(&session), &set).await.status,
        StatusCode::OK
    );
    // The second replica answers by the new level once it hears of it, within the second
    // for which it may answer by what it read.
    let heard = until_answered(&second_url, &session, 4..40, say, |answer| {
        assert_eq!(answer.status, StatusCode::OK, "{answer:?}");
        !logged(answer).is_empty()
    })
    .await
    .expect("the level set on the first replica holds on the second");
    assert_eq!(logged(&heard)[0]["params"]["data"], "said", "{heard:?}");
    // A session ended on the first is refused on the second just as soon.
    assert_eq!(delete(&first_url, &session).await, StatusCode::NO_CONTENT);
    let refused = until_answered(&second_url, &session, 40..80, say, |answer| {
        answer.status == StatusCode::NOT_FOUND
    })
    .await;
    assert!(
        refused.is_some(),
        "the session ended on the first replica is refused on the second"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_sessions_stream_resumed_on_another_replica_gets_what_was_raised_meanwhile_once() {
    let redis = Redis::start();
    let (first, first_url) = in_process(&redis.url).await;
    let (second, second_url) = in_process(&redis.url).await;
    let (third, _) = in_process(&redis.url).await;
    let http = reqwest::Client::new();
    let session = open(&first_url).await;
    let subscribe = |id: u64, uri: &str| json!({ "jsonrpc": "2.0", "id": id, "method": "resources/subscribe", "params": { "uri": uri } });
    for (id, uri) in [(2, "a://one"), (3, "a://two")] {
        let answer = post(&second_url, Some(&session), &subscribe(id, uri)).await;
        assert_eq!(answer.status, StatusCode::OK, "{answer:?}");
    }
    let get = |url: &str, last: Option<&str>| {
        let mut request = http
            .get(url)
            .header("Mcp-Session-Id", &session)
            .header("MCP-Protocol-Version", "2025-11-25");
        if let Some(last) = last {
            request = request.header("Last-Event-ID", last);
        }
        request
    };
    // The first replica holds the stream; an update raised on the third reaches it.
    let mut stream = Events::open(get(&first_url, None)).await;
    third.notify_resource_updated("a://one");
    assert_eq!(
        stream.next_within(Duration::from_secs(5)).await,
        Some(updated("a://one"))
    );
    let last = stream.last_id.clone().expect("an event id");
    assert_eq!(last, "g.1");
    // The stream is gone (its replica's connection dropped); updates are raised meanwhile,
    // by the replica that held it. (Those of one replica are logged in the order raised;
    // two replicas' are logged in the order they reach Redis.)
    drop(stream);
    first.notify_resource_updated("a://two");
    first.notify_resource_updated("a://one");
    // Reconnected to the second replica: what was missed, in order, then what comes.
    let mut resumed = Events::open(get(&second_url, Some(&last))).await;
    for (uri, id) in [("a://two", "g.2"), ("a://one", "g.3")] {
        assert_eq!(
            resumed.next_within(Duration::from_secs(5)).await,
            Some(updated(uri))
        );
        assert_eq!(resumed.last_id.as_deref(), Some(id));
    }
    second.notify_resource_updated("a://two");
    assert_eq!(
        resumed.next_within(Duration::from_secs(5)).await,
        Some(updated("a://two"))
    );
    assert_eq!(resumed.last_id.as_deref(), Some("g.4"));
    // Each once.
    assert_eq!(resumed.next_within(Duration::from_millis(500)).await, None);
}

#[test]
fn a_calls_stream_resumes_on_another_replica_and_a_call_whose_replica_died_is_answered() {
    let redis = Redis::start();
    let first = replica(&redis);
    let second = replica(&redis);
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let http = reqwest::Client::new();
    let slow_count = |id: u64, delay_ms: u64| {
        json!({
            "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {
                "name": "text.slow_count",
                "arguments": { "text": "one two three", "delay_ms": delay_ms },
                "_meta": { "progressToken": id },
            },
        })
    };
    let call = |url: &str, session: &str, message: Value| {
        http.post(url)
            .header("Mcp-Session-Id", session)
            .header("MCP-Protocol-Version", "2025-11-25")
            .json(&message)
    };
    let resume = |url: &str, session: &str, last: &str| {
        http.get(url)
            .header("Mcp-Session-Id", session)
            .header("MCP-Protocol-Version", "2025-11-25")
            .header("Last-Event-ID", last)
    };
    let session = runtime.block_on(async {
        let session = open(&first.url()).await;
        // A call's stream dropped after its progress: resumed on the other replica, which
        // sends the answer the first one logs.
        let mut stream = Events::open(call(&first.url(), &session, slow_count(2, 1500))).await;
        let progress = stream
            .next_within(Duration::from_secs(5))
            .await
            .expect("progress");
        assert_eq!(progress["method"], "notifications/progress", "{progress}");
        let last = stream.last_id.clone().expect("an event id");
        drop(stream);
        let mut resumed = Events::open(resume(&second.url(), &session, &last)).await;
        let answer = resumed
            .next_within(Duration::from_secs(10))
            .await
            .expect("the answer");
        assert_eq!(answer["id"], 2, "{answer}");
        assert_eq!(
            answer["result"]["structuredContent"]["words"], 3,
            "{answer}"
        );
        assert_eq!(
            resumed.next_within(Duration::from_secs(1)).await,
            None,
            "then the end"
        );
        session
    });
    // A call whose replica is killed before it answers: resumed on the other replica, it
    // is answered with an error that says so, not left waiting.
    let (mut stream, last) = runtime.block_on(async {
        let mut stream = Events::open(call(&first.url(), &session, slow_count(3, 60_000))).await;
        stream
            .next_within(Duration::from_secs(5))
            .await
            .expect("progress");
        let last = stream.last_id.clone().expect("an event id");
        (stream, last)
    });
    first.stop();
    runtime.block_on(async {
        assert_eq!(
            stream.next_within(Duration::from_secs(2)).await,
            None,
            "the stream dropped"
        );
        let mut resumed = Events::open(resume(&second.url(), &session, &last)).await;
        let answer = resumed
            .next_within(Duration::from_secs(15))
            .await
            .expect("an answer");
        assert_eq!(answer["id"], 3, "{answer}");
        assert_eq!(answer["error"]["code"], -32603, "{answer}");
        assert!(
            answer["error"]["message"]
                .as_str()
                .is_some_and(|message| message.contains("stopped before it answered")),
            "{answer}"
        );
    });
}
