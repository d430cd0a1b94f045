use mcp_runtime::mcp_prompt;

/// Reviews code.
#[mcp_prompt]
fn review(code: &str) -> String {
    code.to_owned()
}

fn main() {}
