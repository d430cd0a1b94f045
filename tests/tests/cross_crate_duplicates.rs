//! Two library crates defining a tool of the same name, a resource of the same URI, a
//! resource template of the same template and a prompt of the same name, linked into one
//! binary: the registry refuses to build and names both source locations of each.

use mcp_runtime::{Location, Registry, RegistryProblem};

#[test]
fn same_names_in_two_crates_are_refused_with_both_locations() {
    // Using both crates links both, and with them their registrations.
    assert_eq!(tools_a::same_a() + &tools_b::same_b(), "ab");
    let err = Registry::try_global().expect_err("the duplicates are refused");
    let mut found: Vec<(&str, &str, Location, Location)> = err
        .problems()
        .iter()
        .map(|problem| match problem {
            RegistryProblem::Duplicate {
                name,
                first,
                second,
            } => ("tool", name.as_str(), *first, *second),
            // Resources and templates share one problem; only a template has a `{`.
            RegistryProblem::DuplicateResource { uri, first, second } if uri.contains('{') => {
                ("template", uri.as_str(), *first, *second)
            }
            RegistryProblem::DuplicateResource { uri, first, second } => {
                ("resource", uri.as_str(), *first, *second)
            }
            RegistryProblem::DuplicatePrompt {
                name,
                first,
                second,
            } => ("prompt", name.as_str(), *first, *second),
            other => panic!("expected only duplicates: {other}"),
        })
        .collect();
    found.sort_unstable_by_key(|(kind, ..)| *kind);
    let kinds: Vec<(&str, &str)> = found
        .iter()
        .map(|(kind, name, ..)| (*kind, *name))
        .collect();
    assert_eq!(
        kinds,
        [
            ("prompt", "shared_same"),
            ("resource", "shared://same"),
            ("template", "shared://same/{id}"),
            ("tool", "shared.same"),
        ],
        "{err}"
    );
    let message = err.to_string();
    for (kind, _, first, second) in &found {
        let line = match *kind {
            "tool" => 7,
            "resource" => 19,
            "prompt" => 25,
            "template" => 31,
            other => panic!("unexpected kind {other}"),
        };
        let mut places = [
            (first.file, first.line, first.module_path),
            (second.file, second.line, second.module_path),
        ];
        places.sort_unstable();
        assert_eq!(
            places,
            [
                ("tests/crates/tools_a/src/lib.rs", line, "tools_a"),
                ("tests/crates/tools_b/src/lib.rs", line, "tools_b"),
            ],
            "{kind}"
        );
        for place in [
            format!("tests/crates/tools_a/src/lib.rs:{line}:"),
            format!("tests/crates/tools_b/src/lib.rs:{line}:"),
        ] {
            assert!(message.contains(&place), "{kind}: {place} in {message}");
        }
    }
}
