//! Faults, over real processes: tools that panic, hang, print to standard output or get
//! cancelled; input that ends with calls in flight; 10,000 requests at once; a client that
//! stops reading; a client that hangs up mid-call. After each, the server still answers,
//! and no request is lost.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::thread;
use std::time::{Duration, Instant};

use mcp_tests::{HttpServer, Lines};
use serde_json::{Value, json};

const SERVER: &str = env!("CARGO_BIN_EXE_fault-server");

/// A server on stdio: requests go in, every line that comes out is parsed and kept, as the
/// test asks for it; its standard error is read line by line as it comes.
struct StdioServer {
    child: Child,
    input: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    stderr: Lines,
    answers: HashMap<String, Value>,
}

impl StdioServer {
    fn start() -> Self {
        Self::start_with(&[])
    }

    /// A server with `flags` after `serve --stdio`.
    fn start_with(flags: &[&str]) -> Self {
        let mut child = Command::new(SERVER)
            .args(["serve", "--stdio"])
            .args(flags)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the fault server starts");
        let output = child.stdout.take().expect("stdout");
        // Handed over one at a time: the thread reads a line when the test has taken the
        // one before, so a test that takes none stops reading, as a client can.
        let (sender, lines) = mpsc::sync_channel(0);
        thread::spawn(move || {
            for line in BufReader::new(output).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = Lines::read(BufReader::new(child.stderr.take().expect("stderr")));
        let mut server = Self {
            input: child.stdin.take(),
            child,
            lines,
            stderr,
            answers: HashMap::new(),
        };
        server.send(&json!({
            "jsonrpc": "2.0", "id": "init", "method": "initialize",
            "params": { "protocolVersion": "2025-11-25", "capabilities": {},
                        "clientInfo": { "name": "faults", "version": "1" } }
        }));
        server.answer("init");
        server.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }));
        server
    }

    fn send(&mut self, message: &Value) {
        let input = self.input.as_mut().expect("input is open");
        writeln!(input, "{message}").expect("the server reads");
        input.flush().expect("the server reads");
    }

    fn call(&mut self, id: &str, tool: &str, arguments: Value) {
        self.send(&json!({
            "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": { "name": tool, "arguments": arguments }
        }));
    }

    /// The answer to `id`, waiting up to 30 s; every line on the way must be JSON-RPC.
    fn answer(&mut self, id: &str) -> Value {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(answer) = self.answers.remove(id) {
                return answer;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self
                .lines
                .recv_timeout(left)
                .unwrap_or_else(|err| panic!("no answer to `{id}`: {err}"));
            self.keep(&line);
        }
    }

    /// Keeps a line of standard output, which must be a JSON-RPC message, by its id.
    fn keep(&mut self, line: &str) {
        let message: Value = serde_json::from_str(line).unwrap_or_else(|err| {
            panic!("stdout carried a line that is not JSON ({err}): {line:?}")
        });
        assert_eq!(message["jsonrpc"], "2.0", "{line}");
        let key = match &message["id"] {
            Value::String(id) => id.clone(),
            other => other.to_string(),
        };
        self.answers.insert(key, message);
    }

    /// Checks the server still answers a plain call correctly.
    fn still_serves(&mut self, id: &str) {
        self.call(id, "fault.add", json!({ "a": 20, "b": 22 }));
        let answer = self.answer(id);
        assert_eq!(
            answer["result"]["structuredContent"],
            json!({ "result": 42 }),
            "{answer}"
        );
        assert!(
            self.child.try_wait().expect("status").is_none(),
            "the server is running"
        );
    }

    /// Closes input and reads the output to its end (the server exits within 90 s, longer
    /// than any tool's timeout), keeping every message in `answers`; its standard error.
    fn end(&mut self) -> String {
        drop(self.input.take());
        let deadline = Instant::now() + Duration::from_secs(90);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => self.keep(&line),
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
                Err(mpsc::RecvTimeoutError::Timeout) => panic!("the server did not exit"),
            }
        }
        let status = self.child.wait().expect("the server exits");
        assert!(status.success(), "exit status {status}");
        self.stderr.all()
    }

    /// [`StdioServer::end`], for a test done with the server.
    fn finish(mut self) -> String {
        self.end()
    }
}

impl Drop for StdioServer {
    /// A test that failed leaves no server behind.
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn error_type(answer: &Value) -> &str {
    assert_eq!(answer["result"]["isError"], true, "{answer}");
    answer["result"]["_meta"][mcp_runtime::ERROR_META]["error_type"]
        .as_str()
        .unwrap_or_default()
}

/// The incident id in a panicking tool's error message.
fn incident(message: &str) -> &str {
    let (_, rest) = message
        .split_once("(incident ")
        .unwrap_or_else(|| panic!("no incident id: {message}"));
    let id = rest.split(')').next().unwrap_or_default();
    assert!(
        id.len() == 16 && id.bytes().all(|b| b.is_ascii_hexdigit()),
        "{message}"
    );
    id
}

#[test]
fn a_panicking_tool_fails_its_call_only_and_keeps_its_message_from_the_client() {
    let mut server = StdioServer::start();
    server.call("p1", "fault.panic", json!({ "secret": "hunter2" }));
    let answer = server.answer("p1");
    assert_eq!(error_type(&answer), "ToolExecutionError");
    assert!(!answer.to_string().contains("hunter2"), "{answer}");
    let message = answer["result"]["_meta"][mcp_runtime::ERROR_META]["error_message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(message.contains("failed unexpectedly"), "{message}");
    let id = incident(&message);
    // The log has the message, the place and the same id.
    let logged = server.stderr.next_with(id, Duration::from_secs(10));
    assert!(
        logged.contains("this tool always panics, holding hunter2")
            && logged.contains("fault_server.rs:"),
        "{logged}"
    );
    server.call("p2", "fault.panic_blocking", json!({}));
    let answer = server.answer("p2");
    assert_eq!(error_type(&answer), "ToolExecutionError");
    incident(
        answer["result"]["_meta"][mcp_runtime::ERROR_META]["error_message"]
            .as_str()
            .unwrap(),
    );
    server.still_serves("after");
    let stderr = server.finish();
    // Each panic is logged once, and not again by the default hook.
    assert!(!stderr.contains("thread '"), "{stderr}");
}

#[test]
fn expose_panics_sends_the_message_to_the_client() {
    let mut server = StdioServer::start_with(&["--expose-panics"]);
    server.call("p", "fault.panic", json!({ "secret": "visible" }));
    let answer = server.answer("p");
    let message = answer["result"]["_meta"][mcp_runtime::ERROR_META]["error_message"]
        .as_str()
        .unwrap();
    assert!(
        message.contains("this tool always panics, holding visible"),
        "{message}"
    );
    incident(message);
    server.still_serves("after");
    server.finish();
}

#[test]
fn a_tool_that_never_returns_times_out() {
    let mut server = StdioServer::start();
    let started = Instant::now();
    server.call("h", "fault.hang", json!({}));
    // Other calls are answered while it hangs.
    server.still_serves("meanwhile");
    let answer = server.answer("h");
    assert_eq!(error_type(&answer), "TimeoutError");
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_secs(1),
        "answered after {waited:?}"
    );
    server.still_serves("after");
    server.finish();
}

#[test]
fn a_cancelled_call_stops_its_tool_and_is_not_answered() {
    let mut server = StdioServer::start();
    server.call("w", "fault.wait_for_cancel", json!({}));
    // Once the tool runs, its call can be cancelled: the server registers a call before
    // it starts the tool.
    let started = server
        .stderr
        .next_with("fault.wait_for_cancel: started", Duration::from_secs(30));
    assert_eq!(started, "fault.wait_for_cancel: started");
    server.still_serves("meanwhile");
    let cancelled = Instant::now();
    server.send(&json!({
        "jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": { "requestId": "w", "reason": "the user gave up" }
    }));
    // The tool stops while input is still open, and long before its 60 s timeout.
    let stopped = server
        .stderr
        .next_with("fault.wait_for_cancel: stopped", Duration::from_secs(10));
    assert_eq!(
        stopped, "fault.wait_for_cancel: stopped: cancelled",
        "stopped otherwise than by the cancellation"
    );
    eprintln!(
        "the tool stopped {:?} after the cancellation",
        cancelled.elapsed()
    );
    server.still_serves("after");
    // The cancelled call is not answered. On stdio, answers to awaited calls come in no
    // set order, so a later answer alone does not prove that one will not follow; the end
    // of the output does. At end of input the server returns only once every call in
    // flight has given back its place, which a call does after queueing its answer, if
    // any, and the writer writes everything queued before it closes the output. The call
    // has stopped already, so this does not wait out its timeout.
    let ended = Instant::now();
    let stderr = server.end();
    assert!(
        ended.elapsed() < Duration::from_secs(10),
        "the server took {:?} to end",
        ended.elapsed()
    );
    assert!(
        !server.answers.contains_key("w"),
        "the cancelled call was answered: {}",
        server.answers["w"]
    );
    assert_eq!(
        stderr.matches("fault.wait_for_cancel: stopped").count(),
        1,
        "{stderr}"
    );
}

#[test]
fn a_tool_printing_to_stdout_does_not_break_the_stream() {
    let mut server = StdioServer::start();
    for i in 0..20 {
        let id = format!("print{i}");
        let text = format!("{{\"not\": \"a protocol message {i}\"}}");
        server.call(&id, "fault.print", json!({ "text": text }));
        let answer = server.answer(&id);
        assert_eq!(
            answer["result"]["structuredContent"]["result"],
            text.as_str()
        );
    }
    server.still_serves("after");
    // Every stdout line was parsed as a JSON-RPC message by `answer`; the prints went to
    // standard error.
    let stderr = server.finish();
    assert!(stderr.contains("a protocol message 19"), "{stderr}");
}

#[test]
fn calls_in_flight_are_answered_when_input_ends() {
    let mut server = StdioServer::start();
    for i in 0..50 {
        server.call(
            &format!("s{i}"),
            "fault.sleep",
            json!({ "ms": 300, "n": i }),
        );
    }
    drop(server.input.take());
    for i in 0..50 {
        let answer = server.answer(&format!("s{i}"));
        assert_eq!(
            answer["result"]["structuredContent"]["result"], i,
            "{answer}"
        );
    }
    let status = server.child.wait().expect("exit");
    assert!(status.success(), "{status}");
}

/// The server's resident memory, from /proc: (current, peak) in KiB.
fn memory(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc");
    let field = |name: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// The processor time the server has used so far, from /proc, in clock ticks.
#[cfg(target_os = "linux")]
fn processor_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("/proc");
    // After the command name: the state, then 10 more fields, then user and system time.
    let (_, fields) = stat.rsplit_once(") ").expect("a stat line");
    fields
        .split(' ')
        .skip(11)
        .take(2)
        .map(|ticks| ticks.parse::<u64>().expect("a number of ticks"))
        .sum()
}

#[test]
#[cfg(target_os = "linux")]
fn ten_thousand_requests_in_flight_are_all_answered_in_bounded_memory() {
    let mut server = StdioServer::start();
    let pid = server.child.id();
    let mut input = server.input.take().expect("input");
    const N: i64 = 10_000;
    let writer = thread::spawn(move || {
        let mut batch = String::new();
        for i in 0..N {
            // Alternate awaited calls (at most 256 run at once) and inline ones.
            let tool = if i % 2 == 0 {
                "fault.sleep"
            } else {
                "fault.add"
            };
            let arguments = if i % 2 == 0 {
                json!({ "ms": 5, "n": i })
            } else {
                json!({ "a": i, "b": 0 })
            };
            let message = json!({
                "jsonrpc": "2.0", "id": i, "method": "tools/call",
                "params": { "name": tool, "arguments": arguments }
            });
            batch.push_str(&message.to_string());
            batch.push('\n');
        }
        input.write_all(batch.as_bytes()).expect("written");
        input
    });
    let mut seen = vec![false; N as usize];
    let mut computed = 0;
    for _ in 0..N {
        let line = server
            .lines
            .recv_timeout(Duration::from_secs(60))
            .expect("every request is answered");
        let answer: Value = serde_json::from_str(&line).expect("JSON");
        let id = answer["id"].as_i64().expect("an id");
        if answer["error"].is_null() {
            assert_eq!(
                answer["result"]["structuredContent"]["result"], id,
                "{answer}"
            );
            computed += 1;
        } else {
            // Past the connection's bound a call is refused at once, never queued; only
            // calls that await can be refused, since inline ones hold no place.
            assert_eq!(answer["error"]["code"], -32030, "{answer}");
            assert_eq!(answer["error"]["data"]["scope"], "connection", "{answer}");
            assert_eq!(id % 2, 0, "an inline call was refused: {answer}");
        }
        assert!(
            !std::mem::replace(&mut seen[id as usize], true),
            "{id} twice"
        );
    }
    let (_, peak_kib) = memory(pid);
    eprintln!(
        "10,000 requests in flight: {computed} computed, the rest refused as busy; \
         the server's peak resident memory was {peak_kib} KiB"
    );
    assert!(seen.iter().all(|&answered| answered));
    // Every inline call (half of them) is computed whatever the load.
    assert!(computed >= N / 2, "only {computed} computed");
    assert!(peak_kib < 100 * 1024, "peak resident memory {peak_kib} KiB");
    server.input = Some(writer.join().expect("writer"));
    server.finish();
}

#[test]
#[cfg(target_os = "linux")]
fn a_client_that_stops_reading_slows_the_server_instead_of_filling_its_memory() {
    let mut server = StdioServer::start();
    let pid = server.child.id();
    let mut input = server.input.take().expect("input");
    // 2,000 answers of 64 KiB: 128 MiB if the server buffered them all.
    const N: i64 = 2_000;
    let written = Arc::new(AtomicUsize::new(0));
    let writer = thread::spawn({
        let written = Arc::clone(&written);
        move || {
            for i in 0..N {
                let message = json!({
                    "jsonrpc": "2.0", "id": i, "method": "tools/call",
                    "params": { "name": "fault.large", "arguments": { "n": i, "size": 65_536 } }
                });
                if writeln!(input, "{message}").is_err() {
                    break;
                }
                written.fetch_add(1, Ordering::SeqCst);
            }
            input
        }
    });
    // Read nothing (the server's output is read only as the test asks for answers): the
    // server must stop reading, not buffer. Wait until all is still: the writer stuck on
    // a full pipe and the server using no processor time, both for a whole second (a
    // server slow at its work is not still, and a pause of a busy machine rarely stills
    // both for that long); or until the writer is done, which a server that stops reading
    // never lets it be.
    let waiting = Instant::now();
    let deadline = waiting + Duration::from_secs(60);
    let sample = || (written.load(Ordering::SeqCst), processor_ticks(pid));
    let (mut last, mut since) = (sample(), Instant::now());
    while !writer.is_finished() && (last.0 == 0 || since.elapsed() < Duration::from_secs(1)) {
        assert!(
            Instant::now() < deadline,
            "the server never stopped: {} requests written",
            last.0
        );
        thread::sleep(Duration::from_millis(20));
        let now = sample();
        if now != last {
            (last, since) = (now, Instant::now());
        }
    }
    let count = last.0;
    let (resident_kib, _) = memory(pid);
    assert!(
        !writer.is_finished(),
        "the server kept reading requests although its answers were not read"
    );
    eprintln!(
        "the writer stalled after {count} of {N} requests, {:?} in; the server's resident memory was {resident_kib} KiB",
        waiting.elapsed()
    );
    assert!(
        resident_kib < 48 * 1024,
        "resident memory {resident_kib} KiB while stalled"
    );
    for i in 0..N {
        let answer = server.answer(&i.to_string());
        assert_eq!(answer["result"]["structuredContent"]["n"], i);
    }
    server.input = Some(writer.join().expect("writer"));
    server.finish();
}

/// A `POST /mcp` of `body` to `server`: the connection, to read the answer from.
fn post(server: &HttpServer, body: &Value) -> TcpStream {
    let mut stream = TcpStream::connect(server.address).expect("connect");
    let body = body.to_string();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        server.address,
        body.len()
    )
    .expect("sent");
    stream
}

/// Calls `tool` on `server`: the answer.
fn call_over_http(server: &HttpServer, id: i64, tool: &str, arguments: Value) -> Value {
    let mut stream = post(
        server,
        &json!({
            "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": { "name": tool, "arguments": arguments }
        }),
    );
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let mut response = String::new();
    stream.read_to_string(&mut response).expect("a response");
    let body = response.split("\r\n\r\n").nth(1).expect("a body");
    serde_json::from_str(body).unwrap_or_else(|err| panic!("{err}: {response}"))
}

#[test]
fn a_client_hanging_up_mid_call_does_not_disturb_the_others() {
    let mut server = HttpServer::spawn(SERVER, &[]);
    // Twenty clients hang up while their calls run...
    let hung_up: Vec<TcpStream> = (0..20)
        .map(|i| {
            post(
                &server,
                &json!({
                    "jsonrpc": "2.0", "id": i, "method": "tools/call",
                    "params": { "name": "fault.hold", "arguments": { "n": i } }
                }),
            )
        })
        .collect();
    let mut started: Vec<i64> = (0..20)
        .map(|_| {
            let line = server
                .stderr
                .next_with("fault.hold: started", Duration::from_secs(30));
            line["fault.hold: started ".len()..]
                .parse()
                .expect("a number")
        })
        .collect();
    started.sort_unstable();
    assert_eq!(started, (0..20).collect::<Vec<_>>(), "every call runs");
    drop(hung_up);
    // ...while others are answered, then and after.
    let answer = call_over_http(&server, 100, "fault.add", json!({ "a": 1, "b": 2 }));
    assert_eq!(
        answer["result"]["structuredContent"]["result"], 3,
        "{answer}"
    );
    // Those the server still runs (it may drop a call whose client is gone) end now, and
    // answer to closed connections; each says how it ended.
    let answer = call_over_http(&server, 101, "fault.release", json!({}));
    assert_eq!(
        answer["result"]["structuredContent"]["result"], 0,
        "{answer}"
    );
    let stopped: Vec<String> = (0..20)
        .map(|_| {
            server
                .stderr
                .next_with("fault.hold: stopped", Duration::from_secs(30))
        })
        .collect();
    eprintln!("the calls of the clients that hung up: {stopped:?}");
    let answer = call_over_http(&server, 102, "fault.sleep", json!({ "ms": 10, "n": 7 }));
    assert_eq!(
        answer["result"]["structuredContent"]["result"], 7,
        "{answer}"
    );
    let answer = call_over_http(&server, 103, "fault.panic", json!({}));
    assert_eq!(error_type(&answer), "ToolExecutionError");
    assert!(
        server.child.try_wait().expect("status").is_none(),
        "the server is running"
    );
}
