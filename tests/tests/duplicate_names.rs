//! Two tools with one name: the registry refuses to build and names both places.

use mcp_runtime::{Registry, RegistryProblem, mcp_tool};

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
    assert_eq!(lines, [8, 17], "the lines of the two function names");
    let message = err.to_string();
    assert!(
        message.contains("tests/tests/duplicate_names.rs:8:"),
        "{message}"
    );
    assert!(
        message.contains("tests/tests/duplicate_names.rs:17:"),
        "{message}"
    );
}
