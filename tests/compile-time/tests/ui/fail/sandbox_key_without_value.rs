use mcp_runtime::mcp_tool;

/// Lists a directory.
#[mcp_tool(namespace = "ui", requires_sandbox(read))]
fn list(dir: String) -> Vec<String> {
    vec![dir]
}

/// Fetches a page.
#[mcp_tool(namespace = "ui", requires_sandbox(network))]
fn fetch(url: String) -> String {
    url
}

fn main() {}
