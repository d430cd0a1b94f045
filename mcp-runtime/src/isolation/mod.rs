//! Isolation of a tool marked `requires_sandbox`: its policy, what this machine gives, and
//! the worker processes that run it. Its public face is [`crate::sandbox`], which adds the
//! worker's entry point, [`dispatch`](crate::sandbox::dispatch).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

pub use mcp_runtime_core::sandbox::{
    DEFAULT_MEMORY, DEFAULT_PROCESSES, MemoryError, Network, SCRATCH, SandboxPolicy,
    display_memory, parse_memory,
};
use serde::{Deserialize, Serialize};

use crate::tool::RegisteredTool;

pub(crate) mod protocol;
#[cfg(unix)]
mod run;
#[cfg(not(unix))]
#[path = "elsewhere.rs"]
mod run;

#[cfg(target_os = "linux")]
mod linux;

/// Kept at its public path: the worker's entry is a room above the sandbox's.
pub(crate) use run::{Runs, run_sandboxed};

/// The first argument of a worker's command line.
pub(crate) const WORKER_ARG: &str = "--mcp-runtime-sandbox-worker";

/// The environment variable that makes the sandbox act as if this machine lacked a
/// mechanism (`landlock`, `seccomp`, `namespaces`, or `all`): for testing the path where
/// sandboxed tools refuse to run.
pub const UNAVAILABLE_ENV: &str = "MCP_RUNTIME_SANDBOX_UNAVAILABLE";

/// Whether this binary can serve as a worker: it ran [`dispatch`].
static DISPATCHES: AtomicBool = AtomicBool::new(false);

/// Whether this process is a worker, running the one call it was started for.
static IN_WORKER: AtomicBool = AtomicBool::new(false);

/// The first argument of a worker served as the program loads, by the worker's entry at
/// load (a program that never ran [`dispatch`]).
#[cfg(target_os = "linux")]
pub(crate) const LOAD_ARG: &str = "--mcp-runtime-sandbox-worker-at-load";

/// Whether this program loaded with the worker's entry at load in place: it can serve as
/// its own worker through it.
#[cfg(target_os = "linux")]
static LOADED: AtomicBool = AtomicBool::new(false);

/// This program ran [`dispatch`] and was not started as a worker: it can start workers of
/// itself, served in `main`.
pub(crate) fn note_dispatches() {
    DISPATCHES.store(true, Ordering::SeqCst);
}

/// This program loaded with the worker's entry at load, and was not started as a worker:
/// it can start workers of itself, served as they load.
#[cfg(target_os = "linux")]
pub(crate) fn note_loaded() {
    LOADED.store(true, Ordering::SeqCst);
}

/// This process is a worker: its tool runs here, already isolated.
pub(crate) fn note_in_worker() {
    IN_WORKER.store(true, Ordering::SeqCst);
}

/// Kills the workers waiting for a call and removes their scratch directories: for a
/// program about to exit, which runs no destructor. [`cli::run`](crate::cli::run()) calls it.
pub fn shutdown() {
    run::POOLS.clear();
}

/// Where a call of a tool runs.
pub(crate) enum Placement {
    /// In this process: the tool needs no sandbox here (it is not marked
    /// `requires_sandbox`, this process is its worker already, or it is another server's
    /// tool relayed through this one).
    Here,
    /// In a worker, with this policy.
    Worker(SandboxPolicy),
    /// Nowhere: it needs a sandbox it cannot have (a tool registered at run time, which a
    /// worker cannot find, unless allowed unsandboxed).
    Refused(mcp_runtime_core::ToolError),
}

/// Where a call of `tool` runs, under `sandboxing`.
pub(crate) fn placement(tool: &RegisteredTool, sandboxing: &Sandboxing) -> Placement {
    if in_worker() {
        return Placement::Here;
    }
    let Some(policy) = sandboxing.policy_of(tool) else {
        return Placement::Here;
    };
    if matches!(tool.handler(), crate::registration::Handler::Dynamic(_)) {
        if sandboxing.allows_unsandboxed(tool.name().as_str()) {
            return Placement::Here;
        }
        return Placement::Refused(mcp_runtime_core::ToolError::new(
            mcp_runtime_core::ErrorType::PermissionError,
            format!(
                "tool `{}` is marked requires_sandbox, and a tool registered at run time cannot run sandboxed: a worker finds only `#[mcp_tool]` functions; allow it unsandboxed with `Sandboxing::allow_unsandboxed`",
                tool.name()
            ),
        ));
    }
    Placement::Worker(policy.clone())
}

/// The result of a sandboxed tool this server cannot isolate: what it lacks, and the way
/// to run the tool anyway, where the sandboxing was set: on the command line, or in code
/// (a program's own registry, a test's).
fn refused(name: &str, missing: &str, sandboxing: &Sandboxing) -> mcp_runtime_core::MCPToolResult {
    let anyway = if sandboxing.command_line {
        format!("a server started with `--allow-unsandboxed {name}` runs it unsandboxed")
    } else {
        format!(
            "to run it unsandboxed here (in a test on such a machine, say), build the registry with `.sandboxing(Sandboxing::new().allow_unsandboxed(\"{name}\"))`"
        )
    };
    mcp_runtime_core::MCPToolResult::failure(mcp_runtime_core::ToolError::new(
        mcp_runtime_core::ErrorType::PermissionError,
        format!(
            "tool `{name}` must run sandboxed, and this process cannot isolate it: it lacks {missing}; {anyway}"
        ),
    ))
}

/// The first argument of a worker of this binary: [`WORKER_ARG`] when it ran [`dispatch`],
/// which serves it in `main`; else, on Linux, the one its entry at load serves (a test
/// harness, a program that never called `dispatch`); `None` when it cannot start a worker
/// of itself.
pub(crate) fn worker_arg() -> Option<&'static str> {
    if DISPATCHES.load(Ordering::Relaxed) {
        return Some(WORKER_ARG);
    }
    #[cfg(target_os = "linux")]
    if LOADED.load(Ordering::Relaxed) {
        return Some(LOAD_ARG);
    }
    None
}

/// Whether this process is a worker: its tool runs here, already isolated.
pub(crate) fn in_worker() -> bool {
    IN_WORKER.load(Ordering::Relaxed)
}

/// How a registry runs its sandboxed tools: which may run unsandboxed where the sandbox is
/// unavailable, the operator's policies, the paths policies name, and how many workers
/// wait ready.
#[derive(Debug, Clone, Default)]
pub struct Sandboxing {
    allow: Allow,
    policies: BTreeMap<String, SandboxPolicy>,
    paths: BTreeMap<String, PathBuf>,
    warm: usize,
    /// Whether the command line set it, whose flags a refusal then names.
    command_line: bool,
}

/// Which sandboxed tools run unsandboxed when the sandbox is unavailable.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
enum Allow {
    #[default]
    None,
    Some(BTreeSet<String>),
    All,
}

impl Sandboxing {
    /// No tool runs unsandboxed, policies as the tools state them, no worker waiting.
    pub fn new() -> Self {
        Self::default()
    }

    /// Lets the tool named `name` run in the server's process when the sandbox is
    /// unavailable on this machine, rather than fail.
    #[must_use]
    pub fn allow_unsandboxed(mut self, name: impl Into<String>) -> Self {
        match &mut self.allow {
            Allow::All => {}
            Allow::Some(names) => {
                names.insert(name.into());
            }
            Allow::None => self.allow = Allow::Some(BTreeSet::from([name.into()])),
        }
        self
    }

    /// Lets every sandboxed tool run in the server's process when the sandbox is
    /// unavailable on this machine.
    #[must_use]
    pub fn allow_unsandboxed_all(mut self) -> Self {
        self.allow = Allow::All;
        self
    }

    /// Runs the tool named `name` with `policy` rather than the one it states: tighter or
    /// wider, as the operator decides.
    #[must_use]
    pub fn policy(mut self, name: impl Into<String>, policy: SandboxPolicy) -> Self {
        self.policies.insert(name.into(), policy);
        self
    }

    /// Gives `$NAME` in a policy's paths the directory `dir`.
    #[must_use]
    pub fn path(mut self, name: impl Into<String>, dir: impl Into<PathBuf>) -> Self {
        self.paths.insert(name.into(), dir.into());
        self
    }

    /// Keeps `workers` workers of each sandboxed tool started and isolated, waiting for a
    /// call, each used for one call only: a call then pays no process start. None by
    /// default; `serve` keeps one.
    #[must_use]
    pub fn warm(mut self, workers: usize) -> Self {
        self.warm = workers;
        self
    }

    /// The policy `tool` runs with: the operator's, else its own; `None` when it needs
    /// no sandbox here: it is not marked `requires_sandbox`, or it is another server's tool
    /// relayed through this one, which that server runs.
    pub fn policy_of<'a>(&'a self, tool: &'a RegisteredTool) -> Option<&'a SandboxPolicy> {
        if tool.relayed {
            return None;
        }
        let own = tool.definition().sandbox()?;
        Some(self.policies.get(tool.name().as_str()).unwrap_or(own))
    }

    /// The operator's policies, by tool name.
    pub fn policies(&self) -> &BTreeMap<String, SandboxPolicy> {
        &self.policies
    }

    /// Whether the tool named `name` may run unsandboxed where the sandbox is unavailable.
    pub fn allows_unsandboxed(&self, name: &str) -> bool {
        match &self.allow {
            Allow::None => false,
            Allow::Some(names) => names.contains(name),
            Allow::All => true,
        }
    }

    /// The directory `$NAME` names.
    pub(crate) fn named_path(&self, name: &str) -> Option<&PathBuf> {
        self.paths.get(name)
    }

    pub(crate) fn warm_workers(&self) -> usize {
        self.warm
    }

    /// Marks it as set on the command line: a refusal names `--allow-unsandboxed`.
    #[cfg(feature = "cli")]
    pub(crate) fn on_command_line(mut self) -> Self {
        self.command_line = true;
        self
    }

    /// Reads an operator's policy file: JSON with `tools`, a policy by tool name (each
    /// key a policy's, every key left out at its strict default), and `paths`, the
    /// directories that `$NAME` in a policy's paths stands for.
    ///
    /// ```json
    /// { "paths": { "DATA": "/srv/data" },
    ///   "tools": { "text.grep": { "read": ["$DATA"], "memory": "64MiB" } } }
    /// ```
    pub fn with_policy_file(mut self, text: &str) -> Result<Self, PolicyFileError> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct File {
            #[serde(default)]
            paths: BTreeMap<String, PathBuf>,
            #[serde(default)]
            tools: BTreeMap<String, SandboxPolicy>,
        }
        let file: File = serde_json::from_str(text)?;
        self.paths.extend(file.paths);
        self.policies.extend(file.tools);
        Ok(self)
    }
}

/// Why an operator's policy file was refused ([`Sandboxing::with_policy_file`]): it is not
/// JSON of `paths` and `tools`, or a policy in it has an unknown key or a value out of range.
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct PolicyFileError(#[from] serde_json::Error);

/// What isolation this machine gives a sandboxed tool, as a worker found it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Support {
    /// The Landlock ABI version in force, if any.
    pub landlock_abi: Option<u32>,
    /// Whether the seccomp filter was installed.
    pub seccomp: bool,
    /// The namespaces the worker entered: `user`, `network`, `pid`; never `network` for a
    /// policy whose network is `any`, which keeps the host's.
    pub namespaces: Vec<String>,
    /// The user the tool ran as, when the worker changed it (`nobody` for a root server).
    pub user: Option<u32>,
    /// Why a sandboxed tool cannot run here, if it cannot.
    pub missing: Option<String>,
}

impl std::fmt::Display for Support {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.landlock_abi {
            Some(abi) => write!(f, "Landlock ABI {abi}")?,
            None => write!(f, "no Landlock")?,
        }
        write!(
            f,
            ", seccomp {}",
            if self.seccomp {
                "filter"
            } else {
                "unavailable"
            }
        )?;
        if self.namespaces.is_empty() {
            write!(f, ", no namespaces")?;
        } else {
            write!(f, ", {} namespaces", self.namespaces.join(", "))?;
        }
        if let Some(uid) = self.user {
            write!(f, ", tools run as uid {uid}")?;
        }
        Ok(())
    }
}

/// Drops what `config`'s policy does not grant, in a worker before it reads its call,
/// saying on `out` how far it got; what it could not do when the tool cannot run so.
#[cfg(target_os = "linux")]
pub(crate) fn isolate(
    config: &protocol::Config,
    out: &mut dyn std::io::Write,
) -> Result<Support, Support> {
    linux::isolate(config, out)
}

/// What a worker lacks where there is no sandbox: everything.
#[cfg(not(target_os = "linux"))]
pub(crate) fn isolate(
    _config: &protocol::Config,
    _out: &mut dyn std::io::Write,
) -> Result<Support, Support> {
    Err(Support {
        missing: Some(format!(
            "a sandbox, which mcp-runtime has for Linux only, not {}",
            std::env::consts::OS
        )),
        ..Support::default()
    })
}

/// What this machine gives a sandboxed tool with the strict policy: a worker is started,
/// isolates itself, and reports. Needs a binary that ran [`dispatch`](crate::sandbox::dispatch).
pub async fn support() -> Support {
    run::probe(&Sandboxing::default()).await
}
