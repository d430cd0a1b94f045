use mcp_runtime::mcp_tool;

/// Returns its argument.
#[mcp_tool(namespace = "ui")]
fn echo<'a>(text: String) -> String {
    text
}

fn main() {}
