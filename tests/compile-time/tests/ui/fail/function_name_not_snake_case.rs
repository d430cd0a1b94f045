use mcp_runtime::mcp_tool;

/// Reads a file.
#[mcp_tool(namespace = "ui")]
fn readFile(path: String) -> String {
    path
}

fn main() {}
