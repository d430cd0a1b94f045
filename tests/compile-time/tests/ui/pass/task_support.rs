use mcp_runtime::{MCPToolCall, Registry, TaskSupport, mcp_tool};
use serde_json::json;

/// Indexes a repository, as a task when the client supports tasks.
#[mcp_tool(namespace = "ui", task = "optional")]
async fn index(repository: String) -> usize {
    std::future::ready(()).await;
    repository.len()
}

/// Migrates a database, always as a task.
#[mcp_tool(namespace = "ui", task = "required")]
async fn migrate(steps: u32) -> u32 {
    std::future::ready(()).await;
    steps
}

/// Says hello; `forbidden` is the default, said out loud.
#[mcp_tool(namespace = "ui", task = "forbidden")]
async fn hello() -> String {
    "hello".to_owned()
}

/// Says goodbye, with no `task` key.
#[mcp_tool(namespace = "ui")]
async fn goodbye() -> String {
    "goodbye".to_owned()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::global();
    let support = |name: &str| registry.get(name).expect("registered").definition().task_support();
    assert_eq!(support("ui.index"), TaskSupport::Optional);
    assert_eq!(support("ui.migrate"), TaskSupport::Required);
    assert_eq!(support("ui.hello"), TaskSupport::Forbidden);
    assert_eq!(support("ui.goodbye"), TaskSupport::Forbidden);

    // On the wire, only a tool that may run as a task says so.
    let wire = |name: &str| serde_json::to_value(registry.get(name).expect("registered").definition());
    assert_eq!(wire("ui.index")?["execution"], json!({ "taskSupport": "optional" }));
    assert_eq!(wire("ui.migrate")?["execution"], json!({ "taskSupport": "required" }));
    assert!(wire("ui.hello")?.get("execution").is_none());

    // Called directly, it still runs and answers.
    let result = registry.call_blocking(MCPToolCall::new("ui.index", json!({ "repository": "abc" }))?);
    assert_eq!(result.data(), json!({ "result": 3 }).as_object());
    Ok(())
}
