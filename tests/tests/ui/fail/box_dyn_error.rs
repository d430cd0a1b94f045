use mcp_runtime::mcp_tool;

/// Parses a number.
#[mcp_tool(namespace = "ui")]
fn parse_number(text: String) -> Result<i64, Box<dyn std::error::Error>> {
    Ok(text.trim().parse()?)
}

fn main() {}
