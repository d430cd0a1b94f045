//! The streamable HTTP transport, served by [`serve_http`] on a loopback port and driven
//! over plain TCP, one request per connection: each answer's status, headers and body
//! checked whole, for requests, calls (JSON or SSE), notifications, and every guard.

use std::net::SocketAddr;
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_runtime::server::{
    HttpConfig, RateLimitConfig, STATELESS_VERSION, Server, SessionLimits, SessionStore, serve_http,
};
use mcp_runtime::{Registry, ToolContext, mcp_tool};
use serde_json::{Value, json};
use tokio::sync::oneshot;

mod support;

/// Adds two integers, telling its progress first.
#[mcp_tool(namespace = "calc", inline)]
fn add(a: i64, b: i64, ctx: &ToolContext) -> i64 {
    ctx.progress(1.0, Some(2.0), Some("adding"));
    a.wrapping_add(b)
}

/// Logs at `debug`, `info` and `warning`, then answers.
#[mcp_tool(namespace = "logs", inline)]
fn noisy(ctx: &ToolContext) -> u8 {
    ctx.debug("d");
    ctx.info("i");
    ctx.warning(json!({ "w": 1 }));
    1
}

/// Logs, ends its SSE stream, logs again, then answers.
#[mcp_tool(namespace = "polls")]
async fn closes_its_stream(ctx: &ToolContext) -> u8 {
    ctx.info("before");
    ctx.close_sse_stream();
    tokio::time::sleep(Duration::from_millis(20)).await;
    ctx.info("after");
    2
}

/// Tells the clients subscribed to `uri` that it changed.
#[mcp_tool(namespace = "notes", inline)]
fn touch(ctx: &ToolContext, uri: String) -> bool {
    ctx.notify_resource_updated(&uri);
    true
}

/// Routes a query; its region and shard travel in headers too.
#[mcp_tool(namespace = "route", inline)]
fn query(
    /// Where.
    #[mcp(header = "Region")]
    region: Option<String>,
    /// Which shard.
    #[mcp(header = "Shard")]
    shard: i64,
) -> String {
    format!("{region:?} {shard}")
}

/// A dry run or not: mirrored into a header.
#[mcp_tool(namespace = "route", inline)]
fn flag(
    /// Whether to only pretend.
    #[mcp(header = "Dry")]
    dry: bool,
) -> bool {
    dry
}

/// Asks the client to sample, so needs it to say it can.
#[mcp_tool(namespace = "ask", inline, requires_client(sampling))]
fn sample() -> bool {
    true
}

/// What a client accepts by default, as the streamable HTTP transport asks it to.
const ACCEPT_BOTH: (&str, &str) = ("Accept", "application/json, text/event-stream");

/// The server of these tests: the tools of this file, `calc.add`.
fn server() -> Arc<Server> {
    let registry = Registry::builder()
        .inventory()
        .build()
        .expect("a valid registry");
    Arc::new(Server::new(registry).with_info("http-test", "0.1.0"))
}

/// Serves [`server`] with `config` on a port of its own; the address, once bound.
async fn serve(config: HttpConfig) -> SocketAddr {
    serve_this(server(), config).await
}

/// Serves `server` with `config` on a port of its own; the address, once bound.
async fn serve_this(server: Arc<Server>, config: HttpConfig) -> SocketAddr {
    let (bound, address) = oneshot::channel();
    tokio::spawn(serve_http(
        server,
        "127.0.0.1:0".parse().expect("an address"),
        config,
        move |address| bound.send(address).expect("the test listens"),
    ));
    address
        .await
        .expect("serve_http binds and tells its address")
}

/// An HTTP response, its body decoded from chunks when it came in chunks.
#[derive(Debug)]
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Answer {
    /// The values of the header `name`, in order.
    fn header_values(&self, name: &str) -> Vec<&str> {
        self.headers
            .iter()
            .filter(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
            .collect()
    }

    /// The value of the header `name`, which must appear at most once.
    fn header(&self, name: &str) -> Option<&str> {
        let values = self.header_values(name);
        assert!(values.len() <= 1, "{name} more than once: {self:?}");
        values.first().copied()
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|_| panic!("not JSON: {self:?}"))
    }

    /// A JSON answer with `status`: its body.
    fn json_with(&self, status: u16) -> Value {
        assert_eq!(self.status, status, "{self:?}");
        assert_eq!(
            self.header("Content-Type"),
            Some("application/json"),
            "{self:?}"
        );
        self.json()
    }
}

/// The body of a chunked HTTP/1.1 response, its chunks joined.
fn unchunk(mut chunked: &str) -> String {
    let mut body = String::new();
    loop {
        let (size, rest) = chunked
            .split_once("\r\n")
            .unwrap_or_else(|| panic!("a chunk size line: {chunked:?}"));
        let size = usize::from_str_radix(size.trim(), 16).expect("a hexadecimal chunk size");
        if size == 0 {
            return body;
        }
        body.push_str(&rest[..size]);
        chunked = rest[size..]
            .strip_prefix("\r\n")
            .expect("a chunk ends with CRLF");
    }
}

/// Sends `method /mcp` with `headers` and `body` on a connection of its own, and reads the
/// whole response (the server closes the connection after it).
async fn send(to: SocketAddr, method: &str, headers: &[(&str, &str)], body: &str) -> Answer {
    let exchange = async {
        let mut request = format!(
            "{method} /mcp HTTP/1.1\r\nHost: {to}\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n",
            body.len()
        );
        for (name, value) in headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        request.push_str("\r\n");
        request.push_str(body);
        support::exchange(to, &request).await
    };
    let response = tokio::time::timeout(Duration::from_secs(30), exchange)
        .await
        .expect("an answer within 30 s");
    let (head, body) = response
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("no HTTP response: {response:?}"));
    let mut lines = head.split("\r\n");
    let status_line = lines.next().expect("a status line");
    let status = status_line
        .strip_prefix("HTTP/1.1 ")
        .and_then(|rest| rest.get(..3))
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("a status line: {status_line:?}"));
    let headers: Vec<(String, String)> = lines
        .map(|line| {
            let (name, value) = line
                .split_once(':')
                .unwrap_or_else(|| panic!("a header line: {line:?}"));
            (name.to_owned(), value.trim().to_owned())
        })
        .collect();
    let chunked = headers.iter().any(|(name, value)| {
        name.eq_ignore_ascii_case("Transfer-Encoding") && value.eq_ignore_ascii_case("chunked")
    });
    let body = if chunked {
        unchunk(body)
    } else {
        body.to_owned()
    };
    Answer {
        status,
        headers,
        body,
    }
}

/// `POST /mcp` with `message`, accepting JSON and SSE, and `headers`.
async fn post(to: SocketAddr, headers: &[(&str, &str)], message: &Value) -> Answer {
    let mut all = vec![ACCEPT_BOTH];
    all.extend_from_slice(headers);
    send(to, "POST", &all, &message.to_string()).await
}

fn ping(id: u64) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": "ping" })
}

fn add_call(id: u64, meta: Option<Value>) -> Value {
    let mut call = json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": "tools/call",
        "params": { "name": "calc.add", "arguments": { "a": 1, "b": 2 } },
    });
    if let Some(meta) = meta {
        call["params"]["_meta"] = meta;
    }
    call
}

/// The answer of `calc.add` to [`add_call`], as a 2025 revision gives it.
fn add_answer(id: u64) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "result": {
            "structuredContent": { "result": 3 },
            "content": [{ "type": "text", "text": r#"{"result":3}"# }],
            "isError": false,
        },
    })
}

/// The answer the server gives `message` in process, without HTTP: what HTTP must carry.
async fn answer_in_process(message: &Value) -> Value {
    let answer = server()
        .handle(message.to_string().as_bytes(), None)
        .await
        .expect("a request is answered");
    serde_json::from_str(&answer).expect("an answer is JSON")
}

/// The `_meta` naming the stateless revision.
fn stateless_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": STATELESS_VERSION,
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

fn n(value: u32) -> NonZeroU32 {
    NonZeroU32::new(value).expect("not zero")
}

#[tokio::test]
async fn a_request_is_answered_with_json() {
    let to = serve(HttpConfig::default()).await;
    let answer = post(to, &[], &ping(7)).await;
    assert_eq!(
        answer.json_with(200),
        json!({ "jsonrpc": "2.0", "id": 7, "result": {} })
    );
    assert_eq!(answer.body, r#"{"jsonrpc":"2.0","id":7,"result":{}}"#);
    // A message that is not JSON-RPC: 400, and the parse error.
    let answer = send(to, "POST", &[ACCEPT_BOTH], "{not json").await;
    assert_eq!(answer.json_with(400)["error"]["code"], -32700, "{answer:?}");
}

#[tokio::test]
async fn a_server_with_portable_schemas_lists_them_over_http() {
    let list = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/list" });
    let listed = |answer: Answer| {
        let tools = answer.json_with(200)["result"]["tools"].clone();
        tools
            .as_array()
            .expect("tools")
            .iter()
            .find(|tool| tool["name"] == "calc.add")
            .expect("calc.add is listed")["inputSchema"]
            .clone()
    };
    // By default, without schemars' `int64`, which no client validates.
    let served = listed(post(serve(HttpConfig::default()).await, &[], &list).await);
    assert_eq!(served["properties"]["a"], json!({ "type": "integer" }));
    let portable_server = Arc::new(
        Server::new(Registry::builder().inventory().build().expect("a registry"))
            .with_portable_schemas(),
    );
    let to = serve_this(portable_server, HttpConfig::default()).await;
    let portable = listed(post(to, &[], &list).await);
    assert_eq!(
        portable,
        mcp_runtime::listing::portable(&served).expect("portable")
    );
}

#[tokio::test]
async fn notifications_and_responses_are_accepted_with_202_and_no_body() {
    let to = serve(HttpConfig::default()).await;
    for message in [
        json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
        json!({ "jsonrpc": "2.0", "method": "notifications/cancelled", "params": { "requestId": 3 } }),
        json!({ "jsonrpc": "2.0", "id": 4, "result": {} }),
    ] {
        let answer = post(to, &[], &message).await;
        assert_eq!(answer.status, 202, "{message}: {answer:?}");
        assert_eq!(answer.body, "", "{message}");
        assert_eq!(answer.header("Content-Type"), None, "{message}");
    }
}

#[tokio::test]
async fn a_get_without_a_session_is_refused_with_405_allowing_post() {
    let to = serve(HttpConfig::default()).await;
    let answer = send(to, "GET", &[("Accept", "text/event-stream")], "").await;
    assert_eq!(answer.status, 405, "{answer:?}");
    assert_eq!(answer.header("Allow"), Some("POST"));
    assert_eq!(answer.body, "this server answers POST /mcp only");
    // A session not open has no stream either.
    let answer = send(
        to,
        "GET",
        &[
            ("Accept", "text/event-stream"),
            ("Mcp-Session-Id", "0123456789abcdef0123456789abcdef"),
        ],
        "",
    )
    .await;
    assert_eq!(answer.json_with(404)["error"]["code"], -32_001);
}

#[tokio::test]
async fn a_call_is_answered_with_json_unless_it_has_a_progress_token_and_sse_is_accepted() {
    let to = serve(HttpConfig::default()).await;
    // No progress token: JSON, though the client accepts SSE.
    let answer = post(to, &[], &add_call(1, None)).await;
    assert_eq!(answer.json_with(200), add_answer(1));
    // A progress token, and a client that accepts JSON only: JSON, the progress dropped.
    let with_token = add_call(2, Some(json!({ "progressToken": "p-2" })));
    let answer = send(
        to,
        "POST",
        &[("Accept", "application/json")],
        &with_token.to_string(),
    )
    .await;
    assert_eq!(answer.json_with(200), add_answer(2));
    // Both: the progress notification, then the answer, as SSE events.
    let answer = post(to, &[], &with_token).await;
    assert_eq!(answer.status, 200, "{answer:?}");
    assert_eq!(
        answer.header("Content-Type"),
        Some("text/event-stream"),
        "{answer:?}"
    );
    let events: Vec<Value> = answer
        .body
        .split_terminator("\n\n")
        .map(|event| {
            let data = event
                .strip_prefix("data: ")
                .unwrap_or_else(|| panic!("one data line per event: {answer:?}"));
            serde_json::from_str(data).expect("an event's data is JSON")
        })
        .collect();
    assert_eq!(
        events,
        [
            json!({
                "jsonrpc": "2.0",
                "method": "notifications/progress",
                "params": { "progressToken": "p-2", "progress": 1.0, "total": 2.0, "message": "adding" },
            }),
            add_answer(2),
        ],
        "{answer:?}"
    );
    assert!(answer.body.ends_with("\n\n"), "{answer:?}");
}

#[tokio::test]
async fn an_origin_that_is_not_loopback_or_allowed_gets_403() {
    let allowed = "https://app.example.com";
    let open = serve(HttpConfig::default()).await;
    let listing = serve(HttpConfig {
        allowed_origins: vec![allowed.to_owned()],
        ..HttpConfig::default()
    })
    .await;
    for to in [open, listing] {
        for origin in [
            "http://localhost:6274",
            "http://127.0.0.1",
            "http://[::1]:8080",
        ] {
            let answer = post(to, &[("Origin", origin)], &ping(1)).await;
            assert_eq!(
                answer.json_with(200),
                json!({ "jsonrpc": "2.0", "id": 1, "result": {} }),
                "{origin}"
            );
        }
        for origin in [
            "https://evil.example",
            "null",
            "https://app.example.com.evil",
        ] {
            let answer = post(to, &[("Origin", origin)], &ping(1)).await;
            assert_eq!(answer.status, 403, "{origin}: {answer:?}");
            assert_eq!(answer.body, "this origin is not allowed", "{origin}");
        }
    }
    let answer = post(listing, &[("Origin", allowed)], &ping(2)).await;
    assert_eq!(
        answer.json_with(200),
        json!({ "jsonrpc": "2.0", "id": 2, "result": {} })
    );
    let answer = post(open, &[("Origin", allowed)], &ping(2)).await;
    assert_eq!(answer.status, 403, "allowed only where listed: {answer:?}");
}

#[tokio::test]
async fn a_missing_or_wrong_bearer_token_gets_401() {
    let to = serve(HttpConfig {
        token: Some("s3cret".to_owned()),
        ..HttpConfig::default()
    })
    .await;
    let answer = post(to, &[("Authorization", "Bearer s3cret")], &ping(1)).await;
    assert_eq!(
        answer.json_with(200),
        json!({ "jsonrpc": "2.0", "id": 1, "result": {} })
    );
    for authorization in [
        None,
        Some("Bearer wrong!"),
        // Two bytes that differ by the same bits: an XOR of the differences would cancel.
        Some("Bearer r2cret"),
        Some("Bearer s3cre"),
        Some("Bearer s3crets"),
        Some("Basic s3cret"),
        Some("s3cret"),
    ] {
        let headers: Vec<(&str, &str)> = authorization
            .map(|value| ("Authorization", value))
            .into_iter()
            .collect();
        let answer = post(to, &headers, &ping(1)).await;
        assert_eq!(answer.status, 401, "{authorization:?}: {answer:?}");
        assert_eq!(answer.header("WWW-Authenticate"), Some("Bearer"));
        assert_eq!(answer.body, "a valid bearer token is required");
    }
}

#[tokio::test]
async fn an_unsupported_protocol_version_header_gets_400_and_32022() {
    let to = serve(HttpConfig::default()).await;
    for version in ["2025-06-18", "2025-11-25"] {
        let answer = post(to, &[("MCP-Protocol-Version", version)], &ping(1)).await;
        assert_eq!(
            answer.json_with(200),
            json!({ "jsonrpc": "2.0", "id": 1, "result": {} }),
            "{version}"
        );
    }
    // Refused once the body is read, so that the error carries the request's id.
    let answer = post(to, &[("MCP-Protocol-Version", "1999-01-01")], &ping(1)).await;
    assert_eq!(
        answer.json_with(400),
        json!({
            "jsonrpc": "2.0",
            "id": 1,
            "error": {
                "code": -32022,
                "message": "protocol version `1999-01-01` is not supported; \
                            this server speaks 2026-07-28, 2025-11-25, 2025-06-18",
                "data": {
                    "requested": "1999-01-01",
                    "supported": ["2026-07-28", "2025-11-25", "2025-06-18"],
                },
            },
        })
    );
}

#[tokio::test]
async fn a_stateless_request_is_admitted_in_the_order_the_specification_gives() {
    let to = serve(HttpConfig::default()).await;
    let list = |id: u64, meta: Value| json!({ "jsonrpc": "2.0", "id": id, "method": "tools/list", "params": { "_meta": meta } });
    let version = ("MCP-Protocol-Version", STATELESS_VERSION);
    let method = ("Mcp-Method", "tools/list");
    // The headers match: answered as in process.
    let expected = answer_in_process(&list(1, stateless_meta())).await;
    assert!(expected["result"]["tools"].is_array(), "{expected}");
    let answer = post(to, &[version, method], &list(1, stateless_meta())).await;
    assert_eq!(answer.json_with(200), expected);

    let refused = |id: u64, code: i64, message: &str| json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } });
    let unsupported = json!({
        "io.modelcontextprotocol/protocolVersion": "v999.0.0",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let no_capabilities = json!({ "io.modelcontextprotocol/protocolVersion": STATELESS_VERSION });
    for (message, headers, expected) in [
        // `_meta` first, whatever the headers say.
        (
            list(2, no_capabilities.clone()),
            vec![version, method],
            refused(
                2,
                -32_602,
                "`_meta.io.modelcontextprotocol/clientCapabilities` is missing",
            ),
        ),
        (
            list(3, no_capabilities),
            vec![("MCP-Protocol-Version", "v999.0.0")],
            refused(
                3,
                -32_602,
                "`_meta.io.modelcontextprotocol/clientCapabilities` is missing",
            ),
        ),
        // Then the version header against `_meta`, before the version itself.
        (
            list(4, unsupported.clone()),
            vec![version, method],
            refused(
                4,
                -32_020,
                "the `MCP-Protocol-Version` header must be present and say `v999.0.0`, as `_meta` does",
            ),
        ),
        (
            list(5, stateless_meta()),
            vec![method],
            refused(
                5,
                -32_020,
                "the `MCP-Protocol-Version` header must be present and say `2026-07-28`, as `_meta` does",
            ),
        ),
        // Then `Mcp-Method`.
        (
            list(6, stateless_meta()),
            vec![version],
            refused(
                6,
                -32_020,
                "the `Mcp-Method` header must be present and say `tools/list`, as the body does",
            ),
        ),
        (
            list(7, stateless_meta()),
            vec![version, ("Mcp-Method", "TOOLS/LIST")],
            refused(
                7,
                -32_020,
                "the `Mcp-Method` header must be present and say `tools/list`, as the body does",
            ),
        ),
    ] {
        let answer = post(to, &headers, &message).await;
        assert_eq!(answer.json_with(400), expected, "{message} {headers:?}");
    }
    // An unsupported version: 400 and -32022, with the request's id and what is supported.
    let answer = post(
        to,
        &[("MCP-Protocol-Version", "v999.0.0"), method],
        &list(8, unsupported),
    )
    .await;
    let error = answer.json_with(400);
    assert_eq!(error["id"], 8, "{error}");
    assert_eq!(error["error"]["code"], -32_022, "{error}");
    assert_eq!(error["error"]["data"]["requested"], "v999.0.0", "{error}");
    // A method the revision removed: 404 and -32601.
    let mut removed = ping(9);
    removed["params"] = json!({ "_meta": stateless_meta() });
    let answer = post(to, &[version, ("Mcp-Method", "ping")], &removed).await;
    assert_eq!(
        answer.json_with(404),
        refused(
            9,
            -32_601,
            "method `ping` does not exist at protocol version 2026-07-28"
        )
    );
    // A 2025 request needs none of it.
    let answer = post(to, &[("MCP-Protocol-Version", "2025-11-25")], &ping(10)).await;
    assert_eq!(
        answer.json_with(200),
        json!({ "jsonrpc": "2.0", "id": 10, "result": {} })
    );
}

#[tokio::test]
async fn a_stateless_call_names_its_tool_in_mcp_name() {
    let to = serve(HttpConfig::default()).await;
    let call = add_call(3, Some(stateless_meta()));
    let expected = answer_in_process(&call).await;
    assert_eq!(
        expected["result"]["structuredContent"],
        json!({ "result": 3 })
    );
    let version = ("MCP-Protocol-Version", STATELESS_VERSION);
    let method = ("Mcp-Method", "tools/call");
    // As written, padded with whitespace, or in the Base64 sentinel form.
    for name in ["calc.add", "  calc.add\t", "=?base64?Y2FsYy5hZGQ=?="] {
        let answer = post(to, &[version, method, ("Mcp-Name", name)], &call).await;
        assert_eq!(answer.json_with(200), expected, "{name}");
    }
    let mismatch = |message: &str| json!({ "jsonrpc": "2.0", "id": 3, "error": { "code": -32020, "message": message } });
    let name_mismatch =
        mismatch("the `Mcp-Name` header must be present and say `calc.add`, as the body does");
    for headers in [
        vec![version, method],
        vec![version, method, ("Mcp-Name", "calc.sub")],
        vec![version, method, ("Mcp-Name", "=?base64?Y2FsYy5zdWI=?=")],
    ] {
        let answer = post(to, &headers, &call).await;
        assert_eq!(answer.json_with(400), name_mismatch, "{headers:?}");
    }
    // Base64 without its padding, or with characters outside the alphabet, is refused.
    for name in ["=?base64?Y2FsYy5hZGQ?=", "=?base64?Y2Fs!!!YWRk?="] {
        let answer = post(to, &[version, method, ("Mcp-Name", name)], &call).await;
        assert_eq!(
            answer.json_with(400),
            mismatch(
                "the `Mcp-Name` header holds Base64 that is not valid (padded, standard alphabet)"
            ),
            "{name}"
        );
    }
}

#[tokio::test]
async fn a_body_over_the_limit_gets_413_and_an_error_naming_the_limit() {
    let to = serve(HttpConfig {
        body_limit: 64,
        ..HttpConfig::default()
    })
    .await;
    let within = ping(1);
    assert!(within.to_string().len() <= 64);
    let answer = post(to, &[], &within).await;
    assert_eq!(
        answer.json_with(200),
        json!({ "jsonrpc": "2.0", "id": 1, "result": {} })
    );
    let mut over = ping(2);
    over["params"] = json!({ "padding": "x".repeat(64) });
    let answer = post(to, &[], &over).await;
    assert_eq!(
        answer.json_with(413),
        json!({
            "jsonrpc": "2.0",
            "error": {
                "code": -32600,
                "message": "the request body is larger than the limit of 64 bytes",
            },
        })
    );
}

#[tokio::test]
async fn a_client_past_its_rate_limit_gets_429_with_retry_after() {
    let limit = RateLimitConfig::per_minute(n(1));
    let to = serve(HttpConfig {
        rate_limit: Some(limit),
        ..HttpConfig::default()
    })
    .await;
    let start = Instant::now();
    let answer = post(to, &[], &ping(1)).await;
    assert_eq!(
        answer.json_with(200),
        json!({ "jsonrpc": "2.0", "id": 1, "result": {} })
    );
    let refused = post(to, &[], &ping(2)).await;
    let elapsed = start.elapsed();
    let error = refused.json_with(429);
    // The next request is allowed one minute after the first, which was made within
    // `elapsed`: the wait, rounded up to whole seconds, is at most 60 and at least this.
    let soonest = (60.0 - elapsed.as_secs_f64()).ceil().max(1.0);
    let seconds: u64 = refused
        .header("Retry-After")
        .expect("a Retry-After header")
        .parse()
        .expect("whole seconds");
    assert!(
        (soonest..=60.0).contains(&(seconds as f64)),
        "Retry-After {seconds}, {elapsed:?} after the first request"
    );
    assert_eq!(
        error,
        json!({
            "jsonrpc": "2.0",
            "error": {
                "code": -32029,
                "message": format!(
                    "too many requests: this server allows each client \
                     1 request per minute, at most 1 at once; retry in {seconds} s"
                ),
                "data": {
                    "limit": { "requests": 1, "periodMs": 60_000, "burst": 1 },
                    "retryAfterSeconds": seconds,
                },
            },
        })
    );
}

#[test]
fn a_rate_limit_names_its_period() {
    let limit = |requests, period, burst| RateLimitConfig {
        requests: n(requests),
        period,
        burst: n(burst),
    };
    for (config, text) in [
        (
            RateLimitConfig::per_second(n(5)),
            "5 requests per second, at most 5 at once",
        ),
        (
            RateLimitConfig::per_minute(n(1)).with_burst(n(3)),
            "1 request per minute, at most 3 at once",
        ),
        (
            limit(10, Duration::from_secs(3600), 2),
            "10 requests per hour, at most 2 at once",
        ),
        (
            limit(3, Duration::from_secs(10), 6),
            "3 requests per 10 s, at most 6 at once",
        ),
        (
            limit(2, Duration::from_millis(1500), 2),
            "2 requests per 1500 ms, at most 2 at once",
        ),
        (
            limit(1, Duration::from_millis(250), 1),
            "1 request per 250 ms, at most 1 at once",
        ),
    ] {
        assert_eq!(config.to_string(), text);
    }
}

/// The `data:` lines of an SSE response as they come, each a JSON message.
struct Events {
    stream: tokio::net::TcpStream,
    /// What was received and not yet taken as an event.
    read: String,
    /// The response's head.
    head: String,
    /// The id of the last event read, if it had one.
    last_id: Option<String>,
}

impl Events {
    /// Opens `POST /mcp` with `message` and keeps the connection to read its events.
    async fn open(to: SocketAddr, headers: &[(&str, &str)], message: &Value) -> Self {
        use tokio::io::AsyncWriteExt;
        let body = message.to_string();
        let mut request = format!(
            "POST /mcp HTTP/1.1\r\nHost: {to}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n",
            body.len()
        );
        for (name, value) in headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        request.push_str("\r\n");
        request.push_str(&body);
        let mut stream = tokio::net::TcpStream::connect(to)
            .await
            .expect("a connection");
        stream.write_all(request.as_bytes()).await.expect("sent");
        Self {
            stream,
            read: String::new(),
            head: String::new(),
            last_id: None,
        }
    }

    /// Opens `GET /mcp` (a session's stream) with `headers`.
    async fn get(to: SocketAddr, headers: &[(&str, &str)]) -> Self {
        use tokio::io::AsyncWriteExt;
        let mut request =
            format!("GET /mcp HTTP/1.1\r\nHost: {to}\r\nAccept: text/event-stream\r\n");
        for (name, value) in headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        request.push_str("\r\n");
        let mut stream = tokio::net::TcpStream::connect(to)
            .await
            .expect("a connection");
        stream.write_all(request.as_bytes()).await.expect("sent");
        Self {
            stream,
            read: String::new(),
            head: String::new(),
            last_id: None,
        }
    }

    /// Waits for the response's head: the stream is then open (its listener added before
    /// the head was sent).
    async fn opened(&mut self) {
        use tokio::io::AsyncReadExt;
        while self.head.is_empty() {
            let mut buffer = [0u8; 4096];
            let read = tokio::time::timeout(Duration::from_secs(10), self.stream.read(&mut buffer))
                .await
                .expect("a head within 10 s")
                .expect("the stream reads");
            assert!(read > 0, "the stream ended: {:?}", self.read);
            self.read
                .push_str(&String::from_utf8_lossy(&buffer[..read]));
            if let Some(end) = self.read.find("\r\n\r\n") {
                self.head = self.read[..end].to_ascii_lowercase();
                self.read.drain(..end + 4);
            }
        }
    }

    /// The next event's message, within 10 s.
    async fn next(&mut self) -> Value {
        use tokio::io::AsyncReadExt;
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(start) = self.read.find("data: ") {
                if let Some(length) = self.read[start..].find('\n') {
                    let line = self.read[start + 6..start + length].trim().to_owned();
                    // The event's id, on a line before its data.
                    let block = self.read[..start].rfind("\n\n").map_or(0, |end| end + 2);
                    if let Some(id) = self.read[block..start].find("id: ") {
                        let id = &self.read[block + id + 4..start];
                        self.last_id = Some(id.lines().next().unwrap_or_default().to_owned());
                    }
                    self.read.drain(..start + length);
                    // A priming event: an id, and no data.
                    if line.is_empty() {
                        continue;
                    }
                    return serde_json::from_str(&line).expect("a JSON event");
                }
            }
            let mut buffer = [0u8; 4096];
            let read = tokio::time::timeout_at(deadline.into(), self.stream.read(&mut buffer))
                .await
                .expect("an event within 10 s")
                .expect("the stream reads");
            assert!(read > 0, "the stream ended: {:?}", self.read);
            self.read
                .push_str(&String::from_utf8_lossy(&buffer[..read]));
            if self.head.is_empty() {
                if let Some(end) = self.read.find("\r\n\r\n") {
                    self.head = self.read[..end].to_ascii_lowercase();
                }
            }
        }
    }
}

impl Events {
    /// Opens a 2026-07-28 `subscriptions/listen` stream, request `id`, for `notifications`.
    async fn listen(to: SocketAddr, id: u64, notifications: Value) -> Self {
        let listen = json!({
            "jsonrpc": "2.0", "id": id, "method": "subscriptions/listen",
            "params": { "notifications": notifications, "_meta": stateless_meta() },
        });
        let headers = [
            ("MCP-Protocol-Version", STATELESS_VERSION),
            ("Mcp-Method", "subscriptions/listen"),
        ];
        Self::open(to, &headers, &listen).await
    }

    /// Reads until the response ends (its last chunk, or the connection closing), within
    /// 10 s; the events left unread, in order.
    async fn rest(&mut self) -> Vec<Value> {
        use tokio::io::AsyncReadExt;
        let deadline = Instant::now() + Duration::from_secs(10);
        while !self.read.contains("\r\n0\r\n\r\n") {
            let mut buffer = [0u8; 4096];
            let read = tokio::time::timeout_at(deadline.into(), self.stream.read(&mut buffer))
                .await
                .expect("the stream ends within 10 s")
                .expect("the stream reads");
            if read == 0 {
                break;
            }
            self.read
                .push_str(&String::from_utf8_lossy(&buffer[..read]));
        }
        let mut events = Vec::new();
        while let Some(start) = self.read.find("data: ") {
            let length = self.read[start..].find('\n').expect("a whole line");
            let line = self.read[start + 6..start + length].trim().to_owned();
            self.read.drain(..start + length);
            events.push(serde_json::from_str(&line).expect("a JSON event"));
        }
        events
    }
}

/// A session opened at 2025-11-25 on the server at `to`: its id.
async fn open_session(to: SocketAddr) -> String {
    open_session_at(to, "2025-11-25").await
}

/// A session opened at `revision` on the server at `to`: its id.
async fn open_session_at(to: SocketAddr, revision: &str) -> String {
    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": { "protocolVersion": revision, "capabilities": {}, "clientInfo": { "name": "t", "version": "1" } },
    });
    let answer = post(to, &[], &initialize).await;
    answer
        .header("mcp-session-id")
        .expect("a session")
        .to_owned()
}

/// Tells `server`'s listeners of `uri`'s update `times` times over, with no await between:
/// a stream's task gets no turn to send any of them meanwhile (the test's runtime has one
/// thread), as a client that does not read gets none.
fn updated_many_times(server: &Server, uri: &str, times: usize) {
    for _ in 0..times {
        server.notify_resource_updated(uri);
    }
}

#[tokio::test]
async fn a_listen_stream_whose_client_fell_behind_ends_saying_so() {
    let server = server();
    let to = serve_this(Arc::clone(&server), HttpConfig::default()).await;
    let mut events = Events::listen(to, 7, json!({ "resourceSubscriptions": ["a://one"] })).await;
    let acknowledgement = events.next().await;
    assert_eq!(
        acknowledgement["method"],
        json!("notifications/subscriptions/acknowledged")
    );
    updated_many_times(&server, "a://one", 500);
    let rest = events.rest().await;
    let (last, told) = rest.split_last().expect("events");
    // What was queued comes first, as it was sent; then why the stream ends.
    assert!(!told.is_empty() && told.len() < 500, "{}", told.len());
    for event in told {
        assert_eq!(
            event["method"],
            json!("notifications/resources/updated"),
            "{event}"
        );
    }
    assert_eq!(last["method"], json!("notifications/cancelled"), "{last}");
    assert_eq!(last["params"]["requestId"], json!(7), "{last}");
    let reason = last["params"]["reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("behind") && reason.contains("listen again"),
        "{reason}"
    );
}

#[tokio::test]
async fn a_sessions_stream_whose_client_fell_behind_its_log_is_told_every_list_changed_and_goes_on()
{
    let server = server();
    let sessions =
        SessionStore::memory(SessionLimits::default().with_events(10, Duration::from_secs(60)));
    let to = serve_this(
        Arc::clone(&server),
        HttpConfig {
            sessions,
            ..HttpConfig::default()
        },
    )
    .await;
    let session = open_session(to).await;
    let with_session = [("Mcp-Session-Id", session.as_str())];
    let subscribe = json!({ "jsonrpc": "2.0", "id": 2, "method": "resources/subscribe", "params": { "uri": "a://one" } });
    assert_eq!(
        post(to, &with_session, &subscribe).await.json_with(200)["result"],
        json!({})
    );
    let mut stream = Events::get(to, &with_session).await;
    stream.opened().await;
    // 500 updates, of which the stream's log keeps the last 10.
    updated_many_times(&server, "a://one", 500);
    let updated = json!({ "jsonrpc": "2.0", "method": "notifications/resources/updated", "params": { "uri": "a://one" } });
    // Whatever it missed, reading every list again catches up.
    let changed = |method: &str| json!({ "jsonrpc": "2.0", "method": method, "params": {} });
    for list in ["tools", "prompts", "resources"] {
        assert_eq!(
            stream.next().await,
            changed(&format!("notifications/{list}/list_changed"))
        );
    }
    for n in 491..=500 {
        assert_eq!(stream.next().await, updated);
        assert_eq!(stream.last_id, Some(format!("g.{n}")));
    }
    // And the stream goes on.
    server.notify_resource_updated("a://one");
    assert_eq!(stream.next().await, updated);
    assert_eq!(stream.last_id.as_deref(), Some("g.501"));
}

#[tokio::test]
async fn a_listen_stream_is_acknowledged_then_told_of_changes_tagged_with_its_id() {
    let server = server();
    let to = serve_this(Arc::clone(&server), HttpConfig::default()).await;
    let mut events = Events::listen(to, 41, json!({ "toolsListChanged": true })).await;
    let acknowledgement = events.next().await;
    assert_eq!(
        acknowledgement,
        json!({
            "jsonrpc": "2.0",
            "method": "notifications/subscriptions/acknowledged",
            "params": {
                "notifications": { "toolsListChanged": true },
                "_meta": { "io.modelcontextprotocol/subscriptionId": 41 },
            },
        })
    );
    assert!(
        events.head.contains("x-accel-buffering: no"),
        "{}",
        events.head
    );
    let changed = server
        .change(|registry| registry.disable("calc.add"))
        .expect("no names for LLM APIs to clash");
    assert!(changed);
    assert_eq!(
        events.next().await,
        json!({
            "jsonrpc": "2.0",
            "method": "notifications/tools/list_changed",
            "params": { "_meta": { "io.modelcontextprotocol/subscriptionId": 41 } },
        })
    );
    // The change is served from the next request on.
    let listed = post(
        to,
        &[("MCP-Protocol-Version", STATELESS_VERSION), ("Mcp-Method", "tools/list")],
        &json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": { "_meta": stateless_meta() } }),
    )
    .await
    .json_with(200);
    let names: Vec<&Value> = listed["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|tool| &tool["name"])
        .collect();
    assert!(!names.contains(&&json!("calc.add")), "{listed}");

    // At the handshake's revisions there is no such method.
    let stateful = post(
        to,
        &[],
        &json!({ "jsonrpc": "2.0", "id": 2, "method": "subscriptions/listen", "params": {} }),
    )
    .await
    .json_with(200);
    assert_eq!(stateful["error"]["code"], -32_601, "{stateful}");
}

#[tokio::test]
async fn a_stateful_initialize_opens_a_session_and_a_session_not_open_gets_404() {
    let to = serve(HttpConfig::default()).await;
    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": { "name": "t", "version": "1" },
        },
    });
    let first = post(to, &[], &initialize).await;
    let second = post(to, &[], &initialize).await;
    let session = |answer: &Answer| {
        let id = answer
            .header("mcp-session-id")
            .expect("a session id")
            .to_owned();
        assert!(
            id.len() == 32 && id.bytes().all(|byte| byte.is_ascii_hexdigit()),
            "{id}"
        );
        id
    };
    let (first, second) = (session(&first), session(&second));
    assert_ne!(first, second, "each a new id");
    // An open session's id, or none, is taken.
    for headers in [
        vec![("Mcp-Session-Id", first.as_str())],
        vec![("Mcp-Session-Id", second.as_str())],
        vec![],
    ] {
        let answer = post(to, &headers, &ping(2)).await;
        assert_eq!(
            answer.json_with(200),
            json!({ "jsonrpc": "2.0", "id": 2, "result": {} })
        );
        assert_eq!(
            answer.header("mcp-session-id"),
            None,
            "only initialize assigns one"
        );
    }
    // An id never opened gets 404, as the specification prescribes, and says what to do;
    // so does a notification naming one.
    for id in ["0123456789abcdef0123456789abcdef", "unknown"] {
        for message in [
            ping(3),
            json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
        ] {
            let refused = post(to, &[("Mcp-Session-Id", id)], &message).await;
            let error = refused.json_with(404);
            assert_eq!(error["error"]["code"], -32_001, "{error}");
            assert!(
                error["error"]["message"]
                    .as_str()
                    .is_some_and(|message| message.contains("initialize")),
                "{error}"
            );
        }
    }
    // An initialize that names an old session opens a new one.
    let again = post(to, &[("Mcp-Session-Id", "unknown")], &initialize).await;
    assert_eq!(again.status, 200);
    session(&again);
    // DELETE ends a session: its id then gets 404, and a second DELETE too.
    let ended = send(to, "DELETE", &[("Mcp-Session-Id", first.as_str())], "").await;
    assert_eq!(ended.status, 204, "{ended:?}");
    let after = post(to, &[("Mcp-Session-Id", first.as_str())], &ping(4)).await;
    after.json_with(404);
    let again = send(to, "DELETE", &[("Mcp-Session-Id", first.as_str())], "").await;
    assert_eq!(again.status, 404, "{again:?}");
    let unnamed = send(to, "DELETE", &[], "").await;
    assert_eq!(unnamed.status, 400, "{unnamed:?}");
    assert!(unnamed.body.contains("Mcp-Session-Id"), "{unnamed:?}");
    // The other session goes on.
    post(to, &[("Mcp-Session-Id", second.as_str())], &ping(5))
        .await
        .json_with(200);
    // Not at 2026-07-28, which has no sessions.
    let discover = json!({
        "jsonrpc": "2.0", "id": 3, "method": "server/discover", "params": { "_meta": stateless_meta() },
    });
    let answer = post(
        to,
        &[
            ("MCP-Protocol-Version", STATELESS_VERSION),
            ("Mcp-Method", "server/discover"),
        ],
        &discover,
    )
    .await;
    assert_eq!(answer.status, 200);
    assert_eq!(answer.header("mcp-session-id"), None);
}

/// A 2026-07-28 `tools/call` of `name` with `arguments` and `_meta`, and the headers that
/// go with it, plus `extra`.
async fn stateless_call(
    to: SocketAddr,
    name: &str,
    arguments: Value,
    meta: Value,
    extra: &[(&str, &str)],
) -> Answer {
    let call = json!({
        "jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": { "name": name, "arguments": arguments, "_meta": meta },
    });
    let mut headers = vec![
        ("MCP-Protocol-Version", STATELESS_VERSION),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", name),
    ];
    headers.extend_from_slice(extra);
    post(to, &headers, &call).await
}

#[tokio::test]
async fn mirrored_parameters_must_match_their_headers() {
    let to = serve(HttpConfig::default()).await;
    let call = |arguments: Value, extra: Vec<(&'static str, &'static str)>| async move {
        stateless_call(to, "route.query", arguments, stateless_meta(), &extra).await
    };
    let both = json!({ "region": "eu-west", "shard": 42 });
    for extra in [
        vec![("Mcp-Param-Region", "eu-west"), ("Mcp-Param-Shard", "42")],
        // Header names in any case; Base64 in the sentinel form; an integer as a number.
        vec![
            ("mcp-param-region", "=?base64?ZXUtd2VzdA==?="),
            ("MCP-PARAM-SHARD", "42.0"),
        ],
    ] {
        let answer = call(both.clone(), extra.clone()).await.json_with(200);
        assert_eq!(
            answer["result"]["structuredContent"]["result"], "Some(\"eu-west\") 42",
            "{extra:?}: {answer}"
        );
    }
    // An argument left out, or null, goes without its header.
    for arguments in [json!({ "shard": 1 }), json!({ "shard": 1, "region": null })] {
        let answer = call(arguments, vec![("Mcp-Param-Shard", "1")]).await;
        assert_eq!(answer.status, 200, "{}", answer.body);
    }
    let mismatch = |message: &str| json!({ "jsonrpc": "2.0", "id": 7, "error": { "code": -32020, "message": message } });
    for (extra, message) in [
        (
            vec![("Mcp-Param-Shard", "42")],
            "the `Mcp-Param-Region` header is missing; it must carry the argument `region`",
        ),
        (
            vec![("Mcp-Param-Region", "us-east"), ("Mcp-Param-Shard", "42")],
            "the `Mcp-Param-Region` header does not match the argument `region`",
        ),
        (
            vec![("Mcp-Param-Region", "eu-west"), ("Mcp-Param-Shard", "43")],
            "the `Mcp-Param-Shard` header does not match the argument `shard`",
        ),
        (
            vec![
                ("Mcp-Param-Region", "=?base64?ZXUtd2VzdA?="),
                ("Mcp-Param-Shard", "42"),
            ],
            "the `Mcp-Param-Region` header holds Base64 that is not valid (padded, standard alphabet)",
        ),
    ] {
        let answer = call(both.clone(), extra.clone()).await;
        assert_eq!(answer.json_with(400), mismatch(message), "{extra:?}");
    }
    let answer = call(
        json!({ "shard": 1 }),
        vec![("Mcp-Param-Region", "eu-west"), ("Mcp-Param-Shard", "1")],
    )
    .await;
    assert_eq!(
        answer.json_with(400),
        mismatch("the `Mcp-Param-Region` header is sent, but the argument `region` is not")
    );
}

#[tokio::test]
async fn a_tool_needing_a_client_capability_is_refused_to_a_request_that_does_not_declare_it() {
    let to = serve(HttpConfig::default()).await;
    let refused = stateless_call(to, "ask.sample", json!({}), stateless_meta(), &[]).await;
    assert_eq!(
        refused.json_with(400),
        json!({
            "jsonrpc": "2.0",
            "id": 7,
            "error": {
                "code": -32021,
                "message": "tool `ask.sample` needs the client capabilities sampling, which this \
                            request does not declare in \
                            `_meta.io.modelcontextprotocol/clientCapabilities`",
                "data": { "requiredCapabilities": { "sampling": {} } },
            },
        })
    );
    let mut meta = stateless_meta();
    meta["io.modelcontextprotocol/clientCapabilities"] = json!({ "sampling": {} });
    let answer = stateless_call(to, "ask.sample", json!({}), meta, &[]).await;
    assert_eq!(
        answer.json_with(200)["result"]["structuredContent"],
        json!({ "result": true })
    );
}

#[tokio::test]
async fn an_unknown_method_is_404_at_the_stateless_revision_and_200_before_it() {
    let to = serve(HttpConfig::default()).await;
    let unknown = |meta: Option<Value>| {
        let mut message = json!({ "jsonrpc": "2.0", "id": 5, "method": "tools/nope" });
        if let Some(meta) = meta {
            message["params"] = json!({ "_meta": meta });
        }
        message
    };
    let expected = json!({
        "jsonrpc": "2.0", "id": 5,
        "error": { "code": -32601, "message": "method `tools/nope` is not supported by this server" },
    });
    let stateless = post(
        to,
        &[
            ("MCP-Protocol-Version", STATELESS_VERSION),
            ("Mcp-Method", "tools/nope"),
        ],
        &unknown(Some(stateless_meta())),
    )
    .await;
    assert_eq!(stateless.json_with(404), expected);
    let stateful = post(
        to,
        &[("MCP-Protocol-Version", "2025-11-25")],
        &unknown(None),
    )
    .await;
    assert_eq!(stateful.json_with(200), expected);
}

#[tokio::test]
async fn a_notification_is_refused_only_for_a_version_this_server_does_not_speak() {
    let to = serve(HttpConfig::default()).await;
    let initialized = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
    let accepted = post(to, &[("MCP-Protocol-Version", "2025-11-25")], &initialized).await;
    assert_eq!((accepted.status, accepted.body.as_str()), (202, ""));
    let refused = post(to, &[("MCP-Protocol-Version", "1999-01-01")], &initialized).await;
    assert_eq!(refused.json_with(400)["error"]["code"], -32_022);
}

#[test]
fn a_mirrored_integer_is_bounded_to_what_a_double_holds_and_a_mirrored_string_is_not() {
    let registry = Registry::builder().inventory().build().expect("a registry");
    let schema = registry
        .get("route.query")
        .expect("the tool")
        .definition()
        .input_schema()
        .clone()
        .to_value();
    let limit = (1_i64 << 53) - 1;
    assert_eq!(
        schema["properties"]["shard"]["minimum"],
        json!(-limit),
        "{schema}"
    );
    assert_eq!(
        schema["properties"]["shard"]["maximum"],
        json!(limit),
        "{schema}"
    );
    assert_eq!(
        schema["properties"]["region"]["x-mcp-header"], "Region",
        "{schema}"
    );
    assert!(
        schema["properties"]["region"].get("minimum").is_none(),
        "{schema}"
    );
    assert!(
        schema["properties"]["region"].get("maximum").is_none(),
        "{schema}"
    );
}

#[tokio::test]
async fn a_mirrored_boolean_is_true_or_false_in_its_header() {
    let to = serve(HttpConfig::default()).await;
    for (value, header, status) in [
        (true, "true", 200),
        (false, "false", 200),
        (true, "false", 400),
        (false, "true", 400),
        (true, "1", 400),
        (true, "True", 400),
    ] {
        let answer = stateless_call(
            to,
            "route.flag",
            json!({ "dry": value }),
            stateless_meta(),
            &[("Mcp-Param-Dry", header)],
        )
        .await;
        assert_eq!(
            answer.status, status,
            "{value} as `{header}`: {}",
            answer.body
        );
    }
}

/// The data of each SSE event of `answer` that has data, as JSON.
fn events(answer: &Answer) -> Vec<Value> {
    sse_events(answer)
        .into_iter()
        .filter(|(_, data)| !data.is_empty())
        .map(|(_, data)| serde_json::from_str(&data).expect("an event's data is JSON"))
        .collect()
}

/// Each SSE event of `answer`: its id, if any, and its data (one line).
fn sse_events(answer: &Answer) -> Vec<(Option<String>, String)> {
    assert_eq!(
        answer.header("Content-Type"),
        Some("text/event-stream"),
        "{answer:?}"
    );
    answer
        .body
        .split_terminator("\n\n")
        .map(|event| {
            let mut id = None;
            let mut data = None;
            for line in event.lines() {
                if let Some(value) = line.strip_prefix("id: ") {
                    id = Some(value.to_owned());
                } else if let Some(value) = line.strip_prefix("data:") {
                    assert!(data.is_none(), "one data line per event: {answer:?}");
                    data = Some(value.strip_prefix(' ').unwrap_or(value).to_owned());
                }
            }
            (
                id,
                data.unwrap_or_else(|| panic!("a data line per event: {answer:?}")),
            )
        })
        .collect()
}

/// The `notifications/message` of `logs.noisy` at `level`, with `data`.
fn logged(level: &str, data: Value) -> Value {
    json!({
        "jsonrpc": "2.0",
        "method": "notifications/message",
        "params": { "level": level, "logger": "logs.noisy", "data": data },
    })
}

#[tokio::test]
async fn a_session_that_set_a_log_level_gets_the_messages_at_or_above_it_on_its_calls_stream() {
    let to = serve(HttpConfig::default()).await;
    let call = |id: u64| json!({ "jsonrpc": "2.0", "id": id, "method": "tools/call", "params": { "name": "logs.noisy" } });
    let answer = |id: u64| {
        json!({
            "jsonrpc": "2.0", "id": id,
            "result": {
                "structuredContent": { "result": 1 },
                "content": [{ "type": "text", "text": r#"{"result":1}"# }],
                "isError": false,
            },
        })
    };
    let opened = open_session(to).await;
    let session = ("Mcp-Session-Id", opened.as_str());
    // Before the session sets a level, nothing is logged: a plain JSON answer.
    assert_eq!(
        post(to, &[session], &call(1)).await.json_with(200),
        answer(1)
    );

    let set_level = |id: u64, level: Value| json!({ "jsonrpc": "2.0", "id": id, "method": "logging/setLevel", "params": { "level": level } });
    let refused = post(to, &[session], &set_level(2, json!("loud")))
        .await
        .json_with(200);
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .is_some_and(|message| message.contains("`loud` is not a log level")),
        "{refused}"
    );
    assert_eq!(
        post(to, &[session], &call(3)).await.json_with(200),
        answer(3)
    );

    assert_eq!(
        post(to, &[session], &set_level(4, json!("info")))
            .await
            .json_with(200),
        json!({ "jsonrpc": "2.0", "id": 4, "result": {} })
    );
    assert_eq!(
        events(&post(to, &[session], &call(5)).await),
        [
            logged("info", json!("i")),
            logged("warning", json!({ "w": 1 })),
            answer(5)
        ]
    );
    // Another session, or none, set no level.
    let other_session = open_session(to).await;
    let other = ("Mcp-Session-Id", other_session.as_str());
    assert_eq!(post(to, &[other], &call(6)).await.json_with(200), answer(6));
    assert_eq!(post(to, &[], &call(7)).await.json_with(200), answer(7));
    // A client that takes JSON only gets its answer, without the messages.
    let json_only = send(
        to,
        "POST",
        &[("Accept", "application/json"), session],
        &call(8).to_string(),
    )
    .await;
    assert_eq!(json_only.json_with(200), answer(8));
}

#[tokio::test]
async fn a_stateless_call_gets_the_log_messages_its_meta_asks_for_and_none_otherwise() {
    let to = serve(HttpConfig::default()).await;
    let mut meta = stateless_meta();
    let quiet = stateless_call(to, "logs.noisy", json!({}), meta.clone(), &[]).await;
    assert_eq!(
        quiet.json_with(200)["result"]["structuredContent"],
        json!({ "result": 1 })
    );

    meta["io.modelcontextprotocol/logLevel"] = json!("warning");
    let answer = stateless_call(to, "logs.noisy", json!({}), meta.clone(), &[]).await;
    let events = events(&answer);
    assert_eq!(events.len(), 2, "{events:?}");
    assert_eq!(events[0], logged("warning", json!({ "w": 1 })));
    assert_eq!(events[1]["result"]["resultType"], "complete");

    meta["io.modelcontextprotocol/logLevel"] = json!("verbose");
    let refused = stateless_call(to, "logs.noisy", json!({}), meta, &[]).await;
    assert_eq!(refused.status, 400, "{refused:?}");
    let refused = refused.json();
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .is_some_and(
                |message| message.contains("io.modelcontextprotocol/logLevel")
                    && message.contains("`verbose` is not a log level")
            ),
        "{refused}"
    );

    // `logging/setLevel` does not exist at 2026-07-28.
    let set_level = json!({
        "jsonrpc": "2.0", "id": 9, "method": "logging/setLevel",
        "params": { "level": "info", "_meta": stateless_meta() },
    });
    let answer = post(
        to,
        &[
            ("MCP-Protocol-Version", STATELESS_VERSION),
            ("Mcp-Method", "logging/setLevel"),
        ],
        &set_level,
    )
    .await;
    assert_eq!(answer.status, 404, "{answer:?}");
    assert_eq!(answer.json()["error"]["code"], -32601);
}

#[tokio::test]
async fn a_session_hears_on_its_stream_of_the_resources_it_subscribed_to_and_of_list_changes() {
    let server = server();
    let to = serve_this(Arc::clone(&server), HttpConfig::default()).await;
    let session = open_session(to).await;
    let with_session = [("Mcp-Session-Id", session.as_str())];

    // Subscribed before the stream opens: the stream takes the subscription.
    let subscribe = |id: u64, method: &str, uri: &str| json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": { "uri": uri } });
    let ok = post(
        to,
        &with_session,
        &subscribe(2, "resources/subscribe", "a://one"),
    )
    .await;
    assert_eq!(ok.json_with(200)["result"], json!({}));
    let mut stream = Events::get(to, &with_session).await;
    stream.opened().await;
    assert!(
        stream.head.contains("content-type: text/event-stream"),
        "{}",
        stream.head
    );
    // And one made while it is open.
    let ok = post(
        to,
        &with_session,
        &subscribe(3, "resources/subscribe", "a://two"),
    )
    .await;
    assert_eq!(ok.json_with(200)["result"], json!({}));
    // Another session's subscription is not this one's.
    let other_session = open_session(to).await;
    let other = [("Mcp-Session-Id", other_session.as_str())];
    post(
        to,
        &other,
        &subscribe(4, "resources/subscribe", "a://three"),
    )
    .await;

    for uri in ["a://three", "a://one", "a://two"] {
        server.notify_resource_updated(uri);
    }
    let updated = |uri: &str| json!({ "jsonrpc": "2.0", "method": "notifications/resources/updated", "params": { "uri": uri } });
    assert_eq!(stream.next().await, updated("a://one"));
    assert_eq!(stream.next().await, updated("a://two"));

    let ok = post(
        to,
        &with_session,
        &subscribe(5, "resources/unsubscribe", "a://one"),
    )
    .await;
    assert_eq!(ok.json_with(200)["result"], json!({}));
    server.notify_resource_updated("a://one");
    let changed = server
        .change(|registry| registry.disable("calc.add"))
        .unwrap();
    assert!(changed);
    assert_eq!(
        stream.next().await,
        json!({ "jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {} }),
        "an update after the unsubscription would have come first"
    );

    // No session, no stream; a session's stream is SSE only.
    let refused = send(to, "GET", &[("Accept", "text/event-stream")], "").await;
    assert_eq!(refused.status, 405, "{refused:?}");
    let refused = send(
        to,
        "GET",
        &[("Accept", "application/json"), with_session[0]],
        "",
    )
    .await;
    assert_eq!(refused.status, 406, "{refused:?}");
}

#[tokio::test]
async fn a_server_served_twice_tells_the_sessions_of_each_of_its_resources_updates_once() {
    let server = server();
    // Two stores of their own, and two addresses sharing one store.
    let first = serve_this(Arc::clone(&server), HttpConfig::default()).await;
    let shared = SessionStore::memory(SessionLimits::default());
    let second = serve_this(
        Arc::clone(&server),
        HttpConfig {
            sessions: shared.clone(),
            ..HttpConfig::default()
        },
    )
    .await;
    let third = serve_this(
        Arc::clone(&server),
        HttpConfig {
            sessions: shared,
            ..HttpConfig::default()
        },
    )
    .await;
    let updated = json!({ "jsonrpc": "2.0", "method": "notifications/resources/updated", "params": { "uri": "a://one" } });
    let mut streams = Vec::new();
    for to in [first, second, third] {
        let session = open_session(to).await;
        let with_session = [("Mcp-Session-Id", session.as_str())];
        let subscribe = json!({ "jsonrpc": "2.0", "id": 2, "method": "resources/subscribe", "params": { "uri": "a://one" } });
        post(to, &with_session, &subscribe).await.json_with(200);
        let mut stream = Events::get(to, &with_session).await;
        stream.opened().await;
        streams.push(stream);
    }
    server.notify_resource_updated("a://one");
    // Then a list change, which must come next: the update was not told twice.
    assert!(
        server
            .change(|registry| registry.disable("calc.add"))
            .unwrap()
    );
    let changed =
        json!({ "jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {} });
    for stream in &mut streams {
        assert_eq!(stream.next().await, updated);
        assert_eq!(stream.next().await, changed);
    }
}

#[tokio::test]
async fn a_calls_stream_in_a_session_carries_ids_and_resumes_after_any_of_them_once_each() {
    let to = serve(HttpConfig::default()).await;
    let opened = open_session(to).await;
    let session = ("Mcp-Session-Id", opened.as_str());
    let set_level = json!({ "jsonrpc": "2.0", "id": 2, "method": "logging/setLevel", "params": { "level": "info" } });
    post(to, &[session], &set_level).await.json_with(200);
    let call = json!({ "jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": { "name": "logs.noisy" } });
    let answer = post(to, &[session], &call).await;
    let sent = sse_events(&answer);
    // The stream opens with an id, the time to wait before reconnecting, and no data.
    assert!(answer.body.starts_with("id: "), "{answer:?}");
    assert!(
        answer
            .body
            .split("\n\n")
            .next()
            .unwrap()
            .contains("\nretry: 500\n"),
        "{answer:?}"
    );
    assert_eq!(
        sent.len(),
        4,
        "priming, two log messages, the answer: {sent:?}"
    );
    assert_eq!(sent[0].1, "");
    let ids: Vec<&str> = sent
        .iter()
        .map(|(id, _)| id.as_deref().expect("an id"))
        .collect();
    let stream = ids[0].split_once('.').expect("{stream}.{n}").0;
    for (n, id) in ids.iter().enumerate() {
        assert_eq!(*id, format!("{stream}.{}", n + 1));
    }
    // Reconnecting after any event gives what followed it, through the answer, once.
    for after in 0..3 {
        let resumed = send(
            to,
            "GET",
            &[
                ("Accept", "text/event-stream"),
                session,
                ("Last-Event-ID", ids[after]),
            ],
            "",
        )
        .await;
        assert_eq!(resumed.status, 200, "{resumed:?}");
        assert_eq!(
            sse_events(&resumed),
            sent[after + 1..],
            "after {}",
            ids[after]
        );
    }
    // Only ids this server gives are taken; a stream it does not keep is said to be gone.
    for (last, status) in [
        ("../g.1", 400),
        ("g.x", 400),
        ("0123456789abcdef0123456789abcdef.1", 404),
    ] {
        let refused = send(
            to,
            "GET",
            &[
                ("Accept", "text/event-stream"),
                session,
                ("Last-Event-ID", last),
            ],
            "",
        )
        .await;
        assert_eq!(refused.status, status, "{last}: {refused:?}");
    }
    // Another session cannot read this one's stream: the id names a stream of its own.
    let other = open_session(to).await;
    let refused = send(
        to,
        "GET",
        &[
            ("Accept", "text/event-stream"),
            ("Mcp-Session-Id", other.as_str()),
            ("Last-Event-ID", ids[0]),
        ],
        "",
    )
    .await;
    assert_eq!(refused.status, 404, "{refused:?}");
}

#[tokio::test]
async fn a_tool_that_closes_its_stream_is_answered_on_the_stream_its_client_resumes() {
    let to = serve(HttpConfig::default()).await;
    let opened = open_session(to).await;
    let session = ("Mcp-Session-Id", opened.as_str());
    let set_level = json!({ "jsonrpc": "2.0", "id": 2, "method": "logging/setLevel", "params": { "level": "info" } });
    post(to, &[session], &set_level).await.json_with(200);
    let call = json!({ "jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": { "name": "polls.closes_its_stream" } });
    let answer = post(to, &[session], &call).await;
    let sent = sse_events(&answer);
    // The priming event and what the tool logged before it closed the stream: no answer.
    assert_eq!(sent.len(), 2, "{sent:?}");
    assert_eq!(sent[0].1, "");
    assert!(sent[1].1.contains(r#""data":"before""#), "{sent:?}");
    // Resumed after either, the stream gives the rest, the answer last.
    for (after, expected) in [(0, 3), (1, 2)] {
        let resumed = send(
            to,
            "GET",
            &[
                ("Accept", "text/event-stream"),
                session,
                ("Last-Event-ID", sent[after].0.as_deref().expect("an id")),
            ],
            "",
        )
        .await;
        let rest = sse_events(&resumed);
        assert_eq!(rest.len(), expected, "{rest:?}");
        if after == 0 {
            assert_eq!(rest[0], sent[1]);
        }
        assert!(
            rest[expected - 2].1.contains(r#""data":"after""#),
            "{rest:?}"
        );
        let last: Value = serde_json::from_str(&rest[expected - 1].1).unwrap();
        assert_eq!(last["id"], 3);
        assert_eq!(last["result"]["structuredContent"]["result"], 2, "{last}");
    }
}

#[tokio::test]
async fn a_tool_that_closes_a_stream_its_client_cannot_resume_is_answered_on_it() {
    let to = serve(HttpConfig::default()).await;
    // At 2025-06-18 a stream opens with no event, so its client has no id to resume from.
    let opened = open_session_at(to, "2025-06-18").await;
    let session = ("Mcp-Session-Id", opened.as_str());
    let set_level = json!({ "jsonrpc": "2.0", "id": 2, "method": "logging/setLevel", "params": { "level": "info" } });
    post(to, &[session], &set_level).await.json_with(200);
    let call = json!({ "jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": { "name": "polls.closes_its_stream" } });
    let sent = sse_events(&post(to, &[session], &call).await);
    assert_eq!(sent.len(), 3, "before, after, the answer: {sent:?}");
    let last: Value = serde_json::from_str(&sent[2].1).unwrap();
    assert_eq!(last["result"]["structuredContent"]["result"], 2, "{last}");
}

#[tokio::test]
async fn a_sessions_stream_resumed_gets_the_updates_raised_while_it_was_gone_in_order_once() {
    let server = server();
    let to = serve_this(Arc::clone(&server), HttpConfig::default()).await;
    let session = open_session(to).await;
    let with_session = [("Mcp-Session-Id", session.as_str())];
    let subscribe = |uri: &str| json!({ "jsonrpc": "2.0", "id": 2, "method": "resources/subscribe", "params": { "uri": uri } });
    for uri in ["a://one", "a://two"] {
        post(to, &with_session, &subscribe(uri))
            .await
            .json_with(200);
    }
    let updated = |uri: &str| json!({ "jsonrpc": "2.0", "method": "notifications/resources/updated", "params": { "uri": uri } });
    let mut stream = Events::get(to, &with_session).await;
    stream.opened().await;
    server.notify_resource_updated("a://one");
    assert_eq!(stream.next().await, updated("a://one"));
    let last = stream.last_id.clone().expect("an id");
    assert_eq!(last, "g.1");
    drop(stream);
    // Raised while no stream is open, by the server and by a tool: kept for the client
    // that reconnects.
    server.notify_resource_updated("a://two");
    let touch = json!({ "jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": { "name": "notes.touch", "arguments": { "uri": "a://one" } } });
    let touched = post(to, &with_session, &touch).await.json_with(200);
    assert_eq!(
        touched["result"]["structuredContent"]["result"], true,
        "{touched}"
    );
    let mut headers = with_session.to_vec();
    headers.push(("Last-Event-ID", last.as_str()));
    let mut resumed = Events::get(to, &headers).await;
    resumed.opened().await;
    assert_eq!(resumed.next().await, updated("a://two"));
    assert_eq!(resumed.last_id.as_deref(), Some("g.2"));
    assert_eq!(resumed.next().await, updated("a://one"));
    assert_eq!(resumed.last_id.as_deref(), Some("g.3"));
    server.notify_resource_updated("a://two");
    assert_eq!(resumed.next().await, updated("a://two"));
    assert_eq!(resumed.last_id.as_deref(), Some("g.4"));
    // A stream opened without an id starts at the log's end: nothing is sent twice.
    let mut fresh = Events::get(to, &with_session).await;
    fresh.opened().await;
    server.notify_resource_updated("a://one");
    assert_eq!(fresh.next().await, updated("a://one"));
    assert_eq!(fresh.last_id.as_deref(), Some("g.5"));
}

impl Events {
    /// Whether the stream ends within `within` (its last chunk sent, or its connection
    /// closed), whatever it sends before.
    async fn ends_within(&mut self, within: Duration) -> bool {
        use tokio::io::AsyncReadExt;
        tokio::time::timeout(within, async {
            let mut buffer = [0u8; 4096];
            while !self.read.contains("\r\n0\r\n\r\n") {
                match self.stream.read(&mut buffer).await {
                    Ok(read) if read > 0 => self
                        .read
                        .push_str(&String::from_utf8_lossy(&buffer[..read])),
                    _ => return,
                }
            }
        })
        .await
        .is_ok()
    }
}

#[tokio::test]
async fn a_sessions_stream_closes_after_its_lifetime_and_its_client_misses_nothing() {
    let server = server();
    let limits = SessionLimits::default().with_stream_lifetime(Duration::from_secs(1));
    let config = HttpConfig {
        sessions: SessionStore::memory(limits),
        ..HttpConfig::default()
    };
    let to = serve_this(Arc::clone(&server), config).await;
    let session = open_session(to).await;
    let with_session = [("Mcp-Session-Id", session.as_str())];
    let subscribe = json!({ "jsonrpc": "2.0", "id": 2, "method": "resources/subscribe", "params": { "uri": "a://one" } });
    post(to, &with_session, &subscribe).await.json_with(200);
    let updated = json!({ "jsonrpc": "2.0", "method": "notifications/resources/updated", "params": { "uri": "a://one" } });
    let mut stream = Events::get(to, &with_session).await;
    stream.opened().await;
    server.notify_resource_updated("a://one");
    assert_eq!(stream.next().await, updated);
    let last = stream.last_id.clone().expect("an id");
    assert!(
        stream.ends_within(Duration::from_secs(10)).await,
        "closed after its lifetime"
    );
    server.notify_resource_updated("a://one");
    let mut headers = with_session.to_vec();
    headers.push(("Last-Event-ID", last.as_str()));
    let mut again = Events::get(to, &headers).await;
    again.opened().await;
    assert_eq!(again.next().await, updated);
    assert_eq!(again.last_id.as_deref(), Some("g.2"));
}

#[tokio::test]
async fn a_sessions_second_stream_ends_the_first_so_that_each_update_goes_out_once() {
    let server = server();
    let to = serve_this(Arc::clone(&server), HttpConfig::default()).await;
    let session = open_session(to).await;
    let with_session = [("Mcp-Session-Id", session.as_str())];
    let subscribe = json!({ "jsonrpc": "2.0", "id": 2, "method": "resources/subscribe", "params": { "uri": "a://one" } });
    post(to, &with_session, &subscribe).await.json_with(200);
    let mut first = Events::get(to, &with_session).await;
    first.opened().await;
    let mut second = Events::get(to, &with_session).await;
    second.opened().await;
    assert!(
        first.ends_within(Duration::from_secs(10)).await,
        "the first stream ends"
    );
    server.notify_resource_updated("a://one");
    let updated = json!({ "jsonrpc": "2.0", "method": "notifications/resources/updated", "params": { "uri": "a://one" } });
    assert_eq!(second.next().await, updated);
}
