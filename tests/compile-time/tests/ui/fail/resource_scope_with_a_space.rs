use mcp_runtime::mcp_resource;

/// Today's note.
#[mcp_resource(uri = "notes://today", scopes("notes read"))]
fn today() -> String {
    String::new()
}

fn main() {}
