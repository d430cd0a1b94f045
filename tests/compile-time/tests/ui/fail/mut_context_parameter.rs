use mcp_runtime::{ToolContext, mcp_tool};

/// Says which tool is running.
#[mcp_tool(namespace = "ui")]
fn whoami(ctx: &mut ToolContext) -> String {
    ctx.tool_name().to_string()
}

fn main() {}
