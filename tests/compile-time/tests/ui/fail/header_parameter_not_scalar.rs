use mcp_runtime::mcp_tool;

/// Scales a value.
#[mcp_tool(namespace = "ui")]
fn scale(#[mcp(header = "Factor")] factor: f64, value: f64) -> f64 {
    factor * value
}

fn main() {}
