//! The client against this crate's own server, in memory (`mcp_runtime::testing`), at
//! 2026-07-28 and at the handshake's revision: listing, calls both ways of the result
//! mapping, the server's asks answered by handlers (as requests on the handshake's
//! revision, over input-required rounds at 2026-07-28), progress, timeouts that cancel the
//! call on the server, and an answer the handlers cannot give.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_runtime::client::{Client, ClientBuilder, ClientError, ElicitResponse};
use mcp_runtime::server::Server;
use mcp_runtime::talk::{Elicitation, Form, Root, Sampling};
use mcp_runtime::{ErrorType, MCPToolCall, Registry, ToolContext, ToolError, mcp_tool};
use serde_json::{Map, Value, json};

/// Adds two numbers.
#[mcp_tool(namespace = "t")]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Always refuses.
#[mcp_tool(namespace = "t")]
fn refuse() -> Result<String, ToolError> {
    Err(ToolError::validation("never"))
}

#[derive(serde::Deserialize, schemars::JsonSchema, Form)]
struct Size {
    /// How many.
    count: u32,
}

/// Asks how many, asks the model to name them, and lists the roots.
#[mcp_tool(namespace = "t")]
async fn ask(ctx: &ToolContext) -> Result<String, ToolError> {
    let Elicitation::Accept(Size { count }) = ctx.elicit::<Size>("size", "How many?").await? else {
        return Ok("declined".to_owned());
    };
    let named = ctx
        .sample("name", &Sampling::user(format!("Name {count} things"), 20))
        .await?;
    let roots = ctx.roots("roots").await?;
    Ok(format!(
        "{count} {} in {}",
        named.text().unwrap_or("?"),
        roots
            .iter()
            .map(|root| root.uri.as_str())
            .collect::<Vec<_>>()
            .join(",")
    ))
}

/// The calls of `t.wait` stopped before they finished, by tag: each test waits on its own.
static CANCELLED: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn cancelled(tag: &str) -> bool {
    CANCELLED.lock().unwrap().iter().any(|seen| seen == tag)
}

/// Notes a call of `t.wait` stopped before it finished: cancelled, the registry drops it.
struct Stopped(Option<String>);

impl Drop for Stopped {
    fn drop(&mut self) {
        if let Some(tag) = self.0.take() {
            CANCELLED.lock().unwrap().push(tag);
        }
    }
}

/// Waits long, unless stopped.
#[mcp_tool(namespace = "t", timeout = "30s")]
async fn wait(tag: String) -> String {
    let mut stopped = Stopped(Some(tag));
    tokio::time::sleep(Duration::from_secs(20)).await;
    stopped.0 = None;
    "waited".to_owned()
}

/// Waits until the server stopped the call tagged `tag`.
async fn until_cancelled(tag: &str) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while !cancelled(tag) {
        assert!(
            tokio::time::Instant::now() < deadline,
            "{tag}: the server never stopped the call"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Reports progress three times.
#[mcp_tool(namespace = "t")]
async fn steps(ctx: &ToolContext) -> u32 {
    for step in 1..=3 {
        ctx.progress(f64::from(step), Some(3.0), Some("stepping"));
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    3
}

fn server() -> Arc<Server> {
    Arc::new(Server::new(Registry::global()))
}

/// A client whose handlers accept with 4, answer the model "apples", and give one root.
fn answering() -> ClientBuilder {
    Client::builder()
        .on_elicitation(|request| async move {
            assert_eq!(request.message, "How many?");
            let schema = request.requested_schema.expect("a form");
            assert_eq!(schema["properties"]["count"]["type"], "integer");
            let mut content = Map::new();
            content.insert("count".to_owned(), json!(4));
            Ok(ElicitResponse::accept(content))
        })
        .on_sampling(|request| async move {
            assert_eq!(request["maxTokens"], 20);
            Ok(json!({
                "role": "assistant",
                "content": { "type": "text", "text": "apples" },
                "model": "test",
            }))
        })
        .on_roots(|| async {
            Ok(vec![Root {
                uri: "file:///work".to_owned(),
                name: None,
            }])
        })
}

async fn both_revisions(builder: impl Fn() -> ClientBuilder) -> [(String, Client); 2] {
    let stateless = builder().in_memory(server()).await.expect("connects");
    let handshake = builder()
        .handshake_only()
        .in_memory(server())
        .await
        .expect("connects");
    [
        (stateless.server().protocol_version.clone(), stateless),
        (handshake.server().protocol_version.clone(), handshake),
    ]
}

#[tokio::test(flavor = "multi_thread")]
async fn negotiates_the_newest_revision_or_the_handshake() {
    let [(stateless, client), (handshake, _)] = both_revisions(Client::builder).await;
    assert_eq!(stateless, "2026-07-28");
    assert_eq!(handshake, "2025-11-25");
    assert!(client.server().capabilities.get("tools").is_some());
    assert!(client.server().info.is_some());
}

#[tokio::test(flavor = "multi_thread")]
async fn lists_and_calls_tools_as_mcp_tool_results() {
    for (version, client) in both_revisions(Client::builder).await {
        let tools = client.list_tools().await.expect("listed");
        let add = tools
            .iter()
            .find(|tool| tool.name == "t.add")
            .unwrap_or_else(|| panic!("{version}: t.add listed"));
        assert_eq!(add.description.as_deref(), Some("Adds two numbers."));
        assert_eq!(add.input_schema["properties"]["a"]["type"], "integer");

        let call = MCPToolCall::new("t.add", json!({ "a": 2, "b": 40 })).expect("a call");
        let sum = client.call(&call).await.expect("answered");
        assert_eq!(sum.data().expect("data")["result"], 42, "{version}");

        let refused = client
            .call_tool("t.refuse", json!({}))
            .await
            .expect("answered");
        let error = refused.error().expect("a failure");
        assert_eq!(error.error_type, ErrorType::ValidationError, "{version}");
        assert_eq!(error.error_message, "never");

        let invalid = client
            .call_tool("t.add", json!({ "a": "two" }))
            .await
            .expect("answered");
        assert_eq!(
            invalid.error().expect("a failure").error_type,
            ErrorType::ValidationError
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_servers_asks_are_answered_by_the_handlers_on_either_wire() {
    for (version, client) in both_revisions(answering).await {
        let result = client
            .call_tool("t.ask", json!({}))
            .await
            .expect("answered");
        assert_eq!(
            result.data().map(|data| data["result"].clone()),
            Some(json!("4 apples in file:///work")),
            "{version}: {result:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_declined_elicitation_reaches_the_tool() {
    let builder = || answering().on_elicitation(|_| async { Ok(ElicitResponse::decline()) });
    for (version, client) in both_revisions(builder).await {
        let result = client
            .call_tool("t.ask", json!({}))
            .await
            .expect("answered");
        assert_eq!(result.data().unwrap()["result"], "declined", "{version}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_ask_without_a_handler_fails_the_call_with_a_clear_error() {
    for (version, client) in both_revisions(Client::builder).await {
        let result = client.call_tool("t.ask", json!({})).await;
        // The client declared no elicitation: the tool's ask fails at once, and the
        // tool's error says which capability was missing.
        let result = result.expect("answered");
        let error = result.error().expect("a failure");
        assert!(
            error.error_message.contains("elicitation"),
            "{version}: {}",
            error.error_message
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn progress_reaches_the_callback() {
    for (version, client) in both_revisions(Client::builder).await {
        let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
        let options = mcp_runtime::client::RequestOptions::default().on_progress({
            let seen = Arc::clone(&seen);
            move |progress| seen.lock().unwrap().push(progress.progress)
        });
        let result = client
            .call_tool_with("t.steps", Map::new(), options)
            .await
            .expect("answered");
        assert_eq!(result.data().unwrap()["result"], 3);
        assert_eq!(*seen.lock().unwrap(), vec![1.0, 2.0, 3.0], "{version}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_timeout_is_an_error_and_cancels_the_call_on_the_server() {
    for (version, client) in both_revisions(Client::builder).await {
        let tag = format!("timeout {version}");
        let options =
            mcp_runtime::client::RequestOptions::default().timeout(Duration::from_millis(200));
        let mut arguments = Map::new();
        arguments.insert("tag".to_owned(), json!(tag));
        let err = client
            .call_tool_with("t.wait", arguments, options)
            .await
            .expect_err("timed out");
        assert!(
            matches!(&err, ClientError::Timeout { method, .. } if method == "tools/call"),
            "{version}: {err}"
        );
        until_cancelled(&tag).await;
        // The connection still works.
        let sum = client.call_tool("t.add", json!({ "a": 1, "b": 1 })).await;
        assert_eq!(sum.expect("answered").data().unwrap()["result"], 2);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn dropping_a_call_cancels_it_on_the_server() {
    let client = Client::builder()
        .handshake_only()
        .in_memory(server())
        .await
        .expect("connects");
    let call = client.call_tool("t.wait", json!({ "tag": "dropped" }));
    // Give up on it after a moment.
    let gave_up = tokio::time::timeout(Duration::from_millis(200), call).await;
    assert!(gave_up.is_err(), "t.wait waits");
    until_cancelled("dropped").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn reads_prompts_and_errors_of_methods_the_server_lacks() {
    let client = mcp_runtime::testing::connect(server())
        .await
        .expect("connects");
    let err = client
        .read_resource("nowhere://at-all")
        .await
        .expect_err("no such resource");
    assert!(matches!(err, ClientError::Rpc(_)), "{err}");
    let prompts: Vec<Value> = client.list_prompts().await.expect("listed");
    assert!(prompts.is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_listing_is_kept_as_long_as_the_server_says_and_no_longer() {
    use mcp_runtime::ToolDefinition;
    use mcp_runtime::server::{CacheHints, CacheScope};

    let hints = CacheHints {
        ttl: Duration::from_secs(60),
        scope: CacheScope::Public,
    };
    let served =
        Arc::new(Server::new(Registry::builder().build().unwrap()).with_cache_hints(hints));
    let stateless = mcp_runtime::testing::connect(Arc::clone(&served))
        .await
        .unwrap();
    let handshake = Client::builder()
        .handshake_only()
        .in_memory(Arc::clone(&served))
        .await
        .unwrap();
    assert!(stateless.list_tools().await.unwrap().is_empty());
    assert!(handshake.list_tools().await.unwrap().is_empty());

    let schema = serde_json::json!({ "type": "object" }).try_into().unwrap();
    let definition = ToolDefinition::new("late.tool", schema).unwrap();
    served
        .change(|registry| {
            registry.register(definition, |_, _| async { Ok::<_, ToolError>(json!({})) })
        })
        .unwrap()
        .unwrap();

    // On the handshake's revisions the server gives no `ttlMs`: nothing is kept, and the
    // next listing has the new tool.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while handshake.list_tools().await.unwrap().is_empty() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the change was never heard"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // At 2026-07-28 nothing was said: the listing is kept for the 60 s the server allowed,
    // until the application forgets it.
    assert!(stateless.list_tools().await.unwrap().is_empty(), "kept");
    stateless.forget_listings();
    assert_eq!(stateless.list_tools().await.unwrap().len(), 1);
}
