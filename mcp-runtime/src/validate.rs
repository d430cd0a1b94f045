//! Arguments checked against the advertised input schema, data against the output schema.
//!
//! The input schema is the contract: every constraint it states is enforced before the
//! function runs, and each violation is reported with its JSON pointer, its keyword and a
//! message that never repeats the submitted value. Validators are compiled once per tool,
//! on first use. A tool whose schema states nothing beyond what deserialization checks
//! anyway (types, required and unknown properties, enum variants, integer ranges) skips the
//! schema on the way in, unless deserialization fails, when the schema is asked for the
//! complete list of what is wrong.

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
    input: OnceLock<Result<Validator, String>>,
    output: OnceLock<Option<Result<Validator, String>>>,
}

impl Validation {
    /// The state for `definition`. `typed` tools deserialize their arguments into a Rust
    /// type; other (dynamic) tools rely on the schema alone.
    pub(crate) fn new(definition: &ToolDefinition, typed: bool) -> Self {
        Self {
            input_beyond_serde: !typed || beyond_serde(definition.input_schema().as_value()),
            input: OnceLock::new(),
            output: OnceLock::new(),
        }
    }

    /// Whether arguments go through the schema even when they deserialize.
    pub(crate) fn validates_input(&self) -> bool {
        self.input_beyond_serde
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
        Value::Number(n) if n.is_f64() => "a number",
        Value::Number(_) => "an integer",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
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
}
