//! Helpers shared by the workspace-level tests.

use serde_json::{Value, json};

/// The MCP protocol revisions whose official schemas are vendored under `spec/mcp/`.
pub const REVISIONS: [&str; 3] = ["2025-06-18", "2025-11-25", "2026-07-28"];

/// The official MCP JSON Schema of `revision`.
pub fn mcp_schema(revision: &str) -> Value {
    let path = format!(
        "{}/../spec/mcp/{revision}/schema.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text =
        std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("cannot read {path}: {err}"));
    serde_json::from_str(&text).unwrap_or_else(|err| panic!("{path} is not JSON: {err}"))
}

/// A validator for one definition of the MCP schema of `revision` (under `$defs`, or
/// `definitions` in the draft-07 revisions).
pub fn mcp_validator(revision: &str, definition: &str) -> jsonschema::Validator {
    let spec = mcp_schema(revision);
    let key = if spec.get("$defs").is_some() {
        "$defs"
    } else {
        "definitions"
    };
    assert!(
        spec[key][definition].is_object(),
        "MCP {revision} has no {key}/{definition}"
    );
    let schema = json!({
        "$schema": spec["$schema"],
        key: spec[key],
        "$ref": format!("#/{key}/{definition}"),
    });
    jsonschema::validator_for(&schema)
        .unwrap_or_else(|err| panic!("MCP {revision} $defs/{definition} does not compile: {err}"))
}

/// Every error `validator` finds in `instance`, one per line with its instance path.
pub fn schema_errors(validator: &jsonschema::Validator, instance: &Value) -> Vec<String> {
    validator
        .iter_errors(instance)
        .map(|err| format!("{}: {err}", err.instance_path()))
        .collect()
}

/// The lines a process writes on one of its outputs, read as they come by a thread of
/// their own: a test waits for a line (a tool saying it started, or how it stopped)
/// instead of sleeping and hoping.
pub struct Lines {
    receiver: std::sync::mpsc::Receiver<String>,
    /// Lines read but not yet taken by [`Lines::next_with`], in order.
    waiting: std::collections::VecDeque<String>,
    /// Every line read so far.
    read: Vec<String>,
}

impl Lines {
    /// Reads `from` line by line, until it ends.
    pub fn read(mut from: impl std::io::BufRead + Send + 'static) -> Self {
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = Vec::new();
            loop {
                line.clear();
                match from.read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let text = String::from_utf8_lossy(&line);
                        let text = text.trim_end_matches(['\n', '\r']).to_owned();
                        if sender.send(text).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        Self {
            receiver,
            waiting: std::collections::VecDeque::new(),
            read: Vec::new(),
        }
    }

    /// The first line not yet taken that contains `needle`, waiting at most `within` for
    /// it; the lines passed over stay for later calls. Panics when none comes in time,
    /// with every line read so far.
    #[track_caller]
    pub fn next_with(&mut self, needle: &str, within: std::time::Duration) -> String {
        if let Some(at) = self.waiting.iter().position(|line| line.contains(needle)) {
            return self.waiting.remove(at).unwrap_or_default();
        }
        let deadline = std::time::Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self.receiver.recv_timeout(left) {
                Ok(line) => {
                    self.read.push(line.clone());
                    if line.contains(needle) {
                        return line;
                    }
                    self.waiting.push_back(line);
                }
                Err(err) => panic!(
                    "no line with `{needle}` within {within:?} ({err}); the lines so far:\n{}",
                    self.read.join("\n")
                ),
            }
        }
    }

    /// Every line, once the output has ended (its process has exited and closed it).
    pub fn all(&mut self) -> String {
        self.read.extend(self.receiver.iter());
        self.read.join("\n")
    }
}
