use mcp_runtime::mcp_tool;

/// Reads a file.
#[mcp_tool(namespace = "ui", name = "read-file")]
fn read_file(path: String) -> String {
    path
}

fn main() {}
