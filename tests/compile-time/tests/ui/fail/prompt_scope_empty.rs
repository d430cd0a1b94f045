use mcp_runtime::mcp_prompt;

/// Summarizes the notes.
#[mcp_prompt(scopes("notes:read", ""))]
fn summarize() -> String {
    String::new()
}

fn main() {}
