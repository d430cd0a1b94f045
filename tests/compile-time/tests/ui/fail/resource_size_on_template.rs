use mcp_runtime::mcp_resource;

/// A user.
#[mcp_resource(uri_template = "app://users/{id}", size = 100)]
fn user(id: u32) -> String {
    format!("{id}")
}

fn main() {}
