//! The text a model reads for a result:
//!
//! ```text
//! [OK] Tool executed successfully:
//! <result>
//! ```
//!
//! ```text
//! [FAIL] Tool execution failed:
//! Error: <error_type>: <error_message>
//! Output: <partial output>
//! ```
//!
//! The `Output:` line is there when there is something to put on it: a partial result's
//! data, or else the explanation.

use std::fmt;

use serde_json::{Map, Value};

use crate::message::{ErrorDetails, MCPToolResult, ToolStatus};

/// Renders the text a model reads. `success` and `no_change_needed` (and a `partial_success`
/// without an error) are `[OK]`, with the data as compact JSON and the explanation on the
/// line after it. `failure` (and a `partial_success` with an error) is `[FAIL]`: the error
/// line reads `<error_type>: <error_message>`, followed by the details in parentheses when
/// there are any; the output line holds the partial data, or else the explanation, and is
/// left out when there is neither.
impl fmt::Display for MCPToolResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.error() {
            Some(error)
                if matches!(
                    self.status(),
                    ToolStatus::Failure | ToolStatus::PartialSuccess
                ) =>
            {
                f.write_str("[FAIL] Tool execution failed:\n")?;
                write!(f, "Error: {}: {}", error.error_type, error.error_message)?;
                match &error.error_details {
                    Some(ErrorDetails::Text(text)) => write!(f, " ({text})")?,
                    Some(ErrorDetails::Object(map)) => write!(f, " ({})", compact(map))?,
                    None => {}
                }
                match (self.data(), self.explanation()) {
                    (Some(data), _) => write!(f, "\nOutput: {}", compact(data)),
                    (None, Some(explanation)) => write!(f, "\nOutput: {explanation}"),
                    (None, None) => Ok(()),
                }
            }
            _ => {
                f.write_str("[OK] Tool executed successfully:\n")?;
                let mut lines = Vec::with_capacity(2);
                if let Some(data) = self.data() {
                    lines.push(compact(data));
                }
                if let Some(explanation) = self.explanation() {
                    lines.push(explanation.to_owned());
                }
                if lines.is_empty() && self.status() == ToolStatus::NoChangeNeeded {
                    lines.push("No change needed.".to_owned());
                }
                f.write_str(&lines.join("\n"))
            }
        }
    }
}

fn compact(map: &Map<String, Value>) -> String {
    // Serializing a map of JSON values cannot fail.
    serde_json::to_string(map).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use crate::{ErrorType, MCPErrorDetail, MCPToolResult};
    use serde_json::json;

    #[test]
    fn success_renders_ok_with_the_data() {
        let result = MCPToolResult::success(json!({"words": 2, "chars": 9}));
        assert_eq!(
            result.to_string(),
            "[OK] Tool executed successfully:\n{\"words\":2,\"chars\":9}"
        );
    }

    #[test]
    fn failure_without_output_renders_fail_with_the_error_line_last() {
        let result = MCPToolResult::failure(MCPErrorDetail::new(
            ErrorType::FileNotFoundError,
            "no such file: a.txt",
        ));
        assert_eq!(
            result.to_string(),
            "[FAIL] Tool execution failed:\nError: FileNotFoundError: no such file: a.txt"
        );
    }

    #[test]
    fn failure_with_an_explanation_renders_it_as_the_output() {
        let result = MCPToolResult::failure(MCPErrorDetail::new(
            ErrorType::FileNotFoundError,
            "no such file: a.txt",
        ))
        .with_explanation("Check the path.");
        assert_eq!(
            result.to_string(),
            "[FAIL] Tool execution failed:\nError: FileNotFoundError: no such file: a.txt\nOutput: Check the path."
        );
    }

    #[test]
    fn partial_success_with_error_renders_fail_with_the_partial_output() {
        let result = MCPToolResult::partial_success(
            json!({"copied": 3}),
            MCPErrorDetail::new(ErrorType::PermissionError, "cannot write d.txt")
                .with_details("d.txt"),
        );
        assert_eq!(
            result.to_string(),
            "[FAIL] Tool execution failed:\nError: PermissionError: cannot write d.txt (d.txt)\nOutput: {\"copied\":3}"
        );
    }

    #[test]
    fn no_change_needed_with_a_warning_is_still_ok() {
        let result: MCPToolResult = serde_json::from_value(json!({
            "status": "no_change_needed",
            "error": { "error_type": "X", "error_message": "warn" },
        }))
        .unwrap();
        assert!(result.to_string().starts_with("[OK]"), "{result}");
    }

    #[test]
    fn no_change_needed_says_so() {
        assert_eq!(
            MCPToolResult::no_change_needed().to_string(),
            "[OK] Tool executed successfully:\nNo change needed."
        );
    }
}
