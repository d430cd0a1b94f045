//! A `#[derive(Form)]` type whose JSON Schema is not a form's, though every field's type
//! passed the derive's compile-time check (here a field's `schema_with` makes it an object),
//! is refused when the registry is built from the inventory, naming the type and the field:
//! never when a tool asks it.

use mcp_runtime::talk::{Elicitation, Form};
use mcp_runtime::{Registry, RegistryProblem, ToolContext, ToolError, mcp_tool};
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::Deserialize;

#[allow(dead_code)] // read by no test: only its schema matters
#[derive(Deserialize, JsonSchema)]
struct Point {
    x: i32,
    y: i32,
}

/// Where, written as "x,y", but described as the point it becomes.
fn point_schema(generator: &mut SchemaGenerator) -> Schema {
    Point::json_schema(generator)
}

fn point<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Point, D::Error> {
    let text = String::deserialize(deserializer)?;
    let (x, y) = text
        .split_once(',')
        .ok_or_else(|| serde::de::Error::custom("x,y"))?;
    let coordinate = |part: &str| part.trim().parse().map_err(serde::de::Error::custom);
    Ok(Point {
        x: coordinate(x)?,
        y: coordinate(y)?,
    })
}

#[allow(dead_code)]
#[derive(Deserialize, JsonSchema, Form)]
struct Placement {
    /// Where.
    #[serde(deserialize_with = "point")]
    #[schemars(schema_with = "point_schema")]
    at: Point,
}

#[derive(Deserialize, JsonSchema, Form)]
struct Confirm {
    /// Go ahead?
    confirm: bool,
}

/// Asks for a confirmation: a form that fits, in a program that also links one that does
/// not, which no tool asks.
#[mcp_tool(namespace = "forms")]
async fn confirm(ctx: &ToolContext) -> Result<bool, ToolError> {
    let answer = ctx.elicit::<Confirm>("confirm", "Sure?").await?;
    Ok(matches!(
        answer,
        Elicitation::Accept(Confirm { confirm: true })
    ))
}

#[test]
fn a_derived_form_whose_schema_is_not_a_forms_is_refused_when_the_registry_is_built() {
    let err = Registry::builder()
        .inventory()
        .build()
        .expect_err("Placement is refused");
    let [
        RegistryProblem::Form {
            form,
            reason,
            location,
        },
    ] = err.problems()
    else {
        panic!("one problem, of Placement: {err}");
    };
    assert_eq!(*form, "Placement");
    assert!(reason.contains("field `at` of `Placement`"), "{reason}");
    assert!(reason.contains("nested struct"), "{reason}");
    assert_eq!(location.file, "mcp-runtime/tests/form_check.rs");
    assert_eq!(location.line, 37, "the line of `struct Placement`");
    assert!(err.to_string().contains("`Placement`"), "{err}");

    // Keeping only the tool that fits does not hide it: every form linked in is checked,
    // as every tool's name is.
    let registry = Registry::builder()
        .inventory()
        .names(["forms.confirm"])
        .build();
    assert!(registry.is_err());
}
