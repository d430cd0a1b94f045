//! The result a tool's outcome becomes: its data, checked against the output schema when
//! the registry says so, or its failure, with the arguments' violations listed.

use mcp_runtime_core::schema::output_data;
use mcp_runtime_core::{MCPToolResult, ToolError, ToolStatus};
use serde_json::Value;

use super::Settings;
use crate::registration::{Failure, Outcome, Output};
use crate::tool::Built;
use crate::validate::{deserialize_violation, invalid_arguments};

/// The result of a tool's `outcome`: its data, checked against the output schema when the
/// registry says so, or its failure. Each way out builds the result once, where the caller
/// wants it: an object that is the data moves into it, and nothing else is on the way.
#[inline]
pub(super) fn finish(
    built: &Built,
    settings: &Settings,
    outcome: Outcome,
    arguments: Option<&Value>,
) -> MCPToolResult {
    let value = match outcome {
        Ok(Output::Value(value)) => value,
        Ok(Output::Text(text)) => match serde_json::from_str(&text) {
            Ok(value) => value,
            Err(err) => return MCPToolResult::failure(unread_output(&err)),
        },
        Ok(Output::Result(result)) => return built_result(built, settings, *result),
        Err(failure) => return failed(built, failure, arguments),
    };
    match value {
        Value::Object(map) if !settings.validate_output && !built.definition.wraps_output() => {
            MCPToolResult::success_data(Some(map))
        }
        value => {
            let result =
                MCPToolResult::success_data(output_data(value, built.definition.wraps_output()));
            built_result(built, settings, result)
        }
    }
}

/// The failure of a tool whose output, serialized as JSON text, does not read back into a
/// JSON value (nested past 128 levels).
#[cold]
#[inline(never)]
fn unread_output(err: &serde_json::Error) -> ToolError {
    ToolError::execution(format!(
        "the tool's output could not be read back as a JSON value: {err}"
    ))
}

/// `result`, checked against the output schema when the registry says so.
#[inline(never)]
fn built_result(built: &Built, settings: &Settings, result: MCPToolResult) -> MCPToolResult {
    if settings.validate_output && result.status() != ToolStatus::Failure {
        return output_checked(built, result);
    }
    result
}

/// The result of a tool that failed: with its own error, or with arguments that did not
/// read, every violation of the input schema listed.
#[cold]
#[inline(never)]
fn failed(built: &Built, failure: Failure, arguments: Option<&Value>) -> MCPToolResult {
    let (definition, validation) = (&built.definition, &built.validation);
    match failure {
        Failure::Tool(err) => MCPToolResult::failure(*err),
        Failure::Arguments(err) => {
            let arguments = arguments.unwrap_or(&Value::Null);
            let violations = match validation.input_violations(definition, arguments) {
                Ok(violations) if !violations.is_empty() => violations,
                _ => vec![deserialize_violation(err.path, &err.message, arguments)],
            };
            MCPToolResult::failure(invalid_arguments(definition, &violations))
        }
    }
}

/// `result`, or a failure if its data breaks the tool's output schema.
#[inline(never)]
fn output_checked(built: &Built, result: MCPToolResult) -> MCPToolResult {
    if let Some(data) = result.data() {
        if let Err(err) = built.validation.check_output(&built.definition, data) {
            return MCPToolResult::failure(err);
        }
    }
    result
}
