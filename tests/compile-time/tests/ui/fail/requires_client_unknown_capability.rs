use mcp_runtime::mcp_tool;

/// Summarizes a text.
#[mcp_tool(namespace = "ui", requires_client(smapling))]
fn summarize(text: String) -> String {
    text
}

fn main() {}
