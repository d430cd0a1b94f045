//! Where there is no process group to kill nor pipes to a re-run binary of this kind (not
//! a Unix), no sandbox: a sandboxed tool refuses to run unless the registry allows it to
//! run unsandboxed.

use std::time::Duration;

use mcp_runtime_core::MCPToolResult;
use mcp_runtime_core::sandbox::SandboxPolicy;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::{Sandboxing, Support};
use crate::context::Reports;
use crate::tool::RegisteredTool;

/// What this platform lacks.
const MISSING: &str = "a sandbox, which mcp-runtime has on Linux only";

/// What a sandboxed call runs (see the Unix version).
pub(crate) struct Runs<'a> {
    pub(crate) tool: &'a RegisteredTool,
    pub(crate) policy: &'a SandboxPolicy,
    pub(crate) sandboxing: &'a Sandboxing,
    pub(crate) timeout: Option<Duration>,
    pub(crate) expose_panics: bool,
}

/// No workers wait here.
pub(super) struct Pools;

impl Pools {
    pub(super) fn clear(&self) {}
}

pub(super) static POOLS: Pools = Pools;

/// The arguments back (run in process) when allowed unsandboxed; otherwise the refusal.
pub(crate) async fn run_sandboxed(
    runs: Runs<'_>,
    arguments: Value,
    _meta: Option<Map<String, Value>>,
    _reports: &Reports,
    _cancellation: &CancellationToken,
) -> Result<MCPToolResult, Value> {
    let name = runs.tool.name().as_str();
    if runs.sandboxing.allows_unsandboxed(name) {
        return Err(arguments);
    }
    Ok(super::refused(name, MISSING, runs.sandboxing))
}

pub(super) async fn probe(_sandboxing: &Sandboxing) -> Support {
    Support {
        missing: Some(MISSING.to_owned()),
        ..Support::default()
    }
}
