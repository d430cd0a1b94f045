use mcp_runtime::mcp_tool;

/// Greets someone, or the world.
#[mcp_tool(namespace = "ui")]
fn greet(name: Option<&str>) -> String {
    format!("Hello, {}!", name.unwrap_or("world"))
}

fn main() {}
