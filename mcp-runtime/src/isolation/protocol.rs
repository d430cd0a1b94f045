//! What crosses between a server and a worker: one JSON value a line.

use std::path::PathBuf;

use mcp_runtime_core::sandbox::Network;
use mcp_runtime_core::{LogMessage, LoggingLevel};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::Support;

/// How a worker isolates itself, and for which tool: its command line's last argument.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Config {
    /// The tool it runs; empty for a probe, which runs none.
    pub(crate) tool: String,
    /// What it may read.
    pub(crate) read: Vec<PathBuf>,
    /// What it may read and write, the scratch directory included.
    pub(crate) write: Vec<PathBuf>,
    pub(crate) network: Network,
    pub(crate) memory: u64,
    pub(crate) processes: u32,
    /// Its CPU time, in whole seconds; unbounded for a tool without a timeout.
    pub(crate) cpu_seconds: Option<u64>,
    /// The mechanism to act as if missing (see [`super::UNAVAILABLE_ENV`]).
    pub(crate) pretend_missing: Option<String>,
    /// Whether a panic's message reaches the caller.
    pub(crate) expose_panics: bool,
}

/// What the server sends, once the worker said it is ready.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Call {
    /// The arguments, a JSON object.
    pub(crate) arguments: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) meta: Option<Map<String, Value>>,
    /// The least level of log messages the caller wants, if it wants any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) log: Option<LoggingLevel>,
    /// Whether the caller wants progress.
    #[serde(default)]
    pub(crate) progress: bool,
}

/// A line from the worker.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) enum Line {
    /// Isolated as this says, waiting for the call.
    Ready(Support),
    /// Cannot isolate: what is missing. Nothing of the call was read.
    Unavailable(Support),
    Progress {
        progress: f64,
        #[serde(default)]
        total: Option<f64>,
        #[serde(default)]
        message: Option<String>,
    },
    Log(LogMessage),
    /// The tool's result, an `MCPToolResult` as JSON.
    Result(Map<String, Value>),
    /// The process that ran the tool ended (written by the one that waited for it, when
    /// the tool ran in a PID namespace of its own).
    Ended(Ended),
}

/// How the process that ran the tool ended.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) enum Ended {
    Code(i32),
    Signal(i32),
}
