use mcp_runtime::mcp_resource;

/// About.
#[mcp_resource(uri = "app://about")]
fn about() {}

fn main() {}
