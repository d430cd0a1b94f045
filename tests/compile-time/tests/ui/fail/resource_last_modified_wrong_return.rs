use mcp_runtime::mcp_resource;

fn changed() -> u64 {
    0
}

/// About.
#[mcp_resource(uri = "app://about", last_modified = changed)]
fn about() -> String {
    String::new()
}

fn main() {}
