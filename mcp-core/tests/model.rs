//! What the message and tool models report about themselves: names, statuses, accessors,
//! schema names and text, each checked against the value it was built from.

use std::collections::BTreeSet;
use std::time::Duration;

use mcp_runtime_core::wire::CallToolResult;
use mcp_runtime_core::{
    ContentBlock, ErrorType, MAX_TOOL_NAME_LEN, MCPErrorDetail, MCPToolCall, MCPToolResult,
    MessageError, ToolAnnotations, ToolDefinition, ToolError, ToolName, ToolStatus,
};
use schemars::JsonSchema;
use serde_json::{Map, json};

#[test]
fn a_status_reads_back_as_it_is_written() {
    for (status, text) in [
        (ToolStatus::Success, "success"),
        (ToolStatus::Failure, "failure"),
        (ToolStatus::NoChangeNeeded, "no_change_needed"),
        (ToolStatus::PartialSuccess, "partial_success"),
    ] {
        assert_eq!(status.as_str(), text);
        assert_eq!(status.to_string(), text);
        let mut result = json!({"status": text, "data": null, "error": null, "explanation": null});
        if matches!(status, ToolStatus::Failure | ToolStatus::PartialSuccess) {
            result["error"] = json!({"error_type": "ToolExecutionError", "error_message": "no"});
        }
        let read: MCPToolResult = serde_json::from_value(result).expect(text);
        assert_eq!(read.status(), status, "{text}");
        assert_eq!(read.is_success(), status == ToolStatus::Success, "{text}");
    }
}

#[test]
fn a_wrong_type_is_named_without_the_value() {
    for (value, found) in [
        (json!(null), "null"),
        (json!(true), "a boolean"),
        (json!(7), "a number"),
        (json!(["x"]), "an array"),
        (json!({"x": 1}), "an object"),
    ] {
        let err =
            serde_json::from_value::<MCPToolCall>(json!({"tool_name": value, "arguments": {}}))
                .unwrap_err();
        assert!(
            err.to_string()
                .contains(&format!("`tool_name` must be a string, found {found}")),
            "{err}"
        );
    }
    let err = MCPToolCall::new("a.b", json!("text")).unwrap_err();
    assert_eq!(
        err,
        MessageError::WrongType {
            field: "arguments",
            expected: "a JSON object",
            found: "a string"
        }
    );
}

#[test]
fn a_tool_error_shows_its_type_and_message() {
    let err = ToolError::new(ErrorType::FileNotFoundError, "no such file: a.txt");
    assert_eq!(err.to_string(), "FileNotFoundError: no such file: a.txt");
}

#[test]
fn a_result_keeps_its_content_blocks() {
    let result = MCPToolResult::no_data()
        .with_content(ContentBlock::text("one"))
        .with_content(ContentBlock::text("two"));
    assert_eq!(
        result.content(),
        [ContentBlock::text("one"), ContentBlock::text("two")]
    );
    assert!(MCPToolResult::no_data().content().is_empty());
}

#[test]
fn only_a_failure_is_an_error_on_the_wire() {
    let error = || MCPErrorDetail::new(ErrorType::ToolExecutionError, "half done");
    for (result, is_error) in [
        (MCPToolResult::success(json!({"n": 1})), false),
        (MCPToolResult::no_change_needed(), false),
        (
            MCPToolResult::partial_success(json!({"n": 1}), error()),
            false,
        ),
        (MCPToolResult::failure(error()), true),
    ] {
        let status = result.status();
        let wire = CallToolResult::from(result);
        assert_eq!(wire.is_error(), is_error, "{status}");
        assert_eq!(
            serde_json::to_value(&wire).unwrap()["isError"],
            json!(is_error),
            "{status}"
        );
    }
}

#[test]
fn a_tool_name_is_the_text_it_was_made_from() {
    let name = ToolName::new("file_utility.read_file_content").unwrap();
    let text = "file_utility.read_file_content";
    assert_eq!(name.as_str(), text);
    assert_eq!(&*name, text);
    assert_eq!(AsRef::<str>::as_ref(&name), text);
    assert_eq!(std::borrow::Borrow::<str>::borrow(&name), text);
    assert_eq!(name.to_string(), text);
    assert_eq!(format!("{name:?}"), format!("{text:?}"));
    assert!(name == *text && name == text);
    assert!(name != *"file_utility.other" && name != "file_utility.other");
    assert_eq!(name.into_string(), text);

    // Looked up by its text in a set of names.
    let names: BTreeSet<ToolName> = [ToolName::new("a.b").unwrap()].into();
    assert!(names.contains("a.b") && !names.contains("a.c"));
}

#[test]
fn a_tool_name_may_be_exactly_as_long_as_allowed() {
    let longest = format!("a.{}", "b".repeat(MAX_TOOL_NAME_LEN - 2));
    assert!(ToolName::new(&longest).is_ok());
    assert!(ToolName::new(format!("{longest}b")).is_err());
}

#[test]
fn a_definition_reports_what_it_was_built_with() {
    let input =
        schemars::json_schema!({"type": "object", "properties": {"path": {"type": "string"}}});
    let output = mcp_runtime_core::schema::output_schema::<String>();
    let mut example = Map::new();
    example.insert("path".into(), json!("a.txt"));
    let annotations = ToolAnnotations {
        read_only: Some(true),
        ..ToolAnnotations::default()
    };
    let tool = ToolDefinition::new("fs.read", input.clone())
        .unwrap()
        .with_title("Read a file")
        .with_description("Reads a file.")
        .with_category("filesystem")
        .with_tags(["fs", "read"])
        .with_annotations(annotations)
        .with_output(output.clone())
        .unwrap()
        .with_timeout(Duration::from_secs(3))
        .with_deprecated("use fs.read_text")
        .with_example(example.clone())
        .with_errors([ErrorType::FileNotFoundError]);
    assert_eq!(tool.title(), Some("Read a file"));
    assert_eq!(tool.description(), Some("Reads a file."));
    assert_eq!(tool.category(), Some("filesystem"));
    assert_eq!(tool.tags(), ["fs", "read"]);
    assert_eq!(tool.annotations(), &annotations);
    assert_eq!(tool.input_schema(), &input);
    assert_eq!(tool.output_schema(), Some(&output.schema));
    assert_eq!(tool.timeout(), Some(Duration::from_secs(3)));
    assert_eq!(tool.deprecated(), Some("use fs.read_text"));
    assert_eq!(tool.examples(), [example]);
    assert_eq!(tool.errors(), [ErrorType::FileNotFoundError]);

    let bare = ToolDefinition::new("fs.stat", input).unwrap();
    assert_eq!(bare.title(), None);
    assert_eq!(bare.description(), None);
    assert_eq!(bare.category(), None);
    assert!(bare.tags().is_empty() && bare.examples().is_empty() && bare.errors().is_empty());
    assert_eq!(bare.output_schema(), None);
    assert_eq!(bare.timeout(), None);
    assert_eq!(bare.deprecated(), None);
}

/// A type that holds every message type, so that the schema shows how each is referenced.
#[derive(JsonSchema)]
#[allow(dead_code)]
struct Envelope {
    call: MCPToolCall,
    result: MCPToolResult,
    name: ToolName,
    status: ToolStatus,
    error_type: ErrorType,
}

#[test]
fn messages_are_shared_definitions_and_their_parts_are_inline() {
    let schema = serde_json::to_value(schemars::schema_for!(Envelope)).unwrap();
    let defs: BTreeSet<&str> = schema["$defs"]
        .as_object()
        .expect("$defs")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        defs,
        BTreeSet::from(["MCPErrorDetail", "MCPToolCall", "MCPToolResult"])
    );
    let properties = &schema["properties"];
    assert_eq!(properties["call"]["$ref"], "#/$defs/MCPToolCall");
    assert_eq!(properties["result"]["$ref"], "#/$defs/MCPToolResult");
    assert_eq!(
        schema["$defs"]["MCPToolResult"]["properties"]["error"]["anyOf"][0]["$ref"],
        "#/$defs/MCPErrorDetail",
        "{schema:#}"
    );
    // Strings, written where they are used.
    for inline in ["name", "status", "error_type"] {
        assert_eq!(properties[inline]["type"], "string", "{inline}: {schema:#}");
    }
    assert!(properties["status"]["enum"].is_array());
    assert_eq!(
        schema["$defs"]["MCPToolCall"]["properties"]["tool_name"]["type"],
        "string"
    );
}

#[test]
fn only_an_empty_no_change_needed_says_so_in_text() {
    assert_eq!(
        MCPToolResult::no_change_needed().to_string(),
        "[OK] Tool executed successfully:\nNo change needed."
    );
    assert_eq!(
        MCPToolResult::success(json!({"n": 1})).to_string(),
        "[OK] Tool executed successfully:\n{\"n\":1}"
    );
    assert_eq!(
        MCPToolResult::no_change_needed()
            .with_explanation("Already sorted.")
            .to_string(),
        "[OK] Tool executed successfully:\nAlready sorted."
    );
}

#[test]
fn a_partial_success_keeps_its_data_and_tells_its_error() {
    let result = MCPToolResult::partial_success(
        json!({"done": 2}),
        MCPErrorDetail::new(ErrorType::ToolExecutionError, "the third failed"),
    );
    assert_eq!(
        serde_json::to_value(CallToolResult::from(result)).unwrap(),
        json!({
            "structuredContent": {"done": 2},
            "content": [
                {"type": "text", "text": "{\"done\":2}"},
                {"type": "text", "text": "ToolExecutionError: the third failed"},
            ],
            "isError": false,
            "_meta": {
                "io.github.mcp-runtime/error": {
                    "error_type": "ToolExecutionError",
                    "error_message": "the third failed",
                    "error_details": null,
                },
            },
        })
    );
}

#[test]
fn a_result_moves_in_88_bytes_or_fewer() {
    // The registry moves a result through a few frames on every call: the data map and
    // a word for the rest, which is boxed.
    assert!(
        std::mem::size_of::<MCPToolResult>() <= 88,
        "{} bytes",
        std::mem::size_of::<MCPToolResult>()
    );
}
