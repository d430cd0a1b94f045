use mcp_runtime::mcp_tool;

const VERSION: &str = "1.0.0";

/// Adds one.
#[mcp_tool(namespace = "ui", version = VERSION, read_only)]
fn increment(n: i64) -> i64 {
    n + 1
}

fn main() {}
