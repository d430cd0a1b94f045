use std::sync::Mutex;

use mcp_runtime::{MCPToolCall, Registry, RegistryProblem, State, ToolContext, mcp_tool};
use serde_json::json;

/// The notes the server keeps.
#[derive(Default)]
struct Notes(Mutex<Vec<String>>);

/// What each listed note starts with.
struct Prefix(String);

/// Adds a note and says how many there are: a state and an argument.
#[mcp_tool(namespace = "ui")]
fn add_note(notes: State<Notes>, note: String) -> usize {
    let mut notes = notes.0.lock().unwrap();
    notes.push(note);
    notes.len()
}

/// Lists the notes: the context, a state by reference by its full path, a second state.
#[mcp_tool(namespace = "ui")]
async fn list_notes(
    ctx: &ToolContext,
    notes: &mcp_runtime::State<Notes>,
    prefix: State<Prefix>,
) -> Vec<String> {
    std::future::ready(()).await;
    assert!(ctx.state::<Prefix>().is_some());
    let notes = notes.0.lock().unwrap();
    notes.iter().map(|note| format!("{}{note}", prefix.0)).collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::builder()
        .inventory()
        .state(Notes::default())
        .state(Prefix("- ".to_owned()))
        .build()?;
    for (note, count) in [("milk", 1), ("eggs", 2)] {
        let call = MCPToolCall::new("ui.add_note", json!({ "note": note }))?;
        assert_eq!(registry.call_blocking(call).data(), json!({ "result": count }).as_object());
    }
    let call = MCPToolCall::new("ui.list_notes", json!({}))?;
    assert_eq!(
        registry.call_blocking(call).data(),
        json!({ "result": ["- milk", "- eggs"] }).as_object()
    );
    // The states are no arguments.
    let properties = |name: &str| {
        let schema = registry.get(name).unwrap().definition().input_schema().as_value();
        schema["properties"].as_object().unwrap().keys().cloned().collect::<Vec<_>>()
    };
    assert_eq!(properties("ui.add_note"), ["note"]);
    assert!(properties("ui.list_notes").is_empty());

    // Without the prefix, the registry is refused, naming the tool and the type.
    let err = Registry::builder().inventory().state(Notes::default()).build().unwrap_err();
    assert!(matches!(
        err.problems(),
        [RegistryProblem::MissingState { tool, state, .. }]
            if tool == "ui.list_notes" && state.ends_with("::Prefix")
    ));
    Ok(())
}
