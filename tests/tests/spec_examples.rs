//! Every example in a generated `MCP_TOOL_SPECIFICATION.md` is valid input for its tool:
//! the placeholder call of a tool that declares no example, and each declared one. Checked
//! against the input schema the same file shows, for the quickstart's tools, the fixture
//! server's, and tools of every kind of parameter defined here.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use mcp_runtime::{Registry, mcp_tool, spec};
use mcp_tests::quickstart_bin;
use serde_json::Value;

// The tools of a library crate, linked.
use tools_a as _;

/// A point.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)] // The tools below only take them.
struct Point {
    /// Across, from 10.
    #[schemars(range(min = 10))]
    x: i32,
    /// Down.
    y: Option<f64>,
}

/// A shape, tagged.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Shape {
    Circle { radius: f64 },
    At(Point),
    Dot,
}

/// A move, as serde tags it by default.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
#[serde(rename_all = "snake_case")]
enum Move {
    Stay,
    By { dx: i8, dy: i8 },
}

/// Either a number or a label.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
#[serde(untagged)]
enum Either {
    Number(u16),
    Label { label: String },
}

/// A tree, which refers to itself.
#[derive(serde::Deserialize, schemars::JsonSchema)]
#[allow(dead_code)]
struct Tree {
    /// Its name.
    name: String,
    /// Its children.
    children: Vec<Tree>,
}

/// Takes a parameter of every kind, and declares no example.
#[mcp_tool(namespace = "examples", inline)]
#[allow(clippy::too_many_arguments)]
fn everything(
    /// From 3 to 7, even.
    #[schemars(range(min = 3, max = 7), extend("multipleOf" = 2))]
    even: u8,
    /// Upper-case, four letters at least.
    #[schemars(regex(pattern = r"^[A-Z]+$"), length(min = 4))]
    code: String,
    /// Where.
    at: Point,
    /// What.
    shape: Shape,
    /// How.
    step: Move,
    /// Which.
    either: Either,
    /// Below.
    tree: Tree,
    /// At least two.
    #[schemars(length(min = 2))]
    points: Vec<Point>,
    /// By name.
    named: BTreeMap<String, Point>,
    /// If any.
    maybe: Option<Shape>,
) -> bool {
    let _ = (
        even, code, at, shape, step, either, tree, points, named, maybe,
    );
    true
}

/// Takes a number and declares an example of it.
#[mcp_tool(namespace = "examples", inline, example = r#"{"n": 4}"#)]
fn declared(n: u32) -> u32 {
    n
}

/// The input schema a specification shows (section 3) and the arguments of each call in its
/// usage examples (section 7).
fn schema_and_examples(markdown: &str) -> (Value, Vec<Value>) {
    let section = |heading: &str| {
        let start = markdown
            .find(heading)
            .unwrap_or_else(|| panic!("{heading}"));
        let rest = &markdown[start + heading.len()..];
        let end = rest.find("\n### ").unwrap_or(rest.len());
        &rest[..end]
    };
    let blocks = |text: &str| -> Vec<Value> {
        text.split("```json\n")
            .skip(1)
            .map(|block| {
                let json = &block[..block.find("\n```").expect("a closed block")];
                serde_json::from_str(json).expect("JSON")
            })
            .collect()
    };
    let schema = blocks(section("### 3. Input Schema"))
        .into_iter()
        .next()
        .expect("the input schema");
    let examples: Vec<Value> = blocks(section("### 7. Usage Examples"))
        .into_iter()
        .filter(|block| block.get("tool_name").is_some())
        .map(|call| call["arguments"].clone())
        .collect();
    assert!(!examples.is_empty(), "no example in {markdown}");
    (schema, examples)
}

/// Asserts that every example of `markdown` is valid against the schema it shows; how many.
fn assert_examples_valid(name: &str, markdown: &str) -> usize {
    let (schema, examples) = schema_and_examples(markdown);
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    for example in &examples {
        let errors: Vec<String> = validator
            .iter_errors(example)
            .map(|err| format!("{}: {err}", err.instance_path()))
            .collect();
        assert!(
            errors.is_empty(),
            "the example {example} of `{name}` is not valid: {errors:?}"
        );
    }
    examples.len()
}

/// The specifications `binary spec` writes, by tool.
fn written_specifications(binary: &Path, label: &str) -> BTreeMap<String, String> {
    let out: PathBuf =
        std::env::temp_dir().join(format!("mcp-spec-examples-{label}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let status = Command::new(binary)
        .args(["spec", "--out"])
        .arg(&out)
        .output()
        .expect("runs");
    assert!(status.status.success(), "{status:?}");
    let mut specifications = BTreeMap::new();
    for entry in std::fs::read_dir(&out).expect("the output directory") {
        let path = entry.expect("an entry").path().join(spec::SPEC_FILE);
        if let Ok(markdown) = std::fs::read_to_string(&path) {
            let name = path.parent().unwrap().file_name().unwrap();
            specifications.insert(name.to_string_lossy().into_owned(), markdown);
        }
    }
    let _ = std::fs::remove_dir_all(&out);
    specifications
}

#[test]
fn every_example_of_the_tools_defined_here_is_valid_input() {
    let registry = Registry::global();
    let mut checked = Vec::new();
    for tool in registry.list() {
        let markdown = spec::specification(tool, |_| None);
        let name = tool.name().to_string();
        assert_examples_valid(&name, &markdown);
        checked.push(name);
    }
    assert!(
        checked.iter().any(|name| name == "examples.everything"),
        "{checked:?}"
    );
    assert!(
        checked.iter().any(|name| name == "tools_a.only_a"),
        "{checked:?}"
    );
}

#[test]
fn every_example_of_the_quickstart_is_valid_input() {
    let specifications = written_specifications(quickstart_bin(), "quickstart");
    assert!(specifications.len() >= 6, "{:?}", specifications.keys());
    for (name, markdown) in &specifications {
        assert_examples_valid(name, markdown);
    }
}

#[test]
fn every_example_of_the_fixture_server_is_valid_input() {
    let binary = Path::new(env!("CARGO_BIN_EXE_fixture-server"));
    let specifications = written_specifications(binary, "fixture");
    assert!(
        specifications.contains_key("fixture.echo"),
        "{:?}",
        specifications.keys()
    );
    for (name, markdown) in &specifications {
        assert_examples_valid(name, markdown);
    }
}
