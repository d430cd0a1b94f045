use std::path::Path;

use mcp_runtime::mcp_tool;

/// Whether a path exists.
#[mcp_tool(namespace = "ui")]
fn exists(path: &Path) -> bool {
    path.exists()
}

fn main() {}
