//! Scale-out: two quickstart processes behind nginx serve one client with no session
//! affinity, and when one is killed mid-run the calls that follow are answered by the other.
//!
//! nginx runs `examples/http/nginx.conf`, the documented configuration, with its three
//! addresses changed to free loopback ports, from a temporary directory of its own.
//! `scripts/test.sh` installs nginx; without it this test fails rather than skips.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::Duration;

use mcp_tests::nginx::{self, Nginx};
use mcp_tests::{HttpServer, quickstart_bin};
use serde_json::{Value, json};

/// Calls before the kill, and after it.
const CALLS: usize = 200;
/// Clients sending the calls during which one server is killed, each on its own connection.
const CLIENTS: usize = 4;
/// How many of those calls are answered before the kill.
const KILL_AFTER: usize = 20;

#[test]
fn two_servers_behind_nginx_share_calls_and_survive_a_kill() {
    let mut first = HttpServer::spawn(quickstart_bin(), &[]);
    let mut second = HttpServer::spawn(quickstart_bin(), &[]);
    let servers = [first.address.to_string(), second.address.to_string()];
    let proxy = Nginx::start(|address| nginx::example(address, &servers[0], &servers[1]));
    // What the processes said, for a failure's message.
    let stderr = |first: &mut HttpServer, second: &mut HttpServer| {
        format!(
            "server {}:\n{}\nserver {}:\n{}\nnginx error.log:\n{}",
            servers[0],
            first.stderr.so_far(),
            servers[1],
            second.stderr.so_far(),
            proxy.error_log()
        )
    };

    // One client: initialize, then 200 calls, on one keep-alive connection to nginx.
    let mut client = Client::connect(&proxy.address);
    let (status, answer) = client.post(&json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": { "protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": { "name": "scale-out", "version": "1" } }
    }));
    assert_eq!(
        status,
        200,
        "initialize: {answer:?}\n{}",
        stderr(&mut first, &mut second)
    );
    let answer: Value = serde_json::from_str(&answer).expect("initialize is answered with JSON");
    assert_eq!(
        answer["result"]["protocolVersion"], "2025-11-25",
        "{answer}"
    );
    let (status, body) =
        client.post(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }));
    assert_eq!(status, 202, "notifications/initialized: {body:?}");
    let mut wrong: Vec<String> = (1..=CALLS).filter_map(|id| client.add(id).err()).collect();
    assert!(
        wrong.is_empty(),
        "{} of {CALLS} calls failed before the kill:\n{}\n\n{}",
        wrong.len(),
        wrong.join("\n"),
        stderr(&mut first, &mut second)
    );

    // Both servers answered calls: nginx's log names the one that answered each request.
    let before = proxy.log_lines(2 + CALLS);
    let before_kill = answered_by(&before[2..]);
    for server in &servers {
        let calls = before_kill.get(server).copied().unwrap_or(0);
        assert!(
            calls > CALLS / 4,
            "{server} answered {calls} of {CALLS} calls, so requests are not shared: {before_kill:?}"
        );
    }

    // Four clients send 200 more calls; the first server is killed (SIGKILL) once 20 are
    // answered, with the others in flight or still to come. Every one must be answered.
    let answered = AtomicUsize::new(0);
    let victim = Mutex::new(Some(&mut first));
    let failures = Mutex::new(Vec::new());
    thread::scope(|scope| {
        for client_number in 0..CLIENTS {
            let (answered, victim, failures) = (&answered, &victim, &failures);
            let address = &proxy.address;
            scope.spawn(move || {
                let mut client = Client::connect(address);
                let ids = (CALLS + 1..=2 * CALLS).filter(|id| id % CLIENTS == client_number);
                for id in ids {
                    if let Err(failure) = client.add(id) {
                        failures.lock().unwrap().push(failure);
                    }
                    if answered.fetch_add(1, Ordering::SeqCst) + 1 == KILL_AFTER {
                        let server = victim.lock().unwrap().take().expect("killed once");
                        server.child.kill().expect("the server is killed");
                        server.child.wait().expect("the server is gone");
                    }
                }
            });
        }
    });
    wrong.extend(failures.into_inner().unwrap());
    assert!(
        first.child.try_wait().expect("status").is_some(),
        "the first server was killed"
    );
    let after = proxy.log_lines(2 + 2 * CALLS);
    let after_kill = answered_by(&after[2 + CALLS..]);
    let retried = after[2 + CALLS..]
        .iter()
        .filter(|line| upstreams(line).len() > 1)
        .count();
    eprintln!(
        "before the kill: {before_kill:?}; after it: {after_kill:?} ({retried} sent on to \
         the other server); lost: {}",
        wrong.len()
    );
    assert!(
        wrong.is_empty(),
        "{} of {CALLS} calls were lost after killing {}:\n{}\n\n{}",
        wrong.len(),
        servers[0],
        wrong.join("\n"),
        stderr(&mut first, &mut second)
    );
    // The survivor answered at least every call sent after the kill.
    let survivor = after_kill.get(&servers[1]).copied().unwrap_or(0);
    assert!(
        survivor >= CALLS - KILL_AFTER - CLIENTS,
        "{} answered {survivor} calls after the kill: {after_kill:?}",
        servers[1]
    );
}

// ---------------------------------------------------------------------------------------
// The client

/// An HTTP/1.1 client on one keep-alive connection.
struct Client {
    address: String,
    reader: BufReader<TcpStream>,
}

impl Client {
    fn connect(address: &str) -> Self {
        let stream = TcpStream::connect(address).expect("nginx accepts a connection");
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .expect("a read timeout");
        Self {
            address: address.to_owned(),
            reader: BufReader::new(stream),
        }
    }

    /// POSTs `message` to /mcp: the status and the body.
    fn post(&mut self, message: &Value) -> (u16, String) {
        let body = message.to_string();
        let request = format!(
            "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\n\
             Content-Length: {}\r\n\r\n{body}",
            self.address,
            body.len()
        );
        let stream = self.reader.get_mut();
        stream.write_all(request.as_bytes()).expect("nginx reads");
        self.response()
    }

    fn line(&mut self) -> String {
        let mut line = String::new();
        self.reader.read_line(&mut line).expect("a response line");
        assert!(line.ends_with("\r\n"), "the connection ended: {line:?}");
        line.truncate(line.len() - 2);
        line
    }

    fn response(&mut self) -> (u16, String) {
        let status_line = self.line();
        let status = status_line
            .split(' ')
            .nth(1)
            .and_then(|code| code.parse().ok())
            .unwrap_or_else(|| panic!("not an HTTP status line: {status_line:?}"));
        let (mut length, mut chunked, mut close) = (0, false, false);
        loop {
            let line = self.line();
            if line.is_empty() {
                break;
            }
            let (name, value) = line.split_once(':').expect("a header");
            let value = value.trim();
            match name.to_ascii_lowercase().as_str() {
                "content-length" => length = value.parse().expect("a length"),
                "transfer-encoding" => chunked = value.eq_ignore_ascii_case("chunked"),
                "connection" => close = value.eq_ignore_ascii_case("close"),
                _ => {}
            }
        }
        let mut body = Vec::new();
        if chunked {
            loop {
                let size = self.line();
                let size = usize::from_str_radix(size.split(';').next().unwrap_or(""), 16)
                    .unwrap_or_else(|_| panic!("a chunk size: {size:?}"));
                let mut chunk = vec![0; size + 2];
                self.reader.read_exact(&mut chunk).expect("a chunk");
                body.extend_from_slice(&chunk[..size]);
                if size == 0 {
                    break;
                }
            }
        } else {
            body.resize(length, 0);
            self.reader.read_exact(&mut body).expect("the body");
        }
        if close {
            *self = Self::connect(&self.address.clone());
        }
        (status, String::from_utf8(body).expect("a UTF-8 body"))
    }

    /// Calls `calculator.add` with numbers made from `id`; what is wrong with the answer.
    fn add(&mut self, id: usize) -> Result<(), String> {
        let (a, b) = (id as i64 * 1_000_003, 7_000_000_000 - id as i64);
        let (status, body) = self.post(&json!({
            "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": { "name": "calculator.add", "arguments": { "a": a, "b": b } }
        }));
        let answer: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
        let right = status == 200
            && answer["jsonrpc"] == "2.0"
            && answer["id"] == id
            && answer.get("error").is_none()
            && answer["result"]["isError"] != true
            && answer["result"]["structuredContent"] == json!({ "sum": a + b });
        if right {
            Ok(())
        } else {
            Err(format!("call {id}: HTTP {status}: {body}"))
        }
    }
}

// ---------------------------------------------------------------------------------------
// nginx's access log

/// The servers named by `upstream="…"` in a log line, in the order nginx tried them.
fn upstreams(line: &str) -> Vec<String> {
    let start = line
        .find("upstream=\"")
        .expect("upstream=\"…\" in the log line")
        + 10;
    let end = start + line[start..].find('"').expect("a closing quote");
    line[start..end].split(", ").map(str::to_owned).collect()
}

/// How many of the requests logged in `lines` each server answered (the last one tried).
fn answered_by(lines: &[String]) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for line in lines {
        assert!(line.contains("\"POST /mcp HTTP/1.1\" 200"), "{line}");
        let last = upstreams(line).pop().expect("a server");
        *counts.entry(last).or_insert(0) += 1;
    }
    counts
}
