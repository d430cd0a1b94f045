use mcp_runtime::mcp_tool;

fn my_fn() -> u32 {
    50
}

/// Adds one.
#[mcp_tool(namespace = "ui", layer = my_fn)]
fn increment(n: i64) -> i64 {
    n + 1
}

fn main() {}
