//! Lenient arguments: a string holding JSON, where the input schema wants an object or an
//! array and refuses a string, read as the object or array it holds.
//!
//! Models often send a nested object or array JSON-encoded, as a string. A registry built
//! with [`lenient_arguments`](crate::RegistryBuilder::lenient_arguments) reads such a
//! string before anything checks the arguments, at any depth the schema describes, and the
//! result's explanation says where. Nothing else is relaxed: a number or a boolean sent as
//! a string stays a string, and so does a string whose JSON is not what the schema wants
//! there, which the schema then refuses as usual; the explanation says why it was not read.

use std::fmt;

use mcp_runtime_core::{MCPToolResult, ToolDefinition};
use serde_json::{Map, Value};

use super::json_type;
use super::walk::{Kind, Pending, Task, Walk};

/// What a place of the arguments wants instead of the string it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wanted {
    Object,
    Array,
    Either,
}

impl Wanted {
    fn describe(self) -> &'static str {
        match self {
            Self::Object => "an object",
            Self::Array => "an array",
            Self::Either => "an object or an array",
        }
    }
}

/// What lenient reading did to one call's arguments: each place read, and each place it
/// could not read, with why.
#[derive(Debug, Default)]
pub(crate) struct Lenience {
    lines: Vec<String>,
}

impl Lenience {
    /// Reads the strings of JSON in `arguments` that the input schema of `definition`
    /// wants as objects or arrays. `None` when there was nothing to read or to report.
    pub(crate) fn read_arguments(
        definition: &ToolDefinition,
        arguments: &mut Map<String, Value>,
    ) -> Option<Self> {
        if !arguments.values().any(holds_json_text) {
            return None;
        }
        let mut walk = Walk::new(definition.input_schema().as_value(), Self::default());
        walk.arguments(arguments);
        let lenience = walk.task;
        (!lenience.lines.is_empty()).then_some(lenience)
    }

    /// `result`, its explanation followed by what lenient reading did.
    pub(crate) fn explain(self, result: MCPToolResult) -> MCPToolResult {
        let explanation = match result.explanation() {
            Some(explanation) => format!("{explanation}\n{self}"),
            None => self.to_string(),
        };
        result.with_explanation(explanation)
    }

    /// The string at `pointer` was read as `decoded`.
    fn read(&mut self, pointer: String, decoded: &Value) {
        let kind = if decoded.is_array() {
            "array"
        } else {
            "object"
        };
        self.lines.push(format!(
            "Lenient arguments: `{pointer}` was sent as a string of JSON and was read as the {kind} it holds; send objects and arrays as JSON, not as strings."
        ));
    }

    /// The string at `pointer`, where the schema wants `wanted`, is no JSON.
    fn not_json(&mut self, pointer: String, wanted: Wanted, err: &serde_json::Error) {
        // serde_json's syntax errors name a line and column, never the text.
        self.lines.push(format!(
            "Lenient arguments: `{pointer}` is a string where the schema wants {}, and not read as one: it is not valid JSON ({err}).",
            wanted.describe()
        ));
    }

    /// The string at `pointer`, where the schema wants `wanted`, holds the JSON of `found`.
    fn wrong_type(&mut self, pointer: String, wanted: Wanted, found: &Value) {
        let found = json_type(found);
        self.lines.push(format!(
            "Lenient arguments: `{pointer}` is a string where the schema wants {}, and not read as one: its JSON is {found}.",
            wanted.describe()
        ));
    }
}

/// The walk's task: reads each string holding JSON where no alternative admits a string
/// and some admit the object or array it holds, and notes what it read and what it could
/// not.
impl Task for Lenience {
    const NAMES_PLACES: bool = true;

    fn visits(&self, value: &Value) -> bool {
        matches!(value, Value::String(text) if looks_like_json(text))
    }

    /// Reads the JSON a string holds where the schemas want an object or an array and
    /// refuse a string; notes why not where it cannot.
    fn at<'s>(
        walk: &mut Walk<'s, Self>,
        schemas: Vec<Vec<Pending<'s>>>,
        value: &mut Value,
        depth: usize,
    ) {
        let Value::String(text) = &*value else {
            return;
        };
        let Some(wanted) = wanted(walk, &schemas) else {
            return;
        };
        let pointer = walk.pointer.clone();
        let lenience = &mut walk.task;
        let decoded = match serde_json::from_str::<Value>(text) {
            Err(err) => return lenience.not_json(pointer, wanted, &err),
            Ok(decoded @ Value::Object(_)) if wanted != Wanted::Array => decoded,
            Ok(decoded @ Value::Array(_)) if wanted != Wanted::Object => decoded,
            Ok(other) => return lenience.wrong_type(pointer, wanted, &other),
        };
        lenience.read(pointer, &decoded);
        *value = decoded;
        // What it held may hold strings of JSON itself.
        match value {
            Value::Object(map) => walk.object(schemas, map, depth + 1),
            Value::Array(items) => walk.array(schemas, items, depth + 1),
            _ => {}
        }
    }
}

/// What a place where `schemas` apply wants instead of a string: `None` when it admits a
/// string, or neither an object nor an array.
fn wanted<'s>(walk: &Walk<'s, Lenience>, schemas: &[Vec<Pending<'s>>]) -> Option<Wanted> {
    let admits = |kind| {
        walk.expand(schemas.to_vec(), kind)
            .is_some_and(|alternatives| !alternatives.is_empty())
    };
    if walk
        .expand(schemas.to_vec(), Kind::String)
        .is_none_or(|alternatives| !alternatives.is_empty())
    {
        return None;
    }
    match (admits(Kind::Object), admits(Kind::Array)) {
        (true, true) => Some(Wanted::Either),
        (true, false) => Some(Wanted::Object),
        (false, true) => Some(Wanted::Array),
        (false, false) => None,
    }
}

impl fmt::Display for Lenience {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.lines.join("\n"))
    }
}

/// Whether `text` may be the JSON of an object or an array: its first character that is
/// not white space opens one.
fn looks_like_json(text: &str) -> bool {
    text.trim_start().starts_with(['{', '['])
}

/// Whether `value` is, or holds, a string that [`looks_like_json`].
fn holds_json_text(value: &Value) -> bool {
    match value {
        Value::String(text) => looks_like_json(text),
        Value::Array(items) => items.iter().any(holds_json_text),
        Value::Object(map) => map.values().any(holds_json_text),
        _ => false,
    }
}
