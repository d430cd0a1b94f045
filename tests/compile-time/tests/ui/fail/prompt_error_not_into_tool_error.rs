use mcp_runtime::mcp_prompt;

struct Oops;

/// Reviews code.
#[mcp_prompt]
fn review(code: String) -> Result<String, Oops> {
    if code.is_empty() { Err(Oops) } else { Ok(code) }
}

fn main() {}
