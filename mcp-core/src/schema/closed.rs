//! Closing the objects of an input schema: every struct refuses the fields it does not have,
//! below the root as at the root.
//!
//! serde drops an unknown field of a struct silently, unless the struct says
//! `#[serde(deny_unknown_fields)]`. The input schema is checked before deserialization, so a
//! schema that says `additionalProperties: false` wherever serde would drop a field makes a
//! misspelt field an error naming its place, instead of a value lost without a word.
//!
//! An object schema is closed when it lists its `properties` and says nothing else about the
//! names it admits: no `additionalProperties` of its own (a map, or a struct that opts out
//! with `#[schemars(extend("additionalProperties" = true))]`), no `patternProperties` and no
//! `unevaluatedProperties`. An object whose properties are completed elsewhere stays open,
//! since `additionalProperties` sees only the properties beside it:
//! - a schema with properties of its own beside a `$ref`, `allOf`, `oneOf` or `anyOf` (a
//!   `#[serde(flatten)]`ed enum), and one with `if`, `dependentSchemas` or several `allOf`s;
//! - the branches of such a schema, and the definitions they, or a `$ref` beside properties
//!   (a newtype variant of an internally tagged enum), refer to.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

/// Closes every object of the schema `root` that lists its properties and whose properties
/// are not completed elsewhere; see the module's documentation.
pub(crate) fn close_objects(root: &mut Map<String, Value>) {
    let mut merged = BTreeSet::new();
    merged_definitions(root, false, &mut merged);
    for definition in root
        .get("$defs")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(Map::values)
    {
        if let Value::Object(definition) = definition {
            merged_definitions(definition, false, &mut merged);
        }
    }
    // A definition merged into another schema merges what it refers to, too.
    loop {
        let before = merged.len();
        let definitions = root.get("$defs").and_then(Value::as_object);
        for name in merged.clone() {
            if let Some(Value::Object(definition)) = definitions.and_then(|d| d.get(&name)) {
                merged_definitions(definition, true, &mut merged);
            }
        }
        if merged.len() == before {
            break;
        }
    }
    close(root, false);
    if let Some(Value::Object(definitions)) = root.get_mut("$defs") {
        for (name, definition) in definitions.iter_mut() {
            if let Value::Object(definition) = definition {
                close(definition, merged.contains(name));
            }
        }
    }
}

/// Whether `schema` completes its properties with subschemas beside them, so that closing
/// it, or those subschemas, would refuse properties the other lists.
fn merges_subschemas(schema: &Map<String, Value>) -> bool {
    let has = |keyword: &str| schema.contains_key(keyword);
    let several_all_of = schema
        .get("allOf")
        .and_then(Value::as_array)
        .is_some_and(|all| all.len() > 1);
    several_all_of
        || has("if")
        || has("dependentSchemas")
        || (has("properties") && ["$ref", "allOf", "oneOf", "anyOf"].into_iter().any(has))
}

/// The subschemas of `schema` that apply to the value itself and may list properties of it.
fn branches(schema: &Map<String, Value>) -> impl Iterator<Item = &Value> {
    ["allOf", "oneOf", "anyOf"]
        .iter()
        .filter_map(|keyword| schema.get(*keyword).and_then(Value::as_array))
        .flatten()
        .chain(
            ["then", "else"]
                .iter()
                .filter_map(|keyword| schema.get(*keyword)),
        )
}

/// Adds to `merged` the names of the definitions `schema` and its subschemas refer to from a
/// place where their properties merge with others; `inherited` says that `schema` itself is
/// such a place.
fn merged_definitions(map: &Map<String, Value>, inherited: bool, merged: &mut BTreeSet<String>) {
    let merging = inherited || merges_subschemas(map);
    if merging {
        if let Some(name) = map
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|reference| reference.strip_prefix("#/$defs/"))
        {
            merged.insert(unescape(name));
        }
    }
    let mut visit = |schema: &Value, inherited| {
        if let Value::Object(schema) = schema {
            merged_definitions(schema, inherited, merged);
        }
    };
    for branch in branches(map) {
        visit(branch, merging);
    }
    for (keyword, value) in map {
        match keyword.as_str() {
            "properties" | "patternProperties" => {
                for property in value.as_object().into_iter().flat_map(Map::values) {
                    visit(property, false);
                }
            }
            "items" | "additionalProperties" | "contains" | "propertyNames" => visit(value, false),
            "prefixItems" => {
                for item in value.as_array().into_iter().flatten() {
                    visit(item, false);
                }
            }
            _ => {}
        }
    }
}

/// Closes `map` and the schemas below it (not its definitions, which the caller closes),
/// except where `merged` says its properties are completed elsewhere, or a schema below
/// merges with its branches.
fn close(map: &mut Map<String, Value>, merged: bool) {
    let merging = merged || merges_subschemas(map);
    if !merging && lists_only_its_properties(map) {
        map.insert("additionalProperties".to_owned(), Value::Bool(false));
    }
    let visit = |schema: &mut Value, merged| {
        if let Value::Object(schema) = schema {
            close(schema, merged);
        }
    };
    for (keyword, value) in map.iter_mut() {
        match keyword.as_str() {
            "properties" | "patternProperties" => {
                for property in value
                    .as_object_mut()
                    .into_iter()
                    .flat_map(|p| p.values_mut())
                {
                    visit(property, false);
                }
            }
            "items" | "additionalProperties" => visit(value, false),
            "prefixItems" => {
                for item in value.as_array_mut().into_iter().flatten() {
                    visit(item, false);
                }
            }
            "allOf" | "oneOf" | "anyOf" => {
                for branch in value.as_array_mut().into_iter().flatten() {
                    visit(branch, merging);
                }
            }
            // Below `not`, `if` or `contains`, a closed object would change what the
            // schema admits the other way; they stay as written.
            _ => {}
        }
    }
}

/// Whether an object schema lists its properties and nothing else decides which names it
/// admits.
fn lists_only_its_properties(schema: &Map<String, Value>) -> bool {
    let is_object = match schema.get("type") {
        Some(Value::String(ty)) => ty == "object",
        Some(Value::Array(types)) => types.iter().any(|ty| ty == "object"),
        _ => false,
    };
    is_object
        && schema.get("properties").is_some_and(Value::is_object)
        && ![
            "additionalProperties",
            "patternProperties",
            "unevaluatedProperties",
        ]
        .iter()
        .any(|keyword| schema.contains_key(*keyword))
}

/// A JSON pointer token as the definition's name.
fn unescape(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn closed(mut schema: Value) -> Value {
        close_objects(schema.as_object_mut().expect("an object schema"));
        schema
    }

    #[test]
    fn structs_are_closed_at_every_depth_and_maps_stay_open() {
        let schema = closed(json!({
            "type": "object",
            "properties": {
                "at": { "$ref": "#/$defs/Point" },
                "maybe": { "anyOf": [{ "$ref": "#/$defs/Point" }, { "type": "null" }] },
                "inline": { "type": ["object", "null"], "properties": { "a": {} } },
                "list": { "type": "array", "items": { "type": "object", "properties": {} } },
                "map": { "type": "object", "additionalProperties": { "$ref": "#/$defs/Point" } },
                "any": {},
            },
            "$defs": {
                "Point": { "type": "object", "properties": { "x": { "type": "integer" } } },
                "Open": { "type": "object", "properties": {}, "additionalProperties": true },
            },
        }));
        assert_eq!(schema["additionalProperties"], false);
        assert_eq!(schema["$defs"]["Point"]["additionalProperties"], false);
        assert_eq!(schema["$defs"]["Open"]["additionalProperties"], true);
        let properties = &schema["properties"];
        assert_eq!(properties["inline"]["additionalProperties"], false);
        assert_eq!(properties["list"]["items"]["additionalProperties"], false);
        assert_eq!(
            properties["map"]["additionalProperties"],
            json!({ "$ref": "#/$defs/Point" })
        );
        assert_eq!(properties["any"], json!({}));
    }

    #[test]
    fn properties_completed_beside_them_stay_open() {
        let schema = closed(json!({
            "type": "object",
            "properties": {
                // A flattened enum: the parent's properties and the branch's together.
                "flat": {
                    "type": "object",
                    "properties": { "name": {} },
                    "oneOf": [{ "type": "object", "properties": { "kind": { "const": "a" } } }],
                },
                // A newtype variant of an internally tagged enum: the tag beside the struct.
                "tagged": { "$ref": "#/$defs/Tagged" },
            },
            "$defs": {
                "Tagged": {
                    "oneOf": [
                        { "type": "object", "properties": { "kind": { "const": "c" } }, "$ref": "#/$defs/Inner" },
                        { "type": "object", "properties": { "kind": { "const": "d" } } },
                    ],
                },
                "Inner": { "type": "object", "properties": { "x": {} }, "allOf": [{ "$ref": "#/$defs/Deeper" }] },
                "Deeper": { "type": "object", "properties": { "y": {} } },
            },
        }));
        let flat = &schema["properties"]["flat"];
        assert_eq!(flat.get("additionalProperties"), None);
        assert_eq!(flat["oneOf"][0].get("additionalProperties"), None);
        let tagged = &schema["$defs"]["Tagged"]["oneOf"];
        assert_eq!(tagged[0].get("additionalProperties"), None);
        assert_eq!(tagged[1]["additionalProperties"], false, "a variant alone");
        assert_eq!(schema["$defs"]["Inner"].get("additionalProperties"), None);
        assert_eq!(schema["$defs"]["Deeper"].get("additionalProperties"), None);
    }
}
