use mcp_runtime::mcp_tool;

/// Doubles a number.
#[mcp_tool(namespace = "ui")]
fn double(n: &i64) -> i64 {
    n * 2
}

fn main() {}
