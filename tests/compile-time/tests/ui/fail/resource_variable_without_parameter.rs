use mcp_runtime::mcp_resource;

/// A user's post.
#[mcp_resource(uri_template = "app://users/{id}/posts/{post}")]
fn post(id: u32) -> String {
    format!("{id}")
}

fn main() {}
