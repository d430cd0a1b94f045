//! Resources, resource templates, prompts and completion as a server serves them, driven
//! through [`Server::handle`] as a transport would, at the handshake's revisions and the
//! stateless one.

use std::time::Duration;

use mcp_runtime::server::{
    CacheHints, CacheScope, INTERNAL_ERROR, INVALID_PARAMS, RESOURCE_NOT_FOUND, STATELESS_VERSION,
    Server,
};
use mcp_runtime::{
    ContentBlock, PromptArgument, PromptDefinition, PromptMessage, PromptResult, Registry,
    ResourceContents, ResourceDefinition, ResourceTemplateDefinition, ToolError,
};
use serde_json::{Value, json};

/// A registry of two fixed resources (one read at once, one that must be awaited, with
/// hints of its own), a template, and three prompts.
fn registry() -> Registry {
    let mut registry = Registry::builder().build().expect("an empty registry");
    registry
        .register_resource(
            ResourceDefinition::new("app://about", "about").with_mime_type("text/markdown"),
            |request| async move {
                Ok::<_, ToolError>(vec![
                    ResourceContents::text(request.uri(), "# About")
                        .with_mime_type("text/markdown"),
                ])
            },
        )
        .expect("a resource");
    let mut slow = ResourceDefinition::new("app://slow", "slow");
    slow.meta.insert(
        "mcp-runtime/cache".to_owned(),
        json!({ "ttlMs": 1000, "cacheScope": "private" }),
    );
    registry
        .register_resource(slow, |request| async move {
            tokio::time::sleep(Duration::from_millis(5)).await;
            Ok::<_, ToolError>(vec![ResourceContents::blob(request.uri(), "AAE=")])
        })
        .expect("a resource");
    registry
        .register_resource_template(
            ResourceTemplateDefinition::new("app://users/{id}", "user"),
            |request| async move {
                match request.variable("id") {
                    Some("panic") => panic!("no such user"),
                    Some("ghost") => Err(ToolError::new(
                        mcp_runtime::ErrorType::ResourceNotFound,
                        "no user is called ghost",
                    )),
                    Some("x") => Err(ToolError::validation("id `x`: digits not found")
                        .with_details(json!({ "argument": "id" }))),
                    Some("clash") => Err(ToolError::validation("id `clash`: taken")
                        .with_details(json!({ "uri": "app://users/7" }))),
                    Some(id) => Ok(vec![ResourceContents::text(
                        request.uri(),
                        format!("user {id}"),
                    )]),
                    None => Err(ToolError::validation("no id")),
                }
            },
        )
        .expect("a template");
    registry
        .register_prompt(
            PromptDefinition::new("greet")
                .with_argument(PromptArgument::required("name").with_description("Who")),
            |arguments| async move {
                let name = arguments
                    .get("name")
                    .and_then(Value::as_str)
                    .ok_or_else(|| ToolError::validation("missing required argument `name`"))?;
                Ok::<_, ToolError>(PromptResult::new(vec![PromptMessage::user(format!(
                    "Greet {name}."
                ))]))
            },
        )
        .expect("a prompt");
    registry
        .register_prompt(PromptDefinition::new("broken"), |_| async {
            Err::<PromptResult, _>(ToolError::execution("the template is gone"))
        })
        .expect("a prompt");
    registry
        .register_prompt(PromptDefinition::new("picture"), |_| async {
            Ok::<_, ToolError>(PromptResult::new(vec![PromptMessage::assistant(
                ContentBlock::image("AA==", "image/png"),
            )]))
        })
        .expect("a prompt");
    registry
}

fn server() -> Server {
    Server::new(registry())
        .with_info("catalog-test", "1.0.0")
        .with_page_size(2)
        .with_cache_hints(CacheHints {
            ttl: Duration::from_secs(60),
            scope: CacheScope::Public,
        })
}

async fn answer(server: &Server, method: &str, params: Value) -> Value {
    let message = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
    let answer = server
        .handle(message.to_string().as_bytes(), None)
        .await
        .unwrap_or_else(|| panic!("{message} is answered"));
    serde_json::from_str(&answer).expect("an answer is JSON")
}

fn stateless(mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": STATELESS_VERSION,
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    params
}

#[tokio::test]
async fn lists_come_in_key_order_a_page_at_a_time() {
    let server = server();
    let first = answer(&server, "prompts/list", json!({})).await;
    let names: Vec<&str> = first["result"]["prompts"]
        .as_array()
        .expect("prompts")
        .iter()
        .map(|prompt| prompt["name"].as_str().expect("a name"))
        .collect();
    assert_eq!(names, ["broken", "greet"]);
    assert_eq!(
        first["result"]["prompts"][1]["arguments"],
        json!([{ "name": "name", "description": "Who", "required": true }])
    );
    let cursor = first["result"]["nextCursor"].clone();
    let second = answer(&server, "prompts/list", json!({ "cursor": cursor })).await;
    assert_eq!(second["result"]["prompts"][0]["name"], "picture");
    assert!(second["result"].get("nextCursor").is_none());
    let bad = answer(&server, "prompts/list", json!({ "cursor": "nonsense" })).await;
    assert_eq!(bad["error"]["code"], INVALID_PARAMS);

    let resources = answer(&server, "resources/list", json!({})).await;
    assert_eq!(
        resources["result"]["resources"],
        json!([
            { "uri": "app://about", "name": "about", "mimeType": "text/markdown" },
            { "uri": "app://slow", "name": "slow", "_meta": { "mcp-runtime/cache": { "ttlMs": 1000, "cacheScope": "private" } } },
        ])
    );
    let templates = answer(&server, "resources/templates/list", json!({})).await;
    assert_eq!(
        templates["result"]["resourceTemplates"],
        json!([{ "uriTemplate": "app://users/{id}", "name": "user" }])
    );
    // The handshake's lists carry no cache hints; the stateless revision's do.
    assert!(templates["result"].get("ttlMs").is_none());
    let hinted = answer(&server, "resources/templates/list", stateless(json!({}))).await;
    assert_eq!(hinted["result"]["ttlMs"], 60_000);
    assert_eq!(hinted["result"]["cacheScope"], "public");
    assert_eq!(hinted["result"]["resultType"], "complete");
}

#[tokio::test]
async fn a_resource_is_read_by_uri_or_by_template_and_an_unknown_one_is_named() {
    let server = server();
    let about = answer(&server, "resources/read", json!({ "uri": "app://about" })).await;
    assert_eq!(
        about["result"],
        json!({ "contents": [{ "uri": "app://about", "mimeType": "text/markdown", "text": "# About" }] })
    );
    // An async resource is awaited, and its own hints win over the server's.
    let slow = answer(
        &server,
        "resources/read",
        stateless(json!({ "uri": "app://slow" })),
    )
    .await;
    assert_eq!(
        slow["result"]["contents"],
        json!([{ "uri": "app://slow", "blob": "AAE=" }])
    );
    assert_eq!(slow["result"]["ttlMs"], 1000);
    assert_eq!(slow["result"]["cacheScope"], "private");
    let user = answer(&server, "resources/read", json!({ "uri": "app://users/7" })).await;
    assert_eq!(user["result"]["contents"][0]["text"], "user 7");

    let uri = "app://nothing/here";
    let missing = answer(&server, "resources/read", json!({ "uri": uri })).await;
    assert_eq!(
        missing["error"],
        json!({ "code": RESOURCE_NOT_FOUND, "message": format!("resource not found: {uri}"), "data": { "uri": uri } })
    );
    // 2026-07-28 (SEP-2164): invalid params, the URI still in `data`.
    let missing = answer(&server, "resources/read", stateless(json!({ "uri": uri }))).await;
    assert_eq!(missing["error"]["code"], INVALID_PARAMS);
    assert_eq!(missing["error"]["data"], json!({ "uri": uri }));

    // A template whose function finds nothing: the same missing-resource error.
    let ghost = answer(
        &server,
        "resources/read",
        json!({ "uri": "app://users/ghost" }),
    )
    .await;
    assert_eq!(ghost["error"]["code"], RESOURCE_NOT_FOUND);
    assert_eq!(
        ghost["error"]["data"],
        json!({ "uri": "app://users/ghost" })
    );

    // A variable that does not parse is invalid params whatever its message says, and never
    // names a URI in `data.uri`, which is what tells a missing resource apart.
    for read in [
        json!({ "uri": "app://users/x" }),
        stateless(json!({ "uri": "app://users/x" })),
    ] {
        let invalid = answer(&server, "resources/read", read).await;
        assert_eq!(
            invalid["error"],
            json!({ "code": INVALID_PARAMS, "message": "id `x`: digits not found", "data": { "argument": "id" } })
        );
    }
    let clash = answer(
        &server,
        "resources/read",
        json!({ "uri": "app://users/clash" }),
    )
    .await;
    assert_eq!(clash["error"]["code"], INVALID_PARAMS);
    assert_eq!(
        clash["error"]["data"],
        json!({ "details": { "uri": "app://users/7" } })
    );

    let no_uri = answer(&server, "resources/read", json!({ "uri": 5 })).await;
    assert_eq!(no_uri["error"]["message"], "`uri` must be a string");
}

#[tokio::test]
async fn a_panic_while_reading_is_an_internal_error_without_its_message() {
    let server = server();
    let panicked = answer(
        &server,
        "resources/read",
        json!({ "uri": "app://users/panic" }),
    )
    .await;
    assert_eq!(panicked["error"]["code"], INTERNAL_ERROR);
    // The panic's message goes to the log; the client gets an incident id.
    let message = panicked["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("failed unexpectedly (incident ") && !message.contains("no such user"),
        "{panicked}"
    );
    let after = answer(&server, "resources/read", json!({ "uri": "app://users/8" })).await;
    assert_eq!(after["result"]["contents"][0]["text"], "user 8");
}

#[tokio::test]
async fn a_prompt_is_rendered_and_each_failure_has_its_code() {
    let server = server();
    let greet = answer(
        &server,
        "prompts/get",
        json!({ "name": "greet", "arguments": { "name": "Ada" } }),
    )
    .await;
    assert_eq!(
        greet["result"],
        json!({ "messages": [{ "role": "user", "content": { "type": "text", "text": "Greet Ada." } }] })
    );
    let missing = answer(&server, "prompts/get", json!({ "name": "greet" })).await;
    assert_eq!(
        missing["error"],
        json!({ "code": INVALID_PARAMS, "message": "missing required argument `name`" })
    );
    let unknown = answer(&server, "prompts/get", json!({ "name": "gret" })).await;
    assert_eq!(unknown["error"]["code"], INVALID_PARAMS);
    assert_eq!(unknown["error"]["message"], "unknown prompt `gret`");
    assert_eq!(unknown["error"]["data"], json!({ "name": "gret" }));
    let broken = answer(&server, "prompts/get", json!({ "name": "broken" })).await;
    assert_eq!(broken["error"]["code"], INTERNAL_ERROR);
    assert_eq!(broken["error"]["message"], "the template is gone");
    let bad = answer(
        &server,
        "prompts/get",
        json!({ "name": "greet", "arguments": ["Ada"] }),
    )
    .await;
    assert_eq!(bad["error"]["message"], "`arguments` must be an object");
}

#[tokio::test]
async fn completion_answers_for_known_references_only() {
    let server = server();
    let params = |reference: Value| json!({ "ref": reference, "argument": { "name": "name", "value": "A" } });
    let none = answer(
        &server,
        "completion/complete",
        params(json!({ "type": "ref/prompt", "name": "greet" })),
    )
    .await;
    assert_eq!(
        none["result"],
        json!({ "completion": { "values": [], "total": 0, "hasMore": false } })
    );
    let unknown = answer(
        &server,
        "completion/complete",
        params(json!({ "type": "ref/resource", "uri": "app://nope/{x}" })),
    )
    .await;
    assert_eq!(
        unknown["error"],
        json!({ "code": INVALID_PARAMS, "message": "unknown resource template `app://nope/{x}`", "data": { "uri": "app://nope/{x}" } })
    );
    let bad = answer(
        &server,
        "completion/complete",
        params(json!({ "type": "ref/tool", "name": "x" })),
    )
    .await;
    assert_eq!(bad["error"]["code"], INVALID_PARAMS);
}
