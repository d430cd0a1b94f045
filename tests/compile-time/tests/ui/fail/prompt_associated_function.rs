use mcp_runtime::mcp_prompt;

struct Reviewer;

impl Reviewer {
    /// Reviews code.
    #[mcp_prompt]
    async fn review(code: String, language: Option<String>) -> String {
        format!("{code} {language:?}")
    }
}

fn main() {}
