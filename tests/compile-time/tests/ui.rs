//! Compile-time behaviour of `#[mcp_tool]`, `#[mcp_resource]` and `#[mcp_prompt]`: what
//! compiles and works (`tests/ui/pass`), and what is refused with one clear error on the
//! token at fault (`tests/ui/fail`, each case's expected compiler output in the `.stderr`
//! beside it; the cases of resources and prompts are named `resource_*` and `prompt_*`).
//!
//! The cases of `skills!` (`skills_*`) read their folders under `tests/ui/skills`, which they
//! name as `$MCP_UI_SKILLS`: trybuild compiles them in a crate of its own, elsewhere.
//!
//! After a deliberate change to a message, regenerate the expected output with
//! `TRYBUILD=overwrite cargo test -p mcp-ui-tests` and read the diff.

#[test]
fn ui() {
    let skills = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/ui/skills");
    // SAFETY: this is the binary's only test, and nothing else in it reads or writes the
    // environment; the variable is set before trybuild starts cargo, which inherits it.
    #[allow(unsafe_code)]
    unsafe {
        std::env::set_var("MCP_UI_SKILLS", skills)
    };
    let cases = trybuild::TestCases::new();
    cases.pass("tests/ui/pass/*.rs");
    cases.compile_fail("tests/ui/fail/*.rs");
}
