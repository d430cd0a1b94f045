//! The guide's pages (`docs/guide/`): their Rust code blocks are compiled, and those not
//! marked `no_run` run, as this crate's doc tests (`cargo test -p mcp-tests --doc`), so that
//! every example stays true.
//!
//! The blocks are merged into one test program, so every tool, resource and prompt a block
//! defines is in each block's `Registry::global()`: names and URIs are unique across the
//! guide, or the global registry refuses to build, naming both.

/// Chapter 1.
#[doc = include_str!("../docs/guide/01-first-tool.md")]
pub struct FirstTool;

/// Chapter 2.
#[doc = include_str!("../docs/guide/02-testing.md")]
pub struct Testing;

/// Chapter 3.
#[doc = include_str!("../docs/guide/03-resources-and-prompts.md")]
pub struct ResourcesAndPrompts;

/// Chapter 4.
#[doc = include_str!("../docs/guide/04-asking.md")]
pub struct Asking;

/// Chapter 5.
#[doc = include_str!("../docs/guide/05-serving.md")]
pub struct Serving;

/// Chapter 6.
#[doc = include_str!("../docs/guide/06-tasks.md")]
pub struct Tasks;

/// Chapter 7.
#[doc = include_str!("../docs/guide/07-deploying.md")]
pub struct Deploying;

/// Chapter 8.
#[doc = include_str!("../docs/guide/08-gateway-and-client.md")]
pub struct GatewayAndClient;

/// Chapter 9.
#[doc = include_str!("../docs/guide/09-performance.md")]
pub struct Performance;

/// Chapter 10.
#[doc = include_str!("../docs/guide/10-sandboxing.md")]
pub struct Sandboxing;

/// Chapter 11.
#[doc = include_str!("../docs/guide/11-middleware.md")]
pub struct Middleware;

/// Chapter 12.
#[doc = include_str!("../docs/guide/12-skills.md")]
pub struct Skills;
