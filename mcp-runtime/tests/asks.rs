//! A tool that asks the client (elicitation, sampling, roots), driven through
//! `Server::handle` as a transport would: at 2026-07-28 over rounds, each ending with an
//! `InputRequiredResult` and a sealed `requestState`, the body running again each round.

use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_runtime::server::{STATELESS_VERSION, Server};
use mcp_runtime::talk::{AskError, Elicitation, Form, Sampling, StateKey};
use mcp_runtime::{MCPToolCall, Registry, ToolContext, ToolError, mcp_tool};
use serde::Deserialize;
use serde_json::{Value, json};

/// Times `ask.order` began, and times it placed an order.
static BEGUN: AtomicUsize = AtomicUsize::new(0);
static ORDERED: AtomicUsize = AtomicUsize::new(0);

#[derive(Deserialize, schemars::JsonSchema, Form)]
struct Size {
    /// How many.
    count: u32,
}

/// Asks how many, then whether to go on, then places the order.
#[mcp_tool(namespace = "ask")]
async fn order(ctx: &ToolContext, item: String) -> Result<String, ToolError> {
    BEGUN.fetch_add(1, Ordering::SeqCst);
    let Elicitation::Accept(Size { count }) = ctx.elicit::<Size>("size", "How many?").await? else {
        return Ok("no size".to_owned());
    };
    let summary = ctx
        .sample(
            "summary",
            &Sampling::user(format!("Summarise: {count} {item}"), 50),
        )
        .await?;
    // The side effect comes after every ask: it runs once, in the last round.
    ORDERED.fetch_add(1, Ordering::SeqCst);
    Ok(format!(
        "{count} {item}: {}",
        summary.text().unwrap_or_default()
    ))
}

/// Asks how many: the tool of the tests that do not count rounds.
#[mcp_tool(namespace = "ask")]
async fn size(ctx: &ToolContext, item: String) -> Result<String, ToolError> {
    match ctx.elicit::<Size>("size", "How many?").await? {
        Elicitation::Accept(Size { count }) => Ok(format!("{count} {item}")),
        other => Ok(other.action().to_owned()),
    }
}

/// Reports what asking gives when the client cannot answer.
#[mcp_tool(namespace = "ask")]
async fn probe(ctx: &ToolContext) -> String {
    match ctx.roots("roots").await {
        Ok(roots) => format!("{} roots", roots.len()),
        Err(err) => format!("{err:?}"),
    }
}

fn server() -> Server {
    let registry = Registry::builder()
        .inventory()
        .prefix("ask.")
        .build()
        .expect("a registry");
    keyed(registry)
}

fn meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": STATELESS_VERSION,
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    })
}

async fn call(server: &Server, params: Value) -> Value {
    request(server, "tools/call", params).await
}

/// The answer `server` gives a request of `method` with `params`.
async fn request(server: &Server, method: &str, params: Value) -> Value {
    let message = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
    let answer = server
        .handle(message.to_string().as_bytes(), None)
        .await
        .expect("an answer");
    serde_json::from_str(&answer).expect("JSON")
}

/// A server of `registry`, with the key of these tests.
fn keyed(registry: Registry) -> Server {
    Server::new(registry)
        .with_state_key(StateKey::new(b"the key of the tests of asks, 32+ bytes").expect("a key"))
}

/// `base` with the members of `extra` (a retry's answers and state).
fn merged(mut base: Value, extra: Value) -> Value {
    base.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    base
}

fn order_call(extra: Value) -> Value {
    params("ask.order", json!({ "item": "pears" }), extra)
}

/// A call of `ask.size`, which no test counts the rounds of.
fn size_call(extra: Value) -> Value {
    params("ask.size", json!({ "item": "pears" }), extra)
}

/// The params of a 2026-07-28 call of `name` from a client that can be asked for a form
/// and a sampling, with `extra` (its answers and state).
fn params(name: &str, arguments: Value, extra: Value) -> Value {
    with_capabilities(
        name,
        arguments,
        json!({ "elicitation": {}, "sampling": {} }),
        extra,
    )
}

fn with_capabilities(name: &str, arguments: Value, capabilities: Value, extra: Value) -> Value {
    merged(
        json!({ "name": name, "arguments": arguments, "_meta": meta(capabilities) }),
        extra,
    )
}

#[tokio::test]
async fn a_call_that_asks_is_answered_over_rounds_and_its_side_effect_runs_once() {
    let server = server();
    let (begun, ordered) = (BEGUN.load(Ordering::SeqCst), ORDERED.load(Ordering::SeqCst));

    let first = call(&server, order_call(json!({}))).await;
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    let size = &result["inputRequests"]["size"];
    assert_eq!(size["method"], "elicitation/create");
    assert_eq!(size["params"]["message"], "How many?");
    assert_eq!(
        size["params"]["requestedSchema"],
        json!({
            "type": "object",
            "properties": { "count": { "type": "integer", "format": "uint32", "minimum": 0, "description": "How many." } },
            "required": ["count"],
        })
    );
    assert_eq!(
        result["inputRequests"].as_object().unwrap().len(),
        1,
        "one ask at a time"
    );
    let state = result["requestState"].as_str().expect("a sealed state");

    let size_answer = json!({ "action": "accept", "content": { "count": 3 } });
    let second = call(
        &server,
        order_call(json!({ "inputResponses": { "size": size_answer }, "requestState": state })),
    )
    .await;
    let result = &second["result"];
    assert_eq!(result["resultType"], "input_required", "{second}");
    assert_eq!(
        result["inputRequests"]["summary"]["method"],
        "sampling/createMessage"
    );
    assert_eq!(
        result["inputRequests"]["summary"]["params"]["messages"][0]["content"]["text"],
        "Summarise: 3 pears"
    );
    let state = result["requestState"].as_str().expect("a sealed state");

    // The last round answers only the sampling: the size comes from the state.
    let sampled = json!({
        "role": "assistant",
        "content": { "type": "text", "text": "three pears" },
        "model": "test-model",
        "stopReason": "endTurn",
    });
    let third = call(
        &server,
        order_call(json!({ "inputResponses": { "summary": sampled }, "requestState": state })),
    )
    .await;
    assert_eq!(third["result"]["resultType"], "complete", "{third}");
    assert_eq!(
        third["result"]["structuredContent"],
        json!({ "result": "3 pears: three pears" })
    );
    assert_eq!(
        BEGUN.load(Ordering::SeqCst) - begun,
        3,
        "the body ran once a round"
    );
    assert_eq!(
        ORDERED.load(Ordering::SeqCst) - ordered,
        1,
        "what follows every ask ran once"
    );
}

#[tokio::test]
async fn a_state_altered_or_made_for_another_call_is_refused() {
    let server = server();
    let first = call(&server, size_call(json!({}))).await;
    let state = first["result"]["requestState"].as_str().unwrap().to_owned();
    let answer = json!({ "size": { "action": "accept", "content": { "count": 1 } } });

    let tampered = call(
        &server,
        size_call(json!({ "inputResponses": answer, "requestState": format!("{state}-TAMPERED") })),
    )
    .await;
    assert_eq!(tampered["error"]["code"], -32602, "{tampered}");

    // The same state, for other arguments: another call's.
    let mut other = size_call(json!({ "inputResponses": answer, "requestState": state }));
    other["arguments"]["item"] = json!("plums");
    let refused = call(&server, other).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .is_some_and(|message| message.contains("requestState")),
        "{refused}"
    );

    // Another server's key.
    let elsewhere = Server::new(
        Registry::builder()
            .inventory()
            .prefix("ask.")
            .build()
            .unwrap(),
    );
    let foreign = call(
        &elsewhere,
        size_call(
            json!({ "inputResponses": answer, "requestState": first["result"]["requestState"] }),
        ),
    )
    .await;
    assert_eq!(foreign["error"]["code"], -32602, "{foreign}");
    assert!(
        foreign["error"]["message"]
            .as_str()
            .is_some_and(|message| message.contains("another key")),
        "{foreign}"
    );
}

#[tokio::test]
async fn answers_that_are_no_answers_are_refused_and_unknown_keys_ignored() {
    let server = server();
    let wrong = call(
        &server,
        size_call(json!({ "inputResponses": { "size": 12345 } })),
    )
    .await;
    assert_eq!(wrong["error"]["code"], -32602, "{wrong}");
    assert!(
        wrong["error"]["message"]
            .as_str()
            .is_some_and(|message| message.contains("inputResponses.size")),
        "{wrong}"
    );
    let no_answer = call(
        &server,
        size_call(json!({ "inputResponses": { "size": { "action": "maybe" } } })),
    )
    .await;
    assert_eq!(no_answer["error"]["code"], -32602, "{no_answer}");
    let not_an_object = call(&server, size_call(json!({ "inputResponses": [1] }))).await;
    assert_eq!(not_an_object["error"]["code"], -32602, "{not_an_object}");

    // An answer under a key nobody asked: the ask is made again.
    let stray = call(
        &server,
        size_call(json!({ "inputResponses": { "other": { "action": "decline" } } })),
    )
    .await;
    assert_eq!(stray["result"]["resultType"], "input_required", "{stray}");
    assert!(stray["result"]["inputRequests"]["size"].is_object());
}

#[tokio::test]
async fn a_client_without_the_capability_or_no_client_at_all_gets_an_error_never_a_wait() {
    let server = server();
    let no_roots = call(
        &server,
        json!({ "name": "ask.probe", "arguments": {}, "_meta": meta(json!({ "sampling": {} })) }),
    )
    .await;
    assert_eq!(no_roots["result"]["resultType"], "complete", "{no_roots}");
    assert_eq!(
        no_roots["result"]["structuredContent"]["result"],
        format!("{:?}", AskError::MissingCapability("roots"))
    );

    // In process, there is no client to ask.
    let in_process = Registry::builder()
        .inventory()
        .prefix("ask.")
        .build()
        .unwrap()
        .call(MCPToolCall::new("ask.probe", json!({})).unwrap())
        .await;
    let said = in_process.data().unwrap()["result"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(said.starts_with("NoClient("), "{said}");

    // The handshake's revisions, with no stream to send a request on: an error, at once.
    let stateful = tokio::time::timeout(
        std::time::Duration::from_secs(5),
        call(&server, json!({ "name": "ask.probe", "arguments": {} })),
    )
    .await
    .expect("answered at once");
    let said = stateful["result"]["structuredContent"]["result"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(said.starts_with("NoClient("), "{said}");
}

/// Times `ask.wipe` ran.
static WIPED: AtomicUsize = AtomicUsize::new(0);

/// Wipes everything: marked dangerous.
#[mcp_tool(namespace = "ask", dangerous, inline)]
fn wipe(what: String) -> String {
    WIPED.fetch_add(1, Ordering::SeqCst);
    format!("wiped {what}")
}

fn confirming_server() -> Server {
    let registry = Registry::builder()
        .inventory()
        .names(["ask.wipe"])
        .ask_user_before_dangerous()
        .build()
        .expect("a registry");
    keyed(registry)
}

fn wipe_call(capabilities: Value, extra: Value) -> Value {
    with_capabilities("ask.wipe", json!({ "what": "disk" }), capabilities, extra)
}

#[tokio::test]
async fn a_dangerous_tool_runs_only_once_its_user_confirms() {
    let server = confirming_server();
    let elicitation = json!({ "elicitation": {} });
    let before = WIPED.load(Ordering::SeqCst);

    let first = call(&server, wipe_call(elicitation.clone(), json!({}))).await;
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    let ask = &result["inputRequests"]["mcp-runtime/confirm"];
    assert_eq!(ask["method"], "elicitation/create");
    let message = ask["params"]["message"].as_str().unwrap();
    assert!(
        message.contains("`ask.wipe`") && message.contains(r#"{"what":"disk"}"#),
        "{message}"
    );
    assert_eq!(
        ask["params"]["requestedSchema"]["properties"]["confirm"]["type"],
        "boolean"
    );
    let state = result["requestState"].clone();

    let answer = |answer: Value| json!({ "inputResponses": { "mcp-runtime/confirm": answer }, "requestState": state });
    for (given, why) in [
        (json!({ "action": "decline" }), "its user declined"),
        (json!({ "action": "cancel" }), "its user cancelled"),
        (
            json!({ "action": "accept", "content": { "confirm": false } }),
            "its user did not confirm it",
        ),
    ] {
        let refused = call(&server, wipe_call(elicitation.clone(), answer(given))).await;
        let error = &refused["result"]["_meta"][mcp_runtime::ERROR_META];
        assert_eq!(error["error_type"], "PermissionError", "{refused}");
        assert!(
            error["error_message"].as_str().unwrap().contains(why),
            "{refused}"
        );
    }
    assert_eq!(WIPED.load(Ordering::SeqCst), before, "not run");

    let confirmed = call(
        &server,
        wipe_call(
            elicitation,
            answer(json!({ "action": "accept", "content": { "confirm": true } })),
        ),
    )
    .await;
    assert_eq!(
        confirmed["result"]["structuredContent"],
        json!({ "result": "wiped disk" }),
        "{confirmed}"
    );
    assert_eq!(WIPED.load(Ordering::SeqCst), before + 1);

    // A client that cannot ask its user, and a call from no client: refused, at once.
    let unasked = call(&server, wipe_call(json!({}), json!({}))).await;
    assert!(
        unasked["result"]["_meta"][mcp_runtime::ERROR_META]["error_message"]
            .as_str()
            .unwrap()
            .contains("did not declare elicitation"),
        "{unasked}"
    );
    let registry = Registry::builder()
        .inventory()
        .names(["ask.wipe"])
        .ask_user_before_dangerous()
        .build()
        .unwrap();
    let in_process = registry
        .call(MCPToolCall::new("ask.wipe", json!({ "what": "disk" })).unwrap())
        .await;
    assert!(
        in_process
            .error()
            .is_some_and(|error| error.error_message.contains("no client that can be asked")),
        "{in_process:?}"
    );
    assert_eq!(WIPED.load(Ordering::SeqCst), before + 1);
}

/// Sends the user to sign in.
#[mcp_tool(namespace = "ask")]
async fn sign_in(ctx: &ToolContext) -> Result<String, ToolError> {
    let went = ctx
        .elicit_url("login", "Sign in to continue", "https://example.com/login")
        .await?;
    Ok(went.action().to_owned())
}

#[tokio::test]
async fn a_url_elicitation_needs_the_url_capability_and_carries_its_id() {
    let server = server();
    let form_only = call(
        &server,
        with_capabilities(
            "ask.sign_in",
            json!({}),
            json!({ "elicitation": {} }),
            json!({}),
        ),
    )
    .await;
    assert!(
        form_only["result"]["content"][0]["text"]
            .as_str()
            .is_some_and(|text| text.contains("`elicitation.url`")),
        "{form_only}"
    );
    let first = call(
        &server,
        with_capabilities(
            "ask.sign_in",
            json!({}),
            json!({ "elicitation": { "url": {} } }),
            json!({}),
        ),
    )
    .await;
    assert_eq!(
        first["result"]["inputRequests"]["login"]["params"],
        json!({
            "mode": "url",
            "message": "Sign in to continue",
            "url": "https://example.com/login",
            "elicitationId": "login",
        }),
        "{first}"
    );
    let second = call(
        &server,
        with_capabilities(
            "ask.sign_in",
            json!({}),
            json!({ "elicitation": { "url": {} } }),
            json!({ "inputResponses": { "login": { "action": "accept" } } }),
        ),
    )
    .await;
    assert_eq!(
        second["result"]["structuredContent"],
        json!({ "result": "accept" }),
        "{second}"
    );
}

#[tokio::test]
async fn a_prompt_asks_over_rounds_at_2026_07_28_and_cannot_before() {
    let mut registry = Registry::builder().build().unwrap();
    registry
        .register_prompt_asking(
            mcp_runtime::PromptDefinition::new("brief"),
            |arguments, asker| async move {
                let topic = asker
                    .elicit::<Topic>("topic", "Brief on what?")
                    .await?
                    .accepted()
                    .map_or_else(|| "nothing".to_owned(), |topic| topic.topic);
                let tone = arguments
                    .get("tone")
                    .and_then(Value::as_str)
                    .unwrap_or("plain");
                Ok::<_, ToolError>(mcp_runtime::PromptResult::new(vec![
                    mcp_runtime::PromptMessage::user(format!("A {tone} brief on {topic}.")),
                ]))
            },
        )
        .unwrap();
    let server = keyed(registry);
    let get = |extra: Value| {
        let params = with_capabilities(
            "brief",
            json!({ "tone": "dry" }),
            json!({ "elicitation": {} }),
            extra,
        );
        request(&server, "prompts/get", params)
    };

    let first = get(json!({})).await;
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    assert_eq!(
        first["result"]["inputRequests"]["topic"]["params"]["requestedSchema"]["required"],
        json!(["topic"])
    );
    let state = first["result"]["requestState"].clone();
    let answered = json!({ "topic": { "action": "accept", "content": { "topic": "tides" } } });
    let second = get(json!({ "inputResponses": answered, "requestState": state })).await;
    assert_eq!(second["result"]["resultType"], "complete", "{second}");
    assert_eq!(
        second["result"]["messages"][0]["content"]["text"],
        "A dry brief on tides."
    );
    // The state is the prompt's, with these arguments.
    let other = with_capabilities(
        "brief",
        json!({ "tone": "wry" }),
        json!({ "elicitation": {} }),
        json!({ "inputResponses": answered, "requestState": state }),
    );
    let refused = request(&server, "prompts/get", other).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");

    // On the handshake's revisions a prompt has no client to ask: its failure says so.
    let stateful = request(
        &server,
        "prompts/get",
        json!({ "name": "brief", "arguments": {} }),
    )
    .await;
    assert!(
        stateful["error"]["message"]
            .as_str()
            .is_some_and(|message| message.contains("no client to ask")),
        "{stateful}"
    );
}

#[derive(Deserialize, schemars::JsonSchema, Form)]
struct Topic {
    /// What about.
    topic: String,
}

#[tokio::test]
async fn a_resource_read_asks_over_rounds_at_2026_07_28() {
    let mut registry = Registry::builder().build().unwrap();
    registry
        .register_resource(
            mcp_runtime::ResourceDefinition::new("app://secret", "secret"),
            |request| async move {
                let topic = request
                    .asker()
                    .elicit::<Topic>("topic", "Which secret?")
                    .await?
                    .accepted()
                    .map_or_else(|| "none".to_owned(), |topic| topic.topic);
                Ok::<_, ToolError>(vec![mcp_runtime::ResourceContents::text(
                    request.uri(),
                    format!("the secret of {topic}"),
                )])
            },
        )
        .unwrap();
    let server = keyed(registry);
    let read = |extra: Value| {
        let params = merged(
            json!({ "uri": "app://secret", "_meta": meta(json!({ "elicitation": {} })) }),
            extra,
        );
        request(&server, "resources/read", params)
    };
    let first = read(json!({})).await;
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    assert_eq!(
        first["result"]["inputRequests"]["topic"]["method"],
        "elicitation/create"
    );
    let answered = json!({ "topic": { "action": "accept", "content": { "topic": "tides" } } });
    let second = read(json!({
        "inputResponses": answered,
        "requestState": first["result"]["requestState"],
    }))
    .await;
    assert_eq!(second["result"]["resultType"], "complete", "{second}");
    assert_eq!(
        second["result"]["contents"][0]["text"],
        "the secret of tides"
    );
}
