//! What clients refuse in a schema, and the forms without it.
//!
//! JSON Schema 2020-12 allows all of these, and MCP names that dialect; clients read less:
//! - a `format` JSON Schema does not define (`uint`, `uint32`, `int64`, `double`: schemars
//!   names the Rust type) tells a client nothing the Rust type does not guarantee: the
//!   Python SDK's `jsonschema` checks no format, the TypeScript SDK's Ajv knows OpenAPI's
//!   `int32`, `int64`, `float` and `double` and prints `unknown format "uint" ignored` for
//!   each other one, and `minimum` and `maximum` beside it still bound an unsigned
//!   number. Every served form leaves it out;
//! - `$ref` and `$defs`: several clients do not resolve references, and drop the tool or
//!   send calls without the referenced parts. The portable form inlines them, but for a
//!   recursive type, which has no inlined form; the default form keeps them, as MCP's
//!   conformance suite checks a server does;
//! - a `type` array (`["string", "null"]`, what an `Option` becomes): Gemini's function
//!   declarations take one type, and refuse the whole request otherwise. The portable form
//!   writes it as an `anyOf` of one branch per type, each with the keywords that apply to
//!   its type.
//!
//! Each rewrite admits exactly the values the original admits.

use serde_json::{Map, Value};

/// The formats JSON Schema 2020-12 defines (Validation, section 7.3).
pub(crate) const STANDARD_FORMATS: [&str; 19] = [
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Something in a schema that some clients refuse.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg(feature = "cli")]
pub(crate) enum Finding {
    /// A `type` array, with its types.
    TypeArray(String),
    /// A `format` JSON Schema does not define.
    Format(String),
    /// A `$ref`, with its target.
    Reference(String),
    /// `$defs`.
    Definitions,
}

/// Each thing in `schema` some clients refuse, with the JSON pointer of its keyword.
#[cfg(feature = "cli")]
pub(crate) fn findings(schema: &Value) -> Vec<(String, Finding)> {
    let mut found = Vec::new();
    visit(schema, &mut String::new(), &mut |pointer, schema| {
        let at = |keyword: &str| format!("{pointer}/{}", mcp_runtime_core::pointer_token(keyword));
        if let Some(Value::Array(types)) = schema.get("type") {
            found.push((
                at("type"),
                Finding::TypeArray(Value::Array(types.clone()).to_string()),
            ));
        }
        if let Some(Value::String(format)) = schema.get("format") {
            if !STANDARD_FORMATS.contains(&format.as_str()) {
                found.push((at("format"), Finding::Format(format.clone())));
            }
        }
        if let Some(Value::String(target)) = schema.get("$ref") {
            found.push((at("$ref"), Finding::Reference(target.clone())));
        }
        if schema.contains_key("$defs") {
            found.push((at("$defs"), Finding::Definitions));
        }
    });
    found
}

/// What a keyword's value holds of subschemas.
enum Holds {
    /// An object of them, by name (`properties`, `$defs`).
    Named,
    /// An array of them (`anyOf`, `prefixItems`).
    Listed,
    /// One (`items`, `not`).
    One,
    /// None: the keyword is no applicator.
    Nothing,
}

fn holds(keyword: &str) -> Holds {
    match keyword {
        "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas" => {
            Holds::Named
        }
        "allOf" | "anyOf" | "oneOf" | "prefixItems" => Holds::Listed,
        "items"
        | "additionalProperties"
        | "unevaluatedProperties"
        | "unevaluatedItems"
        | "propertyNames"
        | "contains"
        | "not"
        | "if"
        | "then"
        | "else" => Holds::One,
        _ => Holds::Nothing,
    }
}

/// Calls `each` with every schema object in `schema`, the root included, and its pointer.
#[cfg(feature = "cli")]
fn visit(schema: &Value, pointer: &mut String, each: &mut impl FnMut(&str, &Map<String, Value>)) {
    let Value::Object(map) = schema else {
        return;
    };
    each(pointer, map);
    for (keyword, value) in map {
        let mark = pointer.len();
        pointer.push('/');
        pointer.push_str(&mcp_runtime_core::pointer_token(keyword));
        match holds(keyword) {
            Holds::Named => {
                for (name, subschema) in value.as_object().into_iter().flatten() {
                    let inner = pointer.len();
                    pointer.push('/');
                    pointer.push_str(&mcp_runtime_core::pointer_token(name));
                    visit(subschema, pointer, each);
                    pointer.truncate(inner);
                }
            }
            Holds::Listed => {
                for (index, subschema) in value.as_array().into_iter().flatten().enumerate() {
                    let inner = pointer.len();
                    pointer.push_str(&format!("/{index}"));
                    visit(subschema, pointer, each);
                    pointer.truncate(inner);
                }
            }
            Holds::One => visit(value, pointer, each),
            Holds::Nothing => {}
        }
        pointer.truncate(mark);
    }
}

/// The keywords that constrain values of one type only, by type; the others (`enum`,
/// `const`, the applicators) apply to every type.
fn type_of_keyword(keyword: &str) -> Option<&'static [&'static str]> {
    const NUMBER: &[&str] = &["number", "integer"];
    Some(match keyword {
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" => NUMBER,
        "minLength" | "maxLength" | "pattern" | "contentEncoding" | "contentMediaType"
        | "contentSchema" => &["string"],
        "items" | "prefixItems" | "contains" | "minContains" | "maxContains" | "minItems"
        | "maxItems" | "uniqueItems" | "unevaluatedItems" => &["array"],
        "properties"
        | "patternProperties"
        | "additionalProperties"
        | "required"
        | "propertyNames"
        | "minProperties"
        | "maxProperties"
        | "dependentRequired"
        | "dependentSchemas"
        | "unevaluatedProperties" => &["object"],
        _ => return None,
    })
}

/// Keywords that describe rather than constrain: they stay beside the `anyOf` a type array
/// becomes.
const ANNOTATIONS: [&str; 8] = [
    "title",
    "description",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
];

/// Calls `each` with every schema object in `schema`, the root included, those below a
/// schema before it.
fn each_schema_mut(schema: &mut Value, each: &mut impl FnMut(&mut Map<String, Value>)) {
    let Value::Object(map) = schema else {
        return;
    };
    for (keyword, value) in map.iter_mut() {
        match holds(keyword) {
            Holds::Named => {
                for subschema in value
                    .as_object_mut()
                    .into_iter()
                    .flat_map(|m| m.values_mut())
                {
                    each_schema_mut(subschema, each);
                }
            }
            Holds::Listed => {
                for subschema in value.as_array_mut().into_iter().flatten() {
                    each_schema_mut(subschema, each);
                }
            }
            Holds::One => each_schema_mut(value, each),
            Holds::Nothing => {}
        }
    }
    each(map);
}

/// Leaves out, in every schema object of `schema`, a `format` JSON Schema 2020-12 does not
/// define.
pub(crate) fn drop_unknown_formats(schema: &mut Value) {
    each_schema_mut(schema, &mut |map| {
        if map
            .get("format")
            .and_then(Value::as_str)
            .is_some_and(|format| !STANDARD_FORMATS.contains(&format))
        {
            map.shift_remove("format");
        }
    });
}

/// Rewrites, in every schema object of `schema`, a type array as an `anyOf`.
pub(crate) fn type_arrays_as_any_of(schema: &mut Value) {
    each_schema_mut(schema, &mut type_array_as_any_of);
}

fn type_array_as_any_of(map: &mut Map<String, Value>) {
    let Some(Value::Array(types)) = map.get("type") else {
        return;
    };
    let types: Vec<String> = types
        .iter()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect();
    map.shift_remove("type");
    let (mut kept, constraints): (Map<String, Value>, Map<String, Value>) = std::mem::take(map)
        .into_iter()
        .partition(|(keyword, _)| ANNOTATIONS.contains(&keyword.as_str()));
    let branches = types
        .iter()
        .map(|ty| {
            let mut branch = Map::from_iter([("type".to_owned(), Value::String(ty.clone()))]);
            for (keyword, value) in &constraints {
                let applies =
                    type_of_keyword(keyword).is_none_or(|types| types.contains(&ty.as_str()));
                if applies {
                    branch.insert(keyword.clone(), value.clone());
                }
            }
            Value::Object(branch)
        })
        .collect();
    kept.insert("anyOf".to_owned(), Value::Array(branches));
    *map = kept;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Both rewrites, in the order the portable form makes them.
    fn simplify(schema: &mut Value) {
        drop_unknown_formats(schema);
        type_arrays_as_any_of(schema);
    }

    #[test]
    fn a_type_array_becomes_one_branch_per_type_with_its_keywords() {
        let mut schema = json!({
            "description": "How many.",
            "type": ["integer", "null"],
            "format": "uint32",
            "minimum": 0,
            "enum": [1, 2, null],
        });
        simplify(&mut schema);
        assert_eq!(
            schema,
            json!({
                "description": "How many.",
                "anyOf": [
                    { "type": "integer", "minimum": 0, "enum": [1, 2, null] },
                    { "type": "null", "enum": [1, 2, null] },
                ],
            })
        );
    }

    #[test]
    fn the_simplified_schema_admits_what_the_original_admits() {
        let original = json!({
            "type": "object",
            "properties": {
                "n": { "type": ["integer", "null"], "format": "uint8", "minimum": 0, "maximum": 255 },
                "list": { "type": ["array", "null"], "items": { "type": "string", "format": "email" }, "maxItems": 2 },
                "at": { "type": ["object", "null"], "properties": { "x": { "type": "number", "format": "double" } }, "required": ["x"], "additionalProperties": false },
            },
            "additionalProperties": false,
        });
        let mut simplified = original.clone();
        simplify(&mut simplified);
        assert!(findings(&simplified).is_empty(), "{simplified}");
        assert_eq!(
            simplified["properties"]["list"]["anyOf"][0]["items"]["format"],
            "email"
        );
        let values = [
            json!({}),
            json!({ "n": 3 }),
            json!({ "n": null }),
            json!({ "n": -1 }),
            json!({ "n": 256 }),
            json!({ "n": 1.5 }),
            json!({ "n": "3" }),
            json!({ "list": ["a", "b"] }),
            json!({ "list": ["a", "b", "c"] }),
            json!({ "list": [1] }),
            json!({ "list": null }),
            json!({ "at": { "x": 1 } }),
            json!({ "at": { "x": 1, "y": 2 } }),
            json!({ "at": {} }),
            json!({ "at": null }),
            json!({ "at": [] }),
            json!({ "other": 1 }),
        ];
        let original = jsonschema::validator_for(&original).unwrap();
        let simplified = jsonschema::validator_for(&simplified).unwrap();
        for value in values {
            assert_eq!(
                original.is_valid(&value),
                simplified.is_valid(&value),
                "{value}"
            );
        }
    }

    #[test]
    fn findings_name_each_keyword_by_its_pointer() {
        let schema = json!({
            "type": "object",
            "properties": {
                "a": { "type": ["string", "null"], "format": "date" },
                "b": { "$ref": "#/$defs/B" },
                "c~/": { "type": "integer", "format": "int64" },
            },
            "$defs": { "B": { "type": "number", "format": "double" } },
        });
        assert_eq!(
            findings(&schema),
            [
                ("/$defs".to_owned(), Finding::Definitions),
                (
                    "/properties/a/type".to_owned(),
                    Finding::TypeArray("[\"string\",\"null\"]".to_owned())
                ),
                (
                    "/properties/b/$ref".to_owned(),
                    Finding::Reference("#/$defs/B".to_owned())
                ),
                (
                    "/properties/c~0~1/format".to_owned(),
                    Finding::Format("int64".to_owned())
                ),
                (
                    "/$defs/B/format".to_owned(),
                    Finding::Format("double".to_owned())
                ),
            ]
        );
    }
}
