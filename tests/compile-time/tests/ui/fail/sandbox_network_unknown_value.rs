use mcp_runtime::mcp_tool;

/// Serves a page to itself.
#[mcp_tool(namespace = "ui", requires_sandbox(network = "loopbak"))]
fn serve(page: String) -> String {
    page
}

/// Fetches a page, the value no network.
#[mcp_tool(namespace = "ui", requires_sandbox(network = "internet"))]
fn fetch(url: String) -> String {
    url
}

/// Fetches a page, the value not a string.
#[mcp_tool(namespace = "ui", requires_sandbox(network = any))]
fn fetch_any(url: String) -> String {
    url
}

fn main() {}
