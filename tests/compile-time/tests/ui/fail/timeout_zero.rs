use mcp_runtime::mcp_tool;

/// Adds one.
#[mcp_tool(namespace = "ui", timeout = "0s")]
fn increment(n: i64) -> i64 {
    n + 1
}

fn main() {}
