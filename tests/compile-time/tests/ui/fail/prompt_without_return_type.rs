use mcp_runtime::mcp_prompt;

/// Reviews code.
#[mcp_prompt]
fn review(code: String) {
    let _ = code;
}

fn main() {}
