use mcp_runtime::mcp_tool;

/// Indexes a repository.
#[mcp_tool(namespace = "ui", task = "background")]
async fn index(repository: String) -> usize {
    repository.len()
}

/// Indexes a repository, the value misspelled.
#[mcp_tool(namespace = "ui", task = "Optional")]
async fn reindex(repository: String) -> usize {
    repository.len()
}

/// Indexes a repository, the value not a string.
#[mcp_tool(namespace = "ui", task = required)]
async fn index_all(repository: String) -> usize {
    repository.len()
}

fn main() {}
