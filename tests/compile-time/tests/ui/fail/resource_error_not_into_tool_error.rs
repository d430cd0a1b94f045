use mcp_runtime::mcp_resource;

struct Unreadable;

/// The settings.
#[mcp_resource(uri = "app://settings")]
fn settings() -> Result<String, Unreadable> {
    Err(Unreadable)
}

fn main() {}
