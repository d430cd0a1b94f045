//! The tools the official MCP conformance suite's server scenarios call, written with
//! `#[mcp_tool]`. Serve them with `--llm-names`, which turns `test.simple_text` into the
//! `test_simple_text` the suite asks for.
//!
//! Some fixtures are registered while serving instead: `json_schema_2020_12_tool`, whose
//! input schema the suite expects back exactly as written, keyword for keyword, and the
//! resources and prompts the suite reads, registered at run time as an application that
//! finds them in a database or on disk would.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use mcp_runtime::serde_json::{Value, json};
use mcp_runtime::server::Server;
use mcp_runtime::talk::{Elicitation, Sampling};
use mcp_runtime::{
    ContentBlock, MCPToolResult, PromptArgument, PromptDefinition, PromptMessage, PromptResult,
    Registry, RegistryError, ResourceContents, ResourceDefinition, ResourceTemplateDefinition,
    ToolContext, ToolDefinition, ToolError, mcp_tool,
};

/// The server, once it serves: the trigger tools change what it serves.
static SERVER: OnceLock<Arc<Server>> = OnceLock::new();

/// A 1×1 red PNG.
const RED_PIXEL_PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/// A WAV file of one silent sample.
const SILENT_WAV: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQIAAAAAAA==";

/// Greets `name` (the tasks scenarios' tool that never runs as a task; served as `greet`
/// with `--llm-names-bare tasks`).
#[mcp_tool(namespace = "tasks", inline)]
fn greet(name: String) -> MCPToolResult {
    MCPToolResult::no_data().with_content(ContentBlock::text(format!("Hello, {name}!")))
}

/// Returns a simple text.
#[mcp_tool(namespace = "test", inline)]
fn simple_text() -> MCPToolResult {
    MCPToolResult::no_data().with_content(ContentBlock::text(
        "This is a simple text response for testing.",
    ))
}

/// Returns an image.
#[mcp_tool(namespace = "test", inline)]
fn image_content() -> MCPToolResult {
    MCPToolResult::no_data().with_content(ContentBlock::image(RED_PIXEL_PNG, "image/png"))
}

/// Returns audio.
#[mcp_tool(namespace = "test", inline)]
fn audio_content() -> MCPToolResult {
    MCPToolResult::no_data().with_content(ContentBlock::audio(SILENT_WAV, "audio/wav"))
}

/// Returns an embedded resource.
#[mcp_tool(namespace = "test", inline)]
fn embedded_resource() -> MCPToolResult {
    MCPToolResult::no_data().with_content(ContentBlock::resource_text(
        "test://embedded-resource",
        "text/plain",
        "This is an embedded resource content.",
    ))
}

/// Returns text, an image and a resource.
#[mcp_tool(namespace = "test", inline)]
fn multiple_content_types() -> MCPToolResult {
    MCPToolResult::no_data()
        .with_content(ContentBlock::text("Multiple content types test:"))
        .with_content(ContentBlock::image(RED_PIXEL_PNG, "image/png"))
        .with_content(ContentBlock::resource_text(
            "test://mixed-content-resource",
            "application/json",
            r#"{"test":"data","value":123}"#,
        ))
}

/// Always fails.
#[mcp_tool(namespace = "test", inline)]
fn error_handling() -> Result<String, ToolError> {
    Err(ToolError::execution(
        "This tool intentionally returns an error for testing",
    ))
}

/// Reports progress 0, 50 and 100 of 100, 50 ms apart.
#[mcp_tool(namespace = "test")]
async fn tool_with_progress(ctx: &ToolContext) -> String {
    ctx.progress(0.0, Some(100.0), None);
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.progress(50.0, Some(100.0), None);
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.progress(100.0, Some(100.0), None);
    "Progress test completed".to_owned()
}

/// Ends its SSE stream before it answers (SEP-1699's polling): the client reconnects with
/// the last event's id and reads the answer from the stream's log.
#[mcp_tool(namespace = "test")]
async fn reconnection(ctx: &ToolContext) -> String {
    ctx.close_sse_stream();
    tokio::time::sleep(Duration::from_millis(100)).await;
    "Reconnection test completed successfully".to_owned()
}

/// Logs three messages at `info`, 50 ms apart, then answers.
#[mcp_tool(namespace = "test")]
async fn tool_with_logging(ctx: &ToolContext) -> String {
    ctx.info("Tool execution started");
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.info("Tool processing data");
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.info("Tool execution completed");
    "Logging test completed".to_owned()
}

/// Logs one message at `info`: only a client that asked for log messages gets it.
#[mcp_tool(namespace = "test", inline)]
fn logging_tool(ctx: &ToolContext) -> String {
    ctx.info("test_logging_tool ran");
    "logged".to_owned()
}

/// A form of one required string field.
fn text_form(field: &str) -> Value {
    json!({
        "type": "object",
        "properties": { field: { "type": "string" } },
        "required": [field],
    })
}

/// What the user did with a form, and what they filled in.
fn told(answer: &Elicitation<mcp_runtime::serde_json::Map<String, Value>>) -> String {
    match answer {
        Elicitation::Accept(content) => format!("accept {}", Value::Object(content.clone())),
        other => other.action().to_owned(),
    }
}

/// The question the sampling fixtures ask.
fn capital_question() -> Sampling {
    Sampling::user("What is the capital of France?", 100)
}

/// Asks the user's name (`user_name`), then greets them.
#[mcp_tool(namespace = "test")]
async fn input_required_result_elicitation(ctx: &ToolContext) -> Result<String, ToolError> {
    let answer = ctx
        .elicit_with("user_name", "What is your name?", text_form("name"))
        .await?;
    Ok(format!("user_name: {}", told(&answer)))
}

/// Asks the client's model a question (`capital_question`).
#[mcp_tool(namespace = "test")]
async fn input_required_result_sampling(ctx: &ToolContext) -> Result<String, ToolError> {
    let sampled = ctx.sample("capital_question", &capital_question()).await?;
    Ok(format!(
        "the model said: {}",
        sampled.text().unwrap_or_default()
    ))
}

/// Asks the client's roots (`client_roots`).
#[mcp_tool(namespace = "test")]
async fn input_required_result_list_roots(ctx: &ToolContext) -> Result<String, ToolError> {
    let roots = ctx.roots("client_roots").await?;
    let uris: Vec<&str> = roots.iter().map(|root| root.uri.as_str()).collect();
    Ok(format!("{} root(s): {}", roots.len(), uris.join(", ")))
}

/// Asks for a confirmation (`confirm`), which travels in the request state.
#[mcp_tool(namespace = "test")]
async fn input_required_result_request_state(ctx: &ToolContext) -> Result<String, ToolError> {
    let form = json!({ "type": "object", "properties": { "ok": { "type": "boolean" } }, "required": ["ok"] });
    let answer = ctx.elicit_with("confirm", "Go on?", form).await?;
    Ok(format!("state-ok: {}", told(&answer)))
}

/// Asks the user, the model and the roots at once.
#[mcp_tool(namespace = "test")]
async fn input_required_result_multiple_inputs(ctx: &ToolContext) -> Result<String, ToolError> {
    let question = capital_question();
    let (name, sampled, roots) = tokio::join!(
        ctx.elicit_with("user_name", "What is your name?", text_form("name")),
        ctx.sample("capital_question", &question),
        ctx.roots("client_roots"),
    );
    Ok(format!(
        "user_name: {}; the model said: {}; {} root(s)",
        told(&name?),
        sampled?.text().unwrap_or_default(),
        roots?.len()
    ))
}

/// Asks a name, then a colour: two rounds of input.
#[mcp_tool(namespace = "test")]
async fn input_required_result_multi_round(ctx: &ToolContext) -> Result<String, ToolError> {
    let name = ctx
        .elicit_with("name", "What is your name?", text_form("name"))
        .await?;
    let color = ctx
        .elicit_with(
            "color",
            "What is your favourite colour?",
            text_form("color"),
        )
        .await?;
    Ok(format!("{} / {}", told(&name), told(&color)))
}

/// Asks for a confirmation; a retry whose request state was altered is refused.
#[mcp_tool(namespace = "test")]
async fn input_required_result_tampered_state(ctx: &ToolContext) -> Result<String, ToolError> {
    let form = json!({ "type": "object", "properties": { "ok": { "type": "boolean" } }, "required": ["ok"] });
    let answer = ctx.elicit_with("confirm", "Go on?", form).await?;
    Ok(format!("confirmed: {}", told(&answer)))
}

/// Asks the user and the model, each only if the client can answer.
#[mcp_tool(namespace = "test")]
async fn input_required_result_capabilities(ctx: &ToolContext) -> Result<String, ToolError> {
    let name = match ctx
        .elicit_with("user_name", "What is your name?", text_form("name"))
        .await
    {
        Ok(answer) => told(&answer),
        Err(err) => format!("not asked: {err}"),
    };
    let sampled = match ctx.sample("capital_question", &capital_question()).await {
        Ok(sampled) => sampled.text().unwrap_or_default().to_owned(),
        Err(err) => format!("not asked: {err}"),
    };
    Ok(format!("user_name: {name}; the model said: {sampled}"))
}

/// Asks the user: at 2026-07-28 an input-required result, never a request on the stream.
#[mcp_tool(namespace = "test")]
async fn streaming_elicitation(ctx: &ToolContext) -> Result<String, ToolError> {
    let answer = ctx
        .elicit_with("user_name", "What is your name?", text_form("name"))
        .await?;
    Ok(format!("user_name: {}", told(&answer)))
}

/// Asks the client's model to answer `prompt`.
#[mcp_tool(namespace = "test")]
async fn sampling(
    ctx: &ToolContext,
    /// What to ask the model.
    prompt: String,
) -> Result<String, ToolError> {
    let sampled = ctx.sample("answer", &Sampling::user(prompt, 100)).await?;
    Ok(format!(
        "LLM response: {}",
        sampled.text().unwrap_or_default()
    ))
}

/// Asks the user for a username and an email address, saying `message`.
#[mcp_tool(namespace = "test")]
async fn elicitation(
    ctx: &ToolContext,
    /// What to tell the user.
    message: String,
) -> Result<String, ToolError> {
    let form = json!({
        "type": "object",
        "properties": {
            "username": { "type": "string", "description": "User's response" },
            "email": { "type": "string", "description": "User's email address" },
        },
        "required": ["username", "email"],
    });
    let answer = ctx.elicit_with("contact", &message, form).await?;
    Ok(format!("User response: {}", told(&answer)))
}

/// Asks for a form whose every field has a default (SEP-1034).
#[mcp_tool(namespace = "test")]
async fn elicitation_sep1034_defaults(ctx: &ToolContext) -> Result<String, ToolError> {
    let form = json!({
        "type": "object",
        "properties": {
            "name": { "type": "string", "default": "John Doe" },
            "age": { "type": "integer", "default": 30 },
            "score": { "type": "number", "default": 95.5 },
            "status": { "type": "string", "enum": ["active", "inactive", "pending"], "default": "active" },
            "verified": { "type": "boolean", "default": true },
        },
    });
    let answer = ctx
        .elicit_with("defaults", "Check these values", form)
        .await?;
    Ok(format!("Elicitation completed: {}", told(&answer)))
}

/// Asks for a form with each kind of enum (SEP-1330).
#[mcp_tool(namespace = "test")]
async fn elicitation_sep1330_enums(ctx: &ToolContext) -> Result<String, ToolError> {
    let titled = |values: [(&str, &str); 3]| {
        values
            .iter()
            .map(|(value, title)| json!({ "const": value, "title": title }))
            .collect::<Vec<_>>()
    };
    let form = json!({
        "type": "object",
        "properties": {
            "untitledSingle": { "type": "string", "enum": ["option1", "option2", "option3"] },
            "titledSingle": {
                "type": "string",
                "oneOf": titled([("value1", "First Option"), ("value2", "Second Option"), ("value3", "Third Option")]),
            },
            "legacyEnum": {
                "type": "string",
                "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"],
            },
            "untitledMulti": {
                "type": "array",
                "items": { "type": "string", "enum": ["option1", "option2", "option3"] },
            },
            "titledMulti": {
                "type": "array",
                "items": { "anyOf": titled([("value1", "First Choice"), ("value2", "Second Choice"), ("value3", "Third Choice")]) },
            },
        },
    });
    let answer = ctx.elicit_with("enums", "Pick some options", form).await?;
    Ok(format!("Elicitation completed: {}", told(&answer)))
}

/// Needs the client's sampling capability: a stateless request that does not declare it is
/// refused before the tool runs.
#[mcp_tool(namespace = "test", inline, requires_client(sampling))]
fn missing_capability() -> String {
    "the client declared sampling".to_owned()
}

/// Runs a query in a region; the region travels in the `Mcp-Param-Region` header too, so a
/// proxy can route on it.
#[mcp_tool(namespace = "test", inline)]
fn custom_header_tool(
    /// The region to run the query in.
    #[mcp(header = "Region")]
    region: String,
    /// The query.
    query: String,
) -> String {
    format!("ran `{query}` in {region}")
}

/// Changes the tool list: registers `test.registered_while_serving` if it is not there,
/// and removes it if it is.
#[mcp_tool(namespace = "test")]
fn trigger_tool_change() -> Result<String, ToolError> {
    let server = SERVER
        .get()
        .ok_or_else(|| ToolError::execution("the server is not serving"))?;
    let name = "test.registered_while_serving";
    let definition = ToolDefinition::new(
        name,
        mcp_runtime::schemars::json_schema!({ "type": "object" }),
    )
    .map_err(|err| ToolError::execution(err.to_string()))?
    .with_description("Registered by test_trigger_tool_change, and removed by its next call.");
    let changed = server
        .change(|registry| {
            if registry.has_tool(name) {
                registry.unregister(name).is_some()
            } else {
                registry
                    .register(definition, |_, _| async { Ok::<_, ToolError>(json!({})) })
                    .is_ok()
            }
        })
        .map_err(|err| ToolError::execution(err.to_string()))?;
    Ok(if changed {
        "tool list changed"
    } else {
        "no change"
    }
    .to_owned())
}

/// The name of the prompt `test_trigger_prompt_change` adds and removes.
const PROMPT_WHILE_SERVING: &str = "test_registered_while_serving";

/// Changes the prompt list: registers `test_registered_while_serving` if it is not there,
/// and removes it if it is.
#[mcp_tool(namespace = "test")]
fn trigger_prompt_change() -> Result<String, ToolError> {
    let server = SERVER
        .get()
        .ok_or_else(|| ToolError::execution("the server is not serving"))?;
    let changed = server
        .change(|registry| {
            if registry.prompt(PROMPT_WHILE_SERVING).is_some() {
                registry.unregister_prompt(PROMPT_WHILE_SERVING)
            } else {
                let definition = PromptDefinition::new(PROMPT_WHILE_SERVING).with_description(
                    "Registered by test_trigger_prompt_change, and removed by its next call.",
                );
                registry
                    .register_prompt(definition, |_| async {
                        Ok::<_, ToolError>(PromptResult::new(vec![PromptMessage::user("Hello.")]))
                    })
                    .is_ok()
            }
        })
        .map_err(|err| ToolError::execution(err.to_string()))?;
    Ok(if changed {
        "prompt list changed"
    } else {
        "no change"
    }
    .to_owned())
}

/// The resources the suite reads: a text, a binary, a template and one to subscribe to.
fn resources(registry: &mut Registry) -> Result<(), RegistryError> {
    registry.register_resource(
        ResourceDefinition::new("test://static-text", "static-text")
            .with_description("A static text resource.")
            .with_mime_type("text/plain"),
        |request| async move {
            Ok::<_, ToolError>(vec![
                ResourceContents::text(
                    request.uri(),
                    "This is the content of the static text resource.",
                )
                .with_mime_type("text/plain"),
            ])
        },
    )?;
    registry.register_resource(
        ResourceDefinition::new("test://static-binary", "static-binary")
            .with_description("A static binary resource: a 1×1 PNG.")
            .with_mime_type("image/png"),
        |request| async move {
            Ok::<_, ToolError>(vec![
                ResourceContents::blob(request.uri(), RED_PIXEL_PNG).with_mime_type("image/png"),
            ])
        },
    )?;
    registry.register_resource(
        ResourceDefinition::new("test://watched-resource", "watched-resource")
            .with_description("A resource to subscribe to.")
            .with_mime_type("text/plain"),
        |request| async move {
            Ok::<_, ToolError>(vec![
                ResourceContents::text(request.uri(), "Watched resource content.")
                    .with_mime_type("text/plain"),
            ])
        },
    )?;
    registry.register_resource_template(
        ResourceTemplateDefinition::new("test://template/{id}/data", "template")
            .with_description("A resource per id.")
            .with_mime_type("application/json"),
        |request| async move {
            let id = request.variable("id").unwrap_or_default().to_owned();
            let data =
                json!({ "id": id, "templateTest": true, "data": format!("Data for ID: {id}") });
            Ok::<_, ToolError>(vec![
                ResourceContents::text(request.uri(), data.to_string())
                    .with_mime_type("application/json"),
            ])
        },
    )
}

/// The prompts the suite renders.
fn prompts(registry: &mut Registry) -> Result<(), RegistryError> {
    let text = |arguments: &mcp_runtime::Arguments, name: &str| {
        arguments
            .get(name)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| ToolError::validation(format!("missing required argument `{name}`")))
    };
    registry.register_prompt_asking(
        PromptDefinition::new("test_input_required_result_prompt")
            .with_description("Asks the user for context (`user_context`), then renders it."),
        |_, asker| async move {
            let answer = asker
                .elicit_with(
                    "user_context",
                    "What context should the prompt use?",
                    text_form("context"),
                )
                .await?;
            Ok::<_, ToolError>(PromptResult::new(vec![PromptMessage::user(format!(
                "Use this context: {}",
                told(&answer)
            ))]))
        },
    )?;
    registry.register_prompt(
        PromptDefinition::new("test_simple_prompt").with_description("A prompt without arguments."),
        |_| async {
            Ok::<_, ToolError>(PromptResult::new(vec![PromptMessage::user(
                "This is a simple prompt for testing.",
            )]))
        },
    )?;
    registry.register_prompt(
        PromptDefinition::new("test_prompt_with_arguments")
            .with_description("A prompt with two required arguments.")
            .with_argument(PromptArgument::required("arg1").with_description("First argument"))
            .with_argument(PromptArgument::required("arg2").with_description("Second argument")),
        move |arguments| async move {
            let (arg1, arg2) = (text(&arguments, "arg1")?, text(&arguments, "arg2")?);
            Ok::<_, ToolError>(PromptResult::new(vec![PromptMessage::user(format!(
                "Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"
            ))]))
        },
    )?;
    registry.register_prompt(
        PromptDefinition::new("test_prompt_with_embedded_resource")
            .with_description("A prompt that embeds a resource.")
            .with_argument(
                PromptArgument::required("resourceUri").with_description("The resource to embed"),
            ),
        move |arguments| async move {
            let uri = text(&arguments, "resourceUri")?;
            Ok::<_, ToolError>(PromptResult::new(vec![
                PromptMessage::user(ContentBlock::resource_text(
                    uri,
                    "text/plain",
                    "Embedded resource content for testing.",
                )),
                PromptMessage::user("Please process the embedded resource above."),
            ]))
        },
    )?;
    registry.register_prompt(
        PromptDefinition::new("test_prompt_with_image").with_description("A prompt with an image."),
        |_| async {
            Ok::<_, ToolError>(PromptResult::new(vec![
                PromptMessage::user(ContentBlock::image(RED_PIXEL_PNG, "image/png")),
                PromptMessage::user("Please analyze the image above."),
            ]))
        },
    )
}

/// The tools of the tasks extension's scenarios, which run as tasks: served under their
/// names alone (`slow_compute`) with `--llm-names-bare tasks`, and `test_tool_with_task`.
fn task_tools(registry: &mut Registry) -> Result<(), Box<dyn std::error::Error>> {
    let object =
        |properties: Value| -> Result<mcp_runtime::schemars::Schema, Box<dyn std::error::Error>> {
            Ok(json!({ "type": "object", "properties": properties }).try_into()?)
        };
    let optional = mcp_runtime::TaskSupport::Optional;
    let required = mcp_runtime::TaskSupport::Required;
    registry.register(
        ToolDefinition::new(
            "tasks.slow_compute",
            object(json!({ "seconds": { "type": "number" }, "label": { "type": "string" } }))?,
        )?
        .with_description("Sleeps `seconds`, then answers with `label`.")
        .with_task_support(optional),
        |arguments, _| async move {
            let seconds = arguments
                .get("seconds")
                .and_then(Value::as_f64)
                .unwrap_or(1.0);
            let label = arguments
                .get("label")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned();
            tokio::time::sleep(Duration::from_secs_f64(seconds.clamp(0.0, 3600.0))).await;
            Ok::<_, ToolError>(json!({ "label": label, "seconds": seconds }))
        },
    )?;
    registry.register(
        ToolDefinition::new("tasks.failing_job", object(json!({}))?)?
            .with_description("Fails with a tool error after a second.")
            .with_task_support(required),
        |_, _| async {
            tokio::time::sleep(Duration::from_secs(1)).await;
            Err::<Value, _>(ToolError::execution("the job failed, as it always does"))
        },
    )?;
    registry.register(
        ToolDefinition::new("tasks.protocol_error_job", object(json!({}))?)?
            .with_description("Panics: a protocol-level failure.")
            .with_task_support(optional),
        |_, _| async {
            tokio::time::sleep(Duration::from_millis(200)).await;
            if std::hint::black_box(true) {
                panic!("the job broke down");
            }
            Ok::<_, ToolError>(Value::Null)
        },
    )?;
    registry.register(
        ToolDefinition::new(
            "tasks.confirm_delete",
            object(json!({ "filename": { "type": "string" } }))?,
        )?
        .with_description("Asks the user to confirm, then deletes (pretends to).")
        .with_task_support(optional),
        |arguments, ctx| async move {
            let filename = arguments.get("filename").and_then(Value::as_str).unwrap_or("").to_owned();
            // The question is asked within the task, not before it.
            ctx.start_task();
            let form = json!({ "type": "object", "properties": { "confirm": { "type": "boolean" } }, "required": ["confirm"] });
            let answer = ctx.elicit_with("confirm", &format!("Delete {filename}?"), form).await?;
            Ok::<_, ToolError>(json!({ "filename": filename, "answer": told(&answer) }))
        },
    )?;
    registry.register(
        ToolDefinition::new("tasks.multi_input", object(json!({}))?)?
            .with_description("Asks two questions at once.")
            .with_task_support(optional),
        |_, ctx| async move {
            ctx.start_task();
            let form = json!({ "type": "object", "properties": { "name": { "type": "string" }, "confirm": { "type": "boolean" } } });
            let (first, second) = tokio::join!(
                ctx.elicit_with("first", "The first question", form.clone()),
                ctx.elicit_with("second", "The second question", form.clone()),
            );
            Ok::<_, ToolError>(json!({ "first": told(&first?), "second": told(&second?) }))
        },
    )?;
    registry.register(
        ToolDefinition::new("test.tool_with_task", object(json!({}))?)?
            .with_description("Asks the user's name over rounds, then greets them as a task.")
            .with_task_support(required),
        |_, ctx| async move {
            let answer = ctx
                .elicit_with("user_name", "What is your name?", text_form("name"))
                .await?;
            tokio::time::sleep(Duration::from_millis(300)).await;
            let name = match &answer {
                Elicitation::Accept(content) => content
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned(),
                other => other.action().to_owned(),
            };
            Ok::<_, ToolError>(json!({ "greeting": format!("Hello, {name}!") }))
        },
    )?;
    Ok(())
}

/// `json_schema_2020_12_tool` (served under names for LLM APIs, as the suite runs it): the
/// input schema `json-schema-2020-12` expects back unchanged: `$schema`, `$defs` with
/// an `$anchor`, composition and conditional keywords.
fn json_schema_2020_12_tool() -> Result<ToolDefinition, Box<dyn std::error::Error>> {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": {
                    "street": { "type": "string" },
                    "city": { "type": "string" }
                }
            }
        },
        "properties": {
            "name": { "type": "string" },
            "address": { "$ref": "#/$defs/address" },
            "contactMethod": { "type": "string", "enum": ["phone", "email"] },
            "phone": { "type": "string" },
            "email": { "type": "string" }
        },
        "allOf": [{ "anyOf": [{ "required": ["phone"] }, { "required": ["email"] }] }],
        "if": { "properties": { "contactMethod": { "const": "phone" } }, "required": ["contactMethod"] },
        "then": { "required": ["phone"] },
        "else": { "required": ["email"] },
        "additionalProperties": false
    });
    Ok(
        ToolDefinition::new("json.schema_2020_12_tool", schema.try_into()?)?
            .with_description("Takes a contact whose schema uses JSON Schema 2020-12 keywords."),
    )
}

fn main() {
    mcp_runtime::cli::app!().run_serving(|server| {
        let _ = SERVER.set(Arc::clone(server));
        let registered = json_schema_2020_12_tool().map(|definition| {
            server.change(|registry| {
                registry.register(definition, |arguments, _| async move {
                    Ok::<_, ToolError>(json!({ "received": Value::Object(arguments) }))
                })?;
                resources(registry)?;
                prompts(registry)
            })
        });
        if let Err(err) = server
            .change(task_tools)
            .map_err(|err| err.to_string())
            .and_then(|done| done.map_err(|err| err.to_string()))
        {
            eprintln!("error: {err}");
        }
        match registered {
            Ok(Ok(Ok(()))) => {}
            Ok(Ok(Err(err))) => eprintln!("error: {err}"),
            Ok(Err(err)) => eprintln!("error: {err}"),
            Err(err) => eprintln!("error: {err}"),
        }
    })
}
