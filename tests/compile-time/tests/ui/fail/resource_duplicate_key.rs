use mcp_runtime::mcp_resource;

/// About.
#[mcp_resource(uri = "app://about", title = "About", title = "About us")]
fn about() -> String {
    String::new()
}

fn main() {}
