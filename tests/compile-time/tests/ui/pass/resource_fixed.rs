//! Resources at fixed URIs: every key, the doc comment as title and description, and each
//! kind of return value, read through the registry.

use mcp_runtime::{ReadError, Registry, ResourceContents, ToolError, mcp_resource};
use serde_json::json;

/// About this application.
///
/// What it does and who wrote it.
#[mcp_resource(uri = "app://about", mime_type = "text/markdown")]
fn about() -> &'static str {
    "# About"
}

/// Ignored: `title` and `description` win over the doc comment.
#[mcp_resource(
    uri = "app://settings",
    name = "settings",
    title = "Settings",
    description = "The application's settings, as JSON.",
    mime_type = "application/json",
    size = 17,
    audience("user", "assistant"),
    priority = 0.5,
    ttl = "5m",
    cache_scope = "private"
)]
fn read_settings() -> String {
    r#"{"theme":"dark"}"#.to_owned()
}

/// One pixel.
#[mcp_resource(
    uri = "app://pixel.png",
    mime_type = "image/png",
    audience = "user",
    priority = 1
)]
fn pixel() -> Vec<u8> {
    vec![0, 1]
}

/// Only a time to live.
#[mcp_resource(uri = "app://ttl-only", ttl = "1s")]
fn ttl_only() -> String {
    String::new()
}

/// Fails, with the tool error it converts from.
#[mcp_resource(uri = "app://broken")]
fn broken() -> Result<String, std::io::Error> {
    Err(std::io::Error::other("disk on fire"))
}

/// Contents of its own making.
#[mcp_resource(uri = "app://both")]
async fn both() -> Result<Vec<ResourceContents>, ToolError> {
    std::future::ready(()).await;
    Ok(vec![
        ResourceContents::text("app://both", "one"),
        ResourceContents::text("app://both#2", "two"),
    ])
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Still plain functions:
    assert_eq!(about(), "# About");
    assert_eq!(pixel(), [0, 1]);

    let registry = Registry::global();
    let listed: Vec<_> = registry
        .resources()
        .map(|resource| serde_json::to_value(resource.definition()))
        .collect::<Result<_, _>>()?;
    let find = |uri: &str| {
        listed
            .iter()
            .find(|definition| definition["uri"] == uri)
            .cloned()
            .unwrap_or_else(|| panic!("{uri} is listed"))
    };
    assert_eq!(
        find("app://about"),
        json!({
            "uri": "app://about",
            "name": "about",
            "title": "About this application",
            "description": "About this application.\n\nWhat it does and who wrote it.",
            "mimeType": "text/markdown",
        })
    );
    assert_eq!(
        find("app://settings"),
        json!({
            "uri": "app://settings",
            "name": "settings",
            "title": "Settings",
            "description": "The application's settings, as JSON.",
            "mimeType": "application/json",
            "size": 17,
            "annotations": { "audience": ["user", "assistant"], "priority": 0.5 },
            "_meta": { "mcp-runtime/cache": { "ttlMs": 300000, "cacheScope": "private" } },
        })
    );
    assert_eq!(
        find("app://pixel.png")["annotations"],
        json!({ "audience": ["user"], "priority": 1.0 })
    );
    assert_eq!(
        find("app://ttl-only")["_meta"],
        json!({ "mcp-runtime/cache": { "ttlMs": 1000 } })
    );
    assert!(registry.resource_templates().next().is_none());

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let read = |uri: &str| runtime.block_on(registry.read_resource(uri));
    assert_eq!(
        serde_json::to_value(read("app://about")?)?,
        json!([{ "uri": "app://about", "mimeType": "text/markdown", "text": "# About" }])
    );
    assert_eq!(
        serde_json::to_value(read("app://pixel.png")?)?,
        json!([{ "uri": "app://pixel.png", "mimeType": "image/png", "blob": "AAE=" }])
    );
    assert_eq!(read("app://both")?.len(), 2);
    match read("app://broken") {
        Err(ReadError::Failed(err)) => assert_eq!(err.message(), "disk on fire"),
        other => panic!("expected a failure, got {other:?}"),
    }
    assert!(matches!(read("app://nothing"), Err(ReadError::NotFound(_))));
    Ok(())
}
