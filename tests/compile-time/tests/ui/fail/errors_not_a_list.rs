use std::io;

use mcp_runtime::mcp_tool;

/// Reads a file.
#[mcp_tool(namespace = "ui", errors = FileNotFoundError)]
fn read(path: String) -> Result<String, io::Error> {
    std::fs::read_to_string(path)
}

fn main() {}
