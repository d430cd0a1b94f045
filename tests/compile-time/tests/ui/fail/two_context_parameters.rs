use mcp_runtime::{ToolContext, mcp_tool};

/// Says which tool is running.
#[mcp_tool(namespace = "ui")]
fn whoami(ctx: &ToolContext, again: ToolContext) -> String {
    format!("{} {}", ctx.tool_name(), again.tool_name())
}

fn main() {}
