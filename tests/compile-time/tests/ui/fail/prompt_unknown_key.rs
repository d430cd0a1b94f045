use mcp_runtime::mcp_prompt;

/// Reviews code.
#[mcp_prompt(titel = "Review")]
fn review(code: String) -> String {
    code
}

fn main() {}
