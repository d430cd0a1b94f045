//! Prompts: required and optional arguments described by their doc comments, each kind of
//! return value, completion, and what a missing or unreadable argument gives.

use mcp_runtime::{
    CompletionContext, CompletionRef, PromptError, PromptMessage, PromptResult, Registry,
    ToolError, mcp_prompt,
};
use serde_json::json;

fn languages(prefix: &str, _context: &CompletionContext) -> Vec<String> {
    ["python", "rust", "ruby"]
        .into_iter()
        .filter(|language| language.starts_with(prefix))
        .map(str::to_owned)
        .collect()
}

/// # Code review
///
/// Asks for a review of some code.
#[mcp_prompt]
fn code_review(
    /// The code to review.
    code: String,
    /// Its language; guessed when left out.
    #[mcp(complete = languages)]
    language: Option<String>,
    /// How many remarks at most.
    max_remarks: Option<u32>,
) -> String {
    let language = language.unwrap_or_else(|| "some language".to_owned());
    let max = max_remarks.map_or_else(String::new, |max| format!(" in at most {max} remarks"));
    format!("Review this {language}{max}:\n{code}")
}

/// Ignored.
#[mcp_prompt(name = "greeting", title = "Greeting", description = "Says hello.")]
async fn greet(name: String) -> Result<Vec<PromptMessage>, ToolError> {
    std::future::ready(()).await;
    if name.is_empty() {
        return Err(ToolError::execution("no one to greet"));
    }
    Ok(vec![
        PromptMessage::user(format!("Greet {name}.")),
        PromptMessage::assistant("Hello!"),
    ])
}

/// A whole result.
#[mcp_prompt]
fn whole() -> PromptResult {
    PromptResult::new(vec![PromptMessage::user("Hi.")]).with_description("whole")
}

/// A static text.
#[mcp_prompt]
fn fixed() -> &'static str {
    "Say something."
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    assert_eq!(
        code_review("x".into(), None, None),
        "Review this some language:\nx"
    );

    let registry = Registry::global();
    let names: Vec<_> = registry
        .prompts()
        .map(|prompt| prompt.name().to_owned())
        .collect();
    assert_eq!(names, ["code_review", "fixed", "greeting", "whole"]);
    let review = registry.prompt("code_review").expect("registered");
    assert_eq!(
        serde_json::to_value(review.definition())?,
        json!({
            "name": "code_review",
            "title": "Code review",
            "description": "Asks for a review of some code.",
            "arguments": [
                { "name": "code", "description": "The code to review.", "required": true },
                { "name": "language", "description": "Its language; guessed when left out.", "required": false },
                { "name": "max_remarks", "description": "How many remarks at most.", "required": false },
            ],
        })
    );
    let greeting = serde_json::to_value(registry.prompt("greeting").expect("named").definition())?;
    assert_eq!(greeting["title"], "Greeting");
    assert_eq!(greeting["description"], "Says hello.");

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let get = |name: &str, arguments: serde_json::Value| {
        runtime
            .block_on(registry.get_prompt(name, arguments.as_object().cloned().unwrap_or_default()))
    };
    let rendered = get(
        "code_review",
        json!({ "code": "fn main() {}", "language": "rust", "max_remarks": "3" }),
    )?;
    assert_eq!(
        serde_json::to_value(&rendered.messages)?,
        json!([{ "role": "user", "content": { "type": "text", "text": "Review this rust in at most 3 remarks:\nfn main() {}" } }])
    );
    match get("code_review", json!({})) {
        Err(PromptError::Invalid(err)) => {
            assert_eq!(err.message(), "missing required argument `code`")
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    match get("code_review", json!({ "code": "x", "max_remarks": "many" })) {
        Err(PromptError::Invalid(err)) => assert!(err.message().contains("max_remarks"), "{err}"),
        other => panic!("expected a refusal, got {other:?}"),
    }
    assert_eq!(get("greeting", json!({ "name": "Ada" }))?.messages.len(), 2);
    match get("greeting", json!({ "name": "" })) {
        Err(PromptError::Failed(err)) => assert_eq!(err.message(), "no one to greet"),
        other => panic!("expected a failure, got {other:?}"),
    }
    assert_eq!(
        get("whole", json!({}))?.description.as_deref(),
        Some("whole")
    );
    assert_eq!(get("fixed", json!({}))?.messages.len(), 1);

    let reference = CompletionRef::Prompt("code_review".to_owned());
    let none = CompletionContext::default();
    assert_eq!(
        registry.complete(&reference, "language", "r", &none),
        Some(vec!["rust".to_owned(), "ruby".to_owned()])
    );
    assert_eq!(
        registry.complete(&reference, "code", "", &none),
        Some(Vec::new())
    );
    assert_eq!(
        registry.complete(&CompletionRef::Prompt("nope".to_owned()), "x", "", &none),
        None
    );
    Ok(())
}
