use mcp_runtime::mcp_tool;

/// Echoes its argument.
#[mcp_tool(namespace = "ui")]
fn echo<T>(value: T) -> T {
    value
}

fn main() {}
