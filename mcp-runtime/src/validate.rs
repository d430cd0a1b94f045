//! Arguments checked against the advertised input schema, data against the output schema.
//!
//! The input schema is the contract: every constraint it states is enforced before the
//! function runs, and each violation is reported with its JSON pointer, its keyword and a
//! message that never repeats the submitted value. Validators are compiled once per tool,
//! on first use. A tool whose schema states nothing beyond what deserialization checks
//! anyway (types, required properties, enum variants, integer ranges) skips the schema on
//! the way in, unless deserialization fails, when the schema is asked for the complete list
//! of what is wrong.
//!
//! Property names are the exception: serde reads a field under its `#[serde(alias)]`
//! names too, which the schema does not list, so an object the schema closes
//! (`additionalProperties: false`) may hold a name deserialization accepts and the schema
//! refuses. A tool whose arguments struct could read such a name (the macro says which:
//! an alias, `flatten`, a rename for deserializing alone, a `#[schemars]` attribute) has
//! the names of its arguments checked against the root's `properties` on every call (a
//! look per argument); the others refuse it in deserialization. A schema that closes an
//! object below the root is checked in full on every call. An alias is never advertised,
//! so it is refused, whatever else the schema states.
//!
//! Before anything reads the arguments, they may be rewritten by a [walk](walk) of the
//! arguments and the input schema together: an integral float where the schema admits
//! integers only becomes that integer ([`integers`]), and with lenient arguments a string of
//! JSON where the schema wants an object or an array is read as what it holds ([`lenient`]).

use std::sync::OnceLock;

use jsonschema::Validator;
use mcp_runtime_core::{ErrorType, ToolDefinition, ToolError};
use serde_json::{Map, Value, json};

mod branches;
mod integers;
mod lenient;
mod walk;

pub(crate) use lenient::Lenience;

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

/// How a tool reads its arguments, which decides what is checked before it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reading {
    /// By the input schema alone: a dynamic tool, or one whose definition failed.
    Schema,
    /// Deserialized into a Rust type, which may accept a name the schema does not list (a
    /// `#[serde(alias)]`).
    Typed,
    /// Deserialized into a Rust type that refuses every name the schema does not list.
    TypedExact,
}

impl Reading {
    /// How a handler reads: into a Rust type when `typed`, whose arguments struct has exactly
    /// the names of its schema when `exact_names`.
    pub(crate) fn of(typed: bool, exact_names: bool) -> Self {
        match (typed, exact_names) {
            (false, _) => Self::Schema,
            (true, false) => Self::Typed,
            (true, true) => Self::TypedExact,
        }
    }
}

/// The validation state of one tool.
#[derive(Debug)]
pub(crate) struct Validation {
    /// Whether the input schema states constraints deserialization does not check.
    input_beyond_serde: bool,
    /// The names the root of the input schema admits, when it lists every one of them
    /// (`additionalProperties: false`) and the tool could read another: then the
    /// arguments' names are checked on every call.
    input_names: Option<ClosedNames>,
    /// Whether deserialization refuses a key written twice in the arguments, at any
    /// depth: an arguments struct that refuses every name its schema does not list, with
    /// no property that may be an object or an array.
    input_keys_once: bool,
    /// Whether the input schema types anything as an integer: only then may arguments hold
    /// an integral float to rewrite.
    input_integers: bool,
    input: OnceLock<Result<Validator, SchemaError>>,
    output: OnceLock<Option<Result<Validator, SchemaError>>>,
}

impl Validation {
    /// The state for `definition`, whose tool reads its arguments as `reading` says.
    pub(crate) fn new(definition: &ToolDefinition, reading: Reading) -> Self {
        let schema = definition.input_schema().as_value();
        Self {
            input_beyond_serde: reading == Reading::Schema || beyond_serde(schema),
            // A struct that refuses what the schema does not list checks the names itself.
            input_names: match reading {
                Reading::TypedExact => None,
                Reading::Schema | Reading::Typed => ClosedNames::of(schema),
            },
            input_keys_once: reading == Reading::TypedExact && scalar_properties(schema),
            input_integers: integers::mentions_integer(schema),
            input: OnceLock::new(),
            output: OnceLock::new(),
        }
    }

    /// Whether arguments go through the schema even when they deserialize.
    pub(crate) fn validates_input(&self) -> bool {
        self.input_beyond_serde
    }

    /// Whether arguments read from their JSON `text`, as deserialization reads them, hold
    /// no key written twice: deserialization refuses one itself when it reads every key
    /// (see [`Validation::new`]); otherwise the text is looked through, nothing built.
    pub(crate) fn keys_once(&self, text: &str) -> bool {
        self.input_keys_once || serde_json::from_str::<Unrepeated>(text).is_ok()
    }

    /// Whether [`Validation::check_input`] has anything to check: the whole schema, or the
    /// arguments' names.
    pub(crate) fn checks_input(&self) -> bool {
        self.input_beyond_serde || self.input_names.is_some()
    }

    /// Rewrites each integral float of `arguments` (`1.0`, `1e2`) that sits where the input
    /// schema admits integers only as that integer. Costs a look at the arguments' numbers
    /// when the schema has integers; nothing otherwise. Whether there was any to rewrite.
    pub(crate) fn normalize_integers(
        &self,
        definition: &ToolDefinition,
        arguments: &mut Map<String, Value>,
    ) -> bool {
        let may_rewrite = self.may_rewrite(arguments);
        if may_rewrite {
            integers::normalize(definition.input_schema().as_value(), arguments);
        }
        may_rewrite
    }

    /// Whether `arguments` may hold a float to rewrite: the walk's gate, which keeps calls
    /// without integral floats, and tools without integers, from paying for it.
    fn may_rewrite(&self, arguments: &Map<String, Value>) -> bool {
        self.input_integers && integers::may_hold_integral_float(arguments)
    }

    /// Checks `arguments` against the schema when it states more than deserialization
    /// checks, or when they hold a name its closed root does not list (an alias, which
    /// deserialization would accept).
    pub(crate) fn check_input(
        &self,
        definition: &ToolDefinition,
        arguments: &Value,
    ) -> Result<(), ToolError> {
        let names_admitted = || {
            self.input_names
                .as_ref()
                .is_none_or(|names| names.admit(arguments))
        };
        if !self.input_beyond_serde && names_admitted() {
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
            Ok(validator) => Ok(violations(
                validator,
                definition.input_schema().as_value(),
                arguments,
            )),
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
        let (validator, schema) = match (validator, definition.output_schema()) {
            (Some(Ok(validator)), Some(schema)) => (validator, schema.as_value()),
            (None, _) | (_, None) => return Ok(()),
            (Some(Err(err)), Some(_)) => {
                return Err(ToolError::execution(format!(
                    "the output schema of tool `{}` does not compile: {err}",
                    definition.name()
                )));
            }
        };
        // Validating needs a JSON value; the data is small next to the work that made it.
        let data = Value::Object(data.clone());
        let found = violations(validator, schema, &data);
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

/// Why a tool's schema checks nothing.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum SchemaError {
    /// The schema does not compile, with why (the values it holds masked).
    #[error("{0}")]
    DoesNotCompile(String),
}

fn compile(schema: &Value) -> Result<Validator, SchemaError> {
    jsonschema::validator_for(schema)
        .map_err(|err| SchemaError::DoesNotCompile(err.masked().to_string()))
}

/// Every violation of `schema`, compiled as `validator`, by `instance`; a value that fits
/// no branch of an enum is told about the branch it meant (see [`branches`]).
fn violations(validator: &Validator, schema: &Value, instance: &Value) -> Vec<Violation> {
    let mut found = Vec::new();
    for err in validator.iter_errors(instance) {
        branches::explain(&err, schema, instance, None, &mut found);
    }
    found
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
            Some(f) if f.fract() == 0.0 && integers::integer_of(f).is_none() => {
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

/// The property names of a closed root schema (`additionalProperties: false`, no
/// `patternProperties`), so that a call's names are looked up without hashing.
#[derive(Debug)]
pub(crate) struct ClosedNames(Box<[Box<str>]>);

impl ClosedNames {
    /// The names `root` admits, if it is closed.
    fn of(root: &Value) -> Option<Self> {
        if root.get("additionalProperties") != Some(&Value::Bool(false))
            || root.get("patternProperties").is_some()
        {
            return None;
        }
        let names = match root.get("properties") {
            None => Box::default(),
            Some(Value::Object(properties)) => {
                properties.keys().map(|name| name.as_str().into()).collect()
            }
            Some(_) => return None,
        };
        Some(Self(names))
    }

    /// Whether every name of `arguments` is one of these. A tool has a few parameters: a
    /// scan that compares lengths first beats hashing or a binary search.
    fn admit(&self, arguments: &Value) -> bool {
        arguments.as_object().is_some_and(|arguments| {
            arguments.len() <= self.0.len()
                && arguments.keys().all(|name| {
                    self.0
                        .iter()
                        .any(|listed| listed.len() == name.len() && **listed == **name)
                })
        })
    }
}

/// Whether each property of the root schema `schema` is a number, a string, a boolean or
/// null: no value of one holds a key. The root's own keys are then each read by the
/// arguments struct, which refuses one written twice.
fn scalar_properties(schema: &Value) -> bool {
    let scalar = |kind: &Value| {
        matches!(
            kind.as_str(),
            Some("integer" | "number" | "string" | "boolean" | "null")
        )
    };
    schema
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|properties| {
            properties
                .values()
                .all(|property| match property.get("type") {
                    Some(Value::Array(kinds)) => kinds.iter().all(scalar),
                    Some(kind) => scalar(kind),
                    None => false,
                })
        })
}

/// A JSON value looked through, not kept: read only when the keys of each of its objects
/// are written once each, and without escapes (a key with escapes is counted as a repeat:
/// the arguments are then read in full, which compares keys as they read).
struct Unrepeated;

impl<'de> serde::Deserialize<'de> for Unrepeated {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(UnrepeatedVisitor)
    }
}

struct UnrepeatedVisitor;

impl<'de> serde::de::Visitor<'de> for UnrepeatedVisitor {
    type Value = Unrepeated;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Unrepeated, E> {
        Ok(Unrepeated)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Unrepeated, E> {
        Ok(Unrepeated)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Unrepeated, E> {
        Ok(Unrepeated)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Unrepeated, E> {
        Ok(Unrepeated)
    }

    fn visit_str<E>(self, _: &str) -> Result<Unrepeated, E> {
        Ok(Unrepeated)
    }

    fn visit_unit<E>(self) -> Result<Unrepeated, E> {
        Ok(Unrepeated)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Unrepeated, A::Error> {
        while seq.next_element::<Unrepeated>()?.is_some() {}
        Ok(Unrepeated)
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Unrepeated, A::Error> {
        // The first keys compared on the stack; past them, a set, so that a large object
        // costs no more than its reading.
        const FEW: usize = 8;
        let mut few = [""; FEW];
        let mut count = 0;
        let mut many = std::collections::HashSet::new();
        while let Some(key) = map.next_key::<&'de str>()? {
            let repeated = if count < FEW {
                let repeated = few[..count].contains(&key);
                few[count] = key;
                repeated
            } else {
                if many.is_empty() {
                    many.extend(few);
                }
                !many.insert(key)
            };
            if repeated {
                return Err(serde::de::Error::custom("a key is written twice"));
            }
            count += 1;
            map.next_value::<Unrepeated>()?;
        }
        Ok(Unrepeated)
    }
}

/// Whether the root schema `schema` states something deserialization does not check. Its
/// own `additionalProperties: false` is not: the names of the arguments are checked apart.
fn beyond_serde(schema: &Value) -> bool {
    states_beyond_serde(schema, true)
}

/// Whether `schema`, the root or below it, states something deserialization does not check.
fn states_beyond_serde(schema: &Value, root: bool) -> bool {
    let beyond_serde = |schema: &Value| states_beyond_serde(schema, false);
    match schema {
        Value::Object(map) => {
            let format = map.get("format").and_then(Value::as_str);
            map.iter().any(|(keyword, value)| match keyword.as_str() {
                // Annotations (`x-mcp-header` names the HTTP header an argument is mirrored
                // into), and what serde checks itself.
                "$schema" | "$id" | "$comment" | "title" | "description" | "default"
                | "examples" | "deprecated" | "readOnly" | "writeOnly" | "x-mcp-header"
                | "format" | "type" | "required" | "enum" | "const" | "$ref" => false,
                "minimum" | "maximum" => !implied_by_format(keyword, value, format),
                // Applicators: beyond serde if what they apply is.
                "properties" | "$defs" | "definitions" | "patternProperties" => value
                    .as_object()
                    .is_some_and(|schemas| schemas.values().any(beyond_serde)),
                // Below the root, a closed object may hold a name serde reads as an alias.
                "additionalProperties" if *value == Value::Bool(false) => !root,
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
mod tests;
