//! Two tools with one name: the registry refuses to build and names both places. A tool,
//! resource, template or prompt registered at run time under a name (or URI, or template)
//! already taken is refused naming it and both places, and the first one is kept.

use mcp_runtime::{
    Location, PromptDefinition, PromptResult, Registry, RegistryError, RegistryProblem,
    ResourceDefinition, ResourceTemplateDefinition, ToolDefinition, ToolError, mcp_tool,
};

mod first {
    /// One `dup.same`.
    #[mcp_tool(namespace = "dup", name = "same")]
    pub(crate) fn one() -> u8 {
        1
    }

    use mcp_runtime::mcp_tool;
}

/// Another `dup.same`.
#[mcp_tool(namespace = "dup", name = "same")]
fn two() -> u8 {
    2
}

/// A tool with a valid name of its own.
#[mcp_tool(namespace = "dup")]
fn fine() -> u8 {
    3
}

#[test]
fn duplicate_names_are_refused_with_both_source_locations() {
    assert_eq!(first::one() + two() + fine(), 6);
    let err = Registry::try_global().expect_err("duplicates are refused");
    let [
        RegistryProblem::Duplicate {
            name,
            first,
            second,
        },
    ] = err.problems()
    else {
        panic!("expected exactly one duplicate: {err}");
    };
    assert_eq!(name, "dup.same");
    let mut modules = [first.module_path, second.module_path];
    modules.sort_unstable();
    assert_eq!(modules, ["duplicate_names", "duplicate_names::first"]);
    let mut lines = [first.line, second.line];
    lines.sort_unstable();
    assert_eq!(lines, [13, 22], "the lines of the two function names");
    let message = err.to_string();
    assert!(
        message.contains("tests/tests/duplicate_names.rs:13:"),
        "{message}"
    );
    assert!(
        message.contains("tests/tests/duplicate_names.rs:22:"),
        "{message}"
    );
}

/// The one problem of `err`, as its kind, the name it is about and both places.
fn only_duplicate(err: &RegistryError) -> (&'static str, &str, Location, Location) {
    match err.problems() {
        [
            RegistryProblem::Duplicate {
                name,
                first,
                second,
            },
        ] => ("tool", name, *first, *second),
        [RegistryProblem::DuplicateResource { uri, first, second }] => {
            ("resource", uri, *first, *second)
        }
        [
            RegistryProblem::DuplicatePrompt {
                name,
                first,
                second,
            },
        ] => ("prompt", name, *first, *second),
        _ => panic!("expected exactly one duplicate: {err}"),
    }
}

/// Checks that `err` is one duplicate of `kind` about `name`, placed at the lines `first`
/// and `second` of this file, in its fields and in its message.
fn assert_duplicate(err: &RegistryError, kind: &str, name: &str, first: u32, second: u32) {
    let found = only_duplicate(err);
    assert_eq!((found.0, found.1), (kind, name), "{err}");
    let places = [found.2, found.3].map(|place| (place.file, place.line));
    let file = "tests/tests/duplicate_names.rs";
    assert_eq!(places, [(file, first), (file, second)], "{err}");
    let message = err.to_string();
    assert!(message.contains(name), "{message}");
    for line in [first, second] {
        assert!(message.contains(&format!("{file}:{line}:")), "{message}");
    }
}

#[test]
fn registering_a_taken_name_at_run_time_is_refused_with_both_locations() {
    let mut reg = Registry::builder()
        .build()
        .expect("an empty registry builds");
    let schema = || schemars::json_schema!({ "type": "object" });
    let tool = |description: &str| {
        ToolDefinition::new("run.same", schema())
            .expect("a valid name")
            .with_description(description)
    };
    let answer = |_, _| async { Ok::<_, ToolError>(serde_json::Value::Null) };
    let read = |_| async { Ok::<_, ToolError>(Vec::new()) };
    let get = |_| async { Ok::<_, ToolError>(PromptResult::new(Vec::new())) };

    let first = line!() + 1;
    let added = reg.register(tool("kept"), answer);
    let second = line!() + 1;
    let again = reg.register(tool("refused"), answer);
    added.expect("the first tool");
    let err = again.expect_err("a taken tool name");
    assert_duplicate(&err, "tool", "run.same", first, second);
    let kept = reg.get("run.same").expect("the first tool stays");
    assert_eq!(kept.definition().description(), Some("kept"));

    let resource = |name: &str| ResourceDefinition::new("run://same", name);
    let first = line!() + 1;
    let added = reg.register_resource(resource("kept"), read);
    let second = line!() + 1;
    let again = reg.register_resource(resource("refused"), read);
    added.expect("the first resource");
    let err = again.expect_err("a taken URI");
    assert_duplicate(&err, "resource", "run://same", first, second);
    let kept: Vec<_> = reg
        .resources()
        .map(|r| r.definition().name().to_owned())
        .collect();
    assert_eq!(kept, ["kept"]);

    let template = |name: &str| ResourceTemplateDefinition::new("run://same/{id}", name);
    let first = line!() + 1;
    let added = reg.register_resource_template(template("kept"), read);
    let second = line!() + 1;
    let again = reg.register_resource_template(template("refused"), read);
    added.expect("the first template");
    let err = again.expect_err("a taken template");
    assert_duplicate(&err, "resource", "run://same/{id}", first, second);
    let kept: Vec<_> = reg
        .resource_templates()
        .map(|t| t.definition().name().to_owned())
        .collect();
    assert_eq!(kept, ["kept"]);

    let prompt = || PromptDefinition::new("run_same");
    let first = line!() + 1;
    let added = reg.register_prompt(prompt(), get);
    let second = line!() + 1;
    let again = reg.register_prompt(prompt(), get);
    added.expect("the first prompt");
    let err = again.expect_err("a taken prompt name");
    assert_duplicate(&err, "prompt", "run_same", first, second);
    let kept = reg.prompt("run_same").expect("the first prompt stays");
    assert_eq!(kept.location().line, first);
}
