use mcp_runtime::mcp_resource;

fn user_ids(prefix: String) -> Vec<String> {
    vec![prefix]
}

/// A user.
#[mcp_resource(uri_template = "app://users/{id}")]
fn user(#[mcp(complete = user_ids)] id: u32) -> String {
    format!("{id}")
}

fn main() {}
