use mcp_runtime::mcp_tool;

/// Counts the characters of a text.
#[mcp_tool(namespace = "ui", inline, task = "optional")]
fn count(text: String) -> usize {
    text.chars().count()
}

fn main() {}
