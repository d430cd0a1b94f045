//! `arguments`: a tool call built from the input, run through the registry.
//!
//! The input's first byte picks the tool (`b'0'` the first of [`TOOLS`], `b'1'` the
//! second, and so on round); the rest is the arguments, as JSON text. Input whose rest is
//! no JSON object is skipped: a call's arguments are an object by construction.
//!
//! The invariants, for every call:
//!
//! 1. The result is a success or a failure, never a panic of the framework's.
//! 2. A success carries no error; its data validates against the tool's output schema; and
//!    the arguments validate against the tool's input schema (the input schema is the
//!    contract, every constraint of it checked before the tool runs).
//! 3. A failure is a `ValidationError` (the fixtures never fail by themselves: any other
//!    type, `ToolExecutionError` from a caught panic or from data that breaks the output
//!    schema included, is a bug) whose `error_details.errors` lists the violations, each
//!    an object of a `path`, a `keyword` and a `message`, non-empty strings but the path,
//!    which is a JSON pointer to a value in the arguments.
//! 4. A failure is not invented: when the input schema accepts the arguments, every
//!    violation listed is one of deserialization (`keyword` `deserialize`).
//! 5. No message repeats a submitted value: unless an object key of the arguments holds
//!    the marker `§`, no text of the error does (values holding it may be anywhere).

use std::collections::HashMap;
use std::sync::OnceLock;

use jsonschema::Validator;
use mcp_runtime::{ErrorType, MCPToolCall, MCPToolResult, Registry, ToolStatus};
use serde_json::{Map, Value};

use super::{Finding, KnownBug};

/// The bugs of mcp-runtime this target has found that are not fixed yet.
pub const KNOWN_BUGS: &[KnownBug] = &[];

/// The tools the input's first byte picks from.
pub const TOOLS: [&str; 7] = [
    "fuzz.profile",
    "fuzz.place",
    "fuzz.configure",
    "fuzz.matrix",
    "fuzz.echo",
    "fuzz.repeat",
    "fuzz.greet",
];

/// The character whose appearance in an error shows that a submitted value was repeated.
pub const MARKER: char = '§';

/// The registry the calls go to, made once, and each tool's schemas, compiled.
struct Fixture {
    registry: Registry,
    schemas: HashMap<&'static str, Schemas>,
}

struct Schemas {
    input: Validator,
    output: Option<Validator>,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let registry = super::registry();
        let schemas = TOOLS
            .iter()
            .map(|&name| {
                let definition = registry.get(name).expect("a fixture tool").definition();
                let compile = |schema: &Value| {
                    jsonschema::validator_for(schema)
                        .unwrap_or_else(|err| panic!("a schema of {name} compiles: {err}"))
                };
                let schemas = Schemas {
                    input: compile(definition.input_schema().as_value()),
                    output: definition
                        .output_schema()
                        .map(|schema| compile(schema.as_value())),
                };
                (name, schemas)
            })
            .collect();
        Fixture { registry, schemas }
    })
}

/// The tool and the arguments `input` stands for; `None` when the arguments are no object.
pub fn call_of(input: &[u8]) -> Option<(&'static str, Map<String, Value>)> {
    let (&selector, json) = input.split_first()?;
    let tool = TOOLS[usize::from(selector.wrapping_sub(b'0')) % TOOLS.len()];
    match serde_json::from_slice(json) {
        Ok(Value::Object(arguments)) => Some((tool, arguments)),
        _ => None,
    }
}

/// Runs the call `input` stands for, if any, and checks its result.
pub fn run(input: &[u8]) -> Result<(), Finding> {
    let Some((tool, arguments)) = call_of(input) else {
        return Ok(());
    };
    let call = MCPToolCall::new(tool, Value::Object(arguments.clone()))
        .expect("a fixture's name and an object");
    let result = super::runtime().block_on(fixture().registry.call(call));
    check(tool, &arguments, &result)
}

/// Checks `result`, of calling `tool` with `arguments`, against the invariants.
pub fn check(
    tool: &str,
    arguments: &Map<String, Value>,
    result: &MCPToolResult,
) -> Result<(), Finding> {
    let schemas = &fixture().schemas[tool];
    let arguments = Value::Object(arguments.clone());
    let schema_errors: Vec<(String, String)> = schemas
        .input
        .iter_errors(&arguments)
        .map(|err| {
            (
                err.instance_path().as_str().to_owned(),
                err.kind().keyword().to_owned(),
            )
        })
        .collect();
    match result.status() {
        ToolStatus::Success => {
            if let Some(error) = result.error() {
                return Err(Finding::new(
                    "a success carries an error",
                    format!("{tool}: {}", error.error_message),
                ));
            }
            if !schema_errors.is_empty() {
                let listed: Vec<String> = schema_errors
                    .iter()
                    .map(|(path, keyword)| format!("{path:?} {keyword}"))
                    .collect();
                return Err(Finding::new(
                    "a call whose arguments break the input schema ran",
                    format!("{tool}, {}: {arguments}", listed.join("; ")),
                ));
            }
            check_data(tool, schemas, result)
        }
        ToolStatus::Failure => check_failure(tool, &arguments, schema_errors.is_empty(), result),
        status => Err(Finding::new(
            "a fixture answered neither success nor failure",
            format!("{tool}: {status}"),
        )),
    }
}

/// Invariant 2, the data.
fn check_data(tool: &str, schemas: &Schemas, result: &MCPToolResult) -> Result<(), Finding> {
    let (Some(output), Some(data)) = (&schemas.output, result.data()) else {
        return match (&schemas.output, result.data()) {
            (Some(_), None) => Err(Finding::new("a success has no data", tool.to_owned())),
            _ => Ok(()),
        };
    };
    let data = Value::Object(data.clone());
    let errors: Vec<String> = output
        .iter_errors(&data)
        .map(|err| format!("{}: {}", err.instance_path(), err.kind().keyword()))
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(Finding::new(
            "a success's data breaks the output schema",
            format!("{tool}, {}: {data}", errors.join("; ")),
        ))
    }
}

/// Invariants 3 to 5.
fn check_failure(
    tool: &str,
    arguments: &Value,
    schema_accepts: bool,
    result: &MCPToolResult,
) -> Result<(), Finding> {
    let Some(error) = result.error() else {
        return Err(Finding::new("a failure carries no error", tool.to_owned()));
    };
    if error.error_type != ErrorType::ValidationError {
        return Err(Finding::new(
            "a call failed with another error than a ValidationError",
            format!(
                "{tool}, {}: {} ({arguments})",
                error.error_type, error.error_message
            ),
        ));
    }
    let malformed = |why: String| {
        Err(Finding::new(
            "a ValidationError does not list its violations",
            format!("{tool}, {why}: {arguments}"),
        ))
    };
    if error.error_message.is_empty() {
        return malformed("an empty message".to_owned());
    }
    let details = error
        .error_details
        .as_ref()
        .map(|details| serde_json::to_value(details).unwrap_or(Value::Null));
    let Some(Value::Array(violations)) = details.as_ref().and_then(|details| details.get("errors"))
    else {
        return malformed("no `errors` in the details".to_owned());
    };
    if violations.is_empty() {
        return malformed("no violation listed".to_owned());
    }
    for violation in violations {
        let Some(violation) = violation.as_object() else {
            return malformed(format!("a violation is no object: {violation}"));
        };
        let field = |name: &str| violation.get(name).and_then(Value::as_str);
        let (Some(path), Some(keyword), Some(message)) =
            (field("path"), field("keyword"), field("message"))
        else {
            return malformed(format!(
                "a violation lacks a path, keyword or message: {violation:?}"
            ));
        };
        if violation.len() != 3 || keyword.is_empty() || message.is_empty() {
            return malformed(format!("a violation is malformed: {violation:?}"));
        }
        if arguments.pointer(path).is_none() {
            return Err(Finding::new(
                "a violation's path points at no value of the arguments",
                format!("{tool}, path {path:?} ({keyword}: {message}): {arguments}"),
            ));
        }
        if schema_accepts && keyword != "deserialize" {
            return Err(Finding::new(
                "a violation of the input schema is listed for arguments it accepts",
                format!("{tool}, {path} {keyword}: {message}: {arguments}"),
            ));
        }
    }
    if !any_key(arguments, &|key| key.contains(MARKER)) {
        let mut texts = vec![error.error_message.as_str()];
        if let Some(details) = &details {
            collect_texts(details, &mut texts);
        }
        if let Some(text) = texts.iter().find(|text| text.contains(MARKER)) {
            return Err(Finding::new(
                "an error repeats a submitted value",
                format!("{tool}, {text:?}: {arguments}"),
            ));
        }
    }
    Ok(())
}

/// Whether an object key anywhere in `value` satisfies `test`.
fn any_key(value: &Value, test: &dyn Fn(&str) -> bool) -> bool {
    match value {
        Value::Object(map) => map
            .iter()
            .any(|(key, value)| test(key) || any_key(value, test)),
        Value::Array(items) => items.iter().any(|item| any_key(item, test)),
        _ => false,
    }
}

/// Every string and key in `value`.
fn collect_texts<'a>(value: &'a Value, texts: &mut Vec<&'a str>) {
    match value {
        Value::String(text) => texts.push(text),
        Value::Object(map) => {
            for (key, value) in map {
                texts.push(key);
                collect_texts(value, texts);
            }
        }
        Value::Array(items) => items.iter().for_each(|item| collect_texts(item, texts)),
        _ => {}
    }
}
