use mcp_runtime::mcp_tool;

/// A point.
#[mcp_tool(namespace = "ui")]
struct Point {
    x: i64,
    y: i64,
}

fn main() {}
