//! What an operation's record carries to every sink: the side it was seen from, and the
//! attributes its metrics are kept by.

use std::borrow::Cow;

use super::{Operation, Target};

/// Which side of the conversation an operation was seen from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Side {
    /// The server answering a request.
    Server,
    /// The client sending one.
    Client,
}

/// An operation's attributes that its metrics carry (few values each, as a metric's
/// attributes must be): no ids, no URIs.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct Labels {
    pub(super) method: String,
    pub(super) tool: Option<String>,
    pub(super) prompt: Option<String>,
    pub(super) protocol_version: Option<String>,
    pub(super) transport: &'static str,
}

// Without `http` or `otel` nothing records: the labels and the record are never read.
#[cfg_attr(not(any(feature = "http", feature = "otel")), allow(dead_code))]
impl Labels {
    pub(super) fn of(operation: &Operation<'_>) -> Self {
        let (tool, prompt) = named(operation.target);
        Self {
            method: operation.method.to_owned(),
            tool: tool.map(str::to_owned),
            prompt: prompt.map(str::to_owned),
            protocol_version: operation.protocol_version.map(str::to_owned),
            transport: operation.transport.as_str(),
        }
    }

    /// Whether these are the labels of `operation`, without making them.
    #[cfg(feature = "otel")]
    pub(super) fn are_of(&self, operation: &Operation<'_>) -> bool {
        let (tool, prompt) = named(operation.target);
        self.method == operation.method
            && self.tool.as_deref() == tool
            && self.prompt.as_deref() == prompt
            && self.protocol_version.as_deref() == operation.protocol_version
            && self.transport == operation.transport.as_str()
    }

    /// A hash of the labels of `operation`, without making them: equal labels hash
    /// alike.
    #[cfg(feature = "otel")]
    pub(super) fn hash_of(operation: &Operation<'_>) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut hasher = rustc_hash::FxHasher::default();
        let (tool, prompt) = named(operation.target);
        (operation.method, tool, prompt, operation.protocol_version).hash(&mut hasher);
        operation.transport.as_str().hash(&mut hasher);
        hasher.finish()
    }

    /// The pairs of attribute name and value, the absent ones left out; `error.type` last,
    /// where the operation failed.
    pub(super) fn pairs<'a>(
        &'a self,
        error: Option<&'a Cow<'static, str>>,
    ) -> impl Iterator<Item = (&'static str, &'a str)> {
        let execute_tool = self.tool.as_ref().map(|_| "execute_tool");
        [
            ("mcp.method.name", Some(self.method.as_str())),
            ("gen_ai.tool.name", self.tool.as_deref()),
            ("gen_ai.prompt.name", self.prompt.as_deref()),
            ("gen_ai.operation.name", execute_tool),
            ("mcp.protocol.version", self.protocol_version.as_deref()),
            ("network.transport", Some(self.transport)),
            ("error.type", error.map(|error| error.as_ref())),
        ]
        .into_iter()
        .filter_map(|(key, value)| value.map(|value| (key, value)))
    }
}

/// The tool and the prompt a target names, each where it names one.
fn named(target: Target<'_>) -> (Option<&str>, Option<&str>) {
    match target {
        Target::Tool(name) => (Some(name), None),
        Target::Prompt(name) => (None, Some(name)),
        Target::None | Target::Resource(_) => (None, None),
    }
}
