use mcp_runtime::mcp_resource;

/// About.
#[mcp_resource(name = "about")]
fn about() -> String {
    String::new()
}

fn main() {}
