use mcp_runtime::mcp_tool;

/// Adds one.
#[mcp_tool(namespace = "ui", idempotnet)]
fn increment(n: i64) -> i64 {
    n + 1
}

fn main() {}
