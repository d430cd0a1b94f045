use mcp_runtime::mcp_tool;

/// Fetches a page.
#[mcp_tool(namespace = "ui", requires_sandbox(netwrk = "any"))]
fn fetch(url: String) -> String {
    url
}

/// Fetches a page, with a key no policy has.
#[mcp_tool(namespace = "ui", requires_sandbox(network = "any", disk = "1GiB"))]
fn fetch_to_disk(url: String) -> String {
    url
}

fn main() {}
