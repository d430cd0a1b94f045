use mcp_runtime::mcp_tool;

/// Indexes a repository.
#[mcp_tool(namespace = "ui", task = "optional", task = "required")]
async fn index(repository: String) -> usize {
    repository.len()
}

fn main() {}
