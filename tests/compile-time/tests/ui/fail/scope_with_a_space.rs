use mcp_runtime::mcp_tool;

/// Writes a note.
#[mcp_tool(namespace = "ui", scopes("notes:read", "notes write"))]
fn write_note(text: String) -> String {
    text
}

fn main() {}
