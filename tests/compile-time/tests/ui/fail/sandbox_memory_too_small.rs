use mcp_runtime::mcp_tool;

/// Counts the words of a text.
#[mcp_tool(namespace = "ui", requires_sandbox(memory = "8MiB"))]
fn count_words(text: String) -> usize {
    text.split_whitespace().count()
}

/// Counts the lines of a text, the size without a unit.
#[mcp_tool(namespace = "ui", requires_sandbox(memory = "256"))]
fn count_lines(text: String) -> usize {
    text.lines().count()
}

fn main() {}
