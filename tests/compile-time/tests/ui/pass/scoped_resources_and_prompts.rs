//! Resources, templates and prompts that need OAuth scopes: the scopes in their definitions
//! and in `_meta`, as a listing shows them; items without any have none.

use mcp_runtime::{Registry, mcp_prompt, mcp_resource};
use serde_json::json;

/// Today's note.
#[mcp_resource(uri = "notes://today", scopes("notes:read"))]
fn today() -> String {
    "buy milk".to_owned()
}

/// A note by its id.
#[mcp_resource(
    uri_template = "notes://by-id/{id}",
    ttl = "1m",
    scopes("notes:read", "notes:archive")
)]
fn note(id: String) -> String {
    id
}

/// Summarizes the notes.
#[mcp_prompt(name = "summarize", scopes("notes:read"))]
fn summarize_notes() -> String {
    "Summarize my notes.".to_owned()
}

/// Open to all.
#[mcp_prompt]
fn hello() -> String {
    "Hello.".to_owned()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::global();
    let today = registry.resources().next().expect("one resource");
    assert_eq!(today.definition().scopes(), ["notes:read"]);
    assert_eq!(
        serde_json::to_value(today.definition())?["_meta"],
        json!({ "mcp-runtime/scopes": ["notes:read"] })
    );
    let note = registry.resource_templates().next().expect("one template");
    assert_eq!(note.definition().scopes(), ["notes:read", "notes:archive"]);
    let listed = serde_json::to_value(note.definition())?;
    assert_eq!(
        listed["_meta"]["mcp-runtime/scopes"],
        json!(["notes:read", "notes:archive"])
    );
    assert_eq!(listed["_meta"]["mcp-runtime/cache"], json!({ "ttlMs": 60000 }));
    let summarize = registry.prompt("summarize").expect("registered");
    assert_eq!(summarize.definition().scopes(), ["notes:read"]);
    assert_eq!(
        serde_json::to_value(summarize.definition())?["_meta"]["mcp-runtime/scopes"],
        json!(["notes:read"])
    );
    let hello = registry.prompt("hello").expect("registered");
    assert!(hello.definition().scopes().is_empty());
    assert!(serde_json::to_value(hello.definition())?.get("_meta").is_none());
    Ok(())
}
