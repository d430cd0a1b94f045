//! Tool arguments mirrored into HTTP headers: MCP's `x-mcp-header` annotation (revision
//! 2026-07-28, Streamable HTTP transport).
//!
//! A property of a tool's input schema may carry `"x-mcp-header": "Region"`; a client then
//! sends that argument's value also as the header `Mcp-Param-Region`, so that proxies can
//! route on it without reading the body. MCP's rules for the annotation: its value is a
//! non-empty HTTP token (RFC 9110 `1*tchar`), unique among the tool's annotations when
//! compared case-insensitively, on a property of type string, integer or boolean (not
//! `number`), and reachable from the schema's root through `properties` alone.
//!
//! This crate accepts the annotation on the input schema's top-level properties only, and
//! refuses a tool definition that has one anywhere else (see [`HeaderError::NotTopLevel`]).

use serde_json::{Map, Value};

use crate::pointer_token;

/// The key of the annotation in a property's schema.
pub const HEADER_ANNOTATION: &str = "x-mcp-header";

/// What the header's name starts with; the annotation gives the rest.
pub const HEADER_PREFIX: &str = "Mcp-Param-";

/// The largest integer a mirrored argument may hold, `2^53 - 1`: MCP requires mirrored
/// integers to be exact as IEEE 754 doubles. The smallest is its negation.
pub const MAX_HEADER_INTEGER: i64 = (1 << 53) - 1;

/// An argument that clients mirror into an HTTP header.
///
/// ```
/// use mcp_runtime_core::{HeaderParam, ToolDefinition};
///
/// let input = schemars::json_schema!({
///     "type": "object",
///     "properties": {
///         "region": { "type": "string", "x-mcp-header": "Region" },
///         "query": { "type": "string" }
///     }
/// });
/// let tool = ToolDefinition::new("sql.execute", input)?;
/// let params = tool.header_params();
/// assert_eq!(params, [HeaderParam::new("region", "Region")]);
/// assert_eq!(params[0].header_name(), "Mcp-Param-Region");
/// # Ok::<(), mcp_runtime_core::DefinitionError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct HeaderParam {
    /// The argument: the name of a top-level property of the input schema.
    pub property: String,
    /// The header's name without [`HEADER_PREFIX`], as the annotation writes it: `Region`
    /// for `Mcp-Param-Region`. Header names are compared case-insensitively.
    pub header: String,
}

impl HeaderParam {
    /// The argument `property`, mirrored as `Mcp-Param-{header}`.
    pub fn new(property: impl Into<String>, header: impl Into<String>) -> Self {
        Self {
            property: property.into(),
            header: header.into(),
        }
    }

    /// The whole header name, `Mcp-Param-Region`.
    pub fn header_name(&self) -> String {
        format!("{HEADER_PREFIX}{}", self.header)
    }
}

/// Whether `name` may follow `Mcp-Param-`: one or more of RFC 9110's token characters
/// (ASCII letters and digits and ``!#$%&'*+-.^_`|~``), which leaves out spaces, control
/// characters, separators and anything beyond ASCII.
///
/// ```
/// use mcp_runtime_core::is_valid_header_name;
///
/// assert!(is_valid_header_name("Region"));
/// assert!(is_valid_header_name("Tenant-Id"));
/// assert!(!is_valid_header_name(""));
/// assert!(!is_valid_header_name("Tenant Id"));
/// assert!(!is_valid_header_name("Région"));
/// ```
pub fn is_valid_header_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(is_tchar)
}

/// RFC 9110 §5.6.2: `tchar = "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." /
/// "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA`.
fn is_tchar(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&byte)
}

/// Why an `x-mcp-header` annotation breaks MCP's rules.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HeaderError {
    /// The annotation's value is not a string.
    #[error("is not a string; write the header's name, e.g. `\"Region\"`")]
    NotAString,
    /// The name is empty or holds a character that is not an HTTP token character.
    #[error(
        "`{name}` is not a valid header name: use one or more ASCII letters, digits or ``!#$%&'*+-.^_`|~``"
    )]
    InvalidName {
        /// The rejected name.
        name: String,
    },
    /// Another property already has this name, compared case-insensitively.
    #[error(
        "`{name}` is already the header of `{other}`; header names are compared case-insensitively"
    )]
    Duplicate {
        /// The repeated name, as this property writes it.
        name: String,
        /// The property that has it first.
        other: String,
    },
    /// The property's `type` is not string, integer or boolean (or one of them and `null`).
    #[error(
        "is on a property whose `type` is not `string`, `integer` or `boolean`; only those can be mirrored (`number` cannot)"
    )]
    NotScalar,
    /// The annotation is not on a top-level property of the input schema.
    #[error("is not on a top-level property of the input schema; only those can be mirrored")]
    NotTopLevel,
}

/// A broken `x-mcp-header` annotation, and the place of the schema that carries it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Misplaced {
    /// The JSON pointer, within the input schema, of the schema carrying the annotation.
    pub(crate) at: String,
    /// What is wrong with it.
    pub(crate) error: HeaderError,
}

impl Misplaced {
    fn new(at: impl Into<String>, error: HeaderError) -> Self {
        Self {
            at: at.into(),
            error,
        }
    }
}

/// The arguments of `input_schema` that carry a valid annotation, in the schema's order.
pub(crate) fn header_params(input_schema: &Value) -> Vec<HeaderParam> {
    top_level_properties(input_schema)
        .filter_map(|(property, schema)| {
            let header = schema.get(HEADER_ANNOTATION)?.as_str()?;
            Some(HeaderParam::new(property, header))
        })
        .collect()
}

/// Checks every `x-mcp-header` annotation of `input_schema`. An error comes with the JSON
/// pointer, within the schema, of the schema carrying the annotation.
pub(crate) fn check(input_schema: &Value) -> Result<(), Misplaced> {
    if input_schema.get(HEADER_ANNOTATION).is_some() {
        return Err(Misplaced::new("", HeaderError::NotTopLevel));
    }
    // Lower-cased name → the property that has it.
    let mut seen: Vec<(String, &str)> = Vec::new();
    for (property, schema) in top_level_properties(input_schema) {
        let at = format!("/properties/{}", pointer_token(property));
        if let Some(annotation) = schema.get(HEADER_ANNOTATION) {
            if let Some(problem) = check_one(annotation, schema, &seen) {
                return Err(Misplaced::new(at, problem));
            }
            if let Some(name) = annotation.as_str() {
                seen.push((name.to_ascii_lowercase(), property));
            }
        }
        forbid_below(schema, &at)?;
    }
    if let Value::Object(root) = input_schema {
        for (keyword, value) in root.iter().filter(|(keyword, _)| *keyword != "properties") {
            for (at, subschema) in subschemas(keyword, value, "") {
                forbid_within(subschema, &at)?;
            }
        }
    }
    Ok(())
}

fn check_one(annotation: &Value, schema: &Value, seen: &[(String, &str)]) -> Option<HeaderError> {
    let Some(name) = annotation.as_str() else {
        return Some(HeaderError::NotAString);
    };
    if !is_valid_header_name(name) {
        return Some(HeaderError::InvalidName {
            name: name.to_owned(),
        });
    }
    let lower = name.to_ascii_lowercase();
    if let Some((_, other)) = seen.iter().find(|(seen, _)| *seen == lower) {
        return Some(HeaderError::Duplicate {
            name: name.to_owned(),
            other: (*other).to_owned(),
        });
    }
    if !is_scalar(schema) {
        return Some(HeaderError::NotScalar);
    }
    None
}

/// Whether `schema`'s `type` is `string`, `integer` or `boolean`, or a list of them that may
/// also hold `null`. A schema without `type` does not say it is one of them.
fn is_scalar(schema: &Value) -> bool {
    let scalar = |ty: &Value| matches!(ty.as_str(), Some("string" | "integer" | "boolean"));
    match schema.get("type") {
        Some(Value::Array(types)) => {
            types.iter().any(scalar)
                && types
                    .iter()
                    .all(|ty| scalar(ty) || ty.as_str() == Some("null"))
        }
        Some(ty) => scalar(ty),
        None => false,
    }
}

fn top_level_properties(input_schema: &Value) -> impl Iterator<Item = (&str, &Value)> {
    input_schema
        .get("properties")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(Map::iter)
        .map(|(property, schema)| (property.as_str(), schema))
}

/// Refuses an annotation in any schema below `schema` (which may carry one itself).
fn forbid_below(schema: &Value, at: &str) -> Result<(), Misplaced> {
    if let Value::Object(map) = schema {
        for (keyword, value) in map {
            for (at, subschema) in subschemas(keyword, value, at) {
                forbid_within(subschema, &at)?;
            }
        }
    }
    Ok(())
}

/// Refuses an annotation on `schema` or any schema below it.
fn forbid_within(schema: &Value, at: &str) -> Result<(), Misplaced> {
    if schema.get(HEADER_ANNOTATION).is_some() {
        return Err(Misplaced::new(at, HeaderError::NotTopLevel));
    }
    forbid_below(schema, at)
}

/// The schemas that `keyword`'s `value` holds, each with its JSON pointer under `at`. Only
/// JSON Schema's applicators hold schemas: the values of `const`, `default`, `enum`,
/// `examples` and the like are data, where an `x-mcp-header` key is no annotation.
fn subschemas<'a>(keyword: &str, value: &'a Value, at: &str) -> Vec<(String, &'a Value)> {
    let here = |suffix: String| format!("{at}/{}{suffix}", pointer_token(keyword));
    match (keyword, value) {
        (
            "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas",
            Value::Object(schemas),
        ) => schemas
            .iter()
            .map(|(name, schema)| (here(format!("/{}", pointer_token(name))), schema))
            .collect(),
        ("allOf" | "anyOf" | "oneOf" | "prefixItems" | "items", Value::Array(schemas)) => schemas
            .iter()
            .enumerate()
            .map(|(i, schema)| (here(format!("/{i}")), schema))
            .collect(),
        (
            "items"
            | "additionalItems"
            | "additionalProperties"
            | "unevaluatedItems"
            | "unevaluatedProperties"
            | "contains"
            | "propertyNames"
            | "if"
            | "then"
            | "else"
            | "not",
            Value::Object(_),
        ) => vec![(here(String::new()), value)],
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn header_names_are_http_tokens() {
        for valid in ["Region", "tenant-id", "a", "X_1", "!#$%&'*+-.^_`|~", "0"] {
            assert!(is_valid_header_name(valid), "{valid}");
        }
        for invalid in [
            "",
            " ",
            "Tenant Id",
            "a:b",
            "a\r",
            "a\n",
            "a\t",
            "(x)",
            "a/b",
            "a\"",
            "a,b",
            "é",
            "a@b",
            "a=b",
            "a?b",
            "[a]",
            "{a}",
            "a;b",
            "\\",
            "\u{7f}",
        ] {
            assert!(!is_valid_header_name(invalid), "{invalid:?}");
        }
    }

    #[test]
    fn every_ascii_byte_is_a_token_character_or_not_as_rfc_9110_lists() {
        let tchars: Vec<u8> = (0u8..=127).filter(|&b| is_tchar(b)).collect();
        let expected: Vec<u8> = (0u8..=127)
            .filter(|b| {
                b.is_ascii_digit()
                    || b.is_ascii_alphabetic()
                    || "!#$%&'*+-.^_`|~".as_bytes().contains(b)
            })
            .collect();
        assert_eq!(tchars, expected);
        assert_eq!(tchars.len(), 62 + 15);
    }

    #[test]
    fn the_full_header_name_has_the_prefix() {
        assert_eq!(
            HeaderParam::new("region", "Region").header_name(),
            "Mcp-Param-Region"
        );
    }

    #[test]
    fn mirrored_integers_are_exact_as_doubles() {
        assert_eq!(MAX_HEADER_INTEGER, 9_007_199_254_740_991);
        #[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
        let round_trip = MAX_HEADER_INTEGER as f64 as i64;
        assert_eq!(round_trip, MAX_HEADER_INTEGER);
    }

    #[test]
    fn scalar_types_are_string_integer_boolean_with_or_without_null() {
        for ty in [
            json!("string"),
            json!("integer"),
            json!("boolean"),
            json!(["string", "null"]),
            json!(["null", "integer"]),
            json!(["string", "integer"]),
        ] {
            assert!(is_scalar(&json!({ "type": ty })), "{ty}");
        }
        for ty in [
            json!("number"),
            json!("object"),
            json!("array"),
            json!("null"),
            json!(["null"]),
            json!([]),
            json!(["string", "number"]),
            json!(7),
        ] {
            assert!(!is_scalar(&json!({ "type": ty })), "{ty}");
        }
        assert!(!is_scalar(&json!({ "enum": ["a", "b"] })));
    }

    #[test]
    fn annotations_are_read_from_top_level_properties_in_order() {
        let schema = json!({
            "type": "object",
            "properties": {
                "zone": { "type": "string", "x-mcp-header": "Zone" },
                "query": { "type": "string" },
                "tenant": { "type": ["integer", "null"], "x-mcp-header": "Tenant" }
            }
        });
        assert_eq!(check(&schema), Ok(()));
        assert_eq!(
            header_params(&schema),
            [
                HeaderParam::new("zone", "Zone"),
                HeaderParam::new("tenant", "Tenant")
            ]
        );
        assert_eq!(header_params(&json!({ "type": "object" })), []);
    }

    fn error_of(properties: Value) -> (String, HeaderError) {
        error_at(json!({ "type": "object", "properties": properties }))
    }

    fn error_at(schema: Value) -> (String, HeaderError) {
        let misplaced = check(&schema).unwrap_err();
        (misplaced.at, misplaced.error)
    }

    #[test]
    fn a_bad_name_type_or_repeat_is_refused_with_its_place() {
        assert_eq!(
            error_of(json!({ "r": { "type": "string", "x-mcp-header": "A B" } })),
            (
                "/properties/r".to_owned(),
                HeaderError::InvalidName { name: "A B".into() }
            )
        );
        assert_eq!(
            error_of(json!({ "r": { "type": "string", "x-mcp-header": "" } })).1,
            HeaderError::InvalidName {
                name: String::new()
            }
        );
        assert_eq!(
            error_of(json!({ "a/b": { "type": "string", "x-mcp-header": 7 } })),
            ("/properties/a~1b".to_owned(), HeaderError::NotAString)
        );
        assert_eq!(
            error_of(json!({ "r": { "type": "number", "x-mcp-header": "R" } })).1,
            HeaderError::NotScalar
        );
        assert_eq!(
            error_of(json!({
                "a": { "type": "string", "x-mcp-header": "Region" },
                "b": { "type": "boolean", "x-mcp-header": "region" }
            })),
            (
                "/properties/b".to_owned(),
                HeaderError::Duplicate {
                    name: "region".into(),
                    other: "a".into()
                }
            )
        );
    }

    #[test]
    fn an_annotation_below_the_top_level_is_refused_with_its_place() {
        let nested = json!({
            "a": {
                "type": "object",
                "properties": { "b": { "type": "string", "x-mcp-header": "B" } }
            }
        });
        assert_eq!(
            error_of(nested),
            (
                "/properties/a/properties/b".to_owned(),
                HeaderError::NotTopLevel
            )
        );
        let in_items = json!({
            "a": { "type": "array", "items": { "type": "string", "x-mcp-header": "A" } }
        });
        assert_eq!(error_of(in_items).0, "/properties/a/items");
        let in_defs = json!({
            "type": "object",
            "properties": { "a": { "$ref": "#/$defs/A" } },
            "$defs": { "A": { "type": "string", "x-mcp-header": "A" } }
        });
        assert_eq!(
            error_at(in_defs),
            ("/$defs/A".to_owned(), HeaderError::NotTopLevel)
        );
        let in_one_of = json!({
            "type": "object",
            "oneOf": [{}, { "properties": { "a": { "type": "string", "x-mcp-header": "A" } } }]
        });
        assert_eq!(error_at(in_one_of).0, "/oneOf/1/properties/a");
        let at_root = json!({ "type": "object", "x-mcp-header": "A" });
        assert_eq!(error_at(at_root), (String::new(), HeaderError::NotTopLevel));
    }

    #[test]
    fn data_that_looks_like_an_annotation_is_not_one() {
        let schema = json!({
            "type": "object",
            "properties": {
                "x-mcp-header": { "type": "string" },
                "a": {
                    "type": "object",
                    "default": { "x-mcp-header": "A" },
                    "examples": [{ "x-mcp-header": "A" }],
                    "const": { "x-mcp-header": "A" },
                    "enum": [{ "x-mcp-header": "A" }]
                }
            }
        });
        assert_eq!(check(&schema), Ok(()));
        assert_eq!(header_params(&schema), []);
    }
}
