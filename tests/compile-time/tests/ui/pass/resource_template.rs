//! Resource templates: variables read into typed parameters, described in the template's
//! `_meta`, completed, and a variable that does not read refused.

use mcp_runtime::{
    CompletionContext, CompletionRef, ReadError, Registry, VARIABLES_META, mcp_resource,
};
use serde_json::json;

fn user_ids(prefix: &str, _context: &CompletionContext) -> Vec<String> {
    ["17", "42", "420"]
        .into_iter()
        .filter(|id| id.starts_with(prefix))
        .map(str::to_owned)
        .collect()
}

mod completion {
    pub fn tabs(prefix: &str, context: &mcp_runtime::CompletionContext) -> Vec<String> {
        let user = context.argument("id").unwrap_or("nobody");
        vec![format!("{user}/{prefix}")]
    }
}

/// A user's profile.
#[mcp_resource(uri_template = "app://users/{id}/{tab}", mime_type = "text/plain")]
fn profile(
    /// The user's number.
    #[mcp(complete = user_ids)]
    id: u32,
    #[mcp(complete = completion::tabs)] tab: String,
) -> String {
    format!("user {id}, tab {tab}")
}

/// A file, by a path that keeps its slashes.
#[mcp_resource(uri_template = "file:///{+path}", name = "file")]
async fn read_file(path: String) -> Result<Vec<u8>, mcp_runtime::ToolError> {
    std::future::ready(()).await;
    Ok(path.into_bytes())
}

/// A keyword as a variable.
#[mcp_resource(uri_template = "app://types/{type}")]
fn by_type(r#type: String) -> String {
    r#type
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::global();
    let templates: Vec<_> = registry
        .resource_templates()
        .map(|template| (template.uri_template(), template))
        .collect();
    assert_eq!(templates.len(), 3);
    let (_, profile_template) = templates
        .iter()
        .find(|(uri, _)| uri == "app://users/{id}/{tab}")
        .expect("listed");
    assert_eq!(profile_template.variables(), ["id", "tab"]);
    let wire = serde_json::to_value(profile_template.definition())?;
    assert_eq!(wire["name"], "profile");
    assert_eq!(wire["description"], "A user's profile.");
    assert_eq!(wire["mimeType"], "text/plain");
    let variables = &wire["_meta"][VARIABLES_META];
    assert_eq!(variables["id"]["type"], "integer");
    assert_eq!(variables["id"]["description"], "The user's number.");
    assert_eq!(variables["tab"]["type"], "string");
    assert!(
        templates
            .iter()
            .any(|(uri, template)| uri == "file:///{+path}"
                && template.definition().name() == "file")
    );

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let read = |uri: &str| runtime.block_on(registry.read_resource(uri));
    assert_eq!(
        serde_json::to_value(read("app://users/42/posts")?)?,
        json!([{ "uri": "app://users/42/posts", "mimeType": "text/plain", "text": "user 42, tab posts" }])
    );
    assert_eq!(
        serde_json::to_value(read("file:///etc/hosts")?)?,
        json!([{ "uri": "file:///etc/hosts", "blob": "ZXRjL2hvc3Rz" }])
    );
    assert_eq!(
        serde_json::to_value(read("app://types/fn")?)?[0]["text"],
        "fn"
    );
    match read("app://users/someone/posts") {
        Err(ReadError::Failed(err)) => {
            assert!(err.message().contains("template variable `id`"), "{err}");
        }
        other => panic!("expected a refusal, got {other:?}"),
    }

    let template = CompletionRef::Template("app://users/{id}/{tab}".to_owned());
    let none = CompletionContext::default();
    assert_eq!(
        registry.complete(&template, "id", "4", &none),
        Some(vec!["42".to_owned(), "420".to_owned()])
    );
    let context = CompletionContext::new(
        json!({ "id": "42" })
            .as_object()
            .cloned()
            .unwrap_or_default(),
    );
    assert_eq!(
        registry.complete(&template, "tab", "po", &context),
        Some(vec!["42/po".to_owned()])
    );
    assert_eq!(
        registry.complete(
            &CompletionRef::Template("file:///{+path}".to_owned()),
            "path",
            "",
            &none
        ),
        Some(Vec::new())
    );
    Ok(())
}
