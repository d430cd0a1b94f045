use mcp_runtime::mcp_tool;

/// Adds numbers.
#[mcp_tool(namespace = "ui")]
fn sum(n: i64, _: ...) -> i64 {
    n
}

fn main() {}
