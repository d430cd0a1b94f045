//! `bench-server`'s three tools plus 997 generated ones (see `build.rs`): 1,000 tools, to
//! compare start-up and `tools/list` with those of `bench-server`.
//!
//! ```text
//! bench-server-1000 serve --stdio
//! ```

#[path = "../tools.rs"]
mod tools;

/// The generated tools, in a module of their own.
mod generated {
    use mcp_runtime::mcp_tool;
    use mcp_runtime::schemars::JsonSchema;
    use mcp_runtime::serde::Serialize;

    /// An integer result.
    #[derive(Serialize, JsonSchema)]
    #[serde(crate = "mcp_runtime::serde")]
    #[schemars(crate = "mcp_runtime::schemars")]
    pub(crate) struct Scaled {
        /// The value computed.
        value: i64,
    }

    /// An integer result with a label.
    #[derive(Serialize, JsonSchema)]
    #[serde(crate = "mcp_runtime::serde")]
    #[schemars(crate = "mcp_runtime::schemars")]
    pub(crate) struct Labelled {
        /// The value computed.
        value: i64,
        /// The label given.
        label: String,
    }

    /// A floating-point result.
    #[derive(Serialize, JsonSchema)]
    #[serde(crate = "mcp_runtime::serde")]
    #[schemars(crate = "mcp_runtime::schemars")]
    pub(crate) struct Mixed {
        /// The value computed.
        value: f64,
    }

    include!(concat!(env!("OUT_DIR"), "/generated_tools.rs"));
}

fn main() {
    tools::self_check();
    mcp_runtime::cli::run!()
}
