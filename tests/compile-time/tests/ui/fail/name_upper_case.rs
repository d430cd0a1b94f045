use mcp_runtime::mcp_tool;

/// Reads a file.
#[mcp_tool(namespace = "ui", name = "ReadFile")]
fn read_file(path: String) -> String {
    path
}

fn main() {}
