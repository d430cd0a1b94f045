//! The MCP dispatcher: each method, its errors, pagination, progress and cancellation, every
//! answer checked against the official schema of the revision in use.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_runtime::server::{Notifier, Server};
use mcp_runtime::{Registry, ToolContext, mcp_tool};
use mcp_tests::{mcp_validator, schema_errors};
use serde_json::{Value, json};

/// Counts to three, reporting progress.
#[mcp_tool(namespace = "srv", inline)]
fn count(ctx: &ToolContext) -> u8 {
    for step in 1..=3 {
        ctx.progress(f64::from(step), Some(3.0), Some("counting"));
    }
    3
}

/// Told by `srv.wait` each time it starts waiting.
static WAITING: tokio::sync::Notify = tokio::sync::Notify::const_new();

/// Waits until cancelled.
#[mcp_tool(namespace = "srv", timeout = "20s")]
async fn wait(ctx: ToolContext) -> u8 {
    WAITING.notify_one();
    ctx.cancellation().cancelled().await;
    0
}

/// Fails.
#[mcp_tool(namespace = "srv", inline)]
fn fail() -> Result<u8, String> {
    Err("it went wrong".to_owned())
}

fn server(page_size: usize) -> Server {
    let registry = Registry::builder()
        .inventory()
        .prefix("srv.")
        .build()
        .expect("a registry");
    Server::new(registry).with_page_size(page_size)
}

async fn ask(server: &Server, message: Value) -> Value {
    let answer = server
        .handle(message.to_string().as_bytes(), None)
        .await
        .expect("an answer");
    serde_json::from_str(&answer).expect("JSON")
}

fn request(id: i64, method: &str, params: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })
}

/// Checks `answer` against the official schema of `revision`: the envelope, and the
/// result against `definition`.
fn assert_valid(revision: &str, answer: &Value, definition: &str) {
    let (envelope, body) = match answer.get("error") {
        Some(_) if revision == "2025-06-18" => ("JSONRPCError", answer),
        Some(_) => ("JSONRPCErrorResponse", answer),
        None => ("JSONRPCResponse", &answer["result"]),
    };
    let errors = schema_errors(&mcp_validator(revision, envelope), answer);
    assert!(
        errors.is_empty(),
        "{revision} {envelope}: {errors:?}\n{answer}"
    );
    if answer.get("result").is_some() {
        let errors = schema_errors(&mcp_validator(revision, definition), body);
        assert!(
            errors.is_empty(),
            "{revision} {definition}: {errors:?}\n{body}"
        );
    }
}

#[tokio::test]
async fn initialize_negotiates_the_protocol_version() {
    let server = server(100);
    for (asked, expected) in [
        ("2025-06-18", "2025-06-18"),
        ("2025-11-25", "2025-11-25"),
        ("2024-11-05", "2025-11-25"),
    ] {
        let answer = ask(
            &server,
            request(
                1,
                "initialize",
                json!({
                    "protocolVersion": asked,
                    "capabilities": {},
                    "clientInfo": { "name": "test", "version": "1" },
                }),
            ),
        )
        .await;
        assert_eq!(answer["result"]["protocolVersion"], expected);
        assert_eq!(
            answer["result"]["capabilities"]["tools"]["listChanged"],
            true
        );
        assert_valid(expected, &answer, "InitializeResult");
    }
}

#[tokio::test]
async fn tools_list_pages_with_opaque_cursors_in_name_order() {
    let server = server(2);
    let first = ask(&server, request(1, "tools/list", json!({}))).await;
    assert_valid("2025-11-25", &first, "ListToolsResult");
    let names = |answer: &Value| -> Vec<String> {
        answer["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|tool| tool["name"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(names(&first), ["srv.blocks", "srv.count"]);
    let cursor = first["result"]["nextCursor"].clone();
    assert!(cursor.is_string());
    let second = ask(
        &server,
        request(2, "tools/list", json!({ "cursor": cursor })),
    )
    .await;
    assert_eq!(names(&second), ["srv.fail", "srv.wait"]);
    assert!(second["result"].get("nextCursor").is_none());

    for cursor in [json!("not-a-cursor"), json!(7), json!("7a7a")] {
        let answer = ask(
            &server,
            request(3, "tools/list", json!({ "cursor": cursor })),
        )
        .await;
        assert_eq!(answer["error"]["code"], -32602, "{cursor}: {answer}");
        assert_valid("2025-11-25", &answer, "ListToolsResult");
    }
}

#[tokio::test]
async fn tool_failures_are_results_and_protocol_mistakes_are_errors() {
    let server = server(100);
    let failed = ask(
        &server,
        request(1, "tools/call", json!({ "name": "srv.fail" })),
    )
    .await;
    assert_eq!(failed["result"]["isError"], true);
    assert_eq!(
        failed["result"]["content"][0]["text"],
        "[FAIL] Tool execution failed:\nError: ToolExecutionError: it went wrong"
    );
    assert!(
        failed["result"].get("structuredContent").is_none(),
        "{failed}"
    );
    assert_eq!(
        failed["result"]["_meta"][mcp_runtime::ERROR_META]["error_message"],
        "it went wrong"
    );
    assert_valid("2025-06-18", &failed, "CallToolResult");
    assert_valid("2025-11-25", &failed, "CallToolResult");

    let cases = [
        (
            request(2, "tools/call", json!({ "name": "srv.nope" })),
            -32602,
        ),
        (
            request(3, "tools/call", json!({ "name": "Not A Name" })),
            -32602,
        ),
        (request(4, "tools/call", json!({})), -32602),
        (
            request(
                5,
                "tools/call",
                json!({ "name": "srv.fail", "arguments": [1] }),
            ),
            -32602,
        ),
        (request(6, "widgets/list", json!({})), -32601),
        (json!({ "jsonrpc": "2.0", "id": 7 }), -32600),
        (json!([request(8, "ping", json!({}))]), -32600),
    ];
    for (message, code) in cases {
        let answer = ask(&server, message.clone()).await;
        assert_eq!(answer["error"]["code"], code, "{message} -> {answer}");
        assert_valid("2025-11-25", &answer, "EmptyResult");
    }
    let answer: Value =
        serde_json::from_str(&server.handle(b"{oops", None).await.unwrap()).unwrap();
    assert_eq!(answer["error"]["code"], -32700);
    assert!(
        answer.get("id").is_none(),
        "an id that could not be read is left out"
    );
    assert!(
        server
            .handle(
                br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                None
            )
            .await
            .is_none()
    );
}

#[tokio::test]
async fn a_call_with_a_progress_token_sends_progress_notifications() {
    let server = server(100);
    let sent = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&sent);
    let notify: Notifier = Arc::new(move |message| sink.lock().unwrap().push(message));
    let message = request(
        1,
        "tools/call",
        json!({ "name": "srv.count", "_meta": { "progressToken": "p1" } }),
    );
    let answer = server
        .handle(message.to_string().as_bytes(), Some(notify))
        .await
        .unwrap();
    let answer: Value = serde_json::from_str(&answer).unwrap();
    assert_eq!(
        answer["result"]["structuredContent"],
        json!({ "result": 3 })
    );
    let notifications: Vec<Value> = sent
        .lock()
        .unwrap()
        .iter()
        .map(|text| serde_json::from_str(text).unwrap())
        .collect();
    assert_eq!(notifications.len(), 3);
    for (i, notification) in notifications.iter().enumerate() {
        assert_eq!(notification["method"], "notifications/progress");
        assert_eq!(notification["params"]["progressToken"], "p1");
        assert_eq!(notification["params"]["progress"], json!((i + 1) as f64));
        assert_eq!(notification["params"]["total"], json!(3.0));
        for revision in ["2025-06-18", "2025-11-25"] {
            let errors = schema_errors(
                &mcp_validator(revision, "ProgressNotification"),
                notification,
            );
            assert!(errors.is_empty(), "{revision}: {errors:?}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notifications_cancelled_stops_the_call_in_flight() {
    let server = Arc::new(server(100));
    let call = {
        let server = Arc::clone(&server);
        tokio::spawn(async move {
            let message = request(42, "tools/call", json!({ "name": "srv.wait" }));
            server.handle(message.to_string().as_bytes(), None).await
        })
    };
    // Once the tool runs, the call can be cancelled: the server registers a call before
    // it starts the tool.
    tokio::time::timeout(Duration::from_secs(10), WAITING.notified())
        .await
        .expect("the tool starts");
    let cancel = json!({
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": { "requestId": 42, "reason": "user" },
    });
    assert!(
        server
            .handle(cancel.to_string().as_bytes(), None)
            .await
            .is_none()
    );
    let answer = tokio::time::timeout(Duration::from_secs(5), call)
        .await
        .expect("the call ends soon after the cancellation")
        .unwrap();
    assert_eq!(
        answer, None,
        "a cancelled request is not answered, as MCP asks"
    );
}

#[tokio::test]
async fn llm_names_are_served_and_mapped_back_on_call() {
    let server = server(100).with_llm_names().expect("no collisions");
    let listed = ask(&server, request(1, "tools/list", json!({}))).await;
    let names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["srv_blocks", "srv_count", "srv_fail", "srv_wait"]);
    assert!(names.iter().all(|name| fits_llm_apis(name)), "{names:?}");

    let called = ask(
        &server,
        request(2, "tools/call", json!({ "name": "srv_count" })),
    )
    .await;
    assert_eq!(
        called["result"]["structuredContent"],
        json!({ "result": 3 })
    );
    let dotted = ask(
        &server,
        request(3, "tools/call", json!({ "name": "srv.count" })),
    )
    .await;
    assert_eq!(
        dotted["error"]["code"], -32602,
        "only the served names are callable"
    );
}

/// `^[a-zA-Z0-9_-]{1,64}$`, the name rule of LLM APIs.
fn fits_llm_apis(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

#[test]
fn llm_names_refuse_to_start_on_a_collision() {
    let definition = |name: &str| {
        mcp_runtime::ToolDefinition::new(
            name,
            schemars::json_schema!({ "type": "object", "properties": {} }),
        )
        .unwrap()
    };
    let registry = Registry::builder()
        .tool(definition("a.b_c"), |_, _| async {
            Ok::<_, mcp_runtime::ToolError>(Value::Null)
        })
        .tool(definition("a_b.c"), |_, _| async {
            Ok::<_, mcp_runtime::ToolError>(Value::Null)
        })
        .build()
        .unwrap();
    let err = Server::new(registry)
        .with_llm_names()
        .expect_err("a collision");
    let message = err.to_string();
    assert!(
        message.contains("`a.b_c`") && message.contains("`a_b.c`") && message.contains("`a_b_c`"),
        "{message}"
    );
}

/// Returns one block of every kind.
#[mcp_tool(namespace = "srv", inline)]
fn blocks() -> mcp_runtime::MCPToolResult {
    use mcp_runtime::ContentBlock;
    mcp_runtime::MCPToolResult::success(Value::Null)
        .with_content(ContentBlock::text("Every kind of block:"))
        .with_content(ContentBlock::image("iVBORw0KGgo=", "image/png"))
        .with_content(ContentBlock::audio("UklGRg==", "audio/wav"))
        .with_content(ContentBlock::resource_text(
            "test://text",
            "application/json",
            "{\"a\":1}",
        ))
        .with_content(ContentBlock::resource_blob(
            "test://blob",
            "application/octet-stream",
            "AAEC",
        ))
        .with_content(ContentBlock::resource_link("test://link", "a link"))
}

#[tokio::test]
async fn content_blocks_of_every_kind_follow_the_official_schema() {
    let server = server(100);
    let answer = ask(
        &server,
        request(1, "tools/call", json!({ "name": "srv.blocks" })),
    )
    .await;
    let kinds: Vec<&str> = answer["result"]["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|block| block["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "text",
            "image",
            "audio",
            "resource",
            "resource",
            "resource_link"
        ]
    );
    assert!(answer["result"].get("structuredContent").is_none());
    assert_valid("2025-06-18", &answer, "CallToolResult");
    assert_valid("2025-11-25", &answer, "CallToolResult");
}

fn stateless_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { "name": "test", "version": "1" },
    })
}

/// Checks a 2026-07-28 success against the official schema: envelope and result.
fn assert_valid_2026(answer: &Value, definition: &str) {
    let errors = schema_errors(
        &mcp_validator("2026-07-28", "JSONRPCResultResponse"),
        answer,
    );
    assert!(errors.is_empty(), "envelope: {errors:?}\n{answer}");
    let errors = schema_errors(&mcp_validator("2026-07-28", definition), &answer["result"]);
    assert!(errors.is_empty(), "{definition}: {errors:?}\n{answer}");
    assert_eq!(answer["result"]["resultType"], "complete");
    assert!(answer["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"].is_string());
}

#[tokio::test]
async fn the_stateless_revision_is_served_without_a_handshake() {
    let server = server(100);
    let discovered = ask(
        &server,
        request(1, "server/discover", json!({ "_meta": stateless_meta() })),
    )
    .await;
    assert_valid_2026(&discovered, "DiscoverResult");
    assert_eq!(
        discovered["result"]["supportedVersions"],
        json!(["2026-07-28", "2025-11-25", "2025-06-18"])
    );

    let listed = ask(
        &server,
        request(2, "tools/list", json!({ "_meta": stateless_meta() })),
    )
    .await;
    assert_valid_2026(&listed, "ListToolsResult");
    assert!(listed["result"]["ttlMs"].as_u64().is_some());
    assert_eq!(listed["result"]["cacheScope"], "public");

    let called = ask(
        &server,
        request(
            3,
            "tools/call",
            json!({ "name": "srv.count", "_meta": stateless_meta() }),
        ),
    )
    .await;
    assert_valid_2026(&called, "CallToolResult");
    assert_eq!(
        called["result"]["structuredContent"],
        json!({ "result": 3 })
    );

    // Without the stateless version, results keep the form of the earlier revisions.
    let plain = ask(&server, request(4, "tools/list", json!({}))).await;
    assert!(plain["result"].get("resultType").is_none());
}

#[tokio::test]
async fn an_unsupported_version_is_refused_listing_the_supported_ones() {
    let server = server(100);
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2099-01-01",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let answer = ask(&server, request(1, "tools/list", json!({ "_meta": meta }))).await;
    assert_eq!(answer["error"]["code"], -32022);
    assert_eq!(answer["error"]["data"]["requested"], "2099-01-01");
    assert_eq!(
        answer["error"]["data"]["supported"],
        json!(["2026-07-28", "2025-11-25", "2025-06-18"])
    );
    let errors = schema_errors(
        &mcp_validator("2026-07-28", "UnsupportedProtocolVersionError"),
        &answer,
    );
    assert!(errors.is_empty(), "{errors:?}");
}
