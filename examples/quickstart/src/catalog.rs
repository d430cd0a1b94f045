//! What the quickstart offers besides tools: a page about itself, each tool's generated
//! specification as a resource, and a prompt that asks for a code review.

use mcp_runtime::{
    CompletionContext, ErrorType, Registry, ToolError, mcp_prompt, mcp_resource, spec,
};

/// What this app is and how to run it.
#[mcp_resource(
    uri = "quickstart://about",
    title = "About quickstart",
    mime_type = "text/markdown",
    audience("user", "assistant")
)]
pub(crate) fn about() -> &'static str {
    include_str!("about.md")
}

/// The generated `MCP_TOOL_SPECIFICATION.md` of one of this app's tools.
#[mcp_resource(
    uri_template = "quickstart://tools/{name}",
    mime_type = "text/markdown"
)]
pub(crate) fn tool_specification(
    #[mcp(complete = tool_names)] name: String,
) -> Result<String, ToolError> {
    let registry = Registry::global();
    let tool = registry
        .get(&name)
        .filter(|tool| tool.is_enabled())
        .ok_or_else(|| {
            ToolError::new(
                ErrorType::ResourceNotFound,
                format!("no tool is named `{name}`"),
            )
        })?;
    Ok(spec::specification(tool, |_| None))
}

/// The names of this app's tools that start with `prefix`.
fn tool_names(prefix: &str, _: &CompletionContext) -> Vec<String> {
    Registry::global()
        .list()
        .map(|tool| tool.name().to_string())
        .filter(|name| name.starts_with(prefix))
        .collect()
}

/// The languages `code_review` completes.
const LANGUAGES: [&str; 9] = [
    "c",
    "cpp",
    "go",
    "java",
    "javascript",
    "python",
    "rust",
    "shell",
    "typescript",
];

fn languages(prefix: &str, _: &CompletionContext) -> Vec<String> {
    LANGUAGES
        .iter()
        .filter(|language| language.starts_with(&prefix.to_lowercase()))
        .map(|language| (*language).to_owned())
        .collect()
}

/// Asks for a review of a piece of code: correctness first, then clarity.
#[mcp_prompt(title = "Code review")]
pub(crate) fn code_review(
    /// The code to review.
    code: String,
    /// Its language, e.g. `rust`; the reviewer guesses it when absent.
    #[mcp(complete = languages)]
    language: Option<String>,
) -> String {
    let fence = language.as_deref().unwrap_or_default();
    let language = language
        .as_deref()
        .unwrap_or("the language it is written in");
    format!(
        "Please review this code, written in {language}. Point out bugs first, then anything \
         that makes it hard to read, and suggest a fix for each.\n\n```{fence}\n{code}\n```"
    )
}
