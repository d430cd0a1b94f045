use mcp_runtime::mcp_resource;

/// About.
#[mcp_resource(uri = "app://about", priority = 2.0)]
fn about() -> String {
    String::new()
}

fn main() {}
