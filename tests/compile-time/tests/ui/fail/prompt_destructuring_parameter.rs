use mcp_runtime::mcp_prompt;

/// Reviews code.
#[mcp_prompt]
fn review((code, language): (String, String)) -> String {
    format!("{language}: {code}")
}

fn main() {}
