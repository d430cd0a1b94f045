//! Plain functions carried from `#[mcp_tool]` to an executed `MCPToolCall`: the generated
//! definitions and schemas, and what `Registry::call` answers.

use std::collections::HashMap;

use mcp_runtime::{
    ErrorType, MCPErrorDetail, MCPToolCall, MCPToolResult, Registry, ToolError, ToolStatus,
    mcp_tool,
};
use mcp_tests::{REVISIONS, mcp_validator, schema_errors};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[derive(Debug, PartialEq, Serialize, JsonSchema)]
struct Greeting {
    message: String,
}

/// # Greet someone
///
/// Says hello to `name`, `times` times.
#[mcp_tool(
    namespace = "e2e",
    version = "2.1.0",
    category = "text",
    tags("demo", "greeting"),
    read_only
)]
fn greet(
    /// Who to greet.
    name: String,
    /// How often; once when absent.
    times: Option<u32>,
) -> Greeting {
    Greeting {
        message: vec![format!("Hello, {name}!"); times.unwrap_or(1) as usize].join(" "),
    }
}

/// Doubles a number; the output is not an object, so it is wrapped.
#[mcp_tool(namespace = "e2e")]
fn double(n: i64) -> i64 {
    n * 2
}

/// Takes nothing, returns nothing.
#[mcp_tool(namespace = "e2e")]
fn noop() {}

/// Fails on purpose.
#[mcp_tool(namespace = "e2e")]
fn fail(kind: String) -> Result<Greeting, ToolError> {
    Err(ToolError::new(kind.as_str(), "failed on purpose").with_details(json!({ "kind": kind })))
}

/// Answers with its own result.
#[mcp_tool(namespace = "e2e")]
fn unchanged() -> MCPToolResult {
    MCPToolResult::no_change_needed().with_explanation("already done")
}

/// Panics.
#[mcp_tool(namespace = "e2e")]
fn explode(message: String) -> i64 {
    panic!("{message}")
}

/// Sleeps a little, then echoes.
#[mcp_tool(namespace = "e2e")]
async fn echo_later(text: String) -> Result<Greeting, std::io::Error> {
    tokio::task::yield_now().await;
    Ok(Greeting { message: text })
}

/// Panics after an await.
#[mcp_tool(namespace = "e2e")]
async fn explode_later() -> i64 {
    tokio::task::yield_now().await;
    panic!("async boom")
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "shape", rename_all = "snake_case")]
enum Shape {
    Circle { radius: f64 },
    Square { side: f64 },
}

/// Area of shapes.
#[mcp_tool(namespace = "e2e")]
fn area(shapes: Vec<Shape>, scale: HashMap<String, f64>) -> f64 {
    let factor = scale.get("factor").copied().unwrap_or(1.0);
    shapes
        .iter()
        .map(|shape| match shape {
            Shape::Circle { radius } => std::f64::consts::PI * radius * radius,
            Shape::Square { side } => side * side,
        })
        .sum::<f64>()
        * factor
}

/// Takes any JSON; its schema must still be an object for the 2025 MCP revisions.
#[mcp_tool(namespace = "e2e")]
fn store(payload: Value, note: Option<Value>) -> Value {
    json!({ "payload": payload, "note": note })
}

mod nested {
    /// The same function name as another tool, in another module, under another name.
    #[mcp_tool(namespace = "e2e.nested", name = "double")]
    pub(crate) fn double(n: i64) -> i64 {
        n * 2
    }

    use mcp_runtime::mcp_tool;
}

/// Uses the default namespace: the crate's name (this test's crate is `end_to_end`).
#[mcp_tool]
fn default_namespace() -> u8 {
    7
}

fn call(name: &str, arguments: Value) -> MCPToolResult {
    let call = MCPToolCall::new(name, arguments).expect("a valid call");
    Registry::global().call_blocking(call)
}

fn tool_json(name: &str) -> Value {
    let tool = Registry::global()
        .get(name)
        .unwrap_or_else(|| panic!("`{name}` is registered"));
    serde_json::to_value(tool.definition()).expect("a definition serializes")
}

#[test]
fn tools_stay_plain_functions() {
    assert_eq!(
        greet("Ann".into(), Some(2)).message,
        "Hello, Ann! Hello, Ann!"
    );
    assert_eq!(double(4), 8);
    assert_eq!(nested::double(5), 10);
    noop();
    assert_eq!(default_namespace(), 7);
}

#[test]
fn registry_lists_tools_sorted_by_name() {
    let names: Vec<String> = Registry::global()
        .list()
        .map(|tool| tool.definition().name().to_string())
        .collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
    for expected in [
        "e2e.greet",
        "e2e.double",
        "e2e.nested.double",
        "end_to_end.default_namespace",
    ] {
        assert!(
            names.iter().any(|n| n == expected),
            "{expected} missing from {names:?}"
        );
    }
}

#[test]
fn definition_carries_attribute_and_doc_comment() {
    let tool = tool_json("e2e.greet");
    assert_eq!(tool["title"], "Greet someone");
    assert_eq!(tool["description"], "Says hello to `name`, `times` times.");
    // The heading is the title, sent once: MCP's annotations do not repeat it.
    assert_eq!(tool["annotations"], json!({ "readOnlyHint": true }));
    // What is set, and no default.
    assert_eq!(
        tool["_meta"]["mcp-runtime/tool"],
        json!({ "version": "2.1.0", "category": "text", "tags": ["demo", "greeting"] })
    );
}

#[test]
fn version_defaults_to_the_crate_version_which_the_wire_leaves_out() {
    let double = Registry::global().get("e2e.double").expect("e2e.double");
    assert_eq!(
        double.definition().version().to_string(),
        env!("CARGO_PKG_VERSION")
    );
    let wire = tool_json("e2e.double");
    assert!(wire.get("_meta").is_none(), "{wire}");
}

#[test]
fn a_title_that_is_the_summary_line_is_left_out() {
    // `double`'s doc comment has no heading: its first line is both the definition's
    // title and the description's first line, which the listing says once.
    let double = Registry::global().get("e2e.double").expect("e2e.double");
    assert_eq!(
        double.definition().title(),
        Some("Doubles a number; the output is not an object, so it is wrapped")
    );
    let wire = tool_json("e2e.double");
    assert!(wire.get("title").is_none(), "{wire}");
    assert!(wire.get("annotations").is_none(), "{wire}");
    assert_eq!(
        wire["description"],
        "Doubles a number; the output is not an object, so it is wrapped."
    );
    assert_eq!(wire["outputSchema"].get("title"), None, "{wire}");
}

#[test]
fn input_schema_comes_from_parameters_and_their_docs() {
    let schema = &tool_json("e2e.greet")["inputSchema"];
    assert_eq!(schema["type"], "object");
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert_eq!(
        schema["required"],
        json!(["name"]),
        "Option<T> is not required"
    );
    assert_eq!(
        schema["properties"]["name"],
        json!({ "type": "string", "description": "Who to greet." })
    );
    assert_eq!(
        schema["properties"]["times"]["description"],
        "How often; once when absent."
    );
    assert_eq!(schema["additionalProperties"], false);
    assert!(
        schema.get("title").is_none(),
        "the internal struct name is not a title"
    );
}

#[test]
fn tool_without_parameters_has_an_empty_object_schema() {
    let schema = &tool_json("e2e.noop")["inputSchema"];
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["properties"], json!({}));
    assert_eq!(schema["additionalProperties"], false);
    assert!(tool_json("e2e.noop").get("outputSchema").is_none());
}

#[test]
fn output_schema_is_the_return_type_wrapped_when_not_an_object() {
    let greet = tool_json("e2e.greet");
    assert_eq!(greet["outputSchema"]["type"], "object");
    assert_eq!(greet["outputSchema"]["required"], json!(["message"]));
    let double = tool_json("e2e.double");
    assert_eq!(
        double["outputSchema"]["properties"]["result"]["type"],
        "integer"
    );
    assert_eq!(double["outputSchema"]["required"], json!(["result"]));
    let fallible = tool_json("e2e.echo_later");
    assert_eq!(fallible["outputSchema"]["required"], json!(["message"]));
}

#[test]
fn every_definition_is_a_valid_mcp_tool_in_every_revision() {
    for revision in REVISIONS {
        let validator = mcp_validator(revision, "Tool");
        for tool in Registry::global().list() {
            let wire = serde_json::to_value(tool.definition()).expect("serializes");
            let errors = schema_errors(&validator, &wire);
            assert!(
                errors.is_empty(),
                "{revision} {}: {errors:#?}",
                tool.definition().name()
            );
        }
    }
}

#[test]
fn every_generated_schema_is_valid_json_schema() {
    for tool in Registry::global().list() {
        let definition = tool.definition();
        let input = definition.input_schema().as_value();
        assert!(
            jsonschema::meta::is_valid(input),
            "{}: input {input}",
            definition.name()
        );
        if let Some(output) = definition.output_schema() {
            assert!(
                jsonschema::meta::is_valid(output.as_value()),
                "{}: output",
                definition.name()
            );
        }
    }
}

#[test]
fn call_returns_data_on_success() {
    let result = call("e2e.greet", json!({ "name": "Bo", "times": 2 }));
    assert_eq!(result.status(), ToolStatus::Success);
    assert_eq!(
        result.data(),
        json!({ "message": "Hello, Bo! Hello, Bo!" }).as_object()
    );
    let result = call("e2e.greet", json!({ "name": "Bo" }));
    assert_eq!(
        result.data(),
        json!({ "message": "Hello, Bo!" }).as_object()
    );
}

#[test]
fn call_data_validates_against_the_output_schema() {
    for (name, arguments) in [
        ("e2e.greet", json!({ "name": "Cy" })),
        ("e2e.double", json!({ "n": 21 })),
        (
            "e2e.area",
            json!({ "shapes": [{ "shape": "square", "side": 2.0 }], "scale": {} }),
        ),
    ] {
        let result = call(name, arguments);
        let data = Value::Object(result.data().cloned().expect("data"));
        let output = Registry::global()
            .get(name)
            .unwrap()
            .definition()
            .output_schema()
            .unwrap()
            .clone();
        let validator = jsonschema::validator_for(output.as_value()).expect("compiles");
        assert!(
            validator.is_valid(&data),
            "{name}: {data} against {}",
            output.as_value()
        );
    }
}

#[test]
fn json_value_arguments_pass_through() {
    let result = call("e2e.store", json!({ "payload": [1, "two"] }));
    assert_eq!(
        result.data(),
        json!({ "result": { "payload": [1, "two"], "note": null } }).as_object()
    );
}

#[test]
fn non_object_output_is_wrapped_in_result() {
    assert_eq!(
        call("e2e.double", json!({ "n": 21 })).data(),
        json!({ "result": 42 }).as_object()
    );
    assert_eq!(
        call("e2e.nested.double", json!({ "n": 1 })).data(),
        json!({ "result": 2 }).as_object()
    );
}

#[test]
fn unit_return_is_success_without_data() {
    let result = call("e2e.noop", json!({}));
    assert_eq!(result.status(), ToolStatus::Success);
    assert!(result.data().is_none());
}

#[test]
fn tool_error_becomes_failure_with_its_type_and_details() {
    let result = call("e2e.fail", json!({ "kind": "QuotaExceeded" }));
    assert_eq!(result.status(), ToolStatus::Failure);
    let error = result.error().expect("an error");
    assert_eq!(error.error_type, ErrorType::Custom("QuotaExceeded".into()));
    assert_eq!(error.error_message, "failed on purpose");
    assert_eq!(
        error.error_details,
        Some(
            json!({ "kind": "QuotaExceeded" })
                .as_object()
                .cloned()
                .unwrap()
                .into()
        )
    );
}

#[test]
fn tool_result_is_passed_through_unchanged() {
    let result = call("e2e.unchanged", json!({}));
    assert_eq!(
        result,
        MCPToolResult::no_change_needed().with_explanation("already done")
    );
}

#[test]
fn unknown_tool_is_resource_not_found_naming_the_closest() {
    let result = call("e2e.greeet", json!({}));
    let error = result.error().expect("an error");
    assert_eq!(error.error_type, ErrorType::ResourceNotFound);
    assert!(
        error.error_message.contains("`e2e.greeet`"),
        "{}",
        error.error_message
    );
    assert!(
        error.error_message.contains("did you mean `e2e.greet`"),
        "{}",
        error.error_message
    );
}

fn validation_message(name: &str, arguments: Value) -> String {
    let result = call(name, arguments);
    assert_eq!(result.status(), ToolStatus::Failure);
    let error = result.error().expect("an error");
    assert_eq!(
        error.error_type,
        ErrorType::ValidationError,
        "{}",
        error.error_message
    );
    error.error_message.clone()
}

#[test]
fn missing_argument_is_a_validation_error_naming_it() {
    let message = validation_message("e2e.greet", json!({ "times": 1 }));
    assert!(
        message.contains("\"name\" is a required property"),
        "{message}"
    );
}

#[test]
fn ill_typed_argument_is_a_validation_error_naming_it() {
    let message = validation_message("e2e.greet", json!({ "name": "x", "times": "twice" }));
    assert!(message.contains("`/times`"), "{message}");
    assert!(
        !message.contains("twice"),
        "the value is not echoed: {message}"
    );
    let message = validation_message(
        "e2e.area",
        json!({ "shapes": [{ "shape": "circle", "radius": "big" }], "scale": {} }),
    );
    // The variant the shape names says what it wanted.
    assert!(
        message
            .ends_with("`/shapes/0/radius`: the value is not of type \"number\" (branch `circle`)"),
        "{message}"
    );
    assert!(
        !message.contains("big"),
        "the value is not echoed: {message}"
    );
}

#[test]
fn unknown_argument_is_a_validation_error_naming_it() {
    let message = validation_message("e2e.double", json!({ "n": 1, "m": 2 }));
    assert!(message.contains("'m' was unexpected"), "{message}");
}

#[test]
fn validation_error_details_carry_the_json_pointer() {
    let result = call("e2e.greet", json!({ "name": 5 }));
    let details = serde_json::to_value(&result.error().unwrap().error_details).unwrap();
    assert_eq!(details["errors"][0]["path"], "/name");
}

#[test]
fn panic_is_a_tool_execution_error_without_its_message_and_the_registry_keeps_working() {
    // The panic's message holds the argument: the error has an incident id instead.
    let result = call("e2e.explode", json!({ "message": "kaboom" }));
    let error = result.error().expect("an error");
    assert_eq!(error.error_type, ErrorType::ToolExecutionError);
    assert!(
        error
            .error_message
            .contains("failed unexpectedly (incident ")
            && !error.error_message.contains("kaboom"),
        "{}",
        error.error_message
    );
    assert_eq!(
        call("e2e.double", json!({ "n": 2 })).data(),
        json!({ "result": 4 }).as_object()
    );
}

#[tokio::test]
async fn async_tools_run_through_call() {
    let registry = Registry::global();
    let call = MCPToolCall::new("e2e.echo_later", json!({ "text": "hi" })).unwrap();
    let result = registry.call(call).await;
    assert_eq!(result.data(), json!({ "message": "hi" }).as_object());

    let call = MCPToolCall::new("e2e.explode_later", json!({})).unwrap();
    let result = registry.call(call).await;
    let error = result.error().expect("an error");
    assert_eq!(error.error_type, ErrorType::ToolExecutionError);
    assert!(
        error
            .error_message
            .contains("failed unexpectedly (incident ")
            && !error.error_message.contains("async boom"),
        "{}",
        error.error_message
    );
}

#[test]
fn async_tools_run_through_call_blocking() {
    let result = call("e2e.echo_later", json!({ "text": "yo" }));
    assert_eq!(result.data(), json!({ "message": "yo" }).as_object());
}

#[test]
fn failure_text_for_models_follows_seed_003() {
    let result = MCPToolResult::failure(MCPErrorDetail::new(ErrorType::TimeoutError, "too slow"));
    assert_eq!(
        result.to_string(),
        "[FAIL] Tool execution failed:\nError: TimeoutError: too slow"
    );
    let ok = call("e2e.double", json!({ "n": 5 }));
    assert_eq!(
        ok.to_string(),
        "[OK] Tool executed successfully:\n{\"result\":10}"
    );
}

/// The attribute adds no name to the module it is used in: items named like its hidden
/// helpers, and constants named like the locals it uses, sit beside two tools without a
/// clash.
mod hygiene {
    #![allow(dead_code, non_camel_case_types, non_upper_case_globals)]

    use mcp_runtime::mcp_tool;

    struct __McpToolArguments;
    type __McpArguments = ();
    fn __mcp_definition() {}
    fn __mcp_invoke() {}
    const __MCP_HANDLER: () = ();
    const arguments: () = ();
    const value: () = ();
    const parsed: () = ();
    const ctx: () = ();
    const err: () = ();
    const definition: () = ();

    /// One tool, with parameters named like the locals of generated code.
    #[mcp_tool(namespace = "e2e.hygiene")]
    fn first(arguments_: u8, __mcp_ctx: u8, __mcp_parsed: u8) -> u8 {
        arguments_ + __mcp_ctx + __mcp_parsed
    }

    /// Another tool in the same module.
    #[mcp_tool(namespace = "e2e.hygiene")]
    fn second(first: u8) -> u8 {
        first
    }
}

#[test]
fn parameters_named_like_generated_locals_are_passed_through() {
    let result = call(
        "e2e.hygiene.first",
        json!({ "arguments_": 1, "__mcp_ctx": 2, "__mcp_parsed": 3 }),
    );
    assert_eq!(result.data(), json!({ "result": 6 }).as_object());
    let result = call("e2e.hygiene.second", json!({ "first": 7 }));
    assert_eq!(result.data(), json!({ "result": 7 }).as_object());
}
