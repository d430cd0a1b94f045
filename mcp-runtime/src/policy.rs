//! The `dangerous` policy: a tool marked `dangerous` runs only when the caller's policy
//! allows it.

use std::collections::BTreeSet;
use std::fmt;
use std::sync::Arc;

use mcp_runtime_core::ToolDefinition;
use serde_json::{Map, Value};

/// Decides, for one call of a dangerous tool, whether it may run.
pub type Confirm = Arc<dyn Fn(&ToolDefinition, &Map<String, Value>) -> bool + Send + Sync>;

/// Which `dangerous` tools may run. Tools not marked `dangerous` always may.
#[derive(Clone, Default)]
pub enum DangerousPolicy {
    /// None may: every call is a `PermissionError` failure. The default.
    #[default]
    Deny,
    /// Those named here may.
    Allow(BTreeSet<String>),
    /// Each call is put to a confirmation callback (a prompt to the user, say).
    Confirm(Confirm),
    /// Each call asks the client's user first, through MCP elicitation: a form of one
    /// boolean, `confirm`, with a message made from the tool's description and arguments.
    /// Only `true` runs the tool. A decline, a cancel, `false`, or a client that cannot be
    /// asked is a `PermissionError` saying which. The policy for interactive clients.
    AskUser,
    /// All may.
    AllowAll,
}

impl DangerousPolicy {
    /// Whether a call of `definition` with `arguments` may run.
    pub(crate) fn permits(
        &self,
        definition: &ToolDefinition,
        arguments: &Map<String, Value>,
    ) -> bool {
        if !definition.annotations().dangerous {
            return true;
        }
        match self {
            Self::Deny => false,
            Self::Allow(names) => names.contains(definition.name().as_str()),
            Self::Confirm(confirm) => confirm(definition, arguments),
            // Asked when the call runs, where the client can be reached.
            Self::AskUser | Self::AllowAll => true,
        }
    }

    /// Whether a call of `definition` must first be confirmed by the client's user.
    pub(crate) fn asks_user(&self, definition: &ToolDefinition) -> bool {
        matches!(self, Self::AskUser) && definition.annotations().dangerous
    }
}

impl fmt::Debug for DangerousPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Deny => f.write_str("Deny"),
            Self::Allow(names) => f.debug_tuple("Allow").field(names).finish(),
            Self::Confirm(_) => f.write_str("Confirm(..)"),
            Self::AllowAll => f.write_str("AllowAll"),
            Self::AskUser => f.write_str("AskUser"),
        }
    }
}
