use mcp_runtime::mcp_resource;

/// A search.
#[mcp_resource(uri_template = "app://search{?query}")]
fn search(query: String) -> String {
    query
}

fn main() {}
