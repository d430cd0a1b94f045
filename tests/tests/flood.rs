//! A client that sends without waiting: the quickstart takes a bounded number of requests in
//! flight, and refuses the rest at once with a JSON-RPC error that says so and when to come
//! back, over stdio and over HTTP, so that its memory stays bounded.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use mcp_tests::{HttpServer, quickstart_bin};
use serde_json::{Value, json};

/// The JSON-RPC error of a request refused for want of a place.
const BUSY: i64 = mcp_runtime::server::BUSY;

/// How many requests the flooding client writes.
const FLOOD: usize = 100_000;

/// The server's peak resident memory, in KiB (`VmHWM`).
fn peak_rss_kib(child: &Child) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id()))
        .expect("the server's /proc status");
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM in /proc status")
}

/// The quickstart serving on its standard input and output, and its input.
fn quickstart_over_stdio() -> (Child, ChildStdin) {
    let mut server = Command::new(quickstart_bin())
        .args(["serve", "--stdio"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the quickstart starts");
    let input = server.stdin.take().expect("stdin");
    (server, input)
}

/// A call of `text.slow_count` that would take ten minutes.
fn slow_call(id: usize) -> String {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": "tools/call",
        "params": { "name": "text.slow_count", "arguments": { "text": "a b", "delay_ms": 600_000 } },
    })
    .to_string()
}

#[test]
fn a_client_that_starts_tasks_without_waiting_is_refused_past_the_bound_in_bounded_memory() {
    let (mut server, mut input) = quickstart_over_stdio();
    let output = BufReader::new(server.stdout.take().expect("stdout"));
    // Every answer, as it comes, on a thread of its own: the client reads, but never waits
    // for an answer before writing more.
    let (answers, answered) = mpsc::channel::<Value>();
    std::thread::spawn(move || {
        for line in output.lines() {
            let Ok(line) = line else { return };
            let Ok(answer) = serde_json::from_str(&line) else {
                continue;
            };
            if answers.send(answer).is_err() {
                return;
            }
        }
    });
    // The handshake, declaring the tasks extension: every slow call becomes a task.
    let initialize = json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": { "extensions": { "io.modelcontextprotocol/tasks": {} } },
            "clientInfo": { "name": "flood", "version": "1" },
        },
    });
    writeln!(input, "{initialize}").unwrap();
    let welcome = answered.recv_timeout(Duration::from_secs(30)).unwrap();
    assert!(
        welcome["result"]["protocolVersion"].is_string(),
        "{welcome}"
    );
    writeln!(
        input,
        r#"{{"jsonrpc":"2.0","method":"notifications/initialized"}}"#
    )
    .unwrap();
    let writer = std::thread::spawn(move || {
        let mut batch = String::new();
        for id in 1..=FLOOD {
            batch.push_str(&slow_call(id));
            batch.push('\n');
            if id % 1000 == 0 {
                input.write_all(batch.as_bytes()).unwrap();
                batch.clear();
            }
        }
        input
    });
    let (mut tasks, mut refused, mut by_server) = (0_usize, 0_usize, 0_usize);
    while tasks + refused < FLOOD {
        let answer = answered
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| {
                panic!("{tasks} tasks and {refused} refusals, then no answer for a minute")
            });
        if answer["result"]["taskId"].is_string() {
            tasks += 1;
        } else if answer["error"]["code"] == BUSY {
            // Refused by the server's bound once the tasks fill it, or by the connection's
            // while 256 task calls are being taken up at once.
            assert_eq!(answer["error"]["data"]["retryAfterSeconds"], 1, "{answer}");
            if answer["error"]["data"]["scope"] == "server" {
                let message = answer["error"]["message"].as_str().unwrap_or_default();
                assert!(message.contains("4096 requests in flight"), "{answer}");
                by_server += 1;
            }
            refused += 1;
        } else {
            panic!("neither a task nor a refusal: {answer}");
        }
    }
    let peak = peak_rss_kib(&server);
    eprintln!(
        "{FLOOD} task calls written without waiting: {tasks} tasks, {refused} refused \
         ({by_server} by the server's bound); the server's peak RSS {} MiB",
        peak / 1024
    );
    drop(writer.join().unwrap());
    let _ = server.kill();
    let _ = server.wait();
    assert!(
        tasks <= mcp_runtime::server::DEFAULT_MAX_IN_FLIGHT,
        "{tasks} tasks run at once"
    );
    assert!(tasks >= 1000, "only {tasks} tasks were taken");
    assert!(by_server > 0, "the tasks never filled the server's bound");
    assert!(
        peak < 256 * 1024,
        "the server's peak RSS was {} MiB",
        peak / 1024
    );
}

#[test]
fn a_client_that_writes_without_reading_leaves_the_server_in_bounded_memory() {
    let (mut server, mut input) = quickstart_over_stdio();
    let output = server.stdout.take().expect("stdout");
    // Writes until the server stops reading, which it does once its answers fill the pipe
    // the client never reads; told how far it got.
    let (progress, written) = mpsc::channel::<usize>();
    std::thread::spawn(move || {
        for id in 1..=FLOOD {
            if writeln!(input, "{}", slow_call(id)).is_err() || progress.send(id).is_err() {
                return;
            }
        }
    });
    let mut last = 0;
    // The writer stalls for good: the server stopped reading rather than take in more.
    while let Ok(id) = written.recv_timeout(Duration::from_secs(3)) {
        last = id;
        assert!(
            last < FLOOD,
            "the server read all {FLOOD} requests unanswered"
        );
    }
    let peak = peak_rss_kib(&server);
    eprintln!(
        "a client that wrote {last} requests and read nothing: the server's peak RSS {} MiB",
        peak / 1024
    );
    assert!(
        peak < 128 * 1024,
        "the server's peak RSS was {} MiB",
        peak / 1024
    );
    // Reading again, the client finds the refusals of what was past the bound, before
    // any call's answer (each would take ten minutes).
    let mut answers = BufReader::new(output).lines();
    let first = answers.next().expect("an answer").expect("a line");
    let first: Value = serde_json::from_str(&first).expect("JSON");
    assert_eq!(first["error"]["code"], BUSY, "{first}");
    assert_eq!(first["error"]["data"]["scope"], "connection", "{first}");
    let _ = server.kill();
    let _ = server.wait();
}

/// A raw `POST /mcp` of `body`: the status, the `Retry-After` header, and the body.
fn post(address: std::net::SocketAddr, body: &str) -> (u16, Option<String>, String) {
    let mut stream = TcpStream::connect(address).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    write!(
        stream,
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut reply = String::new();
    let _ = stream.read_to_string(&mut reply);
    let (head, body) = reply.split_once("\r\n\r\n").unwrap_or((&reply, ""));
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or(0);
    let retry_after = head.lines().find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.eq_ignore_ascii_case("retry-after")
            .then(|| value.trim().to_owned())
    });
    (status, retry_after, body.to_owned())
}

#[test]
fn over_http_a_request_past_the_bound_gets_503_with_retry_after_at_once() {
    let server = HttpServer::spawn(quickstart_bin(), &["--max-in-flight", "2"]);
    let address = server.address;
    // Two calls that take ten minutes hold both places; their connections stay open. Each
    // asks for progress, whose first report says it runs.
    let mut held = Vec::new();
    for id in 1..=2 {
        let mut stream = TcpStream::connect(address).unwrap();
        let body = json!({
            "jsonrpc": "2.0",
            "id": id,
            "method": "tools/call",
            "params": {
                "name": "text.slow_count",
                "arguments": { "text": "a b", "delay_ms": 600_000 },
                "_meta": { "progressToken": id },
            },
        })
        .to_string();
        write!(
            stream,
            "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-11-25\r\n\
             Content-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        let mut reader = BufReader::new(stream);
        let mut line = String::new();
        while !line.contains("notifications/progress") {
            line.clear();
            let read = reader.read_line(&mut line).expect("the call's stream");
            assert!(read > 0, "the call's stream ended before its progress");
        }
        held.push(reader);
    }
    let (status, retry_after, body) = post(address, &slow_call(3).replace("600000", "1"));
    assert_eq!(status, 503);
    assert_eq!(retry_after.as_deref(), Some("1"));
    let error: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(error["id"], 3, "{error}");
    assert_eq!(error["error"]["code"], BUSY, "{error}");
    assert_eq!(error["error"]["data"]["scope"], "server", "{error}");
    assert_eq!(error["error"]["data"]["limit"], 2, "{error}");
    // A listing, answered where it is read, takes no place: answered as ever.
    let (status, _, body) = post(
        address,
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{}}"#,
    );
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("text.slow_count"), "{body}");
    drop(held);
}
