use mcp_runtime::mcp_tool;

/// Doubles a number.
#[mcp_tool(namespace = "ui")]
fn double(n: i64) -> impl serde::Serialize {
    n * 2
}

fn main() {}
