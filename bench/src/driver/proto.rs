//! The messages the driver sends, pre-formatted, and the check of every answer.

use serde::Deserialize;
use serde::de::IgnoredAny;

/// The protocol revision the driver speaks.
pub(crate) const PROTOCOL_VERSION: &str = "2025-11-25";

/// The tool called by default: `{a, b}` in, `{"sum": a + b}` out.
pub(crate) const DEFAULT_TOOL: &str = "bench.add";

/// What `bench://about`, the fixed resource the framework's servers serve, reads as.
pub(crate) const RESOURCE_TEXT: &str = "mcp-bench: a fixed text resource";

/// What a target of `--tool` that reads a resource starts with: `resource:bench://about`.
pub(crate) const RESOURCE_PREFIX: &str = "resource:";

/// What a target of `--tool` that renders a prompt starts with: `prompt:bench_greeting`.
/// The prompt takes `n` and renders one message, `n=<n>`.
pub(crate) const PROMPT_PREFIX: &str = "prompt:";

/// The first addend of every call; the second is the id modulo [`B_RANGE`].
const A: i64 = 1;
const B_RANGE: u64 = 1000;

/// `initialize`, with id `id`.
pub(crate) fn initialize(id: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"initialize","params":{{"protocolVersion":"{PROTOCOL_VERSION}","capabilities":{{}},"clientInfo":{{"name":"mcp-bench","version":"{}"}}}}}}"#,
        env!("CARGO_PKG_VERSION")
    )
}

/// `notifications/initialized`.
pub(crate) const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// `tools/list`, with id `id`.
pub(crate) fn tools_list(id: u64) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list","params":{{}}}}"#)
}

/// Writes the requests of one target, from bytes formatted once: `tools/call` of a tool,
/// `resources/read` of `resource:URI`, or `prompts/get` of `prompt:NAME`.
#[derive(Debug, Clone)]
pub(crate) struct CallTemplate {
    head: Vec<u8>,
    middle: Vec<u8>,
    /// What follows the id-dependent number; empty when the request has none.
    tail: &'static [u8],
}

impl CallTemplate {
    /// Requests of `target`.
    pub(crate) fn new(target: &str) -> Self {
        let quoted = |text: &str| serde_json::to_string(text).unwrap_or_default();
        let (middle, tail): (String, &'static [u8]) = if let Some(uri) =
            target.strip_prefix(RESOURCE_PREFIX)
        {
            let uri = quoted(uri);
            (
                format!(r#","method":"resources/read","params":{{"uri":{uri}}}}}"#),
                b"",
            )
        } else if let Some(name) = target.strip_prefix(PROMPT_PREFIX) {
            let name = quoted(name);
            (
                format!(r#","method":"prompts/get","params":{{"name":{name},"arguments":{{"n":""#),
                b"\"}}}",
            )
        } else {
            let tool = quoted(target);
            (
                format!(
                    r#","method":"tools/call","params":{{"name":{tool},"arguments":{{"a":{A},"b":"#
                ),
                b"}}}",
            )
        };
        Self {
            head: br#"{"jsonrpc":"2.0","id":"#.to_vec(),
            middle: middle.into_bytes(),
            tail,
        }
    }

    /// Appends the request with id `id`, and its newline, to `out`.
    pub(crate) fn push(&self, id: u64, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.head);
        push_u64(out, id);
        out.extend_from_slice(&self.middle);
        if !self.tail.is_empty() {
            push_u64(out, id % B_RANGE);
            out.extend_from_slice(self.tail);
        }
        out.push(b'\n');
    }

    /// The call with id `id`, without a newline.
    pub(crate) fn body(&self, id: u64) -> Vec<u8> {
        let mut out = Vec::with_capacity(128);
        self.push(id, &mut out);
        out.pop();
        out
    }
}

/// The sum the answer to call `id` must carry.
pub(crate) fn expected_sum(id: u64) -> i64 {
    A + (id % B_RANGE) as i64
}

fn push_u64(out: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

/// An answer, as far as the check reads it.
#[derive(Deserialize)]
struct Answer {
    id: Option<u64>,
    result: Option<CallResult>,
    error: Option<IgnoredAny>,
}

#[derive(Deserialize)]
struct CallResult {
    #[serde(rename = "structuredContent")]
    structured: Option<Structured>,
    #[serde(rename = "isError")]
    is_error: Option<bool>,
    /// A resource read's contents.
    contents: Option<Vec<Text>>,
    /// A prompt's messages.
    messages: Option<Vec<Message>>,
}

#[derive(Deserialize)]
struct Text {
    text: Option<String>,
}

#[derive(Deserialize)]
struct Message {
    content: Text,
}

#[derive(Deserialize)]
struct Structured {
    sum: Option<i64>,
}

/// What one answer to a call turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// A success with the right sum, for call `id`.
    Ok(u64),
    /// An answer to call `id`, but not the right one.
    Wrong(u64),
    /// Not an answer to any call: unreadable, or without an id.
    Unreadable,
}

/// Checks an answer to a call.
pub(crate) fn check(line: &[u8]) -> Verdict {
    let Ok(answer) = serde_json::from_slice::<Answer>(line) else {
        return Verdict::Unreadable;
    };
    let Some(id) = answer.id else {
        return Verdict::Unreadable;
    };
    let right = answer.error.is_none()
        && answer
            .result
            .is_some_and(|result| match (result.contents, result.messages) {
                (Some(contents), _) => {
                    contents.first().and_then(|c| c.text.as_deref()) == Some(RESOURCE_TEXT)
                }
                (_, Some(messages)) => {
                    let expected = format!("n={}", id % B_RANGE);
                    messages.first().and_then(|m| m.content.text.as_deref()) == Some(&expected)
                }
                _ => {
                    result.is_error == Some(false)
                        && result.structured.and_then(|data| data.sum) == Some(expected_sum(id))
                }
            });
    if right {
        Verdict::Ok(id)
    } else {
        Verdict::Wrong(id)
    }
}

/// The id of any answer, and whether it is a success (`result` rather than `error`).
pub(crate) fn answer_id(line: &[u8]) -> Option<(u64, bool)> {
    let answer: Answer = serde_json::from_slice(line).ok()?;
    Some((
        answer.id?,
        answer.result.is_some() && answer.error.is_none(),
    ))
}

/// Tallies the answers to calls `first..first + n`.
#[derive(Debug, Clone)]
pub(crate) struct Tally {
    first: u64,
    seen: Vec<bool>,
    /// Lines read.
    pub(crate) answers: u64,
    /// Right answers to calls not answered before.
    pub(crate) ok: u64,
    /// Wrong, unreadable, unexpected or repeated answers.
    pub(crate) errors: u64,
    /// Of the wrong answers, the failures of calls refused as overloaded
    /// (`ApiLimitExceeded`).
    pub(crate) overloaded: u64,
}

impl Tally {
    /// A tally of calls `first..first + n`.
    pub(crate) fn new(first: u64, n: u64) -> Self {
        Self {
            first,
            seen: vec![false; usize::try_from(n).unwrap_or(usize::MAX)],
            answers: 0,
            ok: 0,
            errors: 0,
            overloaded: 0,
        }
    }

    /// Counts one answer.
    pub(crate) fn count(&mut self, line: &[u8]) {
        self.answers += 1;
        let fresh = |seen: &mut Vec<bool>, id: u64| {
            let slot = id
                .checked_sub(self.first)
                .and_then(|index| usize::try_from(index).ok())
                .and_then(|index| seen.get_mut(index));
            match slot {
                Some(slot) if !*slot => {
                    *slot = true;
                    true
                }
                _ => false,
            }
        };
        match check(line) {
            Verdict::Ok(id) if fresh(&mut self.seen, id) => self.ok += 1,
            Verdict::Wrong(id) => {
                let _ = fresh(&mut self.seen, id);
                self.errors += 1;
                if overloaded(line) {
                    self.overloaded += 1;
                }
            }
            _ => self.errors += 1,
        }
    }

    /// Calls never answered.
    pub(crate) fn lost(&self) -> u64 {
        self.seen.iter().filter(|seen| !**seen).count() as u64
    }
}

/// Whether `line` answers a call as refused for overload, not wrongly: a failure of type
/// `ApiLimitExceeded`; the server's refusal of a request past its bound of requests in
/// flight ([`BUSY`](mcp_runtime_core::wire::BUSY)); or a timeout that the call spent
/// waiting for a thread of synchronous tools (its details say `waited_ms`).
fn overloaded(line: &[u8]) -> bool {
    let Ok(answer) = serde_json::from_slice::<serde_json::Value>(line) else {
        return false;
    };
    if answer["error"]["code"].as_i64() == Some(mcp_runtime_core::wire::BUSY) {
        return true;
    }
    let error = &answer["result"]["_meta"][mcp_runtime_core::wire::ERROR_META];
    match error["error_type"].as_str() {
        Some("ApiLimitExceeded") => true,
        Some("TimeoutError") => error["error_details"]["waited_ms"].is_u64(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_for_overload_are_told_from_wrong_answers() {
        let failed = |error: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":3,"result":{{"isError":true,"_meta":{{"io.github.mcp-runtime/error":{error}}}}}}}"#
            )
        };
        let busy = r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32030,"message":"too many"}}"#;
        let limited = failed(r#"{"error_type":"ApiLimitExceeded","error_message":"x"}"#);
        let waited = failed(
            r#"{"error_type":"TimeoutError","error_message":"x","error_details":{"timeout_ms":5000,"waited_ms":4999}}"#,
        );
        let timed_out = failed(r#"{"error_type":"TimeoutError","error_message":"x"}"#);
        let invalid = r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"x"}}"#;
        for line in [busy, &limited, &waited] {
            assert!(overloaded(line.as_bytes()), "{line}");
        }
        for line in [&timed_out, invalid, "not json"] {
            assert!(!overloaded(line.as_bytes()), "{line}");
        }
    }

    #[test]
    fn calls_are_well_formed_and_answers_checked() {
        let template = CallTemplate::new(DEFAULT_TOOL);
        let body = template.body(1234);
        let value: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(value["id"], 1234);
        assert_eq!(value["params"]["name"], "bench.add");
        assert_eq!(value["params"]["arguments"]["b"], 234);
        assert_eq!(expected_sum(1234), 235);

        let good = br#"{"jsonrpc":"2.0","id":1234,"result":{"structuredContent":{"sum":235},"content":[],"isError":false}}"#;
        let wrong = br#"{"jsonrpc":"2.0","id":1234,"result":{"structuredContent":{"sum":5},"content":[],"isError":false}}"#;
        let failed = br#"{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"x"}}"#;
        assert_eq!(check(good), Verdict::Ok(1234));
        assert_eq!(check(wrong), Verdict::Wrong(1234));
        assert_eq!(check(failed), Verdict::Wrong(7));
        assert_eq!(check(b"nonsense"), Verdict::Unreadable);

        let read = CallTemplate::new("resource:bench://about").body(5);
        assert_eq!(
            serde_json::from_slice::<serde_json::Value>(&read).unwrap()["params"],
            serde_json::json!({ "uri": "bench://about" })
        );
        let text = format!(
            r#"{{"jsonrpc":"2.0","id":5,"result":{{"contents":[{{"uri":"bench://about","text":"{RESOURCE_TEXT}"}}]}}}}"#
        );
        assert_eq!(check(text.as_bytes()), Verdict::Ok(5));
        assert_eq!(
            check(br#"{"jsonrpc":"2.0","id":5,"result":{"contents":[{"text":"other"}]}}"#),
            Verdict::Wrong(5)
        );
        let prompt = CallTemplate::new("prompt:bench_greeting").body(1005);
        assert_eq!(
            serde_json::from_slice::<serde_json::Value>(&prompt).unwrap()["params"],
            serde_json::json!({ "name": "bench_greeting", "arguments": { "n": "5" } })
        );
        let message = r#"{"jsonrpc":"2.0","id":1005,"result":{"messages":[{"role":"user","content":{"type":"text","text":"n=5"}}]}}"#;
        assert_eq!(check(message.as_bytes()), Verdict::Ok(1005));
        let other = message.replace("1005", "1006");
        assert_eq!(check(other.as_bytes()), Verdict::Wrong(1006));

        let mut tally = Tally::new(1234, 2);
        tally.count(good);
        tally.count(good);
        assert_eq!((tally.ok, tally.errors, tally.lost()), (1, 1, 1));
    }
}
