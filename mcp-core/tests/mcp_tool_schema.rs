//! `ToolDefinition` on the wire against the official MCP `Tool` schema.
//!
//! A definition serialized with serde_json must validate against `Tool` of the MCP schemas
//! in `spec/mcp/` (2025-06-18, 2025-11-25, 2026-07-28), and what MCP has no field for
//! (version, category, tags, `dangerous`, `requires_sandbox`) must travel only under
//! `_meta["mcp-runtime/tool"]` ([`mcp_runtime_core::META_KEY`]).
//!
//! The validator for a version is built from `{"$schema": <the file's $schema>, "$defs":
//! <the file's $defs>, "$ref": "#/$defs/Tool"}`. The 2025-06-18 file is draft-07 and keeps
//! its definitions under `definitions` (its `$ref`s point there), so for it the same
//! document uses `definitions` and `#/definitions/Tool`.

use std::path::Path;

use mcp_runtime_core::schema::{OutputSchema, input_schema, output_data, output_schema};
use mcp_runtime_core::{META_KEY, ToolAnnotations, ToolDefinition};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// Every MCP schema version under `spec/mcp/`.
const VERSIONS: [&str; 3] = ["2025-06-18", "2025-11-25", "2026-07-28"];

/// The fields MCP's `Tool` lacks, as `_meta[META_KEY]` spells them and as the seeds do.
const NON_MCP_FIELDS: [&str; 6] = [
    "version",
    "category",
    "tags",
    "dangerous",
    "requiresSandbox",
    "requires_sandbox",
];

/// Arguments of the tool under test.
#[derive(Debug, Deserialize, JsonSchema)]
struct ReadArgs {
    /// Path of the file to read.
    file_path: String,
    /// Read at most this many characters.
    max_chars: Option<u32>,
}

/// Structured output of the tool under test.
#[derive(Serialize, JsonSchema)]
struct FileContent {
    /// The text read.
    file_content: String,
    /// Whether `max_chars` cut the text short.
    truncated: bool,
}

// ---------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------

fn spec(version: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../spec/mcp")
        .join(version)
        .join("schema.json");
    let text =
        std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

/// The key holding the file's definitions: `$defs` (2020-12) or `definitions` (draft-07).
fn definitions_key(spec: &Value) -> &'static str {
    if spec.get("$defs").is_some() {
        "$defs"
    } else {
        "definitions"
    }
}

fn definition<'a>(spec: &'a Value, name: &str) -> &'a Value {
    let key = definitions_key(spec);
    spec[key]
        .get(name)
        .unwrap_or_else(|| panic!("the MCP schema has no {key}/{name}"))
}

/// The property names a definition of the MCP schema declares.
fn declared_properties(spec: &Value, name: &str) -> Vec<String> {
    definition(spec, name)["properties"]
        .as_object()
        .unwrap_or_else(|| panic!("{name} has no properties"))
        .keys()
        .cloned()
        .collect()
}

fn tool_validator(version: &str) -> jsonschema::Validator {
    definition_validator(version, "Tool")
}

/// A validator of the MCP schema's definition `name`.
fn definition_validator(version: &str, name: &str) -> jsonschema::Validator {
    let spec = spec(version);
    let key = definitions_key(&spec);
    let mut root = Map::new();
    root.insert("$schema".into(), spec["$schema"].clone());
    root.insert(key.into(), spec[key].clone());
    root.insert("$ref".into(), format!("#/{key}/{name}").into());
    jsonschema::validator_for(&Value::Object(root))
        .unwrap_or_else(|err| panic!("MCP {version} {name} schema does not compile: {err}"))
}

/// The errors of `wire` against MCP `version`'s `Tool`, one line each.
fn tool_errors(version: &str, wire: &Value) -> Vec<String> {
    tool_validator(version)
        .iter_errors(wire)
        .map(|err| format!("at `{}`: {err}", err.instance_path()))
        .collect()
}

fn assert_valid_mcp_tool(version: &str, wire: &Value) {
    let errors = tool_errors(version, wire);
    assert!(
        errors.is_empty(),
        "not a valid MCP {version} Tool:\n  {}\n{wire:#}",
        errors.join("\n  ")
    );
}

fn wire(tool: &ToolDefinition) -> Value {
    serde_json::to_value(tool).expect("a ToolDefinition serializes")
}

fn keys(value: &Value) -> Vec<&str> {
    value
        .as_object()
        .unwrap_or_else(|| panic!("{value} is not an object"))
        .keys()
        .map(String::as_str)
        .collect()
}

fn minimal() -> ToolDefinition {
    ToolDefinition::new("file_utility.read_file_content", input_schema::<ReadArgs>())
        .expect("a valid minimal definition")
}

fn full(output: OutputSchema) -> ToolDefinition {
    ToolDefinition::new("file_utility.read_file_content", input_schema::<ReadArgs>())
        .expect("a valid name and object input schema")
        .with_title("Read file content")
        .with_description("Reads a text file and returns its content.")
        .with_version("1.2.3")
        .expect("a semantic version")
        .with_category("filesystem")
        .with_tags(["fs", "read"])
        // Mixed values, so that a hint mapped to the wrong MCP name shows.
        .with_annotations(ToolAnnotations {
            read_only: Some(false),
            destructive: Some(true),
            idempotent: Some(true),
            open_world: Some(false),
            dangerous: true,
            requires_sandbox: true,
        })
        .with_output(output)
        .expect("an object output schema")
}

fn full_with_struct_output() -> ToolDefinition {
    full(output_schema::<FileContent>())
}

fn full_with_wrapped_output() -> ToolDefinition {
    full(output_schema::<Vec<String>>())
}

fn all_definitions() -> [(&'static str, ToolDefinition); 3] {
    [
        ("minimal", minimal()),
        ("full, struct output", full_with_struct_output()),
        (
            "full, wrapped Vec<String> output",
            full_with_wrapped_output(),
        ),
    ]
}

// ---------------------------------------------------------------------------------------
// Validation against MCP `Tool`
// ---------------------------------------------------------------------------------------

#[test]
fn minimal_tool_definition_validates_against_mcp_2025_11_25_tool() {
    let wire = wire(&minimal());
    assert_eq!(keys(&wire), ["name", "inputSchema"]);
    assert_valid_mcp_tool("2025-11-25", &wire);
}

#[test]
fn full_tool_definition_with_struct_output_validates_against_mcp_2025_11_25_tool() {
    let tool = full_with_struct_output();
    assert!(!tool.wraps_output());
    let wire = wire(&tool);
    assert_eq!(
        keys(&wire),
        [
            "name",
            "title",
            "description",
            "inputSchema",
            "outputSchema",
            "annotations",
            "_meta"
        ]
    );
    assert_eq!(
        wire["outputSchema"],
        output_schema::<FileContent>().schema.to_value()
    );
    assert_eq!(wire["outputSchema"]["type"], "object");
    assert_valid_mcp_tool("2025-11-25", &wire);
}

#[test]
fn full_tool_definition_with_wrapped_vec_output_validates_against_mcp_2025_11_25_tool() {
    let tool = full_with_wrapped_output();
    assert!(tool.wraps_output());
    let wire = wire(&tool);
    let output = &wire["outputSchema"];
    assert_eq!(output["type"], "object");
    assert_eq!(output["required"], json!(["result"]));
    assert_eq!(output["properties"]["result"]["type"], "array");
    assert_eq!(
        output["properties"]["result"]["items"],
        json!({ "type": "string" })
    );
    assert_valid_mcp_tool("2025-11-25", &wire);
}

#[test]
fn tool_definitions_validate_against_mcp_2025_06_18_and_2026_07_28_tool() {
    for version in ["2025-06-18", "2026-07-28"] {
        for (what, tool) in all_definitions() {
            let errors = tool_errors(version, &wire(&tool));
            assert!(
                errors.is_empty(),
                "{what}: not a valid MCP {version} Tool:\n  {}",
                errors.join("\n  ")
            );
        }
    }
}

/// A change that makes a valid wire `Tool` invalid.
type Mutation = fn(&mut Value);

#[test]
fn mcp_tool_validators_reject_malformed_tools() {
    let good = wire(&full_with_struct_output());
    let mutations: [(&str, Mutation); 4] = [
        ("name missing", |w| {
            w.as_object_mut().unwrap().remove("name");
        }),
        ("inputSchema not an object root", |w| {
            w["inputSchema"]["type"] = json!("string");
        }),
        ("hint not a boolean", |w| {
            w["annotations"]["readOnlyHint"] = json!("no");
        }),
        ("_meta not an object", |w| w["_meta"] = json!("mcp-runtime")),
    ];
    for version in VERSIONS {
        assert_valid_mcp_tool(version, &good);
        for (what, mutate) in mutations {
            let mut bad = good.clone();
            mutate(&mut bad);
            assert!(
                !tool_errors(version, &bad).is_empty(),
                "MCP {version} Tool accepted a tool with {what}"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// What goes where
// ---------------------------------------------------------------------------------------

#[test]
fn fields_mcp_lacks_appear_only_under_the_meta_key() {
    for version in VERSIONS {
        let spec = spec(version);
        let tool_fields = declared_properties(&spec, "Tool");
        let annotation_fields = declared_properties(&spec, "ToolAnnotations");
        for (what, tool) in all_definitions() {
            let wire = wire(&tool);
            for key in keys(&wire) {
                assert!(
                    tool_fields.iter().any(|field| field == key),
                    "{what}: `{key}` is no field of MCP {version} Tool"
                );
            }
            if let Some(annotations) = wire.get("annotations") {
                for key in keys(annotations) {
                    assert!(
                        annotation_fields.iter().any(|field| field == key),
                        "{what}: `annotations.{key}` is no field of MCP {version} ToolAnnotations"
                    );
                }
            }
            if let Some(meta) = wire.get("_meta") {
                assert_eq!(keys(meta), [META_KEY], "{what}: `_meta` holds only our key");
            }
            for field in NON_MCP_FIELDS {
                assert!(
                    wire.get(field).is_none(),
                    "{what}: `{field}` at the top level"
                );
                assert!(
                    wire.get("annotations").and_then(|a| a.get(field)).is_none(),
                    "{what}: `{field}` in `annotations`"
                );
            }
        }
    }
}

#[test]
fn meta_key_holds_version_category_tags_and_seed_003_flags() {
    assert_eq!(META_KEY, "mcp-runtime/tool");
    assert_eq!(
        wire(&full_with_struct_output())["_meta"][META_KEY],
        json!({
            "version": "1.2.3",
            "category": "filesystem",
            "tags": ["fs", "read"],
            "dangerous": true,
            "requiresSandbox": true,
        })
    );
    // Nothing set, nothing sent: no default version, no flag that is off.
    assert_eq!(wire(&minimal()).get("_meta"), None);
}

#[test]
fn meta_key_is_a_valid_unreserved_mcp_meta_key() {
    // The `_meta` key grammar of MCP (2026-07-28 `MetaObject`): an optional prefix of
    // dot-separated labels (letter first, letter or digit last, hyphens inside) and a slash,
    // then a name (alphanumeric first and last; `-`, `_`, `.` inside).
    let label = "[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?";
    let name = "(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?";
    let pattern = format!("^(?:{label}(?:\\.{label})*/)?{name}$");
    let grammar =
        jsonschema::validator_for(&json!({ "type": "string", "pattern": pattern })).unwrap();
    assert!(
        grammar.is_valid(&json!(META_KEY)),
        "{META_KEY} breaks the _meta key grammar"
    );
    assert!(
        !grammar.is_valid(&json!("-bad/key")),
        "the grammar check is not vacuous"
    );

    // A prefix whose second label is `modelcontextprotocol` or `mcp` is reserved for MCP.
    let (prefix, _) = META_KEY.split_once('/').expect("the key has a prefix");
    let second_label = prefix.split('.').nth(1);
    assert!(
        !matches!(second_label, Some("modelcontextprotocol" | "mcp")),
        "{META_KEY} uses a prefix reserved for MCP"
    );
}

#[test]
fn behaviour_hints_map_to_mcp_annotation_names() {
    assert_eq!(
        wire(&full_with_struct_output())["annotations"],
        json!({
            "readOnlyHint": false,
            "destructiveHint": true,
            "idempotentHint": true,
            "openWorldHint": false,
        })
    );
    let only_read_only = minimal().with_annotations(ToolAnnotations {
        read_only: Some(true),
        ..ToolAnnotations::default()
    });
    assert_eq!(
        wire(&only_read_only)["annotations"],
        json!({ "readOnlyHint": true })
    );
}

// ---------------------------------------------------------------------------------------
// The schemas on the wire
// ---------------------------------------------------------------------------------------

#[test]
fn input_schema_on_the_wire_accepts_what_the_args_type_accepts() {
    let wire = wire(&full_with_struct_output());
    assert_eq!(wire["inputSchema"], input_schema::<ReadArgs>().to_value());
    assert_eq!(wire["inputSchema"]["required"], json!(["file_path"]));

    let validator = jsonschema::validator_for(&wire["inputSchema"]).unwrap();
    let arguments = json!({ "file_path": "/path/to/file.txt", "max_chars": 1024 });
    assert!(validator.is_valid(&arguments));
    let args: ReadArgs = serde_json::from_value(arguments).unwrap();
    assert_eq!(args.file_path, "/path/to/file.txt");
    assert_eq!(args.max_chars, Some(1024));

    let missing_path = json!({ "max_chars": 1024 });
    assert!(!validator.is_valid(&missing_path));
    assert!(serde_json::from_value::<ReadArgs>(missing_path).is_err());
}

#[test]
fn output_schemas_on_the_wire_accept_the_tools_structured_output() {
    let structured = wire(&full_with_struct_output());
    let validator = jsonschema::validator_for(&structured["outputSchema"]).unwrap();
    let content = FileContent {
        file_content: "Hello World".into(),
        truncated: false,
    };
    assert!(validator.is_valid(&serde_json::to_value(&content).unwrap()));
    assert!(!validator.is_valid(&json!({ "file_content": 42, "truncated": false })));

    let wrapped = wire(&full_with_wrapped_output());
    let validator = jsonschema::validator_for(&wrapped["outputSchema"]).unwrap();
    let data = output_data(json!(["a.txt", "b.txt"]), true).expect("wrapped data");
    assert!(validator.is_valid(&Value::Object(data)));
    assert!(
        !validator.is_valid(&json!(["a.txt", "b.txt"])),
        "the bare array is not the data"
    );
}

// ---------------------------------------------------------------------------------------
// Mirrored arguments and required client capabilities
// ---------------------------------------------------------------------------------------

/// A tool with an argument mirrored into a header and client capabilities it requires.
fn with_header_and_required_capabilities() -> ToolDefinition {
    let input = schemars::json_schema!({
        "type": "object",
        "properties": {
            "region": { "type": "string", "x-mcp-header": "Region" },
            "query": { "type": "string" }
        },
        "required": ["region", "query"]
    });
    let required = json!({ "sampling": {}, "elicitation": { "url": {} } });
    ToolDefinition::new("sql.execute", input)
        .expect("a valid x-mcp-header annotation")
        .with_required_client_capabilities(required.as_object().cloned().unwrap_or_default())
        .expect("object capabilities")
}

#[test]
fn a_tool_with_a_header_annotation_and_required_capabilities_validates_against_every_mcp_tool() {
    let wire = wire(&with_header_and_required_capabilities());
    assert_eq!(
        wire["inputSchema"]["properties"]["region"]["x-mcp-header"],
        "Region"
    );
    assert_eq!(keys(&wire["_meta"]), [META_KEY]);
    for version in VERSIONS {
        assert_valid_mcp_tool(version, &wire);
    }
}

#[test]
fn required_client_capabilities_in_meta_are_an_mcp_client_capabilities_object() {
    let wire = wire(&with_header_and_required_capabilities());
    let required = &wire["_meta"][META_KEY]["requiredClientCapabilities"];
    assert_eq!(
        required,
        &json!({ "sampling": {}, "elicitation": { "url": {} } })
    );
    for version in ["2025-11-25", "2026-07-28"] {
        let validator = definition_validator(version, "ClientCapabilities");
        let errors: Vec<String> = validator
            .iter_errors(required)
            .map(|err| err.to_string())
            .collect();
        assert!(
            errors.is_empty(),
            "not an MCP {version} ClientCapabilities: {errors:?}"
        );
        assert!(
            !validator.is_valid(&json!({ "sampling": true })),
            "the check is not vacuous"
        );
    }
}
