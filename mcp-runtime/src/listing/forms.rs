//! The forms a tool's schemas are served in: [`served`] by default (as generated, less the
//! `format`s JSON Schema does not define), [`portable`] for clients of a narrower dialect
//! (references inlined, type arrays written as `anyOf`). What clients refuse in a schema,
//! and the rewrites that take it out, are [`strict_clients`]'s.

use serde_json::{Map, Value};

mod strict_clients;

#[cfg(feature = "cli")]
pub(crate) use strict_clients::{Finding, findings};

/// Why a schema's references cannot be inlined, for the [`portable`] form.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PortableError {
    /// A `$ref` names a definition the schema does not hold.
    #[error("`$ref` to `{0}` does not resolve within the schema")]
    Unresolved(String),
    /// A definition refers to itself: a recursive type cannot be written out.
    #[error("`{0}` refers to itself (a recursive type), so it cannot be inlined")]
    Recursive(String),
}

/// `schema` as `serve` sends it by default: as generated, in JSON Schema 2020-12 with its
/// `$ref`s, `$defs` and type arrays, less each `format` JSON Schema 2020-12 does not define
/// (schemars' `uint`, `uint32`, `int64`, `double`). It admits what `schema` admits.
///
/// Such a format tells a client nothing the Rust type does not guarantee: the Python SDK
/// checks no format, the TypeScript SDK's Ajv warns `unknown format "uint" ignored` of each
/// one but OpenAPI's `int32`, `int64`, `float` and `double`; `minimum` and `maximum` still
/// bound an unsigned number. `$defs` stays: MCP's conformance suite checks that a server
/// keeps it.
///
/// ```
/// let schema = serde_json::json!({
///     "type": "object",
///     "properties": { "n": { "type": ["integer", "null"], "format": "uint32", "minimum": 0 } },
/// });
/// assert_eq!(
///     mcp_runtime::listing::served(&schema),
///     serde_json::json!({
///         "type": "object",
///         "properties": { "n": { "type": ["integer", "null"], "minimum": 0 } },
///     })
/// );
/// ```
pub fn served(schema: &Value) -> Value {
    let mut out = schema.clone();
    strict_clients::drop_unknown_formats(&mut out);
    out
}

/// `schema` in a form clients of a narrower dialect read: every local `$ref` (`#/$defs/…`)
/// replaced by the definition it names and `$defs` dropped, for the clients that do not
/// resolve references; each type array (`["string", "null"]`) written as an `anyOf` of one
/// branch per type, for Gemini's function declarations; and, as in the [`served`] form, no
/// `format` JSON Schema 2020-12 does not define. It admits what `schema` admits.
///
/// ```
/// let schema = serde_json::json!({
///     "type": "object",
///     "properties": { "n": { "$ref": "#/$defs/Count" } },
///     "$defs": { "Count": { "type": ["integer", "null"], "format": "uint32", "minimum": 0 } },
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
        object.shift_remove("$defs");
    }
    strict_clients::drop_unknown_formats(&mut out);
    strict_clients::type_arrays_as_any_of(&mut out);
    Ok(out)
}

/// As [`portable`], and for a schema whose references cannot be inlined (a recursive type),
/// the schema with its references kept and the rest made portable, with the reason.
pub(crate) fn portable_or_closest(schema: &Value) -> (Value, Option<PortableError>) {
    match portable(schema) {
        Ok(portable) => (portable, None),
        Err(err) => {
            let mut closest = served(schema);
            strict_clients::type_arrays_as_any_of(&mut closest);
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
    use serde_json::json;

    use super::*;

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
    fn the_served_form_leaves_out_unknown_formats_and_nothing_else() {
        let schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "n": { "type": ["integer", "null"], "format": "uint8", "minimum": 0, "maximum": 255 },
                "at": { "$ref": "#/$defs/Point" },
                "when": { "type": "string", "format": "date-time" },
            },
            "required": ["at"],
            "additionalProperties": false,
            "$defs": { "Point": {
                "type": "object",
                "properties": { "x": { "type": "number", "format": "double" } },
                "required": ["x"],
            } },
        });
        let served = served(&schema);
        let mut expected = schema.clone();
        expected["properties"]["n"] =
            json!({ "type": ["integer", "null"], "minimum": 0, "maximum": 255 });
        expected["$defs"]["Point"]["properties"]["x"] = json!({ "type": "number" });
        assert_eq!(served, expected);
        // In the order written: a keyword left out moves none of the others.
        let keys =
            |value: &Value| -> Vec<String> { value.as_object().unwrap().keys().cloned().collect() };
        assert_eq!(
            keys(&served["properties"]["n"]),
            ["type", "minimum", "maximum"]
        );
        assert_eq!(keys(&served), keys(&schema));
        let original = jsonschema::validator_for(&schema).unwrap();
        let rewritten = jsonschema::validator_for(&served).unwrap();
        for value in [
            json!({ "at": { "x": 1.5 } }),
            json!({ "at": { "x": 1 }, "n": 255, "when": "2026-01-01T00:00:00Z" }),
            json!({ "at": { "x": 1 }, "n": null }),
            json!({ "at": { "x": 1 }, "n": 256 }),
            json!({ "at": { "x": 1 }, "n": -1 }),
            json!({ "at": { "x": "1" } }),
            json!({ "at": {} }),
            json!({}),
            json!({ "at": { "x": 1 }, "other": 1 }),
        ] {
            assert_eq!(
                original.is_valid(&value),
                rewritten.is_valid(&value),
                "{value}"
            );
        }
    }

    #[test]
    fn a_recursive_type_keeps_its_references_in_the_portable_form_and_the_rest_is_rewritten() {
        let recursive = json!({
            "type": "object",
            "properties": { "root": { "$ref": "#/$defs/Tree" } },
            "$defs": { "Tree": { "type": "object", "properties": {
                "size": { "type": ["integer", "null"], "format": "uint" },
                "children": { "type": "array", "items": { "$ref": "#/$defs/Tree" } },
            } } },
        });
        let (portable, err) = portable_or_closest(&recursive);
        assert_eq!(err, Some(PortableError::Recursive("Tree".into())));
        let mut expected = recursive.clone();
        expected["$defs"]["Tree"]["properties"]["size"] =
            json!({ "anyOf": [{ "type": "integer" }, { "type": "null" }] });
        assert_eq!(portable, expected);
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
