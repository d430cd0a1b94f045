use mcp_runtime::mcp_tool;

/// Adds one.
#[mcp_tool(namespace = "Math-Utils")]
fn increment(n: i64) -> i64 {
    n + 1
}

fn main() {}
