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
        let same_option = |kept: Option<&str>, of: Option<&str>| match (kept, of) {
            (Some(kept), Some(of)) => same(kept, of),
            (kept, of) => kept.is_none() && of.is_none(),
        };
        same(&self.method, operation.method)
            && same_option(self.tool.as_deref(), tool)
            && same_option(self.prompt.as_deref(), prompt)
            && same_option(self.protocol_version.as_deref(), operation.protocol_version)
            && same(self.transport, operation.transport.as_str())
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

/// Whether `a` and `b` are the same string: as `==` has it, without a call to `memcmp` for
/// those of 16 bytes or fewer (a label's, nearly always), compared eight bytes at a time.
#[cfg(feature = "otel")]
#[inline]
fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let length = a.len();
    if length != b.len() {
        return false;
    }
    let word = |bytes: &[u8], at: usize| {
        let mut word = [0; 8];
        word.copy_from_slice(&bytes[at..at + 8]);
        u64::from_ne_bytes(word)
    };
    match length {
        // The first eight bytes and the last eight, which overlap below 16.
        8..=16 => word(a, 0) == word(b, 0) && word(a, length - 8) == word(b, length - 8),
        0..8 => a.iter().zip(b).all(|(a, b)| a == b),
        _ => a == b,
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

#[cfg(all(test, feature = "otel"))]
mod tests {
    use super::same;

    #[test]
    fn same_is_equality_at_every_length() {
        let text = "tools/call bench.add 2025-06-18 pipe and a little more";
        for length in 0..=text.len() {
            let a = &text[..length];
            let copy = a.to_owned();
            assert!(same(a, &copy), "{a:?}");
            for at in 0..length {
                // One byte changed, wherever it is: the first eight, the last eight, or
                // between.
                let mut other = copy.clone().into_bytes();
                other[at] ^= 0x01;
                let other = String::from_utf8(other).expect("ASCII");
                assert!(!same(a, &other), "{a:?} against {other:?}");
            }
            if length < text.len() {
                assert!(!same(a, &text[..=length]), "{a:?} is not one byte longer");
            }
        }
    }
}
