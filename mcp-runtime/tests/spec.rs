//! The generated `MCP_TOOL_SPECIFICATION.md` and its index, checked whole: every section of
//! the tool-specification template, for tools made with `#[mcp_tool]` and dynamic ones.

use std::cell::RefCell;
use std::time::Duration;

use mcp_runtime::spec::{index, specification};
use mcp_runtime::{
    ErrorType, MCPToolCall, MCPToolResult, RegisteredTool, Registry, ToolAnnotations,
    ToolDefinition, mcp_tool,
};
use serde::Serialize;
use serde_json::{Map, Value, json};

mod support;
use support::registry_of;

/// The distance between two points.
#[derive(Serialize, schemars::JsonSchema)]
struct Distance {
    /// Along the grid lines.
    steps: u32,
}

/// # Grid distance
///
/// Counts the steps between two points of a grid.
#[mcp_tool(
    namespace = "geo",
    version = "2.1.0",
    category = "maps",
    tags("grid", "pure"),
    read_only,
    open_world = false,
    inline,
    example = r#"{"from": 3, "to": 7}"#
)]
fn steps(
    /// Where to start.
    from: u32,
    /// Where to stop.
    to: u32,
) -> Distance {
    Distance {
        steps: from.abs_diff(to),
    }
}

/// The tool `name` of `registry`.
fn tool<'a>(registry: &'a Registry, name: &str) -> &'a RegisteredTool {
    registry.get(name).expect("the tool is registered")
}

/// A `run` for tools without examples, which must not call it.
fn never(_arguments: &Map<String, Value>) -> Option<MCPToolResult> {
    panic!("a tool without examples is never run")
}

/// A tool of every kind of property: its input schema, written out, has each form of type
/// the table names and each type a placeholder is made for.
fn survey() -> ToolDefinition {
    let input = schemars::json_schema!({
        "type": "object",
        "properties": {
            "count": { "type": "integer", "minimum": 3, "description": "How many;\nat least 3 | more." },
            "limit": { "type": ["integer", "null"] },
            "ratio": { "type": "number" },
            "force": { "type": "boolean" },
            "label": { "type": "string" },
            "ids": { "type": "array", "items": { "type": "string" } },
            "raw": { "type": "array" },
            "nothing": { "type": "null" },
            "never": { "type": ["null"] },
            "origin": { "$ref": "#/$defs/Point" },
            "shape": { "oneOf": [{ "type": "string" }, { "type": "integer" }] },
            "either": { "anyOf": [{ "type": "string" }, { "type": "null" }] },
            "extra": {},
            "note": { "type": "string", "description": "Optional." }
        },
        "required": ["count", "limit", "ratio", "force", "label", "ids", "raw", "nothing",
                     "never", "origin"],
        "$defs": { "Point": { "type": "object" } }
    });
    ToolDefinition::new("survey.all", input)
        .expect("a valid definition")
        .with_annotations(ToolAnnotations {
            read_only: None,
            destructive: Some(true),
            idempotent: Some(false),
            open_world: Some(true),
            dangerous: true,
            requires_sandbox: true,
        })
        .with_timeout(Duration::from_millis(1500))
        .with_errors([
            ErrorType::FileNotFoundError,
            ErrorType::Custom("QuotaError".to_owned()),
        ])
        .with_deprecated("use `survey.some` instead")
}

/// A tool without parameters, with an output that is not an object and an example.
fn bare() -> ToolDefinition {
    let input = schemars::json_schema!({ "type": "object", "properties": {} });
    ToolDefinition::new("bare.none", input)
        .expect("a valid definition")
        .with_output(mcp_runtime::schema::output_schema::<u32>())
        .expect("an object output")
        .with_example(Map::new())
}

/// A tool with a multi-line description of a `|`, for the index.
fn listed() -> ToolDefinition {
    ToolDefinition::new("atlas.route", schemars::json_schema!({ "type": "object" }))
        .expect("a valid definition")
        .with_version("1.2.3")
        .expect("a semantic version")
        .with_description("Finds a route | or none.\n\nThe second paragraph is not in the index.")
}

/// A tool with nothing but a name and an object schema without properties.
fn unlisted() -> ToolDefinition {
    ToolDefinition::new("atlas.zoom", schemars::json_schema!({ "type": "object" }))
        .expect("a valid definition")
}

/// Section `number` of `spec`, from its heading to the next one (or the end).
fn section(spec: &str, number: u32) -> &str {
    let heading = format!("### {number}. ");
    let start = spec
        .find(&heading)
        .unwrap_or_else(|| panic!("no section {number} in\n{spec}"));
    let rest = &spec[start..];
    let end = rest[heading.len()..]
        .find("### ")
        .map_or(rest.len(), |at| at + heading.len());
    &rest[..end]
}

#[test]
fn an_mcp_tool_is_documented_in_every_section_with_its_examples_run() {
    let registry = Registry::builder()
        .inventory()
        .build()
        .expect("a valid registry");
    let steps = tool(&registry, "geo.steps");
    let runs = RefCell::new(Vec::new());
    let spec = specification(steps, |arguments| {
        runs.borrow_mut().push(Value::Object(arguments.clone()));
        Some(registry.call_blocking(MCPToolCall {
            tool_name: steps.name().clone(),
            arguments: arguments.clone(),
        }))
    });
    assert_eq!(runs.into_inner(), [json!({ "from": 3, "to": 7 })]);
    assert_eq!(
        spec,
        r##"## Tool: `geo.steps`

**Version**: 2.1.0

### 1. Tool Purpose and Description

**Grid distance**

Counts the steps between two points of a grid.

- Category: `maps`
- Tags: `grid`, `pure`

### 2. Invocation Name

`geo.steps`

### 3. Input Schema (Parameters)

| Parameter | Type | Required | Description |
|---|---|---|---|
| `from` | integer | yes | Where to start. |
| `to` | integer | yes | Where to stop. |

```json
{
  "type": "object",
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "properties": {
    "from": {
      "type": "integer",
      "format": "uint32",
      "minimum": 0,
      "description": "Where to start."
    },
    "to": {
      "type": "integer",
      "format": "uint32",
      "minimum": 0,
      "description": "Where to stop."
    }
  },
  "required": [
    "from",
    "to"
  ],
  "additionalProperties": false
}
```

### 4. Output Schema (Return Value)

| Field | Type | Required | Description |
|---|---|---|---|
| `steps` | integer | yes | Along the grid lines. |

```json
{
  "type": "object",
  "properties": {
    "steps": {
      "type": "integer",
      "format": "uint32",
      "minimum": 0,
      "description": "Along the grid lines."
    }
  },
  "required": [
    "steps"
  ],
  "description": "The distance between two points.",
  "$schema": "https://json-schema.org/draft/2020-12/schema"
}
```

### 5. Error Handling

A failure is a result with `status: "failure"` and an `error` of the form `{"error_type", "error_message", "error_details"}`.

- `ValidationError`: the arguments do not match the input schema; `error_details.errors` lists each violation with its JSON pointer
- `ToolExecutionError`: the tool failed for a reason of its own, or panicked

### 6. Idempotency

Read-only: the tool changes nothing, so calling it again is safe.

### 7. Usage Examples

Example 1: the call

```json
{
  "tool_name": "geo.steps",
  "arguments": {
    "from": 3,
    "to": 7
  }
}
```

and its result

```json
{
  "status": "success",
  "data": {
    "steps": 4
  },
  "error": null,
  "explanation": null
}
```

### 8. Security Considerations

- Arguments are validated against the input schema before the tool runs; values are never echoed in errors.
- Read-only: it does not modify its environment.
- Closed world: it reaches nothing outside its own domain.
"##
    );
}

#[test]
fn a_tool_without_examples_is_documented_with_a_call_of_placeholders() {
    let registry = registry_of(&[survey()]);
    assert_eq!(
        specification(tool(&registry, "survey.all"), never),
        r##"## Tool: `survey.all`

**Version**: 0.0.0

### 1. Tool Purpose and Description

(no description)

- **Deprecated**: use `survey.some` instead

### 2. Invocation Name

`survey.all`

### 3. Input Schema (Parameters)

| Parameter | Type | Required | Description |
|---|---|---|---|
| `count` | integer | yes | How many; at least 3 \| more. |
| `limit` | integer or null | yes |  |
| `ratio` | number | yes |  |
| `force` | boolean | yes |  |
| `label` | string | yes |  |
| `ids` | array of string | yes |  |
| `raw` | array | yes |  |
| `nothing` | null | yes |  |
| `never` | null | yes |  |
| `origin` | `Point` | yes |  |
| `shape` | one of several forms | no |  |
| `either` | one of several forms | no |  |
| `extra` | any | no |  |
| `note` | string | no | Optional. |

```json
{
  "type": "object",
  "properties": {
    "count": {
      "type": "integer",
      "minimum": 3,
      "description": "How many;\nat least 3 | more."
    },
    "limit": {
      "type": [
        "integer",
        "null"
      ]
    },
    "ratio": {
      "type": "number"
    },
    "force": {
      "type": "boolean"
    },
    "label": {
      "type": "string"
    },
    "ids": {
      "type": "array",
      "items": {
        "type": "string"
      }
    },
    "raw": {
      "type": "array"
    },
    "nothing": {
      "type": "null"
    },
    "never": {
      "type": [
        "null"
      ]
    },
    "origin": {
      "$ref": "#/$defs/Point"
    },
    "shape": {
      "oneOf": [
        {
          "type": "string"
        },
        {
          "type": "integer"
        }
      ]
    },
    "either": {
      "anyOf": [
        {
          "type": "string"
        },
        {
          "type": "null"
        }
      ]
    },
    "extra": {},
    "note": {
      "type": "string",
      "description": "Optional."
    }
  },
  "required": [
    "count",
    "limit",
    "ratio",
    "force",
    "label",
    "ids",
    "raw",
    "nothing",
    "never",
    "origin"
  ],
  "$defs": {
    "Point": {
      "type": "object"
    }
  }
}
```

### 4. Output Schema (Return Value)

The tool declares no structured output.

### 5. Error Handling

A failure is a result with `status: "failure"` and an `error` of the form `{"error_type", "error_message", "error_details"}`.

- `ValidationError`: the arguments do not match the input schema; `error_details.errors` lists each violation with its JSON pointer
- `FileNotFoundError`: declared by the tool
- `QuotaError`: declared by the tool
- `TimeoutError`: the call did not finish within 1500 ms
- `PermissionError`: the tool is dangerous and the caller's policy does not allow it
- `ToolExecutionError`: the tool failed for a reason of its own, or panicked

### 6. Idempotency

Not idempotent: each call may change its environment again.

### 7. Usage Examples

No example is declared; a call, with placeholder values of the right types:

```json
{
  "tool_name": "survey.all",
  "arguments": {
    "count": 3,
    "limit": 1,
    "ratio": 1.5,
    "force": true,
    "label": "text",
    "ids": [],
    "raw": [],
    "nothing": null,
    "never": null,
    "origin": {}
  }
}
```

### 8. Security Considerations

- Arguments are validated against the input schema before the tool runs; values are never echoed in errors.
- **Dangerous**: runs only when the caller's policy allows it (an allow-list or a confirmation).
- **Runs sandboxed**: each call in an isolated worker process (network none, memory 256 MiB, 8 processes, write $SCRATCH; CPU time bounded by the timeout).
- Destructive: it may delete or overwrite data.
- Open world: it reaches entities outside its own domain (e.g. the network).
"##
    );
}

#[test]
fn a_tool_without_parameters_shows_its_wrapped_output_and_an_example_not_run() {
    let registry = registry_of(&[bare()]);
    let runs = RefCell::new(Vec::new());
    let spec = specification(tool(&registry, "bare.none"), |arguments| {
        runs.borrow_mut().push(Value::Object(arguments.clone()));
        None
    });
    assert_eq!(runs.into_inner(), [json!({})]);
    assert_eq!(
        spec,
        r##"## Tool: `bare.none`

**Version**: 0.0.0

### 1. Tool Purpose and Description

(no description)


### 2. Invocation Name

`bare.none`

### 3. Input Schema (Parameters)

No parameters.

```json
{
  "type": "object",
  "properties": {}
}
```

### 4. Output Schema (Return Value)

The value is sent as `{"result": …}`, since MCP wants an object at the root.

| Field | Type | Required | Description |
|---|---|---|---|
| `result` | integer | yes |  |

```json
{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "properties": {
    "result": {
      "type": "integer",
      "format": "uint32",
      "minimum": 0
    }
  },
  "required": [
    "result"
  ],
  "additionalProperties": false
}
```

### 5. Error Handling

A failure is a result with `status: "failure"` and an `error` of the form `{"error_type", "error_message", "error_details"}`.

- `ValidationError`: the arguments do not match the input schema; `error_details.errors` lists each violation with its JSON pointer
- `ToolExecutionError`: the tool failed for a reason of its own, or panicked

### 6. Idempotency

Not declared: assume each call may change its environment.

### 7. Usage Examples

Example 1: the call

```json
{
  "tool_name": "bare.none",
  "arguments": {}
}
```

(its result is not shown: only read-only tools are run to document them)

### 8. Security Considerations

- Arguments are validated against the input schema before the tool runs; values are never echoed in errors.
"##
    );
}

#[test]
fn a_schema_without_properties_has_no_table_and_a_call_without_arguments() {
    let registry = registry_of(&[unlisted()]);
    let spec = specification(tool(&registry, "atlas.zoom"), never);
    assert_eq!(
        section(&spec, 3),
        "### 3. Input Schema (Parameters)\n\n```json\n{\n  \"type\": \"object\"\n}\n```\n\n"
    );
    assert_eq!(
        section(&spec, 7),
        "### 7. Usage Examples\n\n\
         No example is declared; a call, with placeholder values of the right types:\n\n\
         ```json\n{\n  \"tool_name\": \"atlas.zoom\",\n  \"arguments\": {}\n}\n```\n\n"
    );
}

#[test]
fn idempotency_and_security_follow_the_annotations() {
    let validated = "- Arguments are validated against the input schema before the tool runs; \
                     values are never echoed in errors.\n";
    let cases = [
        (
            ToolAnnotations::default(),
            "Not declared: assume each call may change its environment.",
            vec![],
        ),
        (
            ToolAnnotations {
                read_only: Some(true),
                idempotent: Some(false),
                ..ToolAnnotations::default()
            },
            "Read-only: the tool changes nothing, so calling it again is safe.",
            vec!["Read-only: it does not modify its environment."],
        ),
        (
            ToolAnnotations {
                idempotent: Some(true),
                destructive: Some(false),
                open_world: Some(false),
                ..ToolAnnotations::default()
            },
            "Idempotent: calling it again with the same arguments has no further effect.",
            vec![
                "Not destructive: it only adds to its environment.",
                "Closed world: it reaches nothing outside its own domain.",
            ],
        ),
        (
            ToolAnnotations {
                read_only: Some(false),
                idempotent: Some(false),
                ..ToolAnnotations::default()
            },
            "Not idempotent: each call may change its environment again.",
            vec![],
        ),
    ];
    for (annotations, idempotency, security) in cases {
        let registry = registry_of(&[unlisted().with_annotations(annotations)]);
        let spec = specification(tool(&registry, "atlas.zoom"), never);
        assert_eq!(
            section(&spec, 6),
            format!("### 6. Idempotency\n\n{idempotency}\n\n"),
            "{annotations:?}"
        );
        let lines: String = security.iter().map(|line| format!("- {line}\n")).collect();
        assert_eq!(
            section(&spec, 8),
            format!("### 8. Security Considerations\n\n{validated}{lines}"),
            "{annotations:?}"
        );
    }
}

#[test]
fn a_tools_oauth_scopes_are_named_in_its_security_considerations() {
    let registry = registry_of(&[unlisted().with_scopes(["notes:read", "notes:write"])]);
    let spec = specification(tool(&registry, "atlas.zoom"), never);
    assert!(
        section(&spec, 8).contains(
            "\n- **OAuth scopes**: served behind OAuth, a caller needs `notes:read`, `notes:write`.\n"
        ),
        "{}",
        section(&spec, 8)
    );
    let unscoped = registry_of(&[unlisted()]);
    let spec = specification(tool(&unscoped, "atlas.zoom"), never);
    assert!(
        !section(&spec, 8).contains("OAuth"),
        "{}",
        section(&spec, 8)
    );
}

#[test]
fn the_index_links_each_tool_with_its_version_and_first_line() {
    let registry = registry_of(&[listed(), unlisted()]);
    assert_eq!(
        index(registry.list()),
        r##"# Tool specifications

| Tool | Version | Description |
|---|---|---|
| [`atlas.route`](atlas.route/MCP_TOOL_SPECIFICATION.md) | 1.2.3 | Finds a route \| or none. |
| [`atlas.zoom`](atlas.zoom/MCP_TOOL_SPECIFICATION.md) | 0.0.0 |  |
"##
    );
}
