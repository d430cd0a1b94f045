//! Arguments checked against the advertised input schema, data against the output schema.
//!
//! The input schema is the contract: every constraint it states is enforced before the
//! function runs, and each violation is reported with its JSON pointer, its keyword and a
//! message that never repeats the submitted value. Validators are compiled once per tool,
//! on first use. A tool whose schema states nothing beyond what deserialization checks
//! anyway (types, required and unknown properties, enum variants, integer ranges) skips the
//! schema on the way in, unless deserialization fails, when the schema is asked for the
//! complete list of what is wrong.
//!
//! JSON Schema counts a number with a zero fractional part as an integer (`1.0`, `1e2`,
//! `-0.0`), and so does the contract: where the input schema admits integers only, such a
//! number is rewritten as the integer before anyone reads the arguments, so that a Rust
//! integer receives it, and a dynamic tool sees an integer where its schema says one. A
//! place where the schema admits any number keeps its float. So does a float of ±2^53 or
//! more, which may not be the number written (`-9223372036854775809`, past `i64`, reads as
//! the float of `i64::MIN`): deserialization refuses it where an integer is expected, rather
//! than take a number out of range, or another number, for the one sent.

use std::sync::OnceLock;

use jsonschema::Validator;
use mcp_core::{ErrorType, ToolDefinition, ToolError};
use serde_json::{Map, Value, json};

/// One violation of a schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Violation {
    /// JSON pointer of the value at fault (`""` for the arguments object itself).
    pub(crate) path: String,
    /// The schema keyword violated, e.g. `minimum` or `required`.
    pub(crate) keyword: String,
    /// What is wrong, without the value itself.
    pub(crate) message: String,
}

impl Violation {
    fn to_json(&self) -> Value {
        json!({ "path": self.path, "keyword": self.keyword, "message": self.message })
    }
}

/// The validation state of one tool.
#[derive(Debug)]
pub(crate) struct Validation {
    /// Whether the input schema states constraints deserialization does not check.
    input_beyond_serde: bool,
    /// Whether the input schema types anything as an integer: only then may arguments hold
    /// an integral float to rewrite.
    input_integers: bool,
    input: OnceLock<Result<Validator, String>>,
    output: OnceLock<Option<Result<Validator, String>>>,
}

impl Validation {
    /// The state for `definition`. `typed` tools deserialize their arguments into a Rust
    /// type; other (dynamic) tools rely on the schema alone.
    pub(crate) fn new(definition: &ToolDefinition, typed: bool) -> Self {
        Self {
            input_beyond_serde: !typed || beyond_serde(definition.input_schema().as_value()),
            input_integers: mentions_integer(definition.input_schema().as_value()),
            input: OnceLock::new(),
            output: OnceLock::new(),
        }
    }

    /// Whether arguments go through the schema even when they deserialize.
    pub(crate) fn validates_input(&self) -> bool {
        self.input_beyond_serde
    }

    /// Rewrites each integral float of `arguments` (`1.0`, `1e2`) that sits where the input
    /// schema admits integers only as that integer. Costs a look at the arguments' numbers
    /// when the schema has integers; nothing otherwise.
    pub(crate) fn normalize_integers(
        &self,
        definition: &ToolDefinition,
        arguments: &mut Map<String, Value>,
    ) {
        if self.may_rewrite(arguments) {
            Walk::new(definition.input_schema().as_value()).arguments(arguments);
        }
    }

    /// Whether `arguments` may hold a float to rewrite: the walk's gate, which keeps calls
    /// without integral floats, and tools without integers, from paying for it.
    fn may_rewrite(&self, arguments: &Map<String, Value>) -> bool {
        self.input_integers && arguments.values().any(has_integral_float)
    }

    /// Checks `arguments` when the schema states more than deserialization checks.
    pub(crate) fn check_input(
        &self,
        definition: &ToolDefinition,
        arguments: &Value,
    ) -> Result<(), ToolError> {
        if !self.input_beyond_serde {
            return Ok(());
        }
        match self.input_violations(definition, arguments) {
            Ok(violations) if violations.is_empty() => Ok(()),
            Ok(violations) => Err(invalid_arguments(definition, &violations)),
            Err(err) => Err(err),
        }
    }

    /// Every violation of the input schema by `arguments`.
    pub(crate) fn input_violations(
        &self,
        definition: &ToolDefinition,
        arguments: &Value,
    ) -> Result<Vec<Violation>, ToolError> {
        let validator = self
            .input
            .get_or_init(|| compile(definition.input_schema().as_value()));
        match validator {
            Ok(validator) => Ok(violations(validator, arguments)),
            Err(err) => Err(ToolError::execution(format!(
                "the input schema of tool `{}` does not compile: {err}",
                definition.name()
            ))),
        }
    }

    /// Checks a tool's `data` against its output schema, if it has one.
    pub(crate) fn check_output(
        &self,
        definition: &ToolDefinition,
        data: &Map<String, Value>,
    ) -> Result<(), ToolError> {
        let validator = self.output.get_or_init(|| {
            definition
                .output_schema()
                .map(|schema| compile(schema.as_value()))
        });
        let validator = match validator {
            None => return Ok(()),
            Some(Ok(validator)) => validator,
            Some(Err(err)) => {
                return Err(ToolError::execution(format!(
                    "the output schema of tool `{}` does not compile: {err}",
                    definition.name()
                )));
            }
        };
        // Validating needs a JSON value; the data is small next to the work that made it.
        let data = Value::Object(data.clone());
        let found = violations(validator, &data);
        if found.is_empty() {
            return Ok(());
        }
        Err(ToolError::execution(format!(
            "tool `{}` returned data that does not match its output schema: {}",
            definition.name(),
            summary(&found)
        ))
        .with_details(
            json!({ "errors": found.iter().map(Violation::to_json).collect::<Vec<_>>() }),
        ))
    }
}

/// The `ValidationError` for `violations` of `definition`'s input schema.
pub(crate) fn invalid_arguments(
    definition: &ToolDefinition,
    violations: &[Violation],
) -> ToolError {
    ToolError::new(
        ErrorType::ValidationError,
        format!(
            "invalid arguments for tool `{}`: {}",
            definition.name(),
            summary(violations)
        ),
    )
    .with_details(
        json!({ "errors": violations.iter().map(Violation::to_json).collect::<Vec<_>>() }),
    )
}

fn summary(violations: &[Violation]) -> String {
    violations
        .iter()
        .map(|v| {
            if v.path.is_empty() {
                v.message.clone()
            } else {
                format!("`{}`: {}", v.path, v.message)
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn compile(schema: &Value) -> Result<Validator, String> {
    jsonschema::validator_for(schema).map_err(|err| err.masked().to_string())
}

fn violations(validator: &Validator, instance: &Value) -> Vec<Violation> {
    validator
        .iter_errors(instance)
        .map(|err| Violation {
            path: err.instance_path().as_str().to_owned(),
            keyword: err.kind().keyword().to_owned(),
            message: err.masked_with("the value").to_string(),
        })
        .collect()
}

/// The violation a deserialization error describes, its message rid of the value: serde's
/// `invalid type: string "secret", expected i64` becomes `invalid type: expected i64, found
/// a string`.
pub(crate) fn deserialize_violation(path: String, message: &str, arguments: &Value) -> Violation {
    let found = arguments.pointer(&path).map(json_type).unwrap_or("nothing");
    let message = match message.split_once(", expected ") {
        Some((head, expected)) if head.starts_with("invalid type") => {
            format!("invalid type: expected {expected}, found {found}")
        }
        Some((head, expected)) if head.starts_with("invalid value") => {
            format!("invalid value: expected {expected}")
        }
        Some((head, expected)) if head.starts_with("unknown variant") => {
            format!("unknown variant: expected {expected}")
        }
        Some((head, expected)) if head.starts_with("invalid length") => {
            format!("invalid length: expected {expected}")
        }
        _ => message.to_owned(),
    };
    Violation {
        path,
        keyword: "deserialize".to_owned(),
        message,
    }
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => match n.as_f64() {
            // What an integral float left as it is stands for where an integer was expected.
            Some(f) if f.fract() == 0.0 && integer_of(f).is_none() => {
                "an integral number beyond ±2^53, which a float does not hold exactly"
            }
            _ => "a number",
        },
        Value::Number(_) => "an integer",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

// ----- Integral floats where the schema admits integers only -----

/// The integer an integral float stands for, if it surely is the integer that was sent:
/// `1.0` is 1, `-0.0` is 0, `1.5` has none. Nor has a float of ±2^53 or more: from there
/// on floats skip integers, and the float read may not be the number written: the JSON
/// `-9223372036854775809`, past the range of `i64`, reads as the float -2^63, which is
/// `i64::MIN`, and `9007199254740993.0` as 2^53. Taking those as integers would put a
/// number out of range in range, or change it, silently.
fn integer_of(float: f64) -> Option<serde_json::Number> {
    /// 2^53: below it in magnitude, every integer is a float, and no other number is read
    /// as the same float unless it differs by less than a float tells apart.
    const EXACT: f64 = 9_007_199_254_740_992.0;
    // NaN and the infinities have a NaN fractional part.
    if float.fract() != 0.0 || float.abs() >= EXACT {
        return None;
    }
    // Exact, as the float is integral and in range (`-0.0` is 0).
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let integer = if float >= 0.0 {
        (float as u64).into()
    } else {
        (float as i64).into()
    };
    Some(integer)
}

/// Whether `value` is, or holds, a float with a zero fractional part.
fn has_integral_float(value: &Value) -> bool {
    match value {
        Value::Number(n) => n.is_f64() && n.as_f64().is_some_and(|f| f.fract() == 0.0),
        Value::Array(items) => items.iter().any(has_integral_float),
        Value::Object(map) => map.values().any(has_integral_float),
        _ => false,
    }
}

/// Whether `schema` types anything as an integer.
fn mentions_integer(schema: &Value) -> bool {
    match schema {
        Value::Object(map) => map.iter().any(|(keyword, value)| {
            (keyword == "type" && type_names(value).any(|name| name == "integer"))
                || mentions_integer(value)
        }),
        Value::Array(items) => items.iter().any(mentions_integer),
        _ => false,
    }
}

/// The names a `type` keyword lists.
fn type_names(types: &Value) -> impl Iterator<Item = &str> {
    let (one, many) = match types {
        Value::String(name) => (Some(name.as_str()), None),
        Value::Array(names) => (None, Some(names.iter().filter_map(Value::as_str))),
        _ => (None, None),
    };
    one.into_iter().chain(many.into_iter().flatten())
}

/// What a value is, as far as the `type` keyword tells it apart here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Object,
    Array,
    Number,
}

/// Whether a schema's `type`, if it has one, admits a value of `kind`.
fn admits_kind(schema: &Map<String, Value>, kind: Kind) -> bool {
    let Some(types) = schema.get("type") else {
        return true;
    };
    if !(types.is_string() || types.is_array()) {
        // Not a valid `type`: assume it admits anything.
        return true;
    }
    type_names(types).any(|name| match kind {
        Kind::Object => name == "object",
        Kind::Array => name == "array",
        Kind::Number => name == "number" || name == "integer",
    })
}

/// Whether a schema's `type` admits integers but no other number.
fn integer_only(schema: &Map<String, Value>) -> bool {
    schema.get("type").is_some_and(|types| {
        type_names(types).any(|name| name == "integer")
            && !type_names(types).any(|name| name == "number")
    })
}

/// The subschemas that apply together to one place of the arguments, under one choice of
/// branch for each `anyOf` and `oneOf` met: one alternative. Keywords this walk does not
/// follow (`not`, `if`, `patternProperties`, remote references, …) only ever add
/// constraints, and leaving a constraint out only makes an alternative admit more: a float
/// is rewritten only where every alternative that admits a number admits integers only,
/// which stays true of the complete schema.
type Alternative<'s> = Vec<&'s Map<String, Value>>;

/// Where a value sits in its container.
#[derive(Clone, Copy)]
enum Step<'k> {
    Key(&'k str),
    Index(usize),
}

/// A schema still to expand into an alternative: a subschema, or a choice among branches.
#[derive(Clone, Copy)]
enum Pending<'s> {
    Schema(&'s Value),
    Choice(&'s [Value]),
}

/// Steps one place's expansion may take, and alternatives it may have, before the walk
/// gives up on it (and leaves what lies there as it is).
const STEPS: usize = 4096;
const ALTERNATIVES: usize = 64;
/// How deep into the arguments the walk goes.
const DEPTH: usize = 128;

/// A walk of the arguments and the input schema together, rewriting integral floats.
struct Walk<'s> {
    root: &'s Value,
}

impl<'s> Walk<'s> {
    fn new(root: &'s Value) -> Self {
        Self { root }
    }

    /// Walks the arguments object, which the root schema describes.
    fn arguments(&self, arguments: &mut Map<String, Value>) {
        self.object(vec![vec![Pending::Schema(self.root)]], arguments, 0);
    }

    /// Walks the value at `step` of a container whose alternatives are `parent`. Only
    /// floats and containers are looked at.
    fn child(&self, parent: &[Alternative<'s>], step: Step<'_>, value: &mut Value, depth: usize) {
        match value {
            Value::Object(_) | Value::Array(_) => {}
            Value::Number(number) if number.is_f64() => {}
            _ => return,
        }
        let schemas = parent
            .iter()
            .map(|alternative| {
                alternative
                    .iter()
                    .filter_map(|schema| match step {
                        Step::Key(key) => property_schema(schema, key),
                        Step::Index(index) => item_schema(schema, index),
                    })
                    .map(Pending::Schema)
                    .collect()
            })
            .collect();
        match value {
            Value::Number(number) => {
                let Some(integer) = number.as_f64().and_then(integer_of) else {
                    return;
                };
                let Some(alternatives) = self.expand(schemas, Kind::Number) else {
                    return;
                };
                if !alternatives.is_empty()
                    && alternatives
                        .iter()
                        .all(|alternative| alternative.iter().any(|schema| integer_only(schema)))
                {
                    *number = integer;
                }
            }
            Value::Object(map) => self.object(schemas, map, depth + 1),
            Value::Array(items) => self.array(schemas, items, depth + 1),
            _ => {}
        }
    }

    fn object(&self, schemas: Vec<Vec<Pending<'s>>>, map: &mut Map<String, Value>, depth: usize) {
        if depth >= DEPTH {
            return;
        }
        let Some(alternatives) = self.expand(schemas, Kind::Object) else {
            return;
        };
        for (key, value) in map.iter_mut() {
            self.child(&alternatives, Step::Key(key), value, depth);
        }
    }

    fn array(&self, schemas: Vec<Vec<Pending<'s>>>, items: &mut [Value], depth: usize) {
        if depth >= DEPTH {
            return;
        }
        let Some(alternatives) = self.expand(schemas, Kind::Array) else {
            return;
        };
        for (index, item) in items.iter_mut().enumerate() {
            self.child(&alternatives, Step::Index(index), item, depth);
        }
    }

    /// The alternatives at a place holding a value of `kind`, each of the schemas that
    /// apply there with their references, `allOf`s and chosen branches followed; those
    /// whose `type` refuses the value are dropped. `None` when the expansion is too large
    /// to follow.
    fn expand(&self, schemas: Vec<Vec<Pending<'s>>>, kind: Kind) -> Option<Vec<Alternative<'s>>> {
        let mut steps = STEPS;
        let mut found = Vec::new();
        for pending in schemas {
            self.expand_one(pending, Vec::new(), kind, &mut steps, &mut found)?;
        }
        for alternative in &mut found {
            alternative.sort_by_key(|schema| std::ptr::from_ref(*schema));
        }
        // Alike alternatives, which unions over recursive schemas multiply, are one.
        let addresses = |alternative: &Alternative<'s>| {
            alternative
                .iter()
                .map(|schema| std::ptr::from_ref(*schema))
                .collect::<Vec<_>>()
        };
        found.sort_by_cached_key(addresses);
        found.dedup_by(|a, b| {
            a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| std::ptr::eq(*x, *y))
        });
        Some(found)
    }

    fn expand_one(
        &self,
        mut pending: Vec<Pending<'s>>,
        mut alternative: Alternative<'s>,
        kind: Kind,
        steps: &mut usize,
        found: &mut Vec<Alternative<'s>>,
    ) -> Option<()> {
        while let Some(next) = pending.pop() {
            *steps = steps.checked_sub(1)?;
            let schema = match next {
                Pending::Choice(branches) => {
                    for branch in branches {
                        let mut rest = pending.clone();
                        rest.push(Pending::Schema(branch));
                        self.expand_one(rest, alternative.clone(), kind, steps, found)?;
                    }
                    return Some(());
                }
                Pending::Schema(Value::Object(schema)) => schema,
                // `false` admits nothing: no alternative.
                Pending::Schema(Value::Bool(false)) => return Some(()),
                // `true`, or not a schema: admits anything.
                Pending::Schema(_) => continue,
            };
            if alternative.iter().any(|seen| std::ptr::eq(*seen, schema)) {
                continue;
            }
            if !admits_kind(schema, kind) {
                return Some(());
            }
            alternative.push(schema);
            if let Some(target) = schema
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|reference| self.resolve(reference))
            {
                pending.push(Pending::Schema(target));
            }
            if let Some(Value::Array(all)) = schema.get("allOf") {
                pending.extend(all.iter().map(Pending::Schema));
            }
            for keyword in ["anyOf", "oneOf"] {
                if let Some(Value::Array(branches)) = schema.get(keyword) {
                    pending.push(Pending::Choice(branches));
                }
            }
        }
        found.push(alternative);
        (found.len() <= ALTERNATIVES).then_some(())
    }

    /// The schema a local reference (`#/$defs/Point`, `#`) points at.
    fn resolve(&self, reference: &str) -> Option<&'s Value> {
        self.root.pointer(reference.strip_prefix('#')?)
    }
}

/// The subschema an object schema applies to its property `key`, as far as this walk tells:
/// `properties`, else `additionalProperties` when no `patternProperties` might apply.
fn property_schema<'s>(schema: &'s Map<String, Value>, key: &str) -> Option<&'s Value> {
    if let Some(property) = schema
        .get("properties")
        .and_then(Value::as_object)
        .and_then(|properties| properties.get(key))
    {
        return Some(property);
    }
    if schema.contains_key("patternProperties") {
        return None;
    }
    schema.get("additionalProperties")
}

/// The subschema an array schema applies to its item at `index`: `prefixItems` or `items`
/// (and the older `items` array with `additionalItems`).
fn item_schema(schema: &Map<String, Value>, index: usize) -> Option<&Value> {
    if let Some(Value::Array(tuple)) = schema.get("items") {
        return tuple.get(index).or_else(|| schema.get("additionalItems"));
    }
    let prefix = schema.get("prefixItems").and_then(Value::as_array);
    match prefix.and_then(|prefix| prefix.get(index)) {
        Some(item) => Some(item),
        None => schema.get("items"),
    }
}

/// Whether `schema` states something deserialization does not check.
fn beyond_serde(schema: &Value) -> bool {
    match schema {
        Value::Object(map) => {
            let format = map.get("format").and_then(Value::as_str);
            map.iter().any(|(keyword, value)| match keyword.as_str() {
                // Annotations, and what serde checks itself.
                "$schema" | "$id" | "$comment" | "title" | "description" | "default"
                | "examples" | "deprecated" | "readOnly" | "writeOnly" | "format" | "type"
                | "required" | "enum" | "const" | "$ref" => false,
                "minimum" | "maximum" => !implied_by_format(keyword, value, format),
                // Applicators: beyond serde if what they apply is.
                "properties" | "$defs" | "definitions" | "patternProperties" => value
                    .as_object()
                    .is_some_and(|schemas| schemas.values().any(beyond_serde)),
                "additionalProperties" | "items" | "not" => {
                    !value.is_boolean() && beyond_serde(value)
                }
                "anyOf" | "oneOf" | "allOf" | "prefixItems" => value
                    .as_array()
                    .is_some_and(|schemas| schemas.iter().any(beyond_serde)),
                _ => true,
            })
        }
        _ => false,
    }
}

/// Whether a bound is the range of the integer type its `format` names, which serde checks.
fn implied_by_format(keyword: &str, bound: &Value, format: Option<&str>) -> bool {
    let Some(bound) = bound.as_f64() else {
        return false;
    };
    let range = match format {
        Some("uint8") => (0.0, f64::from(u8::MAX)),
        Some("uint16") => (0.0, f64::from(u16::MAX)),
        Some("uint32") => (0.0, f64::from(u32::MAX)),
        Some("uint64" | "uint" | "uint128") => (0.0, f64::MAX),
        Some("int8") => (f64::from(i8::MIN), f64::from(i8::MAX)),
        Some("int16") => (f64::from(i16::MIN), f64::from(i16::MAX)),
        Some("int32") => (f64::from(i32::MIN), f64::from(i32::MAX)),
        _ => return false,
    };
    match keyword {
        "minimum" => bound == range.0,
        _ => bound == range.1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_types_are_left_to_serde() {
        let schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "a": { "type": "integer", "format": "uint8", "minimum": 0, "maximum": 255 },
                "b": { "type": ["integer", "null"], "format": "uint32", "minimum": 0 },
                "c": { "type": "array", "items": { "type": "string" } },
                "d": { "$ref": "#/$defs/Shape" },
            },
            "$defs": { "Shape": { "oneOf": [{ "type": "object", "properties": { "r": { "type": "number" } }, "required": ["r"] }] } },
            "required": ["a"],
            "additionalProperties": false,
        });
        assert!(!beyond_serde(&schema));
    }

    #[test]
    fn the_range_of_each_integer_type_is_left_to_serde() {
        // The bounds of each integer format: its whole range, which serde checks.
        let ranges = [
            ("uint8", json!(0), Some(json!(u8::MAX))),
            ("uint16", json!(0), Some(json!(u16::MAX))),
            ("uint32", json!(0), Some(json!(u32::MAX))),
            ("uint64", json!(0), None),
            ("uint", json!(0), None),
            ("uint128", json!(0), None),
            ("int8", json!(i8::MIN), Some(json!(i8::MAX))),
            ("int16", json!(i16::MIN), Some(json!(i16::MAX))),
            ("int32", json!(i32::MIN), Some(json!(i32::MAX))),
        ];
        for (format, minimum, maximum) in ranges {
            let mut schema = json!({ "type": "integer", "format": format, "minimum": minimum });
            if let Some(maximum) = &maximum {
                schema["maximum"] = maximum.clone();
            }
            assert!(!beyond_serde(&schema), "{schema}");
            // A bound inside the range is a constraint of its own.
            let above = json!(minimum.as_i64().unwrap() + 1);
            let narrower = json!({ "type": "integer", "format": format, "minimum": above });
            assert!(beyond_serde(&narrower), "{narrower}");
            if let Some(maximum) = maximum {
                let below = json!(maximum.as_i64().unwrap() - 1);
                let narrower = json!({ "type": "integer", "format": format, "maximum": below });
                assert!(beyond_serde(&narrower), "{narrower}");
            }
        }
        // As schemars writes them for the parameter types.
        #[derive(schemars::JsonSchema)]
        #[allow(dead_code)]
        struct Integers {
            a: u8,
            b: u16,
            c: u32,
            d: u64,
            e: usize,
            f: u128,
            g: i8,
            h: i16,
            i: i32,
            j: i64,
        }
        let schema = mcp_core::schema::input_schema::<Integers>();
        let properties = schema.as_value()["properties"]
            .as_object()
            .expect("properties");
        assert_eq!(properties.len(), 10);
        for (name, property) in properties {
            assert!(!beyond_serde(property), "{name}: {property}");
        }
        assert!(!beyond_serde(schema.as_value()));
    }

    #[test]
    fn stated_constraints_need_the_schema() {
        for constraint in [
            json!({ "type": "integer", "format": "uint8", "minimum": 1 }),
            json!({ "type": "string", "pattern": "^a" }),
            json!({ "type": "string", "maxLength": 3 }),
            json!({ "type": "array", "items": { "type": "integer", "maximum": 10 } }),
            json!({ "type": "number", "exclusiveMinimum": 0 }),
        ] {
            let schema = json!({ "type": "object", "properties": { "x": constraint } });
            assert!(beyond_serde(&schema), "{schema}");
        }
    }

    #[test]
    fn deserialize_messages_lose_the_value() {
        let arguments = json!({ "a": "secret" });
        let violation = deserialize_violation(
            "/a".to_owned(),
            "invalid type: string \"secret\", expected i64",
            &arguments,
        );
        assert_eq!(
            violation.message,
            "invalid type: expected i64, found a string"
        );
        let violation = deserialize_violation(
            "/a".to_owned(),
            "unknown variant `secret`, expected `x` or `y`",
            &arguments,
        );
        assert!(
            !violation.message.contains("secret"),
            "{}",
            violation.message
        );
    }

    /// `arguments` after `normalize_integers` under `schema`.
    fn normalized(schema: &Value, arguments: Value) -> Value {
        let Value::Object(mut arguments) = arguments else {
            panic!("arguments are an object");
        };
        let definition = ToolDefinition::new(
            "t.t",
            schemars::Schema::try_from(schema.clone()).expect("a schema"),
        )
        .expect("a definition");
        Validation::new(&definition, true).normalize_integers(&definition, &mut arguments);
        Value::Object(arguments)
    }

    /// Whether two values are the same JSON, integers told apart from floats.
    fn same(a: &Value, b: &Value) -> bool {
        match (a, b) {
            (Value::Number(x), Value::Number(y)) => {
                x.is_f64() == y.is_f64() && x.is_i64() == y.is_i64() && x == y
            }
            (Value::Array(x), Value::Array(y)) => {
                x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
            }
            (Value::Object(x), Value::Object(y)) => {
                x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
            }
            _ => a == b,
        }
    }

    #[track_caller]
    fn assert_same(found: &Value, expected: &Value) {
        assert!(same(found, expected), "found {found}, expected {expected}");
    }

    #[test]
    fn integral_floats_are_the_integers_they_stand_for() {
        let integer = |f: f64| integer_of(f).map(Value::Number);
        assert_same(&integer(1.0).unwrap(), &json!(1));
        assert_same(&integer(1e2).unwrap(), &json!(100));
        assert_same(&integer(-0.0).unwrap(), &json!(0));
        assert_same(&integer(-1.0).unwrap(), &json!(-1));
        assert_same(
            &integer(9_007_199_254_740_991.0).unwrap(),
            &json!(9_007_199_254_740_991_u64),
        );
        assert_same(
            &integer(-9_007_199_254_740_991.0).unwrap(),
            &json!(-9_007_199_254_740_991_i64),
        );
        for none in [
            1.5,
            -0.5,
            9_007_199_254_740_992.0,
            -9_007_199_254_740_992.0,
            1e20,
            -9_223_372_036_854_775_808.0,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ] {
            assert_eq!(integer_of(none), None, "{none}");
        }
        // Read from JSON: past ±2^53 the float may not be the number written.
        for text in ["-9223372036854775809", "9007199254740993.0", "1e16"] {
            let read: f64 = serde_json::from_str(text).unwrap();
            assert_eq!(integer_of(read), None, "{text}");
        }
    }

    #[test]
    fn the_schema_already_counts_integral_floats_as_integers() {
        let validator = compile(&json!({ "type": "integer" })).unwrap();
        for accepted in [json!(1.0), json!(1e2), json!(-0.0), json!(1e20)] {
            assert!(validator.is_valid(&accepted), "{accepted}");
        }
        assert!(!validator.is_valid(&json!(1.5)));
    }

    #[test]
    fn integral_floats_become_integers_where_the_schema_admits_integers_only() {
        let schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "count": { "type": "integer", "format": "int64" },
                "maybe": { "type": ["integer", "null"], "format": "uint32", "minimum": 0 },
                "list": { "type": "array", "items": { "type": "integer" } },
                "pair": {
                    "type": "array",
                    "prefixItems": [{ "type": "integer" }, { "type": "number" }],
                    "items": false,
                },
                "map": { "type": "object", "additionalProperties": { "type": "integer" } },
                "point": { "$ref": "#/$defs/Point", "description": "Where." },
                "shape": { "anyOf": [{ "$ref": "#/$defs/Point" }, { "type": "null" }] },
                "both": { "allOf": [{ "type": "number" }, { "type": "integer" }] },
                "ratio": { "type": "number", "format": "double" },
                "either": { "anyOf": [{ "type": "integer" }, { "type": "number" }] },
                "mixed": { "type": ["number", "integer"] },
                "big": { "type": "array", "items": { "type": "integer" } },
                "raw": true,
                "untyped": {},
                "patterned": {
                    "type": "object",
                    "patternProperties": { "^n": { "type": "number" } },
                    "additionalProperties": { "type": "integer" },
                },
                "variant": {
                    "oneOf": [
                        { "type": "string", "enum": ["none"] },
                        {
                            "type": "object",
                            "properties": { "Fixed": { "type": "integer" } },
                            "additionalProperties": false,
                        },
                        {
                            "type": "object",
                            "properties": { "Scaled": { "type": "number" } },
                            "additionalProperties": false,
                        },
                    ],
                },
                "tree": { "$ref": "#/$defs/Tree" },
            },
            "$defs": {
                "Point": {
                    "type": "object",
                    "properties": { "x": { "type": "integer" }, "y": { "type": "number" } },
                },
                "Tree": {
                    "type": "object",
                    "properties": {
                        "value": { "type": "integer" },
                        "children": { "type": "array", "items": { "$ref": "#/$defs/Tree" } },
                    },
                },
            },
            "additionalProperties": false,
        });
        let arguments = json!({
            "count": 1.0,
            "maybe": 1e2,
            "list": [1.0, -0.0, 2, 1.5, 1e20],
            "pair": [3.0, 4.0],
            "map": { "a": 5.0 },
            "point": { "x": 6.0, "y": 7.0 },
            "shape": { "x": 8.0, "y": 9.0 },
            "both": 10.0,
            "ratio": 11.0,
            "either": 12.0,
            "mixed": 12.0,
            // Integers already, past what a float holds exactly: left exactly as they are.
            "big": [9_007_199_254_740_993_u64, -9_007_199_254_740_993_i64, u64::MAX],
            "raw": { "n": 13.0, "list": [14.0] },
            "untyped": 15.0,
            "patterned": { "n": 16.0, "m": 17.0 },
            "variant": { "Fixed": 18.0 },
            "tree": { "value": 19.0, "children": [{ "value": 20.0, "children": [] }] },
        });
        let expected = json!({
            "count": 1,
            "maybe": 100,
            "list": [1, 0, 2, 1.5, 1e20],
            "pair": [3, 4.0],
            "map": { "a": 5 },
            "point": { "x": 6, "y": 7.0 },
            "shape": { "x": 8, "y": 9.0 },
            "both": 10,
            "ratio": 11.0,
            "either": 12.0,
            "mixed": 12.0,
            // Integers already, past what a float holds exactly: left exactly as they are.
            "big": [9_007_199_254_740_993_u64, -9_007_199_254_740_993_i64, u64::MAX],
            "raw": { "n": 13.0, "list": [14.0] },
            "untyped": 15.0,
            // `m` may match no pattern, but telling needs the regular expression: left alone.
            "patterned": { "n": 16.0, "m": 17.0 },
            "variant": { "Fixed": 18 },
            "tree": { "value": 19, "children": [{ "value": 20, "children": [] }] },
        });
        assert_same(&normalized(&schema, arguments), &expected);
        let scaled = normalized(&schema, json!({ "variant": { "Scaled": 1.0 } }));
        assert_same(&scaled, &json!({ "variant": { "Scaled": 1.0 } }));
    }

    #[test]
    fn a_union_rewrites_only_what_all_its_numeric_branches_demand_as_integers() {
        // An untagged enum of `Int { n: i64 }` and `Float { n: f64 }`: `n` may be either.
        let schema = json!({
            "type": "object",
            "properties": {
                "v": {
                    "anyOf": [
                        { "type": "object", "properties": { "n": { "type": "integer" } } },
                        { "type": "object", "properties": { "n": { "type": "number" } } },
                        { "type": "integer" },
                    ],
                },
            },
        });
        assert_same(
            &normalized(&schema, json!({ "v": { "n": 1.0 } })),
            &json!({ "v": { "n": 1.0 } }),
        );
        // A number can only be the integer branch: the object branches refuse numbers.
        assert_same(
            &normalized(&schema, json!({ "v": 1.0 })),
            &json!({ "v": 1 }),
        );
    }

    #[test]
    fn schemas_that_loop_or_branch_without_end_are_walked_safely() {
        let looping = json!({
            "type": "object",
            "anyOf": [{ "$ref": "#" }, { "allOf": [{ "$ref": "#" }] }],
            "additionalProperties": { "anyOf": [{ "$ref": "#" }, { "type": "integer" }] },
        });
        assert_same(
            &normalized(&looping, json!({ "a": { "b": 1.0 }, "c": 2.0 })),
            &json!({ "a": { "b": 1 }, "c": 2 }),
        );
        // Ten `anyOf`s of four branches each: 4^10 alternatives, too many to follow.
        let branch =
            json!({ "anyOf": [{}, { "type": "object" }, { "title": "a" }, { "title": "b" }] });
        let integer = json!({ "properties": { "n": { "type": "integer" } } });
        let mut all = vec![branch.clone(); 2];
        all.push(integer.clone());
        // Two of them, sixteen alternatives, are followed.
        let narrow = json!({ "type": "object", "allOf": all });
        assert_same(
            &normalized(&narrow, json!({ "n": 1.0 })),
            &json!({ "n": 1 }),
        );
        let mut all = vec![branch; 10];
        all.push(integer);
        let wide = json!({ "type": "object", "allOf": all });
        assert_same(
            &normalized(&wide, json!({ "n": 1.0 })),
            &json!({ "n": 1.0 }),
        );
        // Deeper than the walk goes: left as it is.
        let mut deep = json!(1.0);
        for _ in 0..DEPTH + 1 {
            deep = json!({ "d": deep });
        }
        let nested = json!({ "type": "object", "additionalProperties": { "$ref": "#/$defs/D" },
            "$defs": { "D": { "anyOf": [
                { "type": "object", "additionalProperties": { "$ref": "#/$defs/D" } },
                { "type": "integer" },
            ] } } });
        let found = normalized(&nested, json!({ "d": deep }));
        let mut leaf = &found;
        while let Some(inner) = leaf.get("d") {
            leaf = inner;
        }
        assert!(leaf.is_f64(), "{leaf}");
        let mut deep = json!(1.0);
        for _ in 0..DEPTH + 1 {
            deep = json!([deep]);
        }
        let arrays = json!({ "type": "object", "additionalProperties": { "$ref": "#/$defs/A" },
            "$defs": { "A": { "anyOf": [
                { "type": "array", "items": { "$ref": "#/$defs/A" } },
                { "type": "integer" },
            ] } } });
        let found = normalized(&arrays, json!({ "d": deep }));
        let mut leaf = &found["d"];
        while let Some(inner) = leaf.get(0) {
            leaf = inner;
        }
        assert!(leaf.is_f64(), "{leaf}");
        assert_same(
            &normalized(&arrays, json!({ "d": [[1.0], 2.0] })),
            &json!({ "d": [[1], 2] }),
        );
        assert_same(
            &normalized(&nested, json!({ "d": { "d": 1.0 } })),
            &json!({ "d": { "d": 1 } }),
        );
    }

    #[test]
    fn only_schemas_with_integers_look_at_the_arguments() {
        assert!(mentions_integer(
            &json!({ "properties": { "a": { "type": ["null", "integer"] } } })
        ));
        assert!(mentions_integer(
            &json!({ "anyOf": [{ "type": "integer" }] })
        ));
        assert!(!mentions_integer(
            &json!({ "properties": { "a": { "type": "number" } } })
        ));
        assert!(!mentions_integer(
            &json!({ "properties": { "integer": { "type": "string" } } })
        ));
        let schema = json!({ "type": "object", "properties": { "a": { "type": "number" } } });
        assert_same(
            &normalized(&schema, json!({ "a": 1.0 })),
            &json!({ "a": 1.0 }),
        );
        assert!(!has_integral_float(&json!({ "a": [1, 1.5, "1.0"] })));
        assert!(has_integral_float(&json!({ "a": [1, { "b": 2.0 }] })));
    }

    #[test]
    fn the_walk_runs_only_for_integral_floats_under_a_schema_with_integers() {
        let validation = |schema: Value| {
            let schema = schemars::Schema::try_from(schema).unwrap();
            Validation::new(&ToolDefinition::new("t.t", schema).unwrap(), true)
        };
        let integers = validation(json!({ "type": "object", "properties": {
            "a": { "type": "integer" }, "b": { "type": "number" } } }));
        let numbers = validation(json!({ "type": "object", "properties": {
            "a": { "type": "number" }, "b": { "type": "number" } } }));
        let Value::Object(floats) = json!({ "a": 1, "b": [1.0] }) else {
            unreachable!()
        };
        let Value::Object(none) = json!({ "a": 1, "b": 1.5 }) else {
            unreachable!()
        };
        assert!(integers.may_rewrite(&floats));
        assert!(!integers.may_rewrite(&none));
        assert!(!numbers.may_rewrite(&floats));
    }

    #[test]
    fn alike_alternatives_count_once() {
        // Every level holds two alternatives (`a` and `b`), each of which leads to the same
        // `next`: counted apart, they would double at each level, past what is followed.
        let schema = json!({
            "type": "object",
            "properties": { "next": { "$ref": "#/$defs/Node" } },
            "$defs": { "Node": {
                "type": "object",
                "properties": { "n": { "type": "integer" }, "next": { "$ref": "#/$defs/Node" } },
                "anyOf": [{ "title": "a" }, { "title": "b" }],
            } },
        });
        let mut deep = json!({ "n": 1.0 });
        for _ in 0..12 {
            deep = json!({ "n": 2.0, "next": deep });
        }
        let found = normalized(&schema, json!({ "next": deep }));
        let mut node = &found["next"];
        while let Some(next) = node.get("next") {
            assert!(node["n"].is_u64(), "{node}");
            node = next;
        }
        assert_same(node, &json!({ "n": 1 }));
    }

    #[test]
    fn an_integer_a_float_does_not_hold_exactly_is_named_as_such() {
        let arguments = json!({ "a": 1e16, "b": 1.5, "c": 2.0 });
        let message = |path: &str| {
            deserialize_violation(
                path.to_owned(),
                "invalid type: floating point `1e20`, expected i64",
                &arguments,
            )
            .message
        };
        assert_eq!(
            message("/a"),
            "invalid type: expected i64, found an integral number beyond ±2^53, which a float \
             does not hold exactly"
        );
        assert_eq!(message("/b"), "invalid type: expected i64, found a number");
        assert_eq!(json_type(&json!(u64::MAX)), "an integer");
        assert_eq!(json_type(&json!(i64::MIN)), "an integer");
        assert_eq!(message("/c"), "invalid type: expected i64, found a number");
    }

    #[test]
    fn deserialization_messages_lose_the_value_but_keep_what_was_expected() {
        #[derive(Debug, serde::Deserialize)]
        #[serde(rename_all = "snake_case", deny_unknown_fields)]
        #[allow(dead_code)]
        enum Shape {
            Circle,
            Square,
        }
        #[derive(Debug, serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        #[allow(dead_code)]
        struct Point {
            x: i64,
        }
        fn serde_message<T: serde::de::DeserializeOwned + std::fmt::Debug>(value: Value) -> String {
            serde_json::from_value::<T>(value)
                .expect_err("does not deserialize")
                .to_string()
        }
        let arguments = json!({ "v": "secret" });
        let cleaned = |message: &str| {
            let violation = deserialize_violation("/v".to_owned(), message, &arguments);
            assert_eq!(violation.path, "/v");
            assert_eq!(violation.keyword, "deserialize");
            violation.message
        };
        let cases = [
            (
                serde_message::<i64>(json!("secret")),
                "invalid type: string \"secret\", expected i64",
                "invalid type: expected i64, found a string",
            ),
            (
                serde_message::<u8>(json!(300)),
                "invalid value: integer `300`, expected u8",
                "invalid value: expected u8",
            ),
            (
                serde_message::<Shape>(json!("secret")),
                "unknown variant `secret`, expected `circle` or `square`",
                "unknown variant: expected `circle` or `square`",
            ),
            (
                serde_message::<[u8; 2]>(json!([1])),
                "invalid length 1, expected an array of length 2",
                "invalid length: expected an array of length 2",
            ),
            // A field's name is no value: said as serde says it.
            (
                serde_message::<Point>(json!({ "x": 1, "secret": 2 })),
                "unknown field `secret`, expected `x`",
                "unknown field `secret`, expected `x`",
            ),
        ];
        for (message, serde_says, expected) in cases {
            assert_eq!(message, serde_says);
            assert_eq!(cleaned(&message), expected, "{message}");
        }
    }
}
