use mcp_runtime::mcp_tool;

/// Fetches a page.
#[mcp_tool(namespace = "ui", requires_sandbox(network = "any", memory = "64MiB", network = "loopback"))]
fn fetch(url: String) -> String {
    url
}

/// Fetches a page, the sandbox asked for twice.
#[mcp_tool(namespace = "ui", requires_sandbox, requires_sandbox(network = "any"))]
fn fetch_twice(url: String) -> String {
    url
}

fn main() {}
