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
//! data, or else the explanation. The content blocks come last, one a line.

use std::fmt;

use serde_json::{Map, Value};

use crate::content::ContentBlock;
use crate::message::{ErrorDetails, MCPToolResult, ToolStatus};

/// Renders the text a model reads. `success` and `no_change_needed` (and a `partial_success`
/// without an error) are `[OK]`, with the data as compact JSON and the explanation on the
/// line after it. `failure` (and a `partial_success` with an error) is `[FAIL]`: the error
/// line reads `<error_type>: <error_message>`, followed by the details in parentheses when
/// there are any; the output line holds the partial data, or else the explanation, and is
/// left out when there is neither. The content blocks follow, one a line: a text block's
/// text, and a note of what any other block is (`[image: image/png]`).
impl fmt::Display for MCPToolResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.render(f)?;
        for block in self.content() {
            f.write_str("\n")?;
            write_block(f, block)?;
        }
        Ok(())
    }
}

impl MCPToolResult {
    /// The text a model reads without the content blocks: the text block that a failure's
    /// wire form puts before them.
    pub(crate) fn text_before_content(&self) -> String {
        struct Before<'a>(&'a MCPToolResult);
        impl fmt::Display for Before<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.render(f)
            }
        }
        Before(self).to_string()
    }

    /// The status, the error, the data and the explanation, as [`fmt::Display`] writes
    /// them before the content blocks.
    fn render(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
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
                f.write_str("[OK] Tool executed successfully:")?;
                let mut said = false;
                if let Some(data) = self.data() {
                    write!(f, "\n{}", compact(data))?;
                    said = true;
                }
                if let Some(explanation) = self.explanation() {
                    write!(f, "\n{explanation}")?;
                    said = true;
                }
                if !said && self.status() == ToolStatus::NoChangeNeeded {
                    f.write_str("\nNo change needed.")?;
                } else if !said && self.content().is_empty() {
                    // The line the result would be on, empty.
                    f.write_str("\n")?;
                }
                Ok(())
            }
        }
    }
}

/// A content block as a line of the text: a text block's text, a note of any other.
fn write_block(f: &mut fmt::Formatter<'_>, block: &ContentBlock) -> fmt::Result {
    match block {
        ContentBlock::Text { text } => f.write_str(text),
        ContentBlock::Image { mime_type, .. } => write!(f, "[image: {mime_type}]"),
        ContentBlock::Audio { mime_type, .. } => write!(f, "[audio: {mime_type}]"),
        ContentBlock::Resource { resource } => match &resource.text {
            Some(text) => write!(f, "[resource {}]\n{text}", resource.uri),
            None => write!(f, "[resource {}]", resource.uri),
        },
        ContentBlock::ResourceLink { uri, name, .. } => write!(f, "[link: {name} at {uri}]"),
    }
}

fn compact(map: &Map<String, Value>) -> String {
    // Serializing a map of JSON values cannot fail.
    serde_json::to_string(map).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use crate::{ContentBlock, ErrorType, MCPErrorDetail, MCPToolResult};
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
    fn content_blocks_follow_the_result_one_a_line() {
        let result = MCPToolResult::success(json!({"pages": 2}))
            .with_content(ContentBlock::text("The first page reads: hello."))
            .with_content(ContentBlock::image("aGk=", "image/png"))
            .with_content(ContentBlock::resource_text(
                "file:///a.txt",
                "text/plain",
                "a",
            ))
            .with_content(ContentBlock::resource_link("file:///b.txt", "b"));
        assert_eq!(
            result.to_string(),
            "[OK] Tool executed successfully:\n{\"pages\":2}\nThe first page reads: hello.\n\
             [image: image/png]\n[resource file:///a.txt]\na\n[link: b at file:///b.txt]"
        );
        // A result of content alone, as another server's often is, shows it.
        let remote = MCPToolResult::success(serde_json::Value::Null)
            .with_content(ContentBlock::text("42 files"));
        assert_eq!(
            remote.to_string(),
            "[OK] Tool executed successfully:\n42 files"
        );
    }

    #[test]
    fn a_failure_shows_its_content_after_the_error() {
        let result = MCPToolResult::failure(MCPErrorDetail::new(ErrorType::TimeoutError, "slow"))
            .with_content(ContentBlock::text("3 of 5 pages read"));
        assert_eq!(
            result.to_string(),
            "[FAIL] Tool execution failed:\nError: TimeoutError: slow\n3 of 5 pages read"
        );
        // On the wire the blocks follow the text block, which does not repeat them.
        let wire = crate::wire::call_tool_result(result);
        assert_eq!(
            wire["content"],
            json!([
                { "type": "text", "text": "[FAIL] Tool execution failed:\nError: TimeoutError: slow" },
                { "type": "text", "text": "3 of 5 pages read" },
            ])
        );
    }

    #[test]
    fn no_change_needed_says_so() {
        assert_eq!(
            MCPToolResult::no_change_needed().to_string(),
            "[OK] Tool executed successfully:\nNo change needed."
        );
    }
}
