use mcp_runtime::mcp_tool;

/// A direction.
#[mcp_tool(namespace = "ui")]
enum Direction {
    Up,
    Down,
}

fn main() {}
