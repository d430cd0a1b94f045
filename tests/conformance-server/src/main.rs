//! The tools the official MCP conformance suite's server scenarios call, written with
//! `#[mcp_tool]`. Serve them with `--llm-names`, which turns `test.simple_text` into the
//! `test_simple_text` the suite asks for.
//!
//! One fixture is registered while serving instead: `json_schema_2020_12_tool`, whose input
//! schema the suite expects back exactly as written, keyword for keyword.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use mcp_runtime::serde_json::{Value, json};
use mcp_runtime::server::Server;
use mcp_runtime::{ContentBlock, MCPToolResult, ToolContext, ToolDefinition, ToolError, mcp_tool};

/// The server, once it serves: the trigger tools change what it serves.
static SERVER: OnceLock<Arc<Server>> = OnceLock::new();

/// A 1×1 red PNG.
const RED_PIXEL_PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/// A WAV file of one silent sample.
const SILENT_WAV: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQIAAAAAAA==";

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
    mcp_runtime::cli::run_serving(|server| {
        let _ = SERVER.set(Arc::clone(server));
        let registered = json_schema_2020_12_tool().map(|definition| {
            server.change(|registry| {
                registry.register(definition, |arguments, _| async move {
                    Ok::<_, ToolError>(json!({ "received": Value::Object(arguments) }))
                })
            })
        });
        match registered {
            Ok(Ok(Ok(()))) => {}
            Ok(Ok(Err(err))) => eprintln!("error: {err}"),
            Ok(Err(err)) => eprintln!("error: {err}"),
            Err(err) => eprintln!("error: {err}"),
        }
    })
}
