use mcp_runtime::mcp_tool;

/// Adds one.
#[mcp_tool(namespace = "ui", layer = 50)]
fn increment(n: i64) -> i64 {
    n + 1
}

fn main() {}
