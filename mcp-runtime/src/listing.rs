//! Listings generated from the registry: the JSON manifest, a table for people, a Markdown
//! table, and schemas made portable for clients that read a narrower dialect than JSON
//! Schema 2020-12 (no `$ref`, no type arrays, no formats of their own).

use std::fmt::Write;

use mcp_runtime_core::{TaskSupport, ToolDefinition};
use serde_json::{Map, Value, json};

use crate::tool::RegisteredTool;

mod strict_clients;

pub(crate) use strict_clients::{Finding, findings};

/// The stable, scriptable manifest of `tools`: name, title, description, version, category,
/// tags, annotations, the OAuth scopes a caller needs, whether the tool runs as a task
/// (`taskSupport`, only for a tool that may), the sandbox policy of a tool marked
/// `requires_sandbox` (`sandbox`), input and output schema.
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
    entry["inputSchema"] = json!(definition.input_schema());
    entry["outputSchema"] = json!(definition.output_schema());
    entry
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

/// Why a schema cannot be made portable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PortableError {
    /// A `$ref` names a definition the schema does not hold.
    #[error("`$ref` to `{0}` does not resolve within the schema")]
    Unresolved(String),
    /// A definition refers to itself: a recursive type cannot be written out.
    #[error("`{0}` refers to itself (a recursive type), so it cannot be inlined")]
    Recursive(String),
}

/// `schema` in a form clients of a narrower dialect read: every local `$ref` (`#/$defs/…`)
/// replaced by the definition it names and `$defs` dropped, each type array (`["string",
/// "null"]`) written as an `anyOf` of one branch per type, and each `format` JSON Schema
/// 2020-12 does not define (`uint64`, `double`) left out. It admits what `schema` admits.
///
/// ```
/// let schema = serde_json::json!({
///     "type": "object",
///     "properties": { "n": { "type": ["integer", "null"], "format": "uint32", "minimum": 0 } },
/// });
/// assert_eq!(
///     mcp_runtime::listing::portable(&schema)?,
///     serde_json::json!({
///         "type": "object",
///         "properties": { "n": { "anyOf": [{ "type": "integer", "minimum": 0 }, { "type": "null" }] } },
///     })
/// );
/// # Ok::<(), mcp_runtime::listing::PortableError>(())
/// ```
pub fn portable(schema: &Value) -> Result<Value, PortableError> {
    let defs = schema
        .get("$defs")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let mut out = inline(schema, &defs, &mut Vec::new())?;
    if let Some(object) = out.as_object_mut() {
        object.remove("$defs");
    }
    strict_clients::simplify(&mut out);
    Ok(out)
}

/// As [`portable`], and for a schema whose references cannot be inlined (a recursive type),
/// the schema with its references kept and the rest made portable, with the reason.
pub(crate) fn portable_or_closest(schema: &Value) -> (Value, Option<PortableError>) {
    match portable(schema) {
        Ok(portable) => (portable, None),
        Err(err) => {
            let mut closest = schema.clone();
            strict_clients::simplify(&mut closest);
            (closest, Some(err))
        }
    }
}

fn inline(
    value: &Value,
    defs: &Map<String, Value>,
    stack: &mut Vec<String>,
) -> Result<Value, PortableError> {
    match value {
        Value::Object(object) => {
            if let Some(Value::String(reference)) = object.get("$ref") {
                let name = reference
                    .strip_prefix("#/$defs/")
                    .ok_or_else(|| PortableError::Unresolved(reference.clone()))?;
                if stack.iter().any(|seen| seen == name) {
                    return Err(PortableError::Recursive(name.to_owned()));
                }
                let target = defs
                    .get(name)
                    .ok_or_else(|| PortableError::Unresolved(reference.clone()))?;
                stack.push(name.to_owned());
                let mut resolved = inline(target, defs, stack)?;
                stack.pop();
                // Keywords beside the `$ref` (a description, say) stay, over the target's.
                if let Value::Object(resolved) = &mut resolved {
                    for (key, value) in object.iter().filter(|(key, _)| *key != "$ref") {
                        resolved.insert(key.clone(), inline(value, defs, stack)?);
                    }
                }
                return Ok(resolved);
            }
            let mut out = Map::new();
            for (key, value) in object {
                if key != "$defs" {
                    out.insert(key.clone(), inline(value, defs, stack)?);
                }
            }
            Ok(Value::Object(out))
        }
        Value::Array(items) => items
            .iter()
            .map(|item| inline(item, defs, stack))
            .collect::<Result<Vec<_>, _>>()
            .map(Value::Array),
        other => Ok(other.clone()),
    }
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

    #[test]
    fn refs_are_inlined_and_defs_dropped() {
        let schema = json!({
            "type": "object",
            "properties": { "point": { "$ref": "#/$defs/Point", "description": "Where." } },
            "$defs": { "Point": { "type": "object", "properties": { "x": { "type": "number" } } } },
        });
        assert_eq!(
            portable(&schema).unwrap(),
            json!({
                "type": "object",
                "properties": { "point": { "type": "object", "properties": { "x": { "type": "number" } }, "description": "Where." } },
            })
        );
    }

    #[test]
    fn recursive_and_unresolved_refs_are_refused() {
        let recursive = json!({
            "$ref": "#/$defs/Tree",
            "$defs": { "Tree": { "type": "object", "properties": { "children": { "type": "array", "items": { "$ref": "#/$defs/Tree" } } } } },
        });
        assert_eq!(
            portable(&recursive),
            Err(PortableError::Recursive("Tree".into()))
        );
        let unresolved =
            json!({ "type": "object", "properties": { "a": { "$ref": "#/$defs/Missing" } } });
        assert!(matches!(
            portable(&unresolved),
            Err(PortableError::Unresolved(_))
        ));
    }
}
