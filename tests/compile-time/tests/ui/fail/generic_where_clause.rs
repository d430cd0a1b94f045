use mcp_runtime::mcp_tool;

/// Adds one.
#[mcp_tool(namespace = "ui")]
fn increment(n: i64) -> i64
where
    i64: Copy,
{
    n + 1
}

fn main() {}
