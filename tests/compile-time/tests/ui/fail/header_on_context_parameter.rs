use mcp_runtime::{ToolContext, mcp_tool};

/// Says which tool is running.
#[mcp_tool(namespace = "ui")]
fn whoami(#[mcp(header = "Tool")] ctx: &ToolContext) -> String {
    ctx.tool_name().to_string()
}

fn main() {}
