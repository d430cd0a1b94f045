//! Example arguments for a tool that declares none: a value for each required property that
//! its schema admits, for the specification's usage section.
//!
//! The value follows what the schema states: an `examples` or `default` value where it gives
//! one, a `const`, the first of an `enum`, bounds and multiples of numbers, the length and
//! `format` of strings, the `minItems` of arrays, the required properties of objects (a
//! struct in `$defs` too), and a branch of a `oneOf`/`anyOf` that admits the value made for
//! it. A `pattern` is met by the first of a few common strings that matches it, if any does.

use jsonschema::Validator;
use serde_json::{Map, Value, json};

/// How deep into nested schemas the example goes; below, a recursive type ends in `null`
/// or an empty list where it may.
const DEPTH: usize = 12;

/// Example arguments for the input schema `root`: its required properties, each with a value
/// its schema admits.
pub(super) fn example_arguments(root: &Value) -> Value {
    let maker = Maker::new(root);
    let mut arguments = Map::new();
    if let Some(map) = root.as_object() {
        maker.required_properties(map, &mut arguments, 0);
    }
    Value::Object(arguments)
}

/// Makes examples against one root schema, whose `$defs` the `$ref`s name.
struct Maker<'s> {
    root: &'s Value,
}

impl<'s> Maker<'s> {
    fn new(root: &'s Value) -> Self {
        Self { root }
    }

    /// A validator for `schema`, read in the root's context (its `$defs`).
    fn validator(&self, schema: &Value) -> Option<Validator> {
        let mut schema = schema.clone();
        if let (Value::Object(map), Some(defs)) = (&mut schema, self.root.get("$defs")) {
            map.entry("$defs").or_insert_with(|| defs.clone());
        }
        jsonschema::validator_for(&schema).ok()
    }

    fn admits(&self, schema: &Value, value: &Value) -> bool {
        self.validator(schema)
            .is_some_and(|validator| validator.is_valid(value))
    }

    fn resolve(&self, reference: &str) -> Option<&'s Value> {
        self.root.pointer(reference.strip_prefix('#')?)
    }

    /// A value `schema` admits, as far as this maker tells.
    fn value(&self, schema: &'s Value, depth: usize) -> Value {
        let Value::Object(map) = schema else {
            return Value::Null;
        };
        for keyword in ["const", "default"] {
            if let Some(value) = map.get(keyword) {
                return value.clone();
            }
        }
        if let Some(first) = map
            .get("examples")
            .and_then(Value::as_array)
            .and_then(|examples| examples.first())
        {
            return first.clone();
        }
        if let Some(Value::Array(values)) = map.get("enum") {
            if let Some(value) = values
                .iter()
                .find(|value| !value.is_null())
                .or(values.first())
            {
                return value.clone();
            }
        }
        if depth >= DEPTH {
            return self.shallowest(map);
        }
        let mut parts = Vec::new();
        if let Some(target) = map
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|reference| self.resolve(reference))
        {
            parts.push(self.value(target, depth + 1));
        }
        for branch in map
            .get("allOf")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            parts.push(self.value(branch, depth + 1));
        }
        for keyword in ["oneOf", "anyOf"] {
            if let Some(Value::Array(branches)) = map.get(keyword) {
                parts.push(self.branch(schema, branches, depth));
            }
        }
        if let Some(own) = self.typed(map, depth) {
            parts.push(own);
        }
        merge(parts)
    }

    /// A value of one of `branches` that the whole of `schema` admits: the first such, the
    /// non-null ones tried first.
    fn branch(&self, schema: &'s Value, branches: &'s [Value], depth: usize) -> Value {
        let is_null = |branch: &Value| branch.get("type").and_then(Value::as_str) == Some("null");
        let ordered = branches
            .iter()
            .filter(|branch| !is_null(branch))
            .chain(branches.iter().filter(|branch| is_null(branch)));
        let mut first = None;
        for branch in ordered {
            let value = self.value(branch, depth + 1);
            if self.admits(schema, &value) {
                return value;
            }
            first.get_or_insert(value);
        }
        first.unwrap_or(Value::Null)
    }

    /// The value the schema's own `type` and keywords call for, if it names a type.
    fn typed(&self, map: &'s Map<String, Value>, depth: usize) -> Option<Value> {
        let ty = match map.get("type")? {
            Value::String(ty) => ty.as_str(),
            Value::Array(types) => {
                let names: Vec<&str> = types.iter().filter_map(Value::as_str).collect();
                names
                    .iter()
                    .copied()
                    .find(|ty| *ty != "null")
                    .or(names.first().copied())?
            }
            _ => return None,
        };
        Some(match ty {
            "integer" => integer(map),
            "number" => number(map),
            "boolean" => Value::Bool(true),
            "string" => string(map, |schema, value| self.admits(schema, value)),
            "array" => self.array(map, depth),
            "object" => {
                let mut object = Map::new();
                self.required_properties(map, &mut object, depth);
                Value::Object(object)
            }
            _ => Value::Null,
        })
    }

    fn array(&self, map: &'s Map<String, Value>, depth: usize) -> Value {
        let wanted = map.get("minItems").and_then(Value::as_u64).unwrap_or(0);
        let prefix = map.get("prefixItems").and_then(Value::as_array);
        let mut items = Vec::new();
        for index in 0..usize::try_from(wanted).unwrap_or(0) {
            let schema = prefix
                .and_then(|prefix| prefix.get(index))
                .or_else(|| map.get("items"));
            items.push(schema.map_or(json!("text"), |schema| self.value(schema, depth + 1)));
        }
        Value::Array(items)
    }

    /// Fills `object` with a value for each property `map` requires.
    fn required_properties(
        &self,
        map: &'s Map<String, Value>,
        object: &mut Map<String, Value>,
        depth: usize,
    ) {
        let properties = map.get("properties").and_then(Value::as_object);
        let required = map.get("required").and_then(Value::as_array);
        for name in required.into_iter().flatten().filter_map(Value::as_str) {
            let schema = properties
                .and_then(|properties| properties.get(name))
                .or_else(|| map.get("additionalProperties").filter(|s| s.is_object()));
            let value = schema.map_or(json!("text"), |schema| self.value(schema, depth + 1));
            object.insert(name.to_owned(), value);
        }
    }

    /// The smallest value of a schema reached too deep: `null` where admitted, an empty
    /// container otherwise.
    fn shallowest(&self, map: &Map<String, Value>) -> Value {
        let types: Vec<&str> = match map.get("type") {
            Some(Value::String(ty)) => vec![ty.as_str()],
            Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        match types.as_slice() {
            types if types.contains(&"null") => Value::Null,
            ["array", ..] => json!([]),
            _ => json!({}),
        }
    }
}

/// The values made for the parts of one schema (a `$ref`, `allOf` branches, a chosen
/// branch, its own keywords), as one: objects merged, otherwise the last that says more
/// than an empty object.
fn merge(parts: Vec<Value>) -> Value {
    let mut merged: Option<Value> = None;
    for part in parts {
        merged = Some(match (merged, part) {
            (Some(Value::Object(mut into)), Value::Object(from)) => {
                for (key, value) in from {
                    into.entry(key).or_insert(value);
                }
                Value::Object(into)
            }
            (Some(kept), Value::Object(from)) if from.is_empty() => kept,
            (_, part) => part,
        });
    }
    merged.unwrap_or_else(|| json!({}))
}

fn integer(map: &Map<String, Value>) -> Value {
    let bound = |keyword: &str| map.get(keyword).and_then(Value::as_f64);
    let low = [
        bound("minimum").map(f64::ceil),
        bound("exclusiveMinimum").map(|low| low.floor() + 1.0),
    ]
    .into_iter()
    .flatten()
    .reduce(f64::max);
    let high = [
        bound("maximum").map(f64::floor),
        bound("exclusiveMaximum").map(|high| high.ceil() - 1.0),
    ]
    .into_iter()
    .flatten()
    .reduce(f64::min);
    let mut value = low.map_or(1.0, |low| low.max(1.0));
    if let Some(high) = high {
        value = value.min(high);
    }
    if let Some(step) = bound("multipleOf").filter(|step| *step >= 1.0) {
        value = (value / step).ceil() * step;
        if high.is_some_and(|high| value > high) {
            value -= step;
        }
    }
    // Integral, and within the bounds of the Rust integer type the schema came from.
    #[allow(clippy::cast_possible_truncation)]
    let integer = value as i64;
    json!(integer)
}

fn number(map: &Map<String, Value>) -> Value {
    let bound = |keyword: &str| map.get(keyword).and_then(Value::as_f64);
    let low = bound("minimum").or(bound("exclusiveMinimum").map(|low| low + 0.5));
    let high = bound("maximum").or(bound("exclusiveMaximum").map(|high| high - 0.5));
    let mut value: f64 = 1.5;
    if let Some(low) = low {
        value = value.max(low);
    }
    if let Some(high) = high {
        value = value.min(high);
    }
    if let Some(step) = bound("multipleOf").filter(|step| *step > 0.0) {
        value = (value / step).ceil() * step;
    }
    json!(value)
}

/// A string of the schema's `format` and length, matching its `pattern` if a common
/// string does (`admits` checks one against a schema).
fn string(map: &Map<String, Value>, admits: impl Fn(&Value, &Value) -> bool) -> Value {
    let text = match map.get("format").and_then(Value::as_str) {
        Some("date-time") => "2025-01-01T12:00:00Z",
        Some("date") => "2025-01-01",
        Some("time") => "12:00:00Z",
        Some("duration") => "P1D",
        Some("email" | "idn-email") => "user@example.com",
        Some("hostname" | "idn-hostname") => "example.com",
        Some("ipv4") => "192.0.2.1",
        Some("ipv6") => "2001:db8::1",
        Some("uri" | "iri") => "https://example.com/",
        Some("uri-reference" | "iri-reference") => "/path",
        Some("uuid") => "00000000-0000-4000-8000-000000000000",
        Some("json-pointer") => "/a",
        Some("regex") => "^a$",
        _ => "text",
    };
    let length = |keyword: &str| {
        map.get(keyword)
            .and_then(Value::as_u64)
            .and_then(|n| usize::try_from(n).ok())
    };
    let (min, max) = (length("minLength"), length("maxLength"));
    // Padded with its own last character, which a pattern of one class admits again.
    let sized = |text: &str| {
        let mut text: String = text.chars().take(max.unwrap_or(usize::MAX)).collect();
        let last = text.chars().last().unwrap_or('x');
        while text.chars().count() < min.unwrap_or(0) {
            text.push(last);
        }
        text
    };
    let Some(pattern) = map.get("pattern") else {
        return Value::String(sized(text));
    };
    let schema = json!({ "type": "string", "pattern": pattern });
    let candidates = [
        text, "text", "a", "A", "1", "example", "Example", "a1", "a-b", "a_b", "a.b",
    ];
    let fits = candidates
        .iter()
        .map(|candidate| sized(candidate))
        .find(|candidate| admits(&schema, &json!(candidate)));
    Value::String(fits.unwrap_or_else(|| sized(text)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn valid(schema: &Value) -> Value {
        let example = example_arguments(schema);
        let validator = jsonschema::validator_for(schema).unwrap();
        assert!(validator.is_valid(&example), "{example} for {schema}");
        example
    }

    #[test]
    fn required_arguments_get_values_their_schemas_admit() {
        let schema = json!({
            "type": "object",
            "properties": {
                "n": { "type": "integer", "minimum": 5, "maximum": 9, "multipleOf": 3 },
                "x": { "type": "number", "exclusiveMaximum": 1 },
                "name": { "type": "string", "pattern": "^[A-Z]", "minLength": 3 },
                "when": { "type": "string", "format": "date-time" },
                "color": { "$ref": "#/$defs/Color" },
                "at": { "$ref": "#/$defs/Point" },
                "list": { "type": "array", "items": { "type": "integer" }, "minItems": 2 },
                "maybe": { "type": ["boolean", "null"] },
                "optional": { "type": "string" },
            },
            "required": ["n", "x", "name", "when", "color", "at", "list", "maybe"],
            "additionalProperties": false,
            "$defs": {
                "Color": { "type": "string", "enum": ["red", "green"] },
                "Point": {
                    "type": "object",
                    "properties": { "x": { "type": "integer", "format": "int32" } },
                    "required": ["x"],
                    "additionalProperties": false,
                },
            },
        });
        assert_eq!(
            valid(&schema),
            json!({
                "n": 6, "x": 0.5, "name": "AAA", "when": "2025-01-01T12:00:00Z",
                "color": "red", "at": { "x": 1 }, "list": [1, 1], "maybe": true,
            })
        );
    }

    #[test]
    fn enums_get_a_variant_of_their_own_kind() {
        let schema = json!({
            "type": "object",
            "properties": {
                "inside": { "oneOf": [
                    { "type": "object", "properties": { "kind": { "type": "string", "const": "circle" }, "r": { "type": "number" } }, "required": ["kind", "r"], "additionalProperties": false },
                    { "type": "object", "properties": { "kind": { "type": "string", "const": "dot" } }, "required": ["kind"], "additionalProperties": false },
                ] },
                "outside": { "oneOf": [
                    { "type": "string", "enum": ["dot"] },
                    { "type": "object", "properties": { "circle": { "type": "number" } }, "required": ["circle"], "additionalProperties": false },
                ] },
                "newtype": { "oneOf": [
                    { "type": "object", "properties": { "kind": { "type": "string", "const": "at" } }, "$ref": "#/$defs/P", "required": ["kind"] },
                ] },
                "tree": { "$ref": "#/$defs/Tree" },
            },
            "required": ["inside", "outside", "newtype", "tree"],
            "$defs": {
                "P": { "type": "object", "properties": { "x": { "type": "integer" } }, "required": ["x"] },
                "Tree": { "type": "object", "properties": { "children": { "type": "array", "items": { "$ref": "#/$defs/Tree" } } }, "required": ["children"] },
            },
        });
        assert_eq!(
            valid(&schema),
            json!({
                "inside": { "kind": "circle", "r": 1.5 },
                "outside": "dot",
                "newtype": { "x": 1, "kind": "at" },
                "tree": { "children": [] },
            })
        );
    }
}
