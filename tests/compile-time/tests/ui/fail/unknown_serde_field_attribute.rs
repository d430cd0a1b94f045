use mcp_runtime::mcp_tool;

/// Adds one.
#[mcp_tool(namespace = "ui")]
fn increment(#[serde(renmae = "m")] n: i64) -> i64 {
    n + 1
}

fn main() {}
