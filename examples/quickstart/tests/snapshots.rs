//! The listings generated from the quickstart's code, committed: a change to a tool that
//! changes what clients see shows here as a diff to review (`cargo insta review`, or
//! `INSTA_UPDATE=always cargo test` and read the diff).

use std::process::Command;

fn quickstart(args: &[&str]) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_quickstart"))
        .args(args)
        .output()
        .expect("quickstart runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("UTF-8")
}

#[test]
fn manifest_matches_the_committed_snapshot() {
    insta::assert_snapshot!("manifest", quickstart(&["list", "--format", "json"]));
}

#[test]
fn specification_matches_the_committed_snapshot() {
    let dir = std::env::temp_dir().join(format!("quickstart-specs-{}", std::process::id()));
    quickstart(&["spec", "--out", dir.to_str().unwrap()]);
    let read = |path: &str| std::fs::read_to_string(dir.join(path)).expect("written");
    let spec = read("calculator.add/MCP_TOOL_SPECIFICATION.md");
    let index = read("README.md");
    std::fs::remove_dir_all(&dir).unwrap();
    insta::assert_snapshot!("add_specification", spec);
    insta::assert_snapshot!("specification_index", index);
}
