use mcp_runtime::mcp_resource;

/// About.
#[mcp_resource(uri = "app://about", mime = "text/plain")]
fn about() -> String {
    String::new()
}

fn main() {}
