use mcp_runtime::mcp_prompt;

struct Code(String);

/// Reviews code.
#[mcp_prompt]
fn review(code: Code) -> String {
    code.0
}

fn main() {}
