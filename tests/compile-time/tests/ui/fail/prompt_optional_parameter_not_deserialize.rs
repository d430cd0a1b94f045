use mcp_runtime::mcp_prompt;

struct Language(String);

/// Reviews code.
#[mcp_prompt]
fn review(code: String, language: Option<Language>) -> String {
    language.map_or(code, |language| language.0)
}

fn main() {}
