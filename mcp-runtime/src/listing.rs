//! Listings of the registry for the command line: the JSON manifest, a table for people, a
//! Markdown table.
//!
//! The forms a tool's schemas are served in, which `tools/list` and the manifest both
//! send, are the job of the `forms` module, re-exported here: [`served`] by default (as
//! generated, less the `format`s JSON Schema does not define), [`portable`] for clients of
//! a narrower dialect (references inlined, type arrays written as `anyOf`).

use std::fmt::Write;

use mcp_runtime_core::{TaskSupport, ToolDefinition};
use serde_json::{Value, json};

use crate::tool::RegisteredTool;

pub(crate) mod forms;

pub(crate) use forms::portable_or_closest;
#[cfg(feature = "cli")]
pub(crate) use forms::{Finding, findings};
pub use forms::{PortableError, portable, served};

/// The stable, scriptable manifest of `tools`: name, title, description, version, category,
/// tags, annotations, the OAuth scopes a caller needs, whether the tool runs as a task
/// (`taskSupport`, only for a tool that may), the sandbox policy of a tool marked
/// `requires_sandbox` (`sandbox`), input and output schema in the form `serve` sends them
/// ([`served`]).
pub fn manifest<'a>(tools: impl IntoIterator<Item = &'a RegisteredTool>) -> Value {
    let tools: Vec<Value> = tools
        .into_iter()
        .map(|tool| manifest_entry(tool.definition()))
        .collect();
    json!({ "tools": tools })
}

fn manifest_entry(definition: &ToolDefinition) -> Value {
    let hints = definition.annotations();
    let mut entry = json!({
        "name": definition.name(),
        "title": definition.title(),
        "description": definition.description(),
        "version": definition.version().to_string(),
        "category": definition.category(),
        "tags": definition.tags(),
        "annotations": {
            "readOnly": hints.read_only,
            "destructive": hints.destructive,
            "idempotent": hints.idempotent,
            "openWorld": hints.open_world,
            "dangerous": hints.dangerous,
            "requiresSandbox": hints.requires_sandbox,
        },
        "scopes": definition.scopes(),
    });
    // Absent for the default, so the entries of tools that never run as tasks stay as
    // they were.
    let support = definition.task_support();
    if support != TaskSupport::Forbidden {
        entry["taskSupport"] = json!(support.as_str());
    }
    entry["errors"] = json!(
        definition
            .errors()
            .iter()
            .map(|error| error.as_str())
            .collect::<Vec<_>>()
    );
    // The policy a sandboxed tool states; the command line's `list` shows the one it runs
    // with, an operator's `--sandbox-policy` applied.
    if let Some(policy) = definition.sandbox() {
        entry["sandbox"] = json!(policy);
    }
    entry["inputSchema"] = served(&written(definition.input_schema()));
    entry["outputSchema"] = match definition.output_schema() {
        Some(schema) => served(&written(schema)),
        None => Value::Null,
    };
    entry
}

/// `schema` with its keywords in the order schemars writes them, as `tools/list` has them:
/// `$schema`, `title`, `description` and `type` first, `$defs` last.
pub(crate) fn written(schema: &schemars::Schema) -> Value {
    json!(schema)
}

/// The first line of a tool's description, for one-line listings.
pub(crate) fn summary(definition: &ToolDefinition) -> &str {
    definition
        .description()
        .and_then(|description| description.lines().next())
        .unwrap_or("")
}

/// An aligned table for a terminal: name, version, category, summary.
pub fn table<'a>(tools: impl IntoIterator<Item = &'a RegisteredTool>) -> String {
    let rows: Vec<[String; 4]> = tools
        .into_iter()
        .map(|tool| {
            let definition = tool.definition();
            [
                definition.name().to_string(),
                definition.version().to_string(),
                definition.category().unwrap_or("-").to_owned(),
                summary(definition).to_owned(),
            ]
        })
        .collect();
    let header = ["NAME", "VERSION", "CATEGORY", "DESCRIPTION"].map(str::to_owned);
    let widths: Vec<usize> = (0..3)
        .map(|column| {
            rows.iter()
                .chain(std::iter::once(&header))
                .map(|row| row[column].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in std::iter::once(&header).chain(&rows) {
        let _ = writeln!(
            out,
            "{:<w0$}  {:<w1$}  {:<w2$}  {}",
            row[0],
            row[1],
            row[2],
            row[3],
            w0 = widths[0],
            w1 = widths[1],
            w2 = widths[2],
        );
    }
    out
}

/// A Markdown table: name, version, category, summary.
pub fn markdown<'a>(tools: impl IntoIterator<Item = &'a RegisteredTool>) -> String {
    let mut out = String::from("| Tool | Version | Category | Description |\n|---|---|---|---|\n");
    for tool in tools {
        let definition = tool.definition();
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} |",
            definition.name(),
            definition.version(),
            definition.category().unwrap_or(""),
            summary(definition).replace('|', "\\|"),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_tool_that_may_run_as_a_task_says_so() {
        let schema = schemars::json_schema!({ "type": "object" });
        let plain = ToolDefinition::new("jobs.plain", schema).unwrap();
        let keys: Vec<String> = manifest_entry(&plain)
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        assert!(!keys.iter().any(|key| key == "taskSupport"), "{keys:?}");
        // The order of the keys is the manifest's: the new one comes after the scopes.
        let after_scopes: Vec<&str> = keys
            .iter()
            .skip_while(|key| *key != "scopes")
            .map(String::as_str)
            .collect();
        assert_eq!(
            after_scopes,
            ["scopes", "errors", "inputSchema", "outputSchema"]
        );
        for support in [TaskSupport::Optional, TaskSupport::Required] {
            let entry = manifest_entry(&plain.clone().with_task_support(support));
            assert_eq!(entry["taskSupport"], support.as_str());
            let keys: Vec<&str> = entry
                .as_object()
                .unwrap()
                .keys()
                .map(String::as_str)
                .collect();
            let at = keys.iter().position(|key| *key == "taskSupport").unwrap();
            assert_eq!(keys[at - 1], "scopes");
        }
    }
}
