//! Registries other than the global one: built from parts, filtered, extended at run time,
//! mounted into each other.

use std::time::Duration;

use mcp_runtime::{MCPToolCall, Registry, ToolDefinition, ToolError, mcp_tool, schema};
use serde_json::{Value, json};

/// Reads a file (pretend).
#[mcp_tool(namespace = "reg.fs", category = "filesystem", tags("read"), inline)]
fn read(path: String) -> String {
    path
}

/// Writes a file (pretend).
#[mcp_tool(namespace = "reg.fs", category = "filesystem", tags("write"), inline)]
fn write(path: String) -> String {
    path
}

/// Adds two numbers.
#[mcp_tool(namespace = "reg.math", category = "math", tags("arith"), inline)]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

fn names(registry: &Registry) -> Vec<String> {
    registry
        .list()
        .map(|tool| tool.name().to_string())
        .collect()
}

fn object_schema() -> schemars::Schema {
    schemars::json_schema!({
        "type": "object",
        "properties": { "n": { "type": "integer" } },
        "required": ["n"],
        "additionalProperties": false,
    })
}

fn echo_definition(name: &str) -> ToolDefinition {
    ToolDefinition::new(name, object_schema())
        .unwrap()
        .with_description("Echoes n.")
}

fn call(registry: &Registry, name: &str, arguments: Value) -> mcp_runtime::MCPToolResult {
    registry.call_blocking(MCPToolCall::new(name, arguments).unwrap())
}

#[test]
fn builder_filters_by_category_tags_names_and_prefix() {
    let all = || Registry::builder().inventory().prefix("reg.");
    assert_eq!(
        names(&all().build().unwrap()),
        ["reg.fs.read", "reg.fs.write", "reg.math.add"]
    );
    assert_eq!(
        names(&all().category("filesystem").build().unwrap()),
        ["reg.fs.read", "reg.fs.write"]
    );
    assert_eq!(
        names(&all().tags(["write", "arith"]).build().unwrap()),
        ["reg.fs.write", "reg.math.add"]
    );
    assert_eq!(
        names(&all().names(["reg.math.add", "nope.none"]).build().unwrap()),
        ["reg.math.add"]
    );
    assert_eq!(
        names(&all().category("filesystem").tags(["read"]).build().unwrap()),
        ["reg.fs.read"],
        "filters add up"
    );
}

#[test]
fn categories_are_listed_once_each_and_by_category() {
    let registry = Registry::builder()
        .inventory()
        .prefix("reg.")
        .build()
        .unwrap();
    assert_eq!(registry.list_categories(), ["filesystem", "math"]);
    let math: Vec<_> = registry
        .list_category("math")
        .map(|tool| tool.name().to_string())
        .collect();
    assert_eq!(math, ["reg.math.add"]);
}

#[test]
fn dynamic_tools_run_from_a_closure_and_a_hand_given_definition() {
    let registry = Registry::builder()
        .tool(echo_definition("dyn.echo"), |arguments, _ctx| async move {
            Ok::<_, ToolError>(json!({ "n": arguments["n"] }))
        })
        .build()
        .unwrap();
    let result = call(&registry, "dyn.echo", json!({ "n": 5 }));
    assert_eq!(result.data(), json!({ "n": 5 }).as_object());
    let tool = registry.get("dyn.echo").unwrap();
    assert_eq!(tool.source(), "dynamic");
    assert_eq!(tool.location().file, "tests/tests/registry.rs");
    assert!(tool.validates_arguments(), "a closure has only its schema");
}

#[test]
fn dynamic_tool_arguments_are_checked_against_its_schema() {
    let registry = Registry::builder()
        .tool(echo_definition("dyn.echo"), |_, _| async {
            Ok::<_, ToolError>(json!({}))
        })
        .build()
        .unwrap();
    let result = call(&registry, "dyn.echo", json!({ "n": "five" }));
    let error = result.error().expect("refused");
    assert_eq!(error.error_type.as_str(), "ValidationError");
    assert!(
        error.error_message.contains("`/n`"),
        "{}",
        error.error_message
    );
}

#[test]
fn register_unregister_enable_and_disable_at_run_time() {
    let mut registry = Registry::builder().build().unwrap();
    assert!(registry.is_empty());
    registry
        .register(echo_definition("dyn.one"), |arguments, _| async move {
            Ok::<_, ToolError>(Value::Object(arguments))
        })
        .unwrap();
    let again = registry.register(echo_definition("dyn.one"), |_, _| async {
        Ok::<_, ToolError>(Value::Null)
    });
    let err = again.expect_err("a second tool of the same name is refused");
    assert!(err.to_string().contains("tests/tests/registry.rs"), "{err}");
    assert_eq!(registry.len(), 1);

    assert!(registry.disable("dyn.one"));
    assert!(!registry.has_tool("dyn.one"));
    assert_eq!(names(&registry), Vec::<String>::new());
    let result = call(&registry, "dyn.one", json!({ "n": 1 }));
    assert!(result.error().unwrap().error_message.contains("disabled"));
    assert!(
        registry
            .get("dyn.one")
            .is_some_and(|tool| !tool.is_enabled())
    );

    assert!(registry.enable("dyn.one"));
    assert_eq!(
        call(&registry, "dyn.one", json!({ "n": 1 })).data(),
        json!({ "n": 1 }).as_object()
    );

    assert!(registry.unregister("dyn.one").is_some());
    assert!(registry.get("dyn.one").is_none());
    assert!(!registry.disable("dyn.one"));
}

#[test]
fn mounting_prefixes_names_and_reports_conflicts() {
    let math = Registry::builder()
        .inventory()
        .prefix("reg.math.")
        .build()
        .unwrap();
    let mut host = Registry::builder()
        .tool(echo_definition("remote.reg.math.add"), |_, _| async {
            Ok::<_, ToolError>(json!({ "n": 0 }))
        })
        .build()
        .unwrap();
    let other = Registry::builder()
        .tool(echo_definition("other.echo"), |arguments, _| async move {
            Ok::<_, ToolError>(Value::Object(arguments))
        })
        .build()
        .unwrap();

    let conflicts = host.mount("remote", &math).unwrap();
    assert_eq!(conflicts.len(), 1, "{conflicts:?}");
    let conflict = &conflicts[0];
    assert_eq!(conflict.tool_name, "remote.reg.math.add");
    assert!(conflict.source.contains("`reg.math.add`"), "{conflict:?}");
    assert!(conflict.shadowed_by.contains("dynamic"), "{conflict:?}");
    assert!(conflict.resolution.contains("kept"), "{conflict:?}");
    // The tool already there was not overwritten.
    assert_eq!(
        call(&host, "remote.reg.math.add", json!({ "n": 3 })).data(),
        json!({ "n": 0 }).as_object()
    );

    assert!(host.mount("remote", &other).unwrap().is_empty());
    assert_eq!(
        call(&host, "remote.other.echo", json!({ "n": 3 })).data(),
        json!({ "n": 3 }).as_object()
    );
    assert!(host.mount("Bad Prefix", &other).is_err());
}

#[test]
fn a_registry_extends_another() {
    let base = Registry::builder()
        .inventory()
        .prefix("reg.math.")
        .build()
        .unwrap();
    let extended = Registry::builder()
        .registry(&base)
        .tool(echo_definition("dyn.echo"), |arguments, _| async move {
            Ok::<_, ToolError>(Value::Object(arguments))
        })
        .build()
        .unwrap();
    assert_eq!(names(&extended), ["dyn.echo", "reg.math.add"]);
    assert_eq!(
        call(&extended, "reg.math.add", json!({ "a": 1, "b": 2 })).data(),
        json!({ "result": 3 }).as_object()
    );
}

#[test]
fn duplicate_dynamic_tools_are_refused_at_build_with_both_locations() {
    let err = Registry::builder()
        .tool(echo_definition("dyn.twice"), |_, _| async {
            Ok::<_, ToolError>(Value::Null)
        })
        .tool(echo_definition("dyn.twice"), |_, _| async {
            Ok::<_, ToolError>(Value::Null)
        })
        .build()
        .expect_err("refused");
    let message = err.to_string();
    assert_eq!(
        message.matches("tests/tests/registry.rs:").count(),
        2,
        "{message}"
    );
}

#[test]
fn a_thousand_tools_build_and_list_in_order() {
    let mut builder = Registry::builder().default_timeout(Some(Duration::from_secs(5)));
    // Registered in an order that is not the sorted one.
    for i in (0..1000).rev() {
        let definition = echo_definition(&format!("many.tool_{i:04}"))
            .with_output(schema::output_schema::<Value>())
            .unwrap();
        builder = builder.tool(definition, move |_, _| async move {
            Ok::<_, ToolError>(json!(i))
        });
    }
    let registry = builder.build().unwrap();
    assert_eq!(registry.len(), 1000);
    let listed = names(&registry);
    let expected: Vec<String> = (0..1000).map(|i| format!("many.tool_{i:04}")).collect();
    assert_eq!(listed, expected);
    assert_eq!(
        call(&registry, "many.tool_0777", json!({ "n": 0 })).data(),
        json!({ "result": 777 }).as_object()
    );
}
