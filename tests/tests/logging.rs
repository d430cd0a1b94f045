//! What an application's own command line logs on standard error, by default, with `-v`
//! and `-q`, and with `RUST_LOG`: a real process (`fixture-server`) each time.

use std::io::{Read, Write};
use std::process::{Command, Output, Stdio};

use mcp_tests::HttpServer;

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture-server");

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"logging-test","version":"1"}}}"#;
const CALL: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"fixture.echo","arguments":{"text":"hello"}}}"#;

/// `fixture-server ARGS`, with `RUST_LOG` as given (removed when `None`), `input` on its
/// standard input.
fn run(args: &[&str], rust_log: Option<&str>, input: &str) -> Output {
    let mut command = Command::new(FIXTURE);
    command
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    match rust_log {
        Some(directives) => command.env("RUST_LOG", directives),
        None => command.env_remove("RUST_LOG"),
    };
    let mut child = command.spawn().expect("the fixture server starts");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("the input is written");
    child.wait_with_output().expect("the fixture server ends")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Two requests over stdio: initialize, then a call.
fn stdio_session() -> String {
    format!("{INITIALIZE}\n{CALL}\n")
}

#[test]
fn serve_over_stdio_says_that_it_serves_at_info_and_nothing_with_q() {
    let served = run(&["serve", "--stdio"], None, &stdio_session());
    assert!(served.status.success(), "{}", stderr(&served));
    let said = stderr(&served);
    assert!(
        said.contains("INFO") && said.contains("serving on standard input and output"),
        "{said}"
    );
    // One line per call over stdio would cost every call a write: only `-v` asks for it.
    assert!(!said.contains("tool call"), "{said}");
    let answers = String::from_utf8_lossy(&served.stdout);
    assert_eq!(
        answers.lines().count(),
        2,
        "stdout holds the answers only: {answers}"
    );

    let quiet = run(&["serve", "--stdio", "-q"], None, &stdio_session());
    assert!(quiet.status.success());
    assert_eq!(stderr(&quiet), "", "-q leaves errors only");
}

#[test]
fn rust_log_decides_the_level_and_v_adds_the_audit_of_each_call() {
    let debug = run(&["serve", "--stdio"], Some("debug"), &stdio_session());
    let said = stderr(&debug);
    assert!(
        said.contains("serving on standard input and output"),
        "{said}"
    );
    assert!(
        said.contains("mcp_runtime::audit") && said.contains("tool=fixture.echo"),
        "RUST_LOG=debug shows each call's audit: {said}"
    );

    let verbose = run(&["serve", "--stdio", "-v"], None, &stdio_session());
    let said = stderr(&verbose);
    assert!(
        said.contains("mcp_runtime::audit") && said.contains("status=success"),
        "-v shows each call's audit: {said}"
    );

    let errors_only = run(&["serve", "--stdio"], Some("error"), &stdio_session());
    assert_eq!(stderr(&errors_only), "", "RUST_LOG=error is obeyed");
}

#[test]
fn a_rust_log_that_does_not_read_is_said_and_the_default_used() {
    let served = run(&["serve", "--stdio"], Some("[unclosed"), &stdio_session());
    let said = stderr(&served);
    assert!(
        said.contains("warning: RUST_LOG=\"[unclosed\" is ignored"),
        "{said}"
    );
    assert!(
        said.contains("serving on standard input and output"),
        "{said}"
    );
}

#[test]
fn commands_other_than_serve_log_nothing_by_default() {
    let listed = run(&["list"], None, "");
    assert!(listed.status.success());
    assert_eq!(stderr(&listed), "");
    let called = run(&["call", "fixture.echo", r#"{"text":"hi"}"#], None, "");
    assert!(called.status.success(), "{}", stderr(&called));
    assert_eq!(stderr(&called), "");
}

/// Sends `body` to the server's `POST /mcp` on a connection of its own; the status.
fn post(server: &HttpServer, body: &str) -> u16 {
    let mut stream = std::net::TcpStream::connect(server.address).expect("connects");
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2025-06-18\r\n\
         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).expect("sends");
    let mut answer = String::new();
    stream.read_to_string(&mut answer).expect("reads");
    answer[9..12].parse().expect("a status line")
}

#[test]
fn serve_over_http_logs_one_line_per_request() {
    let mut server = HttpServer::start({
        let mut command = Command::new(FIXTURE);
        command
            .args(["serve", "--http", "127.0.0.1:0"])
            .env_remove("RUST_LOG");
        command
    });
    assert_eq!(post(&server, INITIALIZE), 200);
    assert_eq!(post(&server, CALL), 200);
    let call = server
        .stderr
        .next_with("method=tools/call", std::time::Duration::from_secs(10));
    assert!(call.contains("INFO"), "{call}");
    assert!(call.contains("POST /mcp"), "{call}");
    assert!(call.contains("tool=fixture.echo"), "{call}");
    assert!(call.contains("status=200"), "{call}");
    assert!(call.contains("latency="), "{call}");
    assert_eq!(post(&server, "{not json"), 400);
    let refused = server
        .stderr
        .next_with("status=400", std::time::Duration::from_secs(10));
    assert!(refused.contains("POST /mcp"), "{refused}");
    // A call without a name logs no tool, rather than an empty one.
    let nameless = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{}}"#;
    assert_eq!(post(&server, nameless), 200);
    let unnamed = server
        .stderr
        .next_with("method=tools/call", std::time::Duration::from_secs(10));
    assert!(!unnamed.contains("tool="), "{unnamed}");
    let said = server.stop();
    assert_eq!(
        said.matches("POST /mcp").count(),
        4,
        "one line per request: {said}"
    );
    assert!(!said.contains("mcp_runtime::audit"), "{said}");

    let quiet = HttpServer::start({
        let mut command = Command::new(FIXTURE);
        command
            .args(["serve", "--http", "127.0.0.1:0", "-q"])
            .env_remove("RUST_LOG");
        command
    });
    assert_eq!(post(&quiet, CALL), 200);
    let said = quiet.stop();
    assert!(!said.contains("POST /mcp"), "-q: {said}");
}
