use mcp_runtime::mcp_tool;

/// Parses a number.
#[mcp_tool(namespace = "ui")]
fn parse_number(text: String) -> Result<i64, Box<dyn std::error::Error>> {
    Ok(text.trim().parse()?)
}

/// Parses a number, on the async path, whose error must be `Send`.
#[mcp_tool(namespace = "ui")]
async fn parse_number_async(text: String) -> Result<i64, Box<dyn std::error::Error + Send + Sync>> {
    Ok(text.trim().parse()?)
}

fn main() {}
