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
        let (tool, prompt) = match operation.target {
            Target::Tool(name) => (Some(name.to_owned()), None),
            Target::Prompt(name) => (None, Some(name.to_owned())),
            Target::None | Target::Resource(_) => (None, None),
        };
        Self {
            method: operation.method.to_owned(),
            tool,
            prompt,
            protocol_version: operation.protocol_version.map(str::to_owned),
            transport: operation.transport.as_str(),
        }
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
