use mcp_runtime::mcp_prompt;

struct Reviewer;

impl Reviewer {
    /// Reviews code.
    #[mcp_prompt]
    fn review(&self, code: String) -> String {
        code
    }
}

fn main() {}
