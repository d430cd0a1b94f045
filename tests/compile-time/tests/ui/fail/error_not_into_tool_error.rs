use mcp_runtime::mcp_tool;

#[derive(Debug)]
struct ParseFailure {
    reason: String,
}

/// Parses a number.
#[mcp_tool(namespace = "ui")]
fn parse_number(text: String) -> Result<i64, ParseFailure> {
    text.trim()
        .parse()
        .map_err(|err: std::num::ParseIntError| ParseFailure {
            reason: err.to_string(),
        })
}

fn main() {}
