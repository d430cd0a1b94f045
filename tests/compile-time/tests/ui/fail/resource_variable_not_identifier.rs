use mcp_runtime::mcp_resource;

/// A user.
#[mcp_resource(uri_template = "app://users/{user-id}")]
fn user(user_id: u32) -> String {
    format!("{user_id}")
}

fn main() {}
