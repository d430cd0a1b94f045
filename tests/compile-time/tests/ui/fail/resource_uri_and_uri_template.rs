use mcp_runtime::mcp_resource;

/// A user.
#[mcp_resource(uri = "app://users/me", uri_template = "app://users/{id}")]
fn user(id: u32) -> String {
    format!("{id}")
}

fn main() {}
