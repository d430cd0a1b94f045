use mcp_runtime::mcp_tool;

/// Deletes a file.
#[mcp_tool(namespace = "ui", read_only, destructive)]
fn delete_file(path: String) -> Result<(), std::io::Error> {
    std::fs::remove_file(path)
}

fn main() {}
