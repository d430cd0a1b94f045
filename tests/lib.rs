//! Helpers shared by the workspace-level tests.

use serde_json::{Value, json};

/// The MCP protocol revisions whose official schemas are vendored under `spec/mcp/`.
pub const REVISIONS: [&str; 3] = ["2025-06-18", "2025-11-25", "2026-07-28"];

/// The official MCP JSON Schema of `revision`.
pub fn mcp_schema(revision: &str) -> Value {
    let path = format!(
        "{}/../spec/mcp/{revision}/schema.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text =
        std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("cannot read {path}: {err}"));
    serde_json::from_str(&text).unwrap_or_else(|err| panic!("{path} is not JSON: {err}"))
}

/// A validator for one definition of the MCP schema of `revision` (under `$defs`, or
/// `definitions` in the draft-07 revisions).
pub fn mcp_validator(revision: &str, definition: &str) -> jsonschema::Validator {
    let spec = mcp_schema(revision);
    let key = if spec.get("$defs").is_some() {
        "$defs"
    } else {
        "definitions"
    };
    assert!(
        spec[key][definition].is_object(),
        "MCP {revision} has no {key}/{definition}"
    );
    let schema = json!({
        "$schema": spec["$schema"],
        key: spec[key],
        "$ref": format!("#/{key}/{definition}"),
    });
    jsonschema::validator_for(&schema)
        .unwrap_or_else(|err| panic!("MCP {revision} $defs/{definition} does not compile: {err}"))
}

/// Every error `validator` finds in `instance`, one per line with its instance path.
pub fn schema_errors(validator: &jsonschema::Validator, instance: &Value) -> Vec<String> {
    validator
        .iter_errors(instance)
        .map(|err| format!("{}: {err}", err.instance_path()))
        .collect()
}
