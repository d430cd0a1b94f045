use mcp_runtime::{State, mcp_tool};

/// Reads the server's name.
#[mcp_tool(namespace = "ui")]
fn name(config: &mut State<String>) -> String {
    config.to_string()
}

fn main() {}
