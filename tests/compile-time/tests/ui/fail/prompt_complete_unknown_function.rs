use mcp_runtime::mcp_prompt;

/// Reviews code.
#[mcp_prompt]
fn review(code: String, #[mcp(complete = languages)] language: String) -> String {
    format!("{language}: {code}")
}

fn main() {}
