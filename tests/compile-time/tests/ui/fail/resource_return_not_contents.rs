use mcp_runtime::mcp_resource;

/// The answer.
#[mcp_resource(uri = "app://answer")]
fn answer() -> u32 {
    42
}

fn main() {}
