use mcp_runtime::mcp_resource;

/// About.
#[mcp_resource(uri = "app://about", ttl = "five minutes")]
fn about() -> String {
    String::new()
}

fn main() {}
