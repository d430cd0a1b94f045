use mcp_runtime::mcp_resource;

/// About.
#[mcp_resource(uri = "app://about", ttl = "5m", cache_scope = "shared")]
fn about() -> String {
    String::new()
}

fn main() {}
