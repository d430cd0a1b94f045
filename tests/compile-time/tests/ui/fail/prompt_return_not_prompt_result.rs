use mcp_runtime::mcp_prompt;

/// Reviews code.
#[mcp_prompt]
fn review(code: String) -> Vec<String> {
    vec![code]
}

fn main() {}
