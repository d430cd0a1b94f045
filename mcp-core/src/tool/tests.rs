use super::*;
use serde_json::json;

fn input() -> Schema {
    schemars::json_schema!({"type": "object", "properties": {}})
}

#[test]
fn refuses_bad_names_versions_and_roots() {
    assert!(matches!(
        ToolDefinition::new("nodot", input()),
        Err(DefinitionError::Name(_))
    ));
    assert!(matches!(
        ToolDefinition::new("a.b", schemars::json_schema!({"type": "string"})),
        Err(DefinitionError::NotAnObjectSchema { which: "input", .. })
    ));
    let err = ToolDefinition::new("a.b", input())
        .unwrap()
        .with_version("1.0")
        .unwrap_err();
    assert!(
        err.to_string().contains("`1.0` is not a semantic version"),
        "{err}"
    );
}

#[test]
fn serializes_hints_and_meta() {
    let tool = ToolDefinition::new("fs.delete", input())
        .unwrap()
        .with_title("Delete a file")
        .with_category("filesystem")
        .with_tags(["fs"])
        .with_annotations(ToolAnnotations {
            destructive: Some(true),
            dangerous: true,
            ..ToolAnnotations::default()
        });
    let wire = serde_json::to_value(&tool).unwrap();
    assert_eq!(wire["title"], "Delete a file");
    assert_eq!(wire["annotations"], json!({"destructiveHint": true}));
    assert_eq!(
        wire["_meta"][META_KEY],
        json!({"category": "filesystem", "tags": ["fs"], "dangerous": true})
    );
}

#[test]
fn a_tool_with_nothing_but_defaults_has_no_title_annotations_or_meta() {
    let tool = ToolDefinition::new("math.add", input())
        .unwrap()
        .with_package_version("0.1.0")
        .unwrap()
        .with_title("Add two integers")
        .with_description("Add two integers.\n\nFails on overflow.");
    assert_eq!(tool.version().to_string(), "0.1.0");
    assert_eq!(tool.title(), Some("Add two integers"));
    let wire = serde_json::to_string(&tool).unwrap();
    assert_eq!(
        wire,
        r#"{"name":"math.add","description":"Add two integers.\n\nFails on overflow.","inputSchema":{"type":"object","properties":{}}}"#
    );
}

#[test]
fn a_stated_version_and_flags_that_are_on_travel_in_meta() {
    let tool = ToolDefinition::new("fs.wipe", input())
        .unwrap()
        .with_package_version("0.1.0")
        .unwrap()
        .with_version("2.0.0")
        .unwrap()
        .with_annotations(ToolAnnotations {
            requires_sandbox: true,
            ..ToolAnnotations::default()
        });
    let wire = serde_json::to_value(&tool).unwrap();
    assert_eq!(
        wire["_meta"],
        json!({ META_KEY: {"version": "2.0.0", "requiresSandbox": true} })
    );
    let repackaged = tool.with_package_version("0.2.0").unwrap();
    let wire = serde_json::to_value(&repackaged).unwrap();
    assert_eq!(
        wire["_meta"],
        json!({ META_KEY: {"requiresSandbox": true} })
    );
}

#[test]
fn a_title_is_listed_only_when_it_is_not_the_summary_line() {
    let tool = |title: &str, description: Option<&str>| {
        let tool = ToolDefinition::new("doc.tool", input())
            .unwrap()
            .with_title(title);
        match description {
            Some(description) => tool.with_description(description),
            None => tool,
        }
    };
    // The summary line, with or without its closing period.
    assert_eq!(
        tool("Read a file", Some("Read a file.")).listed_title(),
        None
    );
    assert_eq!(
        tool("Read a file.", Some("Read a file.\nMore.")).listed_title(),
        None
    );
    assert_eq!(
        tool("Read a file", Some("Read a file")).listed_title(),
        None
    );
    // A heading, a title of its own, or no description to repeat it.
    assert_eq!(
        tool("File reader", Some("Read a file.")).listed_title(),
        Some("File reader")
    );
    assert_eq!(
        tool("Read a file", Some("Read a file and more.")).listed_title(),
        Some("Read a file")
    );
    assert_eq!(
        tool("Read", Some("Line one.\nRead")).listed_title(),
        Some("Read")
    );
    assert_eq!(
        tool("Read a file", None).listed_title(),
        Some("Read a file")
    );
    let wire = serde_json::to_value(tool("Read a file", Some("Read a file."))).unwrap();
    assert!(wire.get("title").is_none(), "{wire}");
}

#[test]
fn an_input_schema_breaking_the_header_rules_is_refused_naming_tool_and_place() {
    let schema = schemars::json_schema!({
        "type": "object",
        "properties": {
            "region": { "type": "string", "x-mcp-header": "Region" },
            "zone": { "type": "string", "x-mcp-header": "REGION" }
        }
    });
    let err = ToolDefinition::new("sql.execute", schema).unwrap_err();
    assert_eq!(
        err,
        DefinitionError::HeaderAnnotation {
            tool: "sql.execute".into(),
            at: "/properties/zone".into(),
            error: HeaderError::Duplicate {
                name: "REGION".into(),
                other: "region".into()
            },
        }
    );
    assert_eq!(
        err.to_string(),
        "tool `sql.execute`: the `x-mcp-header` annotation at `/properties/zone` of the input schema `REGION` is already the header of `region`; header names are compared case-insensitively"
    );
}

#[test]
fn header_params_are_read_from_the_input_schema() {
    let schema = schemars::json_schema!({
        "type": "object",
        "properties": {
            "query": { "type": "string" },
            "region": { "type": "string", "x-mcp-header": "Region" }
        }
    });
    let tool = ToolDefinition::new("sql.execute", schema).unwrap();
    assert_eq!(tool.header_params(), [HeaderParam::new("region", "Region")]);
    let plain = ToolDefinition::new("sql.execute", input()).unwrap();
    assert_eq!(plain.header_params(), []);
}

#[test]
fn required_client_capabilities_travel_in_meta_only_when_there_are_some() {
    let tool = ToolDefinition::new("notes.summarize", input()).unwrap();
    assert!(tool.required_client_capabilities().is_empty());
    let wire = serde_json::to_value(&tool).unwrap();
    assert!(
        wire["_meta"][META_KEY]
            .get("requiredClientCapabilities")
            .is_none()
    );

    let required = json!({"sampling": {}, "elicitation": {"url": {}}});
    let tool = tool
        .with_required_client_capabilities(required.as_object().unwrap().clone())
        .unwrap();
    assert_eq!(
        Value::Object(tool.required_client_capabilities().clone()),
        required
    );
    let wire = serde_json::to_value(&tool).unwrap();
    assert_eq!(
        wire["_meta"][META_KEY]["requiredClientCapabilities"],
        required
    );
}

#[test]
fn a_required_client_capability_that_is_no_object_is_refused() {
    let err = ToolDefinition::new("notes.summarize", input())
        .unwrap()
        .with_required_client_capabilities(
            json!({"sampling": {}, "roots": true})
                .as_object()
                .unwrap()
                .clone(),
        )
        .unwrap_err();
    assert_eq!(
        err,
        DefinitionError::ClientCapability {
            tool: "notes.summarize".into(),
            capability: "roots".into(),
        }
    );
}
