use mcp_runtime::mcp_tool;
use serde::Deserialize;

/// A state of the user's own, which is no registry's.
#[derive(Deserialize, schemars::JsonSchema)]
struct State<T> {
    value: T,
}

/// Reads a value.
#[mcp_tool(namespace = "ui")]
fn read(state: State<u32>) -> u32 {
    state.value
}

fn main() {}
