use mcp_runtime::mcp_resource;

/// A note by its id.
#[mcp_resource(uri_template = "notes://{id}", scopes("notes:read", "notes:read"))]
fn note(id: String) -> String {
    id
}

fn main() {}
