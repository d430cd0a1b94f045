//! The binary serves the library's tools.

use std::process::Command;

use serde_json::{Value, json};

fn server(args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_multi-crate-server"))
        .args(args)
        .output()
        .expect("the server runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("UTF-8")
}

#[test]
fn the_library_tools_are_listed_and_callable() {
    assert_eq!(
        server(&["list"]),
        // The library's embedded skill is listed with its tools.
        "text.reverse\nunits.celsius_to_fahrenheit\nskill://temperature-conversion/SKILL.md\n"
    );
    let result: Value = serde_json::from_str(&server(&[
        "call",
        "units.celsius_to_fahrenheit",
        r#"{"celsius": 100}"#,
    ]))
    .unwrap();
    assert_eq!(
        result["data"],
        json!({ "celsius": 100.0, "fahrenheit": 212.0 })
    );
}

#[test]
fn check_counts_the_library_skill_with_the_tools() {
    let output = Command::new(env!("CARGO_BIN_EXE_multi-crate-server"))
        .arg("check")
        .output()
        .expect("the server runs");
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{said}");
    assert!(
        said.lines()
            .any(|line| line == "checked 2 tool(s), 1 skill(s): 0 error(s), 0 warning(s)"),
        "{said}"
    );
}

#[test]
fn the_library_skill_is_registered_in_a_binary_that_uses_it() {
    use mcp_runtime::__private::{SkillRegistration, inventory};
    use multi_crate_tools as _;

    let skills: Vec<(&str, Vec<&str>)> = inventory::iter::<SkillRegistration>
        .into_iter()
        .map(|skill| {
            let paths = skill.files().iter().map(|file| file.path()).collect();
            (skill.name(), paths)
        })
        .collect();
    assert_eq!(
        skills,
        [(
            "temperature-conversion",
            vec!["SKILL.md", "references/formula.md"]
        )]
    );
}
