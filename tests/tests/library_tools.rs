//! Tools defined in a library crate are registered in a binary that uses the crate.

use mcp_runtime::{MCPToolCall, PromptMessage, Registry, ResourceContents};
use serde_json::json;

#[test]
fn tools_of_a_used_library_crate_are_registered() {
    // Using the crate links it, and with it its registrations.
    assert_eq!(tools_a::only_a(1), 2);
    let registry = Registry::global();
    let names: Vec<String> = registry
        .list()
        .map(|tool| tool.definition().name().to_string())
        .collect();
    assert_eq!(names, ["shared.same", "tools_a.only_a"]);
    let location = registry.get("tools_a.only_a").unwrap().location();
    assert_eq!(location.file, "tests/crates/tools_a/src/lib.rs");
    assert_eq!(location.module_path, "tools_a");

    let call = MCPToolCall::new("tools_a.only_a", json!({ "n": 41 })).unwrap();
    assert_eq!(
        registry.call_blocking(call).data(),
        json!({ "result": 42 }).as_object()
    );
}

#[test]
fn resources_and_prompts_of_a_used_library_crate_are_registered() {
    assert_eq!(tools_a::same_resource_a(), "a");
    let registry = Registry::global();
    let resource = registry
        .resources()
        .find(|resource| resource.uri() == "shared://same")
        .expect("the library's resource");
    assert_eq!(resource.location().module_path, "tools_a");
    let prompt = registry
        .prompt("shared_same")
        .expect("the library's prompt");
    assert_eq!(prompt.location().file, "tests/crates/tools_a/src/lib.rs");

    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    let read = runtime
        .block_on(registry.read_resource("shared://same"))
        .expect("a read");
    assert_eq!(read, [ResourceContents::text("shared://same", "a")]);
    let rendered = runtime
        .block_on(registry.get_prompt("shared_same", Default::default()))
        .expect("a rendered prompt");
    assert_eq!(rendered.messages, [PromptMessage::user("a")]);
}
