//! What generated code calls. Not part of the public API.

use std::future;

use mcp_core::{MCPToolResult, ToolError};
use schemars::{JsonSchema, Schema};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

pub use crate::registration::{
    Arguments, Handler, Location, Outcome, Output, ToolFuture, ToolRegistration,
};
pub use inventory;
pub use mcp_core::schema::{OutputSchema, output_schema};
pub use mcp_core::{DefinitionError, ToolAnnotations, ToolDefinition};
pub use schemars;
pub use serde;

/// A future that is already done.
pub fn ready(outcome: Outcome) -> ToolFuture {
    Box::pin(future::ready(outcome))
}

/// The input schema of a generated arguments struct: without the struct's internal name as
/// its title, and with `properties` even when there are none, as clients expect.
pub fn arguments_schema<T: JsonSchema>() -> Schema {
    let mut schema = mcp_core::schema::input_schema::<T>();
    schema.remove("title");
    if schema.get("properties").is_none() {
        schema.insert("properties".to_owned(), json!({}));
    }
    schema
}

/// Deserializes the arguments into the generated struct. An error is a `ValidationError`
/// naming the argument at fault, with its JSON pointer in the details.
pub fn parse_arguments<T: DeserializeOwned>(arguments: Arguments) -> Result<T, ToolError> {
    serde_path_to_error::deserialize(Value::Object(arguments)).map_err(|err| {
        let path = err.path().to_string();
        let inner = err.into_inner().to_string();
        let (pointer, message) = if path == "." {
            (String::new(), format!("invalid arguments: {inner}"))
        } else {
            (
                pointer_of(&path),
                format!("invalid argument `{path}`: {inner}"),
            )
        };
        ToolError::validation(message).with_details(json!({
            "errors": [{ "path": pointer, "keyword": "deserialize", "message": inner }]
        }))
    })
}

/// `a.b[0]` (serde_path_to_error's form) as the JSON pointer `/a/b/0`.
fn pointer_of(path: &str) -> String {
    let mut pointer = String::new();
    for segment in path.split('.') {
        for part in segment.split('[') {
            let part = part.trim_end_matches(']');
            if !part.is_empty() {
                pointer.push('/');
                pointer.push_str(&part.replace('~', "~0").replace('/', "~1"));
            }
        }
    }
    pointer
}

fn serialize<T: Serialize>(value: &T) -> Result<Value, ToolError> {
    serde_json::to_value(value).map_err(|err| {
        ToolError::execution(format!("the tool's output could not be serialized: {err}"))
    })
}

/// A tool returning `()`.
pub fn unit_output(_: ()) -> Outcome {
    Ok(Output::Value(Value::Null))
}

/// A tool returning a value.
pub fn value_output<T: Serialize>(value: T) -> Outcome {
    serialize(&value).map(Output::Value)
}

/// A tool returning `MCPToolResult`.
pub fn tool_result_output(result: MCPToolResult) -> Outcome {
    Ok(Output::Result(result))
}

/// A tool returning `Result<T, E>`: `Ok` is the data, `Err` a failure.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned by an `#[mcp_tool]` function",
    note = "a tool may return `Result<T, E>` where `T: Serialize + JsonSchema` and `E: Into<ToolError>`"
)]
pub trait FallibleOutput {
    /// The success type, whose schema is the output schema.
    type Ok;

    /// The outcome.
    fn into_outcome(self) -> Outcome;
}

impl<T: Serialize, E: Into<ToolError>> FallibleOutput for Result<T, E> {
    type Ok = T;

    fn into_outcome(self) -> Outcome {
        match self {
            Ok(value) => value_output(value),
            Err(err) => Err(err.into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::pointer_of;

    #[test]
    fn paths_become_json_pointers() {
        assert_eq!(pointer_of("a"), "/a");
        assert_eq!(pointer_of("a.b[0].c"), "/a/b/0/c");
        assert_eq!(pointer_of("x/y"), "/x~1y");
    }
}
