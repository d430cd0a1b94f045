//! `check` finds what would keep clients from reading a registry's tools.

use std::process::ExitCode;

use mcp_runtime::{Registry, ToolDefinition, ToolError, cli, schema};
use serde_json::Value;

#[test]
fn check_fails_on_a_missing_description_or_a_bad_example_and_warns_on_recursive_schemas() {
    let undescribed = ToolDefinition::new(
        "chk.undescribed",
        schemars::json_schema!({ "type": "object", "properties": {} }),
    )
    .unwrap();
    let recursive = ToolDefinition::new(
        "chk.tree",
        schemars::json_schema!({
            "type": "object",
            "properties": { "root": { "$ref": "#/$defs/Tree" } },
            "$defs": { "Tree": { "type": "object", "properties": { "kids": { "type": "array", "items": { "$ref": "#/$defs/Tree" } } } } },
        }),
    )
    .unwrap()
    .with_description("Takes a tree.")
    .with_output(schema::output_schema::<Value>())
    .unwrap();
    let tool = |_, _| async { Ok::<_, ToolError>(Value::Null) };
    let registry: &'static Registry = Box::leak(Box::new(
        Registry::builder()
            .tool(undescribed, tool)
            .tool(recursive.clone(), tool)
            .build()
            .unwrap(),
    ));
    assert_eq!(cli::run_with(registry, ["app", "check"]), ExitCode::FAILURE);

    let bad_example = ToolDefinition::new(
        "chk.counted",
        schemars::json_schema!({ "type": "object", "properties": { "n": { "type": "integer" } } }),
    )
    .unwrap()
    .with_description("Counts.")
    .with_example(
        serde_json::json!({ "n": "many" })
            .as_object()
            .cloned()
            .unwrap(),
    );
    let misdocumented: &'static Registry = Box::leak(Box::new(
        Registry::builder().tool(bad_example, tool).build().unwrap(),
    ));
    assert_eq!(
        cli::run_with(misdocumented, ["app", "check"]),
        ExitCode::FAILURE,
        "an example that breaks the input schema is an error"
    );

    let healthy: &'static Registry = Box::leak(Box::new(
        Registry::builder().tool(recursive, tool).build().unwrap(),
    ));
    assert_eq!(
        cli::run_with(healthy, ["app", "check"]),
        ExitCode::SUCCESS,
        "a recursive schema is a warning, not an error"
    );
}
