//! A tool whose body asks the user to fill in a form of a type that cannot be one
//! (`elicit::<T>`), its `Form` implemented by hand so that the derive's compile-time check
//! never saw it, is refused when the registry is built, naming the tool, the type and the
//! field: never at a call.

use mcp_runtime::talk::{Elicitation, Form};
use mcp_runtime::{Registry, RegistryProblem, ToolContext, ToolError, mcp_tool};
use serde::Deserialize;

#[derive(Deserialize, schemars::JsonSchema)]
struct Point {
    x: i32,
    y: i32,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct Placement {
    /// Where.
    at: Point,
}

// By hand, past the derive, which refuses `at` at compile time.
impl Form for Placement {}

#[derive(Deserialize, schemars::JsonSchema, Form)]
struct Confirm {
    /// Go ahead?
    confirm: bool,
}

/// Asks where to put something: a nested struct, which no form can hold.
#[mcp_tool(namespace = "forms")]
async fn place(ctx: &ToolContext) -> Result<String, ToolError> {
    match ctx.elicit::<Placement>("where", "Where?").await? {
        Elicitation::Accept(Placement { at }) => Ok(format!("{} {}", at.x, at.y)),
        _ => Ok("nowhere".to_owned()),
    }
}

/// Asks for a confirmation: a form that fits.
#[mcp_tool(namespace = "forms")]
async fn confirm(ctx: &ToolContext) -> Result<bool, ToolError> {
    let answer = ctx.elicit::<Confirm>("confirm", "Sure?").await?;
    Ok(matches!(
        answer,
        Elicitation::Accept(Confirm { confirm: true })
    ))
}

#[test]
fn a_form_that_cannot_be_one_is_refused_when_the_registry_is_built() {
    let err = Registry::builder()
        .inventory()
        .build()
        .expect_err("the form of forms.place is refused");
    let [
        RegistryProblem::Form {
            tool,
            reason,
            location,
        },
    ] = err.problems()
    else {
        panic!("one problem, of forms.place: {err}");
    };
    assert_eq!(tool, "forms.place");
    assert!(reason.contains("field `at` of `Placement`"), "{reason}");
    assert!(reason.contains("nested struct"), "{reason}");
    assert_eq!(location.file, "mcp-runtime/tests/form_check.rs");
    assert!(err.to_string().contains("`forms.place`"), "{err}");

    // Filtering the tool out does not hide it: every `#[mcp_tool]` linked in is checked,
    // as its name is.
    let registry = Registry::builder()
        .inventory()
        .names(["forms.confirm"])
        .build();
    assert!(registry.is_err());
}
