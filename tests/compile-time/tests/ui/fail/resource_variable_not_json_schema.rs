use mcp_runtime::mcp_resource;

#[derive(serde::Deserialize)]
struct UserId(u32);

/// A user.
#[mcp_resource(uri_template = "app://users/{id}")]
fn user(id: UserId) -> String {
    format!("{}", id.0)
}

fn main() {}
