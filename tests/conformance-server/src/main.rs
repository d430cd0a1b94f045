//! The tools the official MCP conformance suite's server scenarios call, written with
//! `#[mcp_tool]`. Serve them with `--llm-names`, which turns `test.simple_text` into the
//! `test_simple_text` the suite asks for.

use std::time::Duration;

use mcp_runtime::{ContentBlock, MCPToolResult, ToolContext, ToolError, mcp_tool};

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

fn main() {
    mcp_runtime::cli::run()
}
