//! Two library crates defining a tool of the same name, linked into one binary: the
//! registry refuses to build and names both source locations.

use mcp_runtime::{Registry, RegistryProblem};

#[test]
fn same_name_in_two_crates_is_refused_with_both_locations() {
    // Using both crates links both, and with them their registrations.
    assert_eq!(tools_a::same_a() + &tools_b::same_b(), "ab");
    let err = Registry::try_global().expect_err("the duplicate is refused");
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
    assert_eq!(name, "shared.same");
    let mut places = [
        (first.file, first.line, first.module_path),
        (second.file, second.line, second.module_path),
    ];
    places.sort_unstable();
    assert_eq!(
        places,
        [
            ("tests/crates/tools_a/src/lib.rs", 7, "tools_a"),
            ("tests/crates/tools_b/src/lib.rs", 7, "tools_b"),
        ]
    );
    let message = err.to_string();
    assert!(
        message.contains("tests/crates/tools_a/src/lib.rs:7:"),
        "{message}"
    );
    assert!(
        message.contains("tests/crates/tools_b/src/lib.rs:7:"),
        "{message}"
    );
}
