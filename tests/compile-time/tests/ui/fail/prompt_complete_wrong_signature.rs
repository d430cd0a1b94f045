use mcp_runtime::mcp_prompt;

fn languages(prefix: &str) -> Vec<String> {
    vec![prefix.to_owned()]
}

/// Reviews code.
#[mcp_prompt]
fn review(code: String, #[mcp(complete = languages)] language: String) -> String {
    format!("{language}: {code}")
}

fn main() {}
