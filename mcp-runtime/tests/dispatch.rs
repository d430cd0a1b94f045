//! The JSON-RPC dispatch of [`Server`], driven through [`Server::handle`] as a transport
//! would: requests, calls, progress, cancellation and protocol versions, each answer
//! checked whole.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use mcp_runtime::server::{
    DEFAULT_PAGE_SIZE, HANDSHAKE_VERSIONS, HttpConfig, LlmNameError, Notifier, PROTOCOL_VERSIONS,
    STATELESS_VERSION, Server, serve_http,
};
use mcp_runtime::{Arguments, Registry, ToolContext, ToolDefinition, ToolError, mcp_tool};
use serde_json::{Value, json};
use tokio::sync::{Notify, mpsc, oneshot};
use tokio::task::JoinHandle;

mod support;

/// Adds two integers on the caller's task, telling its progress first.
#[mcp_tool(namespace = "calc", inline)]
fn add(a: i64, b: i64, ctx: &ToolContext) -> i64 {
    ctx.progress(1.0, Some(2.0), Some("adding"));
    a.wrapping_add(b)
}

/// The gates the tool `calc.wait` waits behind, and where it says it has started.
struct Gates {
    open: HashMap<String, Arc<Notify>>,
    started: mpsc::UnboundedSender<String>,
}

/// A server with three tools, in name order: `calc.add` (inline, from `#[mcp_tool]`),
/// `calc.echo_meta` (dynamic: answers with the call's `_meta` after yielding once) and
/// `calc.wait` (dynamic: says it started, then waits until its gate opens or the call is
/// cancelled); one page of `tools/list` holds two of them.
struct Fixture {
    server: Arc<Server>,
    /// Each tool's definition as `tools/list` should serve it, in name order.
    definitions: Vec<Value>,
    gates: Arc<Gates>,
    started: mpsc::UnboundedReceiver<String>,
}

fn schema() -> mcp_runtime::schemars::Schema {
    mcp_runtime::schemars::json_schema!({ "type": "object" })
}

fn registry(gates: &Arc<Gates>) -> Registry {
    let waiting = Arc::clone(gates);
    Registry::builder()
        .inventory()
        .tool(
            ToolDefinition::new("calc.echo_meta", schema()).expect("a valid definition"),
            |_arguments: Arguments, ctx: ToolContext| async move {
                tokio::task::yield_now().await;
                Ok::<_, ToolError>(json!({ "meta": ctx.meta() }))
            },
        )
        .tool(
            ToolDefinition::new("calc.wait", schema()).expect("a valid definition"),
            move |arguments: Arguments, ctx: ToolContext| {
                let gates = Arc::clone(&waiting);
                async move {
                    let gate = arguments["gate"].as_str().unwrap_or_default().to_owned();
                    let open = Arc::clone(&gates.open[&gate]);
                    gates.started.send(gate.clone()).expect("the test listens");
                    tokio::select! {
                        () = open.notified() => Ok::<_, ToolError>(json!({ "gate": gate })),
                        () = ctx.cancellation().cancelled() => {
                            Err(ToolError::execution("cancelled"))
                        }
                    }
                }
            },
        )
        .build()
        .expect("a valid registry")
}

fn fixture() -> Fixture {
    let (sender, started) = mpsc::unbounded_channel();
    let gates = Arc::new(Gates {
        open: ["a", "b"]
            .into_iter()
            .map(|gate| (gate.to_owned(), Arc::new(Notify::new())))
            .collect(),
        started: sender,
    });
    let registry = registry(&gates);
    // As `tools/list` serves them: without the formats JSON Schema does not define.
    let definitions = registry
        .list()
        .map(|tool| {
            let mut definition =
                serde_json::to_value(tool.definition()).expect("a definition serializes");
            for schema in ["inputSchema", "outputSchema"] {
                if let Some(schema) = definition.get_mut(schema) {
                    *schema = mcp_runtime::listing::served(schema);
                }
            }
            definition
        })
        .collect();
    let server = Server::new(registry)
        .with_info("dispatch-test", "1.2.3")
        .with_page_size(2);
    Fixture {
        server: Arc::new(server),
        definitions,
        gates,
        started,
    }
}

impl Fixture {
    /// The answer to `message`, read as JSON.
    async fn answer(&self, message: Value) -> Value {
        let answer = self
            .server
            .handle(message.to_string().as_bytes(), None)
            .await
            .unwrap_or_else(|| panic!("{message} is answered"));
        serde_json::from_str(&answer).expect("an answer is JSON")
    }

    /// Calls `calc.wait` behind `gate` as request `id`, in a task of its own, and waits
    /// until the tool has started.
    async fn start_wait(&mut self, id: u64, gate: &str) -> JoinHandle<Option<String>> {
        let server = Arc::clone(&self.server);
        let message = call(id, "calc.wait", json!({ "gate": gate })).to_string();
        let mut call = tokio::spawn(async move { server.handle(message.as_bytes(), None).await });
        tokio::select! {
            started = self.started.recv() => {
                assert_eq!(started.as_deref(), Some(gate));
            }
            ended = &mut call => panic!("call {id} ended before its tool started: {ended:?}"),
        }
        call
    }

    fn open(&self, gate: &str) {
        self.gates.open[gate].notify_one();
    }

    /// Sends `notifications/cancelled` for request `id`: a notification, never answered.
    async fn cancel(&self, id: u64) {
        let message = json!({
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": { "requestId": id, "reason": "test" },
        });
        assert_eq!(
            self.server
                .handle(message.to_string().as_bytes(), None)
                .await,
            None
        );
    }
}

fn request(id: u64, method: &str, params: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })
}

fn call(id: u64, name: &str, arguments: Value) -> Value {
    request(
        id,
        "tools/call",
        json!({ "name": name, "arguments": arguments }),
    )
}

fn success(id: u64, result: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "result": result })
}

fn failure(id: u64, code: i64, message: &str) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } })
}

/// The answer to a call of `name`, a tool there is none of: invalid params naming it in
/// `data.name`.
fn unknown_tool(id: u64, name: &str, message: &str) -> Value {
    let mut answer = failure(id, -32_602, message);
    answer["error"]["data"] = json!({ "name": name });
    answer
}

/// The `_meta` naming the stateless revision.
fn stateless_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": STATELESS_VERSION,
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

/// `result` as a 2026-07-28 answer gives it: marked complete and signed by the server.
fn complete(mut result: Value) -> Value {
    result["resultType"] = json!("complete");
    result["_meta"] = json!({
        "io.modelcontextprotocol/serverInfo": { "name": "dispatch-test", "version": "1.2.3" },
    });
    result
}

/// A tool's answer with `data` as its structured content, and as text.
fn data_result(data: &Value) -> Value {
    json!({
        "structuredContent": data,
        "content": [{ "type": "text", "text": data.to_string() }],
        "isError": false,
    })
}

#[tokio::test]
async fn ping_is_answered_with_an_empty_result_as_written() {
    let fixture = fixture();
    let answer = fixture
        .server
        .handle(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#, None)
        .await;
    assert_eq!(
        answer.as_deref(),
        Some(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#)
    );
}

/// What the server offers, at every revision.
fn capabilities() -> Value {
    json!({
        "logging": {},
        "tools": { "listChanged": true },
        "resources": { "subscribe": true, "listChanged": true },
        "prompts": { "listChanged": true },
        "completions": {},
        "extensions": { "io.modelcontextprotocol/tasks": {} },
    })
}

#[tokio::test]
async fn initialize_answers_the_clients_version_or_the_newest_handshake_version() {
    let fixture = fixture();
    assert_eq!(HANDSHAKE_VERSIONS, ["2025-11-25", "2025-06-18"]);
    // The stateless revision has no handshake: it is not negotiated either.
    for (requested, answered) in [
        ("2025-06-18", "2025-06-18"),
        ("2025-11-25", "2025-11-25"),
        ("1999-01-01", "2025-11-25"),
        (STATELESS_VERSION, "2025-11-25"),
    ] {
        let params = json!({
            "protocolVersion": requested,
            "capabilities": {},
            "clientInfo": { "name": "client", "version": "1" },
        });
        assert_eq!(
            fixture.answer(request(1, "initialize", params)).await,
            success(
                1,
                json!({
                    "protocolVersion": answered,
                    "capabilities": capabilities(),
                    "serverInfo": { "name": "dispatch-test", "version": "1.2.3" },
                })
            ),
            "{requested}"
        );
    }
}

#[tokio::test]
async fn server_discover_answers_a_stateless_request() {
    let fixture = fixture();
    assert_eq!(
        PROTOCOL_VERSIONS,
        ["2026-07-28", "2025-11-25", "2025-06-18"]
    );
    assert_eq!(
        fixture
            .answer(request(
                4,
                "server/discover",
                json!({ "_meta": stateless_meta() })
            ))
            .await,
        success(
            4,
            complete(json!({
                "supportedVersions": ["2026-07-28", "2025-11-25", "2025-06-18"],
                "capabilities": capabilities(),
                "ttlMs": 300_000,
                "cacheScope": "public",
            }))
        )
    );
}

#[tokio::test]
async fn a_stateless_request_without_its_meta_is_refused_with_32602_naming_what_is_missing() {
    let fixture = fixture();
    let version = "io.modelcontextprotocol/protocolVersion";
    let capabilities = "io.modelcontextprotocol/clientCapabilities";
    let info = "io.modelcontextprotocol/clientInfo";
    for (params, message) in [
        (
            json!({}),
            format!("a 2026-07-28 request carries `_meta` with `{version}` and `{capabilities}`"),
        ),
        (
            json!({ "_meta": { capabilities: {} } }),
            format!("`_meta.{version}` is missing"),
        ),
        (
            json!({ "_meta": { version: STATELESS_VERSION } }),
            format!("`_meta.{capabilities}` is missing"),
        ),
        (
            json!({ "_meta": { version: STATELESS_VERSION, capabilities: [] } }),
            format!("`_meta.{capabilities}` must be an object"),
        ),
        (
            json!({ "_meta": { version: 7, capabilities: {} } }),
            format!("`_meta.{version}` must be a string"),
        ),
        (
            json!({ "_meta": { version: STATELESS_VERSION, capabilities: {}, info: "me" } }),
            format!("`_meta.{info}` must be an object"),
        ),
    ] {
        assert_eq!(
            fixture
                .answer(request(9, "server/discover", params.clone()))
                .await,
            failure(9, -32_602, &message),
            "{params}"
        );
    }
    // The client's name is optional.
    let answer = fixture
        .answer(request(
            10,
            "tools/list",
            json!({ "_meta": { version: STATELESS_VERSION, capabilities: {} } }),
        ))
        .await;
    assert!(answer["result"]["tools"].is_array(), "{answer}");
}

#[tokio::test]
async fn methods_the_stateless_revision_removed_or_never_had_are_not_found() {
    let fixture = fixture();
    for method in [
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
    ] {
        assert_eq!(
            fixture
                .answer(request(5, method, json!({ "_meta": stateless_meta() })))
                .await,
            failure(
                5,
                -32_601,
                &format!("method `{method}` does not exist at protocol version 2026-07-28")
            ),
        );
    }
    assert_eq!(
        fixture
            .answer(request(
                6,
                "unknown/method",
                json!({ "_meta": stateless_meta() })
            ))
            .await,
        failure(
            6,
            -32_601,
            "method `unknown/method` is not supported by this server"
        ),
    );
    // The handshake's revisions still have them.
    assert_eq!(
        fixture.answer(request(7, "ping", json!({}))).await,
        success(7, json!({}))
    );
}

#[tokio::test]
async fn tools_list_pages_through_the_tools_in_name_order() {
    let fixture = fixture();
    assert_eq!(fixture.definitions.len(), 3);
    let names: Vec<&Value> = fixture.definitions.iter().map(|d| &d["name"]).collect();
    assert_eq!(names, ["calc.add", "calc.echo_meta", "calc.wait"]);

    let first = fixture.answer(request(1, "tools/list", json!({}))).await;
    let cursor = first["result"]["nextCursor"].clone();
    assert!(cursor.is_string(), "{first}");
    assert_eq!(
        first,
        success(
            1,
            json!({ "tools": fixture.definitions[..2], "nextCursor": cursor })
        )
    );
    // Without a version in `_meta`, no cache hints: the cursor alone leads on.
    let second = fixture
        .answer(request(2, "tools/list", json!({ "cursor": cursor })))
        .await;
    assert_eq!(
        second,
        success(2, json!({ "tools": fixture.definitions[2..] }))
    );
}

#[tokio::test]
async fn tools_list_at_the_stateless_version_carries_cache_hints() {
    let fixture = fixture();
    let params = json!({ "_meta": stateless_meta() });
    let page = fixture.answer(request(3, "tools/list", params)).await;
    let cursor = page["result"]["nextCursor"].clone();
    assert!(cursor.is_string(), "{page}");
    assert_eq!(
        page,
        success(
            3,
            complete(json!({
                "tools": fixture.definitions[..2],
                "nextCursor": cursor,
                "ttlMs": 300_000,
                "cacheScope": "public",
            }))
        )
    );
}

#[tokio::test]
async fn an_unsupported_version_in_meta_is_refused_with_32022() {
    let fixture = fixture();
    let message = "protocol version `1999-01-01` is not supported; \
                   this server speaks 2026-07-28, 2025-11-25, 2025-06-18";
    let refusal = |id: u64, requested: &str, message: &str| {
        let mut refusal = failure(id, -32_022, message);
        refusal["error"]["data"] = json!({
            "requested": requested,
            "supported": ["2026-07-28", "2025-11-25", "2025-06-18"],
        });
        refusal
    };
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "1999-01-01",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    assert_eq!(
        fixture
            .answer(request(1, "ping", json!({ "_meta": meta })))
            .await,
        refusal(1, "1999-01-01", message)
    );
    let mut refused_call = call(2, "calc.add", json!({ "a": 1, "b": 2 }));
    refused_call["params"]["_meta"] = meta;
    assert_eq!(
        fixture.answer(refused_call).await,
        refusal(2, "1999-01-01", message)
    );
}

#[tokio::test]
async fn a_progress_token_must_be_a_string_or_an_integer() {
    let fixture = fixture();
    for token in [json!("token"), json!(7), json!(-3), json!(2.0)] {
        let params = json!({ "_meta": { "progressToken": token } });
        assert_eq!(
            fixture.answer(request(1, "ping", params)).await,
            success(1, json!({})),
            "{token}"
        );
    }
    for token in [json!(1.5), json!(true), json!({ "a": 1 })] {
        let params = json!({ "_meta": { "progressToken": token } });
        assert_eq!(
            fixture.answer(request(2, "ping", params)).await,
            failure(
                2,
                -32_602,
                "`_meta.progressToken` must be a string or an integer"
            ),
            "{token}"
        );
    }
}

#[tokio::test]
async fn a_call_answers_with_its_tools_result() {
    let fixture = fixture();
    // Inline, run at once.
    assert_eq!(
        fixture
            .answer(call(1, "calc.add", json!({ "a": 40, "b": 2 })))
            .await,
        success(1, data_result(&json!({ "result": 42 })))
    );
    // Dynamic, awaited; the tool sees the call's `_meta`.
    let mut echo = call(2, "calc.echo_meta", json!({}));
    echo["params"]["_meta"] = json!({ "trace": "abc" });
    assert_eq!(
        fixture.answer(echo).await,
        success(2, data_result(&json!({ "meta": { "trace": "abc" } })))
    );
    let echo = call(3, "calc.echo_meta", json!({}));
    assert_eq!(
        fixture.answer(echo).await,
        success(3, data_result(&json!({ "meta": null })))
    );
}

#[tokio::test]
async fn a_call_at_the_stateless_version_is_marked_complete() {
    let fixture = fixture();
    for (id, name, arguments, data) in [
        (
            1,
            "calc.add",
            json!({ "a": 1, "b": 2 }),
            json!({ "result": 3 }),
        ),
        (
            2,
            "calc.echo_meta",
            json!({}),
            json!({ "meta": stateless_meta() }),
        ),
    ] {
        let mut message = call(id, name, arguments);
        message["params"]["_meta"] = stateless_meta();
        assert_eq!(
            fixture.answer(message).await,
            success(id, complete(data_result(&data))),
            "{name}"
        );
    }
}

#[tokio::test]
async fn a_failed_call_sends_its_text_and_keeps_its_detail_in_meta_beside_the_servers_identity() {
    let fixture = fixture();
    let arguments = json!({ "a": "two", "b": 2 });
    let answer = fixture.answer(call(1, "calc.add", arguments.clone())).await;
    let result = &answer["result"];
    assert_eq!(result["isError"], true, "{answer}");
    assert!(result.get("structuredContent").is_none(), "{answer}");
    let detail = &result["_meta"][mcp_runtime::ERROR_META];
    assert_eq!(detail["error_type"], "ValidationError", "{answer}");
    let text = format!(
        "[FAIL] Tool execution failed:\nError: ValidationError: {} ({})",
        detail["error_message"].as_str().unwrap(),
        detail["error_details"]
    );
    assert_eq!(result["content"], json!([{ "type": "text", "text": text }]));

    // At 2026-07-28, one `_meta` holds both the detail and the server's identity.
    let mut message = call(2, "calc.add", arguments);
    message["params"]["_meta"] = stateless_meta();
    let written = fixture
        .server
        .handle(message.to_string().as_bytes(), None)
        .await
        .expect("an answer");
    assert_eq!(written.matches(r#""_meta""#).count(), 1, "{written}");
    let mut expected = result.clone();
    expected["resultType"] = json!("complete");
    expected["_meta"]["io.modelcontextprotocol/serverInfo"] =
        json!({ "name": "dispatch-test", "version": "1.2.3" });
    assert_eq!(
        serde_json::from_str::<Value>(&written).unwrap(),
        success(2, expected)
    );
}

#[tokio::test]
async fn an_unknown_tool_name_gets_the_closest_names() {
    let (sender, _started) = mpsc::unbounded_channel();
    let gates = Arc::new(Gates {
        open: HashMap::new(),
        started: sender,
    });
    let server = Server::new(registry(&gates));
    let answer = server
        .handle(
            call(1, "add", json!({ "a": 1, "b": 2 }))
                .to_string()
                .as_bytes(),
            None,
        )
        .await
        .expect("answered");
    assert_eq!(
        serde_json::from_str::<Value>(&answer).expect("JSON"),
        unknown_tool(1, "add", "Unknown tool: add; did you mean `calc.add`?")
    );
}

#[tokio::test]
async fn a_disabled_tool_is_neither_listed_nor_called() {
    let (sender, _started) = mpsc::unbounded_channel();
    let gates = Arc::new(Gates {
        open: HashMap::new(),
        started: sender,
    });
    let mut registry = registry(&gates);
    assert!(registry.disable("calc.echo_meta"));
    let server = Server::new(registry);
    let answer = |message: Value| {
        let server = &server;
        async move {
            let answer = server.handle(message.to_string().as_bytes(), None).await;
            serde_json::from_str::<Value>(&answer.expect("answered")).expect("JSON")
        }
    };
    assert_eq!(
        answer(call(1, "calc.echo_meta", json!({}))).await,
        unknown_tool(1, "calc.echo_meta", "Unknown tool: calc.echo_meta")
    );
    let listed = answer(request(2, "tools/list", json!({}))).await;
    let names: Vec<&Value> = listed["result"]["tools"]
        .as_array()
        .expect("a list of tools")
        .iter()
        .map(|tool| &tool["name"])
        .collect();
    assert_eq!(names, ["calc.add", "calc.wait"]);
}

#[tokio::test]
async fn progress_goes_to_the_notifier_when_the_call_has_a_progress_token() {
    let fixture = fixture();
    let sent = Arc::new(Mutex::new(Vec::new()));
    let notify: Notifier = {
        let sent = Arc::clone(&sent);
        Arc::new(move |message| sent.lock().expect("not poisoned").push(message))
    };
    let mut message = call(5, "calc.add", json!({ "a": 1, "b": 2 }));
    message["params"]["_meta"] = json!({ "progressToken": "p-1" });
    let answer = fixture
        .server
        .handle(message.to_string().as_bytes(), Some(notify))
        .await
        .expect("a call is answered");
    assert_eq!(
        serde_json::from_str::<Value>(&answer).expect("JSON"),
        success(5, data_result(&json!({ "result": 3 })))
    );
    let sent: Vec<Value> = sent
        .lock()
        .expect("not poisoned")
        .iter()
        .map(|message| serde_json::from_str(message).expect("JSON"))
        .collect();
    assert_eq!(
        sent,
        [json!({
            "jsonrpc": "2.0",
            "method": "notifications/progress",
            "params": { "progressToken": "p-1", "progress": 1.0, "total": 2.0, "message": "adding" },
        })]
    );
}

#[tokio::test]
async fn a_cancelled_call_is_not_answered_and_the_others_are() {
    let mut fixture = fixture();
    let first = fixture.start_wait(1, "a").await;
    let second = fixture.start_wait(2, "b").await;
    fixture.cancel(1).await;
    // Both could end now: only the cancelled one stays silent.
    fixture.open("a");
    fixture.open("b");
    assert_eq!(first.await.expect("no panic"), None);
    let answer = second.await.expect("no panic").expect("answered");
    assert_eq!(
        serde_json::from_str::<Value>(&answer).expect("JSON"),
        success(2, data_result(&json!({ "gate": "b" })))
    );
}

#[tokio::test]
async fn a_reused_id_names_the_newest_call_with_it() {
    let mut fixture = fixture();
    let older = fixture.start_wait(7, "a").await;
    let newer = fixture.start_wait(7, "b").await;
    fixture.open("a");
    let answer = older.await.expect("no panic").expect("answered");
    assert_eq!(
        serde_json::from_str::<Value>(&answer).expect("JSON"),
        success(7, data_result(&json!({ "gate": "a" })))
    );
    // The older call's end left the newer one cancellable.
    fixture.cancel(7).await;
    fixture.open("b");
    assert_eq!(newer.await.expect("no panic"), None);
}

#[tokio::test]
async fn llm_names_are_at_most_64_characters() {
    let (sender, _started) = mpsc::unbounded_channel();
    let gates = Arc::new(Gates {
        open: HashMap::new(),
        started: sender,
    });
    let with_tool = |name: &str| {
        let mut registry = registry(&gates);
        registry
            .register(
                ToolDefinition::new(name, schema()).expect("a valid definition"),
                |_arguments: Arguments, _ctx: ToolContext| async { Ok::<_, ToolError>(json!({})) },
            )
            .expect("a new tool");
        Server::new(registry)
    };
    let longest = format!("long.{}", "x".repeat(59));
    assert_eq!(longest.len(), 64);
    let server = with_tool(&longest)
        .with_llm_names()
        .expect("64 characters are allowed");
    let listed = server
        .handle(
            request(1, "tools/list", json!({})).to_string().as_bytes(),
            None,
        )
        .await
        .expect("answered");
    let listed: Value = serde_json::from_str(&listed).expect("JSON");
    let names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .expect("a list of tools")
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    let longest_llm = format!("long_{}", "x".repeat(59));
    assert_eq!(
        names,
        [
            "calc_add",
            "calc_echo_meta",
            "calc_wait",
            longest_llm.as_str()
        ]
    );

    let too_long = format!("long.{}", "x".repeat(60));
    assert_eq!(
        with_tool(&too_long).with_llm_names().err(),
        Some(LlmNameError::TooLong { tool: too_long })
    );
}

#[tokio::test]
async fn the_server_serves_and_shows_its_registry() {
    let fixture = fixture();
    let registry = fixture.server.registry();
    let names: Vec<&str> = registry.list().map(|tool| tool.name().as_str()).collect();
    assert_eq!(names, ["calc.add", "calc.echo_meta", "calc.wait"]);
    assert_eq!(
        format!("{:?}", fixture.server),
        r#"Server { name: "dispatch-test", version: "1.2.3", page_size: 2, .. }"#
    );
    assert_eq!(
        format!("{:?}", Server::new(Registry::global()).with_info("n", "v")),
        format!(r#"Server {{ name: "n", version: "v", page_size: {DEFAULT_PAGE_SIZE}, .. }}"#)
    );
}

/// A `ping` POSTed to `/mcp` at `address`, on a connection of its own: the whole HTTP
/// response.
async fn post_ping(address: std::net::SocketAddr) -> String {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    );
    support::exchange(address, &request).await
}

/// `serve_http` serves until the process is asked to stop (Ctrl-C or SIGTERM), and nothing
/// here asks it to: request after request is answered. (The server's signal handlers stay
/// installed in this test process; its tests end in well under a second.)
#[tokio::test]
async fn serve_http_serves_until_the_process_is_asked_to_stop() {
    let (bound, address) = oneshot::channel();
    let serving = tokio::spawn(serve_http(
        Arc::new(Server::new(Registry::global())),
        "127.0.0.1:0".parse().expect("an address"),
        HttpConfig::default(),
        move |address| bound.send(address).expect("the test listens"),
    ));
    let address = address.await.expect("the server binds");
    // A server told to stop at once would have stopped by the time the first exchange is
    // over: the second connection proves it still serves.
    for _ in 0..2 {
        let response = post_ping(address).await;
        assert!(response.starts_with("HTTP/1.1 200 OK\r\n"), "{response}");
        assert!(
            response.ends_with("\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}"),
            "{response}"
        );
    }
    assert!(!serving.is_finished());
    serving.abort();
}

#[tokio::test]
async fn a_change_that_would_give_two_tools_one_llm_name_is_refused_and_nothing_changes() {
    let definition = |name: &str| {
        ToolDefinition::new(name, schema())
            .expect("a valid definition")
            .with_description("A tool.")
    };
    let server = Server::new(support::registry_of(&[definition("a.b_c")]))
        .with_llm_names()
        .expect("one tool, one name");
    let listed = |server: &Server| {
        let server = server.registry();
        server
            .list()
            .map(|tool| tool.name().to_string())
            .collect::<Vec<_>>()
    };
    let refused = server.change(|registry| {
        registry.register(definition("a_b.c"), |_, _| async {
            Ok::<_, mcp_runtime::ToolError>(json!({}))
        })
    });
    assert_eq!(
        refused.expect_err("a clash").to_string(),
        "tools `a.b_c` and `a_b.c` would both be served as `a_b_c`: rename one of them"
    );
    assert_eq!(listed(&server), ["a.b_c"]);
    // A change that changes nothing is no change.
    assert!(
        !server
            .change(|registry| registry.disable("no.such"))
            .expect("no clash")
    );
}

#[tokio::test]
async fn cache_hints_are_the_servers_own() {
    use mcp_runtime::server::{CacheHints, CacheScope};
    let hints = CacheHints {
        ttl: std::time::Duration::from_millis(1_500),
        scope: CacheScope::Private,
    };
    let server = Server::new(support::registry_of(&[])).with_cache_hints(hints);
    for method in ["server/discover", "tools/list"] {
        let message = request(1, method, json!({ "_meta": stateless_meta() }));
        let answer: Value = serde_json::from_str(
            &server
                .handle(message.to_string().as_bytes(), None)
                .await
                .expect("an answer"),
        )
        .expect("JSON");
        assert_eq!(answer["result"]["ttlMs"], 1_500, "{method}: {answer}");
        assert_eq!(
            answer["result"]["cacheScope"], "private",
            "{method}: {answer}"
        );
    }
}

#[test]
fn a_view_of_the_served_registry_shows_as_the_registry() {
    let registry =
        support::registry_of(&[ToolDefinition::new("view.one", schema()).expect("valid")]);
    let shown = format!("{registry:?}");
    let server = Server::new(registry);
    assert_eq!(format!("{:?}", server.registry()), shown);
    assert!(shown.contains("view.one"), "{shown}");
}

#[test]
fn a_registry_mounted_while_serving_is_served() {
    let server = Server::new(support::registry_of(&[]));
    let other =
        support::registry_of(&[ToolDefinition::new("files.read", schema()).expect("valid")]);
    let conflicts = server
        .change(|registry| registry.mount("remote", &other))
        .expect("no names for LLM APIs")
        .expect("a valid prefix");
    assert!(conflicts.is_empty(), "{conflicts:?}");
    assert!(server.registry().has_tool("remote.files.read"));
}
