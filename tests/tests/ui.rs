//! Compile-time behaviour of `#[mcp_tool]`, `#[mcp_resource]` and `#[mcp_prompt]`: what
//! compiles and works (`tests/ui/pass`), and what is refused with one clear error on the
//! token at fault (`tests/ui/fail`, each case's expected compiler output in the `.stderr`
//! beside it; the cases of resources and prompts are named `resource_*` and `prompt_*`).
//!
//! After a deliberate change to a message, regenerate the expected output with
//! `TRYBUILD=overwrite cargo test -p mcp-tests --test ui` and read the diff.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.pass("tests/ui/pass/*.rs");
    cases.compile_fail("tests/ui/fail/*.rs");
}
