//! Strict where the schema says strict: a struct below the root refuses a field it does not
//! have, as the arguments object does, and a value that fits no branch of an enum is told
//! which branch came closest and what it wanted.

use std::collections::BTreeMap;

use mcp_runtime::{ErrorType, MCPToolCall, MCPToolResult, Registry, mcp_tool};
use serde_json::{Value, json};

mod support;
use support::failure;

/// A point on the canvas.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct Point {
    /// Across.
    x: i32,
    /// Down.
    y: i32,
    /// How far into the canvas, if it has depth.
    depth: Option<i32>,
}

/// A colour.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Color {
    Red,
    Green,
    Blue,
}

/// Paints a dot.
#[mcp_tool(namespace = "strict", inline)]
fn paint(
    /// The colour.
    color: Color,
    /// Where.
    at: Point,
    /// Where else, if anywhere.
    also: Option<Vec<Point>>,
) -> String {
    let others = also.map_or(0, |also| also.len());
    let depth = at.depth.unwrap_or(0);
    format!("{color:?} at {},{},{depth} and {others} more", at.x, at.y)
}

/// Extra settings, kept as they come.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[schemars(extend("additionalProperties" = true))]
struct Loose {
    /// The only setting read.
    level: u8,
}

/// A label with any number of named values beside it.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct Labelled {
    /// The label.
    label: String,
    /// Everything else.
    #[serde(flatten)]
    values: BTreeMap<String, i64>,
}

/// Takes what stays open: a map, a struct that opts out, a flattened map.
#[mcp_tool(namespace = "strict", inline)]
fn open(
    /// Counts by name.
    counts: BTreeMap<String, Point>,
    /// Settings.
    loose: Loose,
    /// A label and its values.
    labelled: Labelled,
) -> usize {
    counts.len() + usize::from(loose.level) + labelled.values.len() + labelled.label.len()
}

fn call(name: &str, arguments: Value) -> MCPToolResult {
    Registry::global().call_blocking(MCPToolCall::new(name, arguments).expect("a valid call"))
}

/// The violations of a refused call: path, keyword and message each.
fn violations(result: &MCPToolResult) -> Vec<(String, String, String)> {
    let (error_type, _, details) = failure(result);
    assert_eq!(error_type, ErrorType::ValidationError, "{result:?}");
    details["errors"]
        .as_array()
        .expect("a list of errors")
        .iter()
        .map(|error| {
            let field = |key: &str| error[key].as_str().expect(key).to_owned();
            (field("path"), field("keyword"), field("message"))
        })
        .collect()
}

#[test]
fn nested_structs_are_advertised_closed_and_maps_open() {
    let tool = Registry::global().get("strict.paint").unwrap();
    let schema = tool.definition().input_schema().as_value();
    assert_eq!(schema["additionalProperties"], false, "{schema}");
    assert_eq!(schema["$defs"]["Point"]["additionalProperties"], false);
    let tool = Registry::global().get("strict.open").unwrap();
    let schema = tool.definition().input_schema().as_value();
    assert_eq!(
        schema["properties"]["counts"]["additionalProperties"],
        json!({ "$ref": "#/$defs/Point" })
    );
    assert_eq!(schema["$defs"]["Loose"]["additionalProperties"], true);
    assert_eq!(
        schema["$defs"]["Labelled"]["additionalProperties"],
        json!({ "type": "integer", "format": "int64" })
    );
}

#[test]
fn an_unknown_field_of_a_nested_struct_is_refused_with_its_pointer() {
    let result = call(
        "strict.paint",
        json!({ "color": "red", "at": { "x": 1, "y": 2, "z": 3 } }),
    );
    let (_, message, _) = failure(&result);
    assert_eq!(
        message,
        "invalid arguments for tool `strict.paint`: `/at`: Additional properties are not \
         allowed ('z' was unexpected)"
    );
    assert_eq!(
        violations(&result),
        [(
            "/at".to_owned(),
            "additionalProperties".to_owned(),
            "Additional properties are not allowed ('z' was unexpected)".to_owned()
        )]
    );
    // A misspelt optional field, deeper, in a list.
    let result = call(
        "strict.paint",
        json!({ "color": "red", "at": { "x": 1, "y": 2 }, "also": [{ "x": 1, "y": 2, "dpeth": 3 }] }),
    );
    assert_eq!(
        violations(&result),
        [(
            "/also/0".to_owned(),
            "additionalProperties".to_owned(),
            "Additional properties are not allowed ('dpeth' was unexpected)".to_owned()
        )]
    );
    // As at the top level.
    let result = call(
        "strict.paint",
        json!({ "color": "red", "at": { "x": 1, "y": 2 }, "extra": 1 }),
    );
    assert_eq!(
        violations(&result),
        [(
            String::new(),
            "additionalProperties".to_owned(),
            "Additional properties are not allowed ('extra' was unexpected)".to_owned()
        )]
    );
    let result = call(
        "strict.paint",
        json!({ "color": "red", "at": { "x": 1, "y": 2, "depth": 3 } }),
    );
    assert_eq!(
        result.data(),
        json!({ "result": "Red at 1,2,3 and 0 more" }).as_object()
    );
}

#[test]
fn maps_flattened_maps_and_structs_that_opt_out_take_any_name() {
    let result = call(
        "strict.open",
        json!({
            "counts": { "a": { "x": 1, "y": 2 } },
            "loose": { "level": 1, "anything": true },
            "labelled": { "label": "l", "one": 1, "two": 2 },
        }),
    );
    assert_eq!(result.data(), json!({ "result": 5 }).as_object());
    // A struct inside a map is still closed.
    let result = call(
        "strict.open",
        json!({
            "counts": { "a": { "x": 1, "y": 2, "w": 0 } },
            "loose": { "level": 1 },
            "labelled": { "label": "l" },
        }),
    );
    assert_eq!(
        violations(&result),
        [(
            "/counts/a".to_owned(),
            "additionalProperties".to_owned(),
            "Additional properties are not allowed ('w' was unexpected)".to_owned()
        )]
    );
}

/// A shape, tagged inside (`{"kind": "circle", "radius": 1}`).
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)] // Read through `Debug` alone.
#[serde(tag = "kind", rename_all = "snake_case")]
enum Inside {
    Circle { radius: f64 },
    Square { side: f64 },
}

/// A shape, tagged beside its content (`{"t": "circle", "c": {"radius": 1}}`).
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)] // Read through `Debug` alone.
#[serde(tag = "t", content = "c", rename_all = "snake_case")]
enum Beside {
    Circle { radius: f64 },
    Square(f64),
}

/// A shape, tagged outside, as serde does by default (`{"circle": {"radius": 1}}`).
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)] // Read through `Debug` alone.
#[serde(rename_all = "snake_case")]
enum Outside {
    Circle { radius: f64 },
    Square(f64),
    Dot,
}

/// A shape without a tag: whichever fits.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)] // Read through `Debug` alone.
#[serde(untagged)]
enum Untagged {
    At(Point),
    Size(f64),
    Named { name: String, sides: u8 },
}

/// Measures shapes of every kind of enum.
#[mcp_tool(namespace = "strict", inline)]
fn measure(
    /// Tagged inside.
    inside: Option<Inside>,
    /// Tagged beside.
    beside: Option<Beside>,
    /// Tagged outside.
    outside: Option<Outside>,
    /// Untagged.
    untagged: Option<Untagged>,
) -> String {
    format!("{inside:?} {beside:?} {outside:?} {untagged:?}")
}

/// The one violation of a refused call of `strict.measure` with `arguments`.
fn measured(arguments: Value) -> (String, String) {
    let result = call("strict.measure", arguments);
    let found = violations(&result);
    let [(path, _, message)] = found.as_slice() else {
        panic!("one violation: {found:?}");
    };
    (path.clone(), message.clone())
}

fn said(path: &str, message: &str) -> (String, String) {
    (path.to_owned(), message.to_owned())
}

#[test]
fn a_tagged_variant_is_told_what_its_branch_wanted() {
    assert_eq!(
        measured(json!({ "inside": { "kind": "circle", "radius": "x" } })),
        said(
            "/inside/radius",
            "the value is not of type \"number\" (branch `circle`)"
        )
    );
    assert_eq!(
        measured(json!({ "beside": { "t": "circle", "c": { "radius": "x" } } })),
        said(
            "/beside/c/radius",
            "the value is not of type \"number\" (branch `circle`)"
        )
    );
    assert_eq!(
        measured(json!({ "beside": { "t": "square", "c": {} } })),
        said(
            "/beside/c",
            "the value is not of type \"number\" (branch `square`)"
        )
    );
    assert_eq!(
        measured(json!({ "outside": { "circle": { "radius": "x" } } })),
        said(
            "/outside/circle/radius",
            "the value is not of type \"number\" (branch `circle`)"
        )
    );
    // A field the variant does not have.
    assert_eq!(
        measured(json!({ "inside": { "kind": "square", "side": 1, "radius": 2 } })),
        said(
            "/inside",
            "Additional properties are not allowed ('radius' was unexpected) (branch `square`)"
        )
    );
}

#[test]
fn a_tag_that_names_no_variant_is_told_the_variants() {
    assert_eq!(
        measured(json!({ "inside": { "kind": "triangle" } })),
        said("/inside/kind", "expected one of \"circle\", \"square\"")
    );
    assert_eq!(
        measured(json!({ "inside": { "radius": 1 } })),
        said(
            "/inside",
            "missing the tag `kind`: expected one of \"circle\", \"square\""
        )
    );
    assert_eq!(
        measured(json!({ "beside": { "t": "triangle", "c": 1 } })),
        said("/beside/t", "expected one of \"circle\", \"square\"")
    );
    assert_eq!(
        measured(json!({ "outside": { "triangle": 1 } })),
        said(
            "/outside",
            "expected one of \"dot\", or an object with one key, one of \"circle\", \"square\""
        )
    );
    assert_eq!(
        measured(json!({ "outside": "triangle" })),
        said(
            "/outside",
            "expected one of \"dot\", or an object with one key, one of \"circle\", \"square\""
        )
    );
}

#[test]
fn an_untagged_value_is_told_what_the_closest_branch_wanted() {
    assert_eq!(
        measured(json!({ "untagged": { "x": 1, "y": "down" } })),
        said(
            "/untagged/y",
            "the value is not of type \"integer\" (branch `Point`)"
        )
    );
    assert_eq!(
        measured(json!({ "untagged": { "name": "hexagon", "sides": -6 } })),
        said(
            "/untagged/sides",
            "the value is less than the minimum of 0 (branch `3 of 3`)"
        )
    );
    let result = call(
        "strict.measure",
        json!({ "inside": { "kind": "circle", "radius": 1 }, "untagged": 2.5 }),
    );
    assert!(result.error().is_none(), "{result:?}");
}

#[test]
fn the_portable_form_of_each_schema_admits_what_it_admits() {
    let samples = [
        json!({}),
        json!({ "color": "red", "at": { "x": 1, "y": 2 } }),
        json!({ "color": "red", "at": { "x": 1, "y": 2, "z": 3 } }),
        json!({ "color": "red", "at": { "x": 1, "y": 2, "depth": null }, "also": null }),
        json!({ "color": "red", "at": { "x": 1.5, "y": 2 }, "also": [{ "x": 1, "y": 2 }] }),
        json!({ "color": "pink", "at": { "x": 1, "y": 2 } }),
        json!({ "inside": { "kind": "circle", "radius": 1 }, "outside": "dot" }),
        json!({ "inside": { "kind": "circle", "radius": 1, "side": 2 } }),
        json!({ "beside": { "t": "square", "c": 2 }, "outside": { "square": 1 } }),
        json!({ "untagged": { "x": 1, "y": 2 } }),
        json!({ "untagged": { "name": "n", "sides": 300 } }),
        json!({ "untagged": "text" }),
        json!({ "counts": {}, "loose": { "level": 1, "more": 1 }, "labelled": { "label": "l", "n": 1 } }),
        json!({ "counts": { "a": { "x": 1, "y": 2, "w": 3 } }, "loose": { "level": 1 }, "labelled": { "label": "l" } }),
        json!({ "counts": {}, "loose": { "level": 1 }, "labelled": { "label": "l", "n": "one" } }),
    ];
    for name in ["strict.paint", "strict.open", "strict.measure"] {
        let tool = Registry::global().get(name).unwrap();
        let generated = tool.definition().input_schema().as_value();
        let portable = mcp_runtime::listing::portable(generated).expect("no recursive type");
        let text = portable.to_string();
        assert!(
            !text.contains("$ref") && !text.contains("\"type\":["),
            "{text}"
        );
        let generated = jsonschema::validator_for(generated).unwrap();
        let portable = jsonschema::validator_for(&portable).unwrap();
        let mut admitted = 0;
        for sample in &samples {
            assert_eq!(
                generated.is_valid(sample),
                portable.is_valid(sample),
                "{name}: {sample}"
            );
            admitted += usize::from(generated.is_valid(sample));
        }
        assert!(admitted > 0, "{name} admits a sample");
    }
}
