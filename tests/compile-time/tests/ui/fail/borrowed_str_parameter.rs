use mcp_runtime::mcp_tool;

/// Counts the characters of a text.
#[mcp_tool(namespace = "ui")]
fn count_chars(text: &str) -> usize {
    text.chars().count()
}

fn main() {}
