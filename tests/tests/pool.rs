//! `serve --tool-concurrency` and `--blocking-threads`, on the quickstart: the limit holds
//! over stdio, and bad values are usage errors (exit 2) that say what is wrong.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use mcp_tests::quickstart_bin;
use serde_json::{Value, json};

/// The quickstart serving stdio with `args`, killed when dropped.
struct Served {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<Value>,
}

impl Served {
    fn start(args: &[&str]) -> Self {
        let mut child = Command::new(quickstart_bin())
            .args(["serve", "--stdio"])
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the quickstart starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines() {
                let Ok(line) = line else { break };
                let Ok(message) = serde_json::from_str(&line) else {
                    continue;
                };
                if sender.send(message).is_err() {
                    break;
                }
            }
        });
        let mut served = Self {
            child,
            stdin,
            lines,
        };
        served.send(&json!({
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "pool-test", "version": "1"}}
        }));
        served.answer();
        served.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        served
    }

    fn send(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").expect("sent");
        self.stdin.flush().expect("flushed");
    }

    /// The next answer (a message with an id), within 30 s.
    fn answer(&self) -> Value {
        loop {
            let message = self
                .lines
                .recv_timeout(Duration::from_secs(30))
                .expect("an answer within 30 s");
            if message.get("id").is_some() {
                return message;
            }
        }
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn slow_count(id: u64, delay_ms: u64) -> Value {
    json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "text.slow_count", "arguments": {"text": "a b", "delay_ms": delay_ms}}
    })
}

#[test]
fn tool_concurrency_runs_the_selected_tools_one_at_a_time() {
    const DELAY: u64 = 300;
    let mut served = Served::start(&["--tool-concurrency", "text.slow_count=1"]);
    let sent = Instant::now();
    served.send(&slow_count(2, DELAY));
    served.send(&slow_count(3, DELAY));
    let first = served.answer();
    let second = served.answer();
    let both = sent.elapsed();
    for answer in [&first, &second] {
        assert_eq!(answer["result"]["isError"], json!(false), "{answer}");
    }
    // One at a time: the second began when the first ended.
    assert!(
        both >= Duration::from_millis(2 * DELAY),
        "both answered after {both:?}: they ran at once"
    );
}

/// `serve` with `args` and nothing on standard input: its exit code and standard error.
fn refused(args: &[&str]) -> (Option<i32>, String) {
    let output = Command::new(quickstart_bin())
        .args(["serve", "--stdio"])
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("the quickstart runs");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn bad_pool_flags_are_usage_errors_that_say_what_is_wrong() {
    for (args, says) in [
        (
            &["--tool-concurrency", "text.slow_count=0"][..],
            "`0` is not a number above 0 (SELECTOR=N, e.g. `weather.*=4`)",
        ),
        (
            &["--tool-concurrency", "text.slow_count=abc"],
            "`abc` is not a number above 0",
        ),
        (
            &["--tool-concurrency", "text.slow_count"],
            "`text.slow_count` is not SELECTOR=N",
        ),
        (
            &["--tool-concurrency", "text.slow_cont=2"],
            "the layer's selector `text.slow_cont` picks nothing",
        ),
        (
            &["--blocking-threads", "0"],
            "`0` is not a number above 0 (a number of threads",
        ),
    ] {
        let (code, stderr) = refused(args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
    let (_, stderr) = refused(&["--tool-concurrency", "text.slow_cont=2"]);
    assert!(stderr.contains("text.slow_count"), "{stderr}");
}
