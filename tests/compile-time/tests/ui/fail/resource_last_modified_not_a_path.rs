use mcp_runtime::mcp_resource;

/// About.
#[mcp_resource(uri = "app://about", last_modified = 1736694058)]
fn about() -> String {
    String::new()
}

fn main() {}
