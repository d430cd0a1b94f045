//! The guards of the HTTP transport, over real connections: the per-client rate limit, the
//! order of the refusals, the dangerous-tool policy of `serve` and `call`, and the warning
//! for an address other machines can reach. Most run the `fixture-server` binary (fixture
//! tools, two of them marked `dangerous`); the recovery test serves in process.

use std::io::{Read, Write};
use std::net::{IpAddr, SocketAddr};
use std::num::NonZeroU32;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_runtime::server::{self, HttpConfig, RateLimitConfig, Server};
use mcp_runtime::{Registry, mcp_tool};
use mcp_tests::{HttpServer, mcp_validator, schema_errors};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpSocket;

const FIXTURE: &str = env!("CARGO_BIN_EXE_fixture-server");

/// The first line of standard error not yet taken that contains `needle`, waiting at most
/// 10 s. Blocks the thread: call it on a multi-threaded runtime.
fn stderr_line(served: &mut HttpServer, needle: &str) -> String {
    tokio::task::block_in_place(|| served.stderr.next_with(needle, Duration::from_secs(10)))
}

/// Stops the server once it answers a request: what it wrote on standard error by then (all
/// it writes at start-up).
fn start_up_notes(served: HttpServer) -> String {
    let answered = std::net::TcpStream::connect(served.address).and_then(|mut stream| {
        stream.write_all(b"GET /mcp HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n")?;
        stream.read_to_end(&mut Vec::new())
    });
    assert!(answered.is_ok_and(|read| read > 0), "the server answers");
    served.stop()
}

/// An HTTP answer.
#[derive(Debug)]
struct Answer {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

impl Answer {
    /// The answer of an HTTP/1.1 `head` (status line and headers) and its `body`.
    fn of(head: &str, body: &str) -> Self {
        let mut lines = head.lines();
        let status = lines.next().unwrap()[9..12].parse().unwrap();
        let headers = lines
            .filter_map(|line| line.split_once(':'))
            .map(|(name, value)| (name.trim().to_owned(), value.trim().to_owned()))
            .collect();
        Self {
            status,
            headers,
            body: body.to_owned(),
        }
    }

    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|err| panic!("not JSON ({err}): {}", self.body))
    }
}

/// A request to `POST /mcp`, sent on a connection of its own.
#[derive(Clone, Default)]
struct Post {
    /// The client's address; 127.0.0.1 unless set.
    from: Option<IpAddr>,
    headers: Vec<(String, String)>,
    body: String,
    /// A `Content-Length` larger than the body sent, to announce an oversized body
    /// without sending it.
    announced_length: Option<usize>,
}

impl Post {
    fn new(body: &Value) -> Self {
        Self {
            body: body.to_string(),
            ..Self::default()
        }
    }

    fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }

    fn token(self, token: &str) -> Self {
        self.header("Authorization", &format!("Bearer {token}"))
    }

    fn from(mut self, address: &str) -> Self {
        self.from = Some(address.parse().unwrap());
        self
    }

    /// Announces a 64 MiB body and sends none of it: only a guard that answers before
    /// reading the body answers this.
    fn oversized(mut self) -> Self {
        self.announced_length = Some(64 * 1024 * 1024);
        self
    }

    /// A body just over the 4 MiB limit, sent whole.
    fn too_large(mut self) -> Self {
        self.body = "x".repeat(4 * 1024 * 1024 + 1024);
        self.announced_length = None;
        self
    }

    async fn send(&self, to: SocketAddr) -> Answer {
        tokio::time::timeout(Duration::from_secs(20), self.exchange(to))
            .await
            .expect("an answer within 20 s")
    }

    async fn exchange(&self, to: SocketAddr) -> Answer {
        let socket = TcpSocket::new_v4().unwrap();
        let from = self.from.unwrap_or(IpAddr::from([127, 0, 0, 1]));
        socket.bind(SocketAddr::new(from, 0)).unwrap();
        let mut stream = socket.connect(to).await.expect("connects");
        let mut request = format!(
            "POST /mcp HTTP/1.1\r\nHost: {to}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\nConnection: close\r\n\
             Content-Length: {}\r\n",
            self.announced_length.unwrap_or(self.body.len())
        );
        for (name, value) in &self.headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        request.push_str("\r\n");
        request.push_str(&self.body);
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut response = Vec::new();
        // A refused request is answered before its body is read, and the connection
        // closed: the answer is there all the same.
        let _ = stream.read_to_end(&mut response).await;
        let response = String::from_utf8_lossy(&response).into_owned();
        let (head, body) = response
            .split_once("\r\n\r\n")
            .unwrap_or_else(|| panic!("no HTTP answer: {response:?}"));
        Answer::of(head, body)
    }
}

fn ping(id: i64) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": "ping" })
}

fn call(id: i64, name: &str, arguments: Value) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": "tools/call",
        "params": { "name": name, "arguments": arguments },
    })
}

/// The `Retry-After` of a 429, in whole seconds.
fn retry_after(answer: &Answer) -> u64 {
    let value = answer.header("Retry-After").expect("a Retry-After header");
    value
        .parse()
        .unwrap_or_else(|_| panic!("Retry-After `{value}` is not whole seconds"))
}

#[tokio::test]
async fn the_burst_passes_then_429_with_retry_after_and_an_error_naming_the_limit() {
    let served = HttpServer::spawn(FIXTURE, &["--rate-limit", "2/min", "--rate-burst", "3"]);
    for id in 1..=3 {
        let answer = Post::new(&ping(id)).send(served.address).await;
        assert_eq!(
            answer.status, 200,
            "request {id} is within the burst: {answer:?}"
        );
        assert_eq!(
            answer.json(),
            json!({ "jsonrpc": "2.0", "id": id, "result": {} })
        );
    }
    let refused = Post::new(&call(4, "fixture.echo", json!({ "text": "hi" })))
        .send(served.address)
        .await;
    assert_eq!(refused.status, 429, "{refused:?}");
    assert_eq!(refused.header("Content-Type"), Some("application/json"));
    // Two a minute: the next request is allowed within 30 s.
    let seconds = retry_after(&refused);
    assert!((1..=30).contains(&seconds), "Retry-After: {seconds}");
    let error = refused.json();
    assert_eq!(error["error"]["code"], server::RATE_LIMITED);
    let message = error["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("2 requests per minute, at most 3 at once"),
        "{message}"
    );
    assert_eq!(
        error["error"]["data"]["limit"],
        json!({ "requests": 2, "periodMs": 60_000, "burst": 3 })
    );
    assert_eq!(error["error"]["data"]["retryAfterSeconds"], seconds);
    assert!(
        error.get("id").is_none(),
        "the body of a limited request is not read, so no id: {error}"
    );
    for revision in ["2025-11-25", "2026-07-28"] {
        let errors = schema_errors(&mcp_validator(revision, "JSONRPCErrorResponse"), &error);
        assert!(errors.is_empty(), "{revision}: {errors:?}\n{error}");
    }
    let notes = start_up_notes(served);
    assert!(
        notes.contains("rate limit: 2 requests per minute, at most 3 at once, per client"),
        "{notes}"
    );
}

#[cfg(target_os = "linux")] // 127.0.0.2 is a loopback address of its own on Linux
#[tokio::test]
async fn each_client_address_has_its_own_allowance() {
    let served = HttpServer::spawn(FIXTURE, &["--rate-limit", "1/min"]);
    let first = Post::new(&ping(1)).from("127.0.0.1");
    assert_eq!(first.send(served.address).await.status, 200);
    assert_eq!(first.send(served.address).await.status, 429);
    let other = Post::new(&ping(2)).from("127.0.0.2");
    assert_eq!(other.send(served.address).await.status, 200);
    assert_eq!(other.send(served.address).await.status, 429);
    assert_eq!(first.send(served.address).await.status, 429);
}

#[cfg(target_os = "linux")] // 127.0.0.2 is a loopback address of its own on Linux
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancellation_reaches_only_the_calls_of_its_own_client() {
    let mut served = HttpServer::spawn(FIXTURE, &[]);
    let address = served.address;
    // `fixture.wait` says on standard error, after `fixture.wait LABEL:`, when it has
    // started, that it still waits when probed, and how it stopped.
    let wait = |label: &str| call(1, "fixture.wait", json!({ "label": label }));
    let cancel = |id: i64| {
        json!({ "jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": { "requestId": id } })
    };
    // Two clients, each with its own call 1.
    let first = Post::new(&wait("first")).from("127.0.0.1");
    let first = tokio::spawn(async move { first.send(address).await });
    let second = Post::new(&wait("second")).from("127.0.0.2");
    let second = tokio::spawn(async move { second.send(address).await });
    // Once a tool runs, its call can be cancelled: the server registers a call before it
    // starts the tool.
    for label in ["first", "second"] {
        let line = stderr_line(&mut served, &format!("fixture.wait {label}:"));
        assert_eq!(line, format!("fixture.wait {label}: started"));
    }
    // The second cancels its call 1: that call stops, long before its 60 s timeout, and
    // is not answered...
    let cancelled = Post::new(&cancel(1)).from("127.0.0.2").send(address).await;
    assert_eq!(cancelled.status, 202, "{}", cancelled.body);
    assert_eq!(
        stderr_line(&mut served, "fixture.wait second:"),
        "fixture.wait second: stopped: cancelled"
    );
    let second = second.await.unwrap();
    assert_eq!(
        second.status, 202,
        "the cancelled call was answered: {}",
        second.body
    );
    // ...and the first client's call 1 runs on. The server handles a cancellation before
    // it answers 202: a token it cancelled then is cancelled before the probe below, and
    // a probed call that finds its token cancelled stops rather than say it still waits.
    let probe = Post::new(&call(2, "fixture.probe", json!({})))
        .from("127.0.0.1")
        .send(address)
        .await;
    assert_eq!(probe.status, 200, "{}", probe.body);
    assert_eq!(
        stderr_line(&mut served, "fixture.wait first:"),
        "fixture.wait first: still waiting",
        "one client's cancellation stopped another client's call"
    );
    assert!(!first.is_finished(), "the first call was answered");
    // Until its own client cancels it.
    let cancelled = Post::new(&cancel(1)).from("127.0.0.1").send(address).await;
    assert_eq!(cancelled.status, 202, "{}", cancelled.body);
    assert_eq!(
        stderr_line(&mut served, "fixture.wait first:"),
        "fixture.wait first: stopped: cancelled"
    );
    let first = first.await.unwrap();
    assert_eq!(
        first.status, 202,
        "the cancelled call was answered: {}",
        first.body
    );
}

/// Says `text` back.
#[mcp_tool(namespace = "limited", inline)]
fn echo(text: String) -> String {
    text
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_limiter_lets_a_client_in_again_after_the_period() {
    let registry = Registry::builder()
        .inventory()
        .prefix("limited.")
        .build()
        .unwrap();
    let config = HttpConfig {
        rate_limit: Some(RateLimitConfig::per_second(NonZeroU32::new(2).unwrap())),
        ..HttpConfig::default()
    };
    let (bound_sender, bound) = tokio::sync::oneshot::channel();
    let serving = tokio::spawn(server::serve_http(
        Arc::new(Server::new(registry)),
        SocketAddr::from(([127, 0, 0, 1], 0)),
        config,
        move |address| {
            let _ = bound_sender.send(address);
        },
    ));
    let address = bound.await.expect("the server binds");
    let request = Post::new(&call(1, "limited.echo", json!({ "text": "again" })));

    // Two a second, two at once: the third request in quick succession is refused (a
    // slow machine may see a few more pass first, as the allowance refills).
    let mut passed = 0;
    let refused = loop {
        let answer = request.send(address).await;
        if answer.status != 200 {
            break answer;
        }
        assert_eq!(
            answer.json()["result"]["structuredContent"]["result"],
            "again"
        );
        passed += 1;
        assert!(passed < 20, "never limited");
    };
    assert!(passed >= 2, "the burst passes first");
    assert_eq!(refused.status, 429, "{refused:?}");
    let seconds = retry_after(&refused);
    assert_eq!(seconds, 1, "at most half a second to wait, rounded up");

    // A wait for the limiter's clock, not for the server to be ready: waiting longer on a
    // busy machine only leaves more allowance, so the request below cannot be refused for
    // it, and the wait is no longer than the server asked for.
    tokio::time::sleep(Duration::from_secs(seconds)).await;
    let answer = request.send(address).await;
    assert_eq!(
        answer.status, 200,
        "allowed again after Retry-After: {answer:?}"
    );
    assert_eq!(
        answer.json()["result"]["structuredContent"]["result"],
        "again"
    );
    serving.abort();
}

#[tokio::test]
async fn origin_then_token_then_rate_limit_then_version_then_size() {
    let served = HttpServer::spawn(FIXTURE, &["--token", "s3cret", "--rate-limit", "2/min"]);
    let to = served.address;
    let request = Post::new(&ping(1));

    // Refused before the body is read: Origin first, then the token, whatever the size.
    let evil = request.clone().header("Origin", "http://evil.example");
    let answer = evil.clone().oversized().send(to).await;
    assert_eq!(answer.status, 403, "a bad Origin, no token: {answer:?}");
    assert_eq!(evil.clone().token("wrong").send(to).await.status, 403);
    assert_eq!(evil.clone().token("s3cret").send(to).await.status, 403);
    let answer = request.clone().oversized().send(to).await;
    assert_eq!(answer.status, 401, "no token: {answer:?}");
    assert_eq!(answer.header("WWW-Authenticate"), Some("Bearer"));
    assert_eq!(request.clone().token("wrong").send(to).await.status, 401);
    assert_eq!(request.clone().token("s3cre").send(to).await.status, 401);
    let local = request.clone().header("Origin", "http://localhost:6274");
    assert_eq!(
        local.send(to).await.status,
        401,
        "a loopback Origin, no token"
    );

    // With the token: the size (the first of the two allowed) and the protocol version
    // (the second); the refusals above took none of the allowance.
    let authorized = request.clone().token("s3cret");
    let answer = authorized.clone().too_large().send(to).await;
    assert_eq!(answer.status, 413, "{answer:?}");
    let error = answer.json();
    assert_eq!(error["error"]["code"], -32600, "{error}");
    assert!(
        error["error"]["message"]
            .as_str()
            .is_some_and(|message| message.contains("larger than the limit")),
        "{error}"
    );
    let old_version = authorized
        .clone()
        .header("MCP-Protocol-Version", "1999-01-01");
    let answer = old_version.send(to).await;
    assert_eq!(answer.status, 400, "{answer:?}");
    assert_eq!(answer.json()["error"]["code"], -32022);

    // Past the allowance: 429 before the version or the size is looked at, and before the
    // body is read, while the Origin and the token are still checked first.
    assert_eq!(authorized.send(to).await.status, 429);
    assert_eq!(old_version.send(to).await.status, 429);
    assert_eq!(authorized.clone().oversized().send(to).await.status, 429);
    assert_eq!(evil.clone().token("s3cret").send(to).await.status, 403);
    assert_eq!(request.clone().token("wrong").send(to).await.status, 401);
}

/// The head of the answer to `request`, sent on a connection the client keeps open
/// (`Connection` unsaid): its status and headers.
async fn head_of_answer(to: SocketAddr, request: &str) -> Answer {
    let mut stream = tokio::net::TcpStream::connect(to).await.expect("connects");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut head = Vec::new();
    let read = async {
        while !head.ends_with(b"\r\n\r\n") {
            let mut byte = [0];
            assert_eq!(stream.read(&mut byte).await.unwrap(), 1, "{head:?}");
            head.push(byte[0]);
        }
    };
    tokio::time::timeout(Duration::from_secs(20), read)
        .await
        .expect("an answer within 20 s");
    Answer::of(&String::from_utf8(head).unwrap(), "")
}

#[tokio::test]
async fn a_refusal_before_the_body_is_read_says_that_the_connection_closes() {
    // The server drops a connection whose request body it did not read: a client that
    // reuses it (the next request of an OAuth client after a 401) must be told.
    let with_token = HttpServer::spawn(mcp_tests::quickstart_bin(), &["--token", "s3cret"]);
    let with_oauth = HttpServer::spawn(
        mcp_tests::quickstart_bin(),
        &[
            "--oauth-issuer",
            "http://127.0.0.1:9",
            "--oauth-audience",
            "http://127.0.0.1:9/mcp",
        ],
    );
    for served in [&with_token, &with_oauth] {
        let to = served.address;
        // The body is still to come when the answer is made.
        let post = format!(
            "POST /mcp HTTP/1.1\r\nHost: {to}\r\nContent-Type: application/json\r\n\
             Content-Length: 46\r\n\r\n"
        );
        let answer = head_of_answer(to, &post).await;
        assert_eq!(answer.status, 401, "{answer:?}");
        assert_eq!(answer.header("Connection"), Some("close"), "{answer:?}");
        let chunked = post.replace("Content-Length: 46", "Transfer-Encoding: chunked");
        let answer = head_of_answer(to, &chunked).await;
        assert_eq!(answer.header("Connection"), Some("close"), "{answer:?}");
        // Nothing left unread: the connection may stay.
        for request in [
            format!("GET /mcp HTTP/1.1\r\nHost: {to}\r\n\r\n"),
            post.replace("Content-Length: 46", "Content-Length: 0"),
        ] {
            let answer = head_of_answer(to, &request).await;
            assert_eq!(answer.status, 401, "{answer:?}");
            assert_eq!(answer.header("Connection"), None, "{answer:?}");
        }
    }
}

/// A `tools/call` of `name` over HTTP: the result.
async fn call_over_http(served: &HttpServer, name: &str, arguments: Value) -> Value {
    let answer = Post::new(&call(1, name, arguments))
        .send(served.address)
        .await;
    assert_eq!(answer.status, 200, "{answer:?}");
    let answer = answer.json();
    let errors = schema_errors(
        &mcp_validator("2025-11-25", "CallToolResult"),
        &answer["result"],
    );
    assert!(errors.is_empty(), "{errors:?}\n{answer}");
    answer["result"].clone()
}

fn assert_refused_as_dangerous(result: &Value, name: &str) {
    assert_eq!(result["isError"], true, "{name} is refused: {result}");
    assert_eq!(
        result["_meta"][mcp_runtime::ERROR_META]["error_type"],
        "PermissionError",
        "{result}"
    );
    let message = result["_meta"][mcp_runtime::ERROR_META]["error_message"]
        .as_str()
        .unwrap();
    assert!(message.contains(name), "{message}");
}

fn assert_ran(result: &Value, expected: &str) {
    assert_ne!(result["isError"], true, "{result}");
    assert_eq!(result["structuredContent"]["result"], expected, "{result}");
}

#[tokio::test]
async fn dangerous_tools_are_refused_over_mcp_by_default() {
    let served = HttpServer::spawn(FIXTURE, &[]);
    let wipe = call_over_http(&served, "danger.wipe", json!({ "disk": "sda" })).await;
    assert_refused_as_dangerous(&wipe, "danger.wipe");
    let launch = call_over_http(&served, "danger.launch", json!({})).await;
    assert_refused_as_dangerous(&launch, "danger.launch");
    let echo = call_over_http(&served, "fixture.echo", json!({ "text": "safe" })).await;
    assert_ran(&echo, "safe");
}

#[tokio::test]
async fn allow_dangerous_lets_the_named_tools_run_and_no_other() {
    let served = HttpServer::spawn(FIXTURE, &["--allow-dangerous", "danger.wipe"]);
    let wipe = call_over_http(&served, "danger.wipe", json!({ "disk": "sda" })).await;
    assert_ran(&wipe, "wiped sda (not really)");
    let launch = call_over_http(&served, "danger.launch", json!({})).await;
    assert_refused_as_dangerous(&launch, "danger.launch");
    drop(served);

    let served = HttpServer::spawn(FIXTURE, &["--allow-all-dangerous"]);
    let launch = call_over_http(&served, "danger.launch", json!({})).await;
    assert_ran(&launch, "launched (not really)");

    // With names valid for LLM APIs, the served name is understood too.
    let served = HttpServer::spawn(
        FIXTURE,
        &["--llm-names", "--allow-dangerous", "danger_launch"],
    );
    let launch = call_over_http(&served, "danger_launch", json!({})).await;
    assert_ran(&launch, "launched (not really)");
    let wipe = call_over_http(&served, "danger_wipe", json!({ "disk": "sda" })).await;
    assert_refused_as_dangerous(&wipe, "danger.wipe");
}

/// Runs `fixture-server ARGS` to its end (at most 20 s): exit code, stdout, stderr.
fn run(args: &[&str]) -> (i32, String, String) {
    let mut child = Command::new(FIXTURE)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("`{}` did not exit", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stdout = String::new();
    let mut stderr = String::new();
    child.stdout.unwrap().read_to_string(&mut stdout).unwrap();
    child.stderr.unwrap().read_to_string(&mut stderr).unwrap();
    (status.code().expect("an exit code"), stdout, stderr)
}

#[test]
fn an_unknown_name_for_allow_dangerous_is_refused_at_start_up() {
    for args in [
        &[
            "serve",
            "--http",
            "127.0.0.1:0",
            "--allow-dangerous",
            "danger.wipe",
            "--allow-dangerous",
            "danger.nope",
        ][..],
        &["serve", "--stdio", "--allow-dangerous", "danger.nope"],
        &[
            "call",
            "danger.wipe",
            r#"{"disk":"sda"}"#,
            "--allow-dangerous",
            "danger.nope",
        ],
    ] {
        let (code, stdout, stderr) = run(args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stdout.is_empty(), "{stdout}");
        assert!(!stderr.contains("listening"), "{stderr}");
        assert!(
            stderr.contains("no tool is named `danger.nope`"),
            "{stderr}"
        );
        assert!(
            stderr.contains("`danger.launch`, `danger.wipe`"),
            "the dangerous tools are named: {stderr}"
        );
    }
}

#[test]
fn call_follows_the_same_policy() {
    let arguments = r#"{"disk":"sda"}"#;
    let (code, stdout, _) = run(&["call", "danger.wipe", arguments]);
    assert_eq!(code, 1);
    let result: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(result["error"]["error_type"], "PermissionError");

    let (code, stdout, stderr) = run(&[
        "call",
        "danger.wipe",
        arguments,
        "--allow-dangerous",
        "danger.wipe",
    ]);
    assert_eq!(code, 0, "{stderr}");
    let result: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(result["data"]["result"], "wiped sda (not really)");

    let (code, _, stderr) = run(&[
        "call",
        "fixture.echo",
        r#"{"text":"hi"}"#,
        "--allow-dangerous",
        "fixture.echo",
    ]);
    assert_eq!(code, 0);
    assert!(
        stderr.contains("`fixture.echo` is not marked dangerous"),
        "{stderr}"
    );
}

#[test]
fn http_options_are_refused_without_http() {
    for flag in [
        &["--token", "t"][..],
        &["--rate-limit", "5/s"],
        &["--allow-origin", "https://a.example"],
    ] {
        let mut args = vec!["serve", "--stdio"];
        args.extend_from_slice(flag);
        let (code, _, stderr) = run(&args);
        assert_eq!(code, 2, "{args:?}");
        assert!(
            stderr.contains("applies to `serve --http` only"),
            "{stderr}"
        );
    }
    let (code, _, stderr) = run(&["serve", "--http", "127.0.0.1:0", "--rate-limit", "5/hour"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("N/min"), "{stderr}");
}

#[test]
fn an_address_other_machines_reach_without_a_token_gets_a_warning() {
    let notes = start_up_notes(HttpServer::spawn(FIXTURE, &[]));
    assert!(!notes.contains("warning"), "loopback: {notes}");

    let exposed = HttpServer::spawn_on(FIXTURE, "0.0.0.0:0", &[]);
    let notes = start_up_notes(exposed);
    assert!(notes.contains("warning: serving on 0.0.0.0:0"), "{notes}");
    assert!(notes.contains("without --token"), "{notes}");

    let notes = start_up_notes(HttpServer::spawn_on(
        FIXTURE,
        "0.0.0.0:0",
        &["--token", "s3cret"],
    ));
    assert!(!notes.contains("warning"), "with a token: {notes}");
}
