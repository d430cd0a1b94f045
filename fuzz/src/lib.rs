//! What the fuzz targets run, and the invariants they check.
//!
//! Each target is one function from bytes to `Result<(), Finding>`: [`dispatch::run`]
//! hands the bytes to the JSON-RPC dispatcher, [`arguments::run`] reads them as a tool call
//! and runs it through the registry. The fuzz targets under `fuzz_targets/` panic on a
//! finding; `tests/tests/fuzz_corpus.rs` includes this file as a module and replays the
//! committed corpus and regressions through the same functions, without libFuzzer.
//!
//! A finding that matches a known bug of mcp-runtime (see each module's `KNOWN_BUGS`) says
//! so: the fuzz targets let those pass, so that a run goes on looking for new ones, unless
//! `MCP_FUZZ_STRICT=1` is set. Each known bug has its reproducer under
//! `fuzz/regressions/<target>/`, listed in `open.txt` there, and the check that finds it
//! marks its findings with the bug's name, as narrowly as it can tell them apart; when the
//! bug is fixed, the name goes from `KNOWN_BUGS` and the mark from the check.

use std::fmt;
use std::sync::OnceLock;
use std::time::Duration;

use mcp_runtime::Registry;

pub mod arguments;
pub mod dispatch;
pub mod fixtures;

/// A broken invariant.
#[derive(Debug, Clone)]
pub struct Finding {
    /// The invariant, in a few words.
    pub invariant: &'static str,
    /// What was seen.
    pub detail: String,
    /// The known bug this is, if it is one.
    pub known: Option<&'static KnownBug>,
}

impl Finding {
    fn new(invariant: &'static str, detail: impl Into<String>) -> Self {
        Self {
            invariant,
            detail: detail.into(),
            known: None,
        }
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.invariant, self.detail)?;
        if let Some(known) = self.known {
            write!(f, " [known bug `{}`: {}]", known.name, known.summary)?;
        }
        Ok(())
    }
}

/// A bug of mcp-runtime that the fuzzers found and that is not fixed yet.
#[derive(Debug)]
pub struct KnownBug {
    /// Its name, as `fuzz/regressions/<target>/open.txt` gives it.
    pub name: &'static str,
    /// What goes wrong.
    pub summary: &'static str,
}

/// What a fuzz target does with the outcome of one input: a finding that is no known bug
/// (any finding, with `MCP_FUZZ_STRICT=1`) panics, which libFuzzer reports as a crash.
pub fn judge(outcome: Result<(), Finding>) {
    static STRICT: OnceLock<bool> = OnceLock::new();
    let strict =
        *STRICT.get_or_init(|| std::env::var_os("MCP_FUZZ_STRICT").is_some_and(|v| v == "1"));
    match outcome {
        Err(finding) if finding.known.is_none() || strict => panic!("{finding}"),
        _ => {}
    }
}

/// The runtime every call runs on: current-thread, with its time driver, made once.
pub fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a current-thread runtime")
    })
}

/// Every tool of [`fixtures`], by name.
pub const FIXTURE_TOOLS: [&str; 11] = [
    "fuzz.add",
    "fuzz.configure",
    "fuzz.count",
    "fuzz.echo",
    "fuzz.greet",
    "fuzz.matrix",
    "fuzz.nothing",
    "fuzz.place",
    "fuzz.profile",
    "fuzz.repeat",
    "fuzz.wipe",
];

/// A registry of the [`fixtures`]: their data checked against their output schemas, the
/// dangerous one refused, a timeout no fixture comes near.
///
/// # Panics
///
/// If a fixture is missing (the linker dropped it) or the registry cannot be built.
pub fn registry() -> Registry {
    let registry = Registry::builder()
        .inventory()
        .prefix("fuzz.")
        .validate_output(true)
        .default_timeout(Some(Duration::from_secs(10)))
        .build()
        .expect("the fixture registry builds");
    let names: Vec<&str> = registry.list().map(|tool| tool.name().as_str()).collect();
    assert_eq!(names, FIXTURE_TOOLS, "the fixture tools are all registered");
    registry
}
