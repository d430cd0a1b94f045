//! Writes `generated_tools.rs` into `OUT_DIR`: 997 `#[mcp_tool]` functions with distinct
//! names, descriptions and parameters, which `bench-server-1000` adds to the three tools of
//! `bench-server` to measure start-up with 1,000 tools.

use std::fmt::Write as _;

/// How many tools to generate.
const GENERATED: usize = 997;

const VERBS: [&str; 8] = [
    "scale", "shift", "clamp", "mix", "fold", "wrap", "round", "weigh",
];
const NOUNS: [&str; 8] = [
    "reading", "sample", "price", "count", "offset", "level", "score", "quota",
];

fn main() {
    let mut code = String::new();
    for i in 0..GENERATED {
        let verb = VERBS[i % VERBS.len()];
        let noun = NOUNS[(i / VERBS.len()) % NOUNS.len()];
        let name = format!("{verb}_{noun}_{i:03}");
        let _ = writeln!(
            code,
            "/// {verb} a {noun} ({i}).\n///\n/// Generated tool number {i}: applies `{verb}` with the constant {i} to a {noun}."
        );
        let _ = writeln!(
            code,
            "#[mcp_tool(namespace = \"gen\", inline, read_only, idempotent, open_world = false)]"
        );
        match i % 3 {
            0 => {
                let _ = writeln!(
                    code,
                    "fn {name}(\n    /// The {noun} to {verb}.\n    value: i64,\n    /// Added after scaling; 0 when absent.\n    offset: Option<i64>,\n) -> Scaled {{\n    Scaled {{ value: value.wrapping_mul({i}).wrapping_add(offset.unwrap_or(0)) }}\n}}\n"
                );
            }
            1 => {
                let _ = writeln!(
                    code,
                    "fn {name}(\n    /// The {noun} to {verb}.\n    value: i64,\n    /// A label for the {noun}.\n    label: String,\n) -> Labelled {{\n    Labelled {{ value: value.wrapping_add({i}), label }}\n}}\n"
                );
            }
            _ => {
                let _ = writeln!(
                    code,
                    "fn {name}(\n    /// The first {noun}.\n    left: f64,\n    /// The second {noun}.\n    right: f64,\n    /// Whether to {verb} the other way round.\n    reverse: Option<bool>,\n) -> Mixed {{\n    let (x, y) = if reverse.unwrap_or(false) {{ (right, left) }} else {{ (left, right) }};\n    Mixed {{ value: x * {i}.0 + y }}\n}}\n"
                );
            }
        }
    }
    let out_dir = std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR");
    let path = std::path::Path::new(&out_dir).join("generated_tools.rs");
    std::fs::write(&path, code).expect("OUT_DIR is writable");
    println!("cargo::rerun-if-changed=build.rs");
}
