use mcp_runtime::mcp_tool;

/// Adds the two halves of a pair.
#[mcp_tool(namespace = "ui")]
fn add_pair((a, b): (i64, i64)) -> i64 {
    a + b
}

fn main() {}
