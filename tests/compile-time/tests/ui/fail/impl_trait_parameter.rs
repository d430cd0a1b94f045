use mcp_runtime::mcp_tool;

/// Shows a value.
#[mcp_tool(namespace = "ui")]
fn show(value: impl std::fmt::Display) -> String {
    value.to_string()
}

fn main() {}
