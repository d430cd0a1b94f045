//! The sandbox against an attacker's tools (`bin/sandbox_attacks.rs`), served by a real
//! process over stdio: each escape fails with a failure result, the server stays up and
//! answers the next call, and nothing of the secret reaches any response. The escapes safe
//! to run unsandboxed (files, network, environment, a leftover file) also run once
//! unsandboxed, where they must succeed: the proof that each test can fail.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

const SERVER: &str = env!("CARGO_BIN_EXE_sandbox-attacks");

/// What the listener greets a connection with, and the secrets: none may reach a
/// response of the sandboxed session.
const GREETING: &str = "listener-greeting-7f3a";
const FILE_SECRET: &str = "file-secret-91c2";
const ENV_SECRET: &str = "env-secret-4b8e";

/// A directory of the test's own, outside any scratch directory.
fn outside(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sandbox-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("the test's directory");
    dir
}

/// A TCP listener on 127.0.0.1 that greets and counts the connections it accepts.
struct Listener {
    port: u16,
    accepted: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl Listener {
    fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a listener");
        let port = listener.local_addr().expect("its address").port();
        let accepted = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let count = std::sync::Arc::clone(&accepted);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                let mut stream = stream;
                let _ = stream.write_all(GREETING.as_bytes());
            }
        });
        Self { port, accepted }
    }

    fn connections(&self) -> usize {
        self.accepted.load(std::sync::atomic::Ordering::SeqCst)
    }
}

/// The attacks, each a tool and its arguments; `files` is the test's directory.
fn attacks(files: &Path, port: u16, server_pid: u32) -> Vec<(&'static str, Value)> {
    let secret = files.join("secret.txt");
    vec![
        ("attack.read_file", json!({ "path": secret })),
        (
            "attack.write_file",
            json!({ "path": files.join("written.txt"), "text": "escaped" }),
        ),
        (
            "attack.write_through_link",
            json!({ "target": files.join("linked.txt"), "text": "escaped" }),
        ),
        ("attack.connect", json!({ "port": port })),
        ("attack.env", json!({ "name": "SANDBOX_TEST_SECRET" })),
        ("attack.leave_file", json!({ "name": "leftover.txt" })),
        ("attack.find_file", json!({ "name": "leftover.txt" })),
        ("attack.fork_bomb", json!({ "goal": 200 })),
        ("attack.allocate", json!({ "gib": 4 })),
        ("attack.spin", json!({})),
        ("attack.signal", json!({ "pid": server_pid })),
    ]
}

/// A served session: `serve --stdio` with `args` and `env`, its working directory `cwd`,
/// answering the calls that `calls` makes of the server's pid, then one `attack.echo`.
/// The results in order, and what the server wrote to standard error.
fn session(
    args: &[&str],
    env: &[(&str, &str)],
    cwd: &Path,
    calls: impl FnOnce(u32) -> Vec<(&'static str, Value)>,
) -> (Vec<(&'static str, Value)>, Value, String) {
    let mut command = Command::new(SERVER);
    command
        .arg("serve")
        .arg("--stdio")
        .args(args)
        .current_dir(cwd)
        .env("SANDBOX_TEST_SECRET", ENV_SECRET)
        .env_remove("RUST_LOG")
        .env_remove(mcp_runtime::sandbox::UNAVAILABLE_ENV)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (name, value) in env {
        command.env(name, value);
    }
    let mut child = command.spawn().expect("the server starts");
    let calls = calls(child.id());
    let mut input = child.stdin.take().expect("stdin");
    let mut output = BufReader::new(child.stdout.take().expect("stdout"));
    let mut stderr = child.stderr.take().expect("stderr");
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let mut send = |message: Value| {
        writeln!(input, "{message}").expect("the server reads");
        input.flush().expect("flushed");
    };
    let mut answer = |id: usize| answer_to(&mut output, id as u64);
    send(json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": { "protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": { "name": "attacker", "version": "1" } }
    }));
    answer(0);
    send(json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }));
    // One call at a time: each must be answered, and the next one too.
    let mut results = Vec::new();
    for (id, (tool, arguments)) in calls.into_iter().enumerate() {
        let id = id + 1;
        send(json!({
            "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": { "name": tool, "arguments": arguments }
        }));
        results.push((tool, answer(id)));
    }
    send(json!({
        "jsonrpc": "2.0", "id": 999, "method": "tools/call",
        "params": { "name": "attack.echo", "arguments": { "text": "still here" } }
    }));
    let echo = answer(999);
    drop(input);
    let status = child.wait().expect("the server ends");
    assert!(status.success(), "the server exits cleanly: {status}");
    (results, echo, errors.join().expect("stderr"))
}

/// `serve --stdio` with `args`, in `cwd`, its standard error dropped: the process, its
/// input and its output, read a line at a time.
fn serving(
    args: &[&str],
    cwd: &Path,
) -> (
    std::process::Child,
    std::process::ChildStdin,
    BufReader<std::process::ChildStdout>,
) {
    let mut child = Command::new(SERVER)
        .args(["serve", "--stdio"])
        .args(args)
        .current_dir(cwd)
        .env_remove("RUST_LOG")
        .env_remove(mcp_runtime::sandbox::UNAVAILABLE_ENV)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the server starts");
    let input = child.stdin.take().expect("stdin");
    let output = BufReader::new(child.stdout.take().expect("stdout"));
    (child, input, output)
}

/// Reads `output`'s messages, one a line, until the answer to request `id`.
fn answer_to(output: &mut impl BufRead, id: u64) -> Value {
    let mut line = String::new();
    loop {
        line.clear();
        assert_ne!(
            output.read_line(&mut line).expect("a line"),
            0,
            "the server ended"
        );
        let message: Value = serde_json::from_str(&line).expect("JSON");
        if message["id"] == json!(id) {
            return message;
        }
    }
}

/// A success's `result` string, or else the text a model reads (a failure's message).
fn text_of(response: &Value) -> String {
    let result = &response["result"];
    result["structuredContent"]["result"]
        .as_str()
        .or_else(|| result["content"][0]["text"].as_str())
        .unwrap_or_default()
        .to_owned()
}

fn failed(response: &Value) -> bool {
    response["result"]["isError"] == json!(true)
}

#[test]
fn every_escape_fails_sandboxed_and_the_server_answers_the_next_call() {
    let files = outside("sandboxed");
    let cwd = outside("sandboxed-cwd");
    std::fs::write(files.join("secret.txt"), FILE_SECRET).expect("the secret");
    let listener = Listener::start();
    let (results, echo, stderr) =
        session(&[], &[], &cwd, |pid| attacks(&files, listener.port, pid));
    for (tool, response) in &results {
        let text = text_of(response);
        // The leftover is written to the call's own scratch directory: allowed, and gone
        // by the next call.
        if *tool == "attack.leave_file" {
            assert!(!failed(response), "{tool}: {response}\n{stderr}");
            continue;
        }
        assert!(failed(response), "{tool} escaped: {response}");
        for secret in [FILE_SECRET, ENV_SECRET, GREETING] {
            assert!(!text.contains(secret), "{tool} leaked {secret}: {text}");
        }
    }
    let said = |tool: &str| -> String {
        let (_, response) = results.iter().find(|(name, _)| *name == tool).expect(tool);
        text_of(response)
    };
    assert!(
        said("attack.allocate").contains("memory limit (256 MiB)"),
        "{}",
        said("attack.allocate")
    );
    let (_, allocate) = results
        .iter()
        .find(|(name, _)| *name == "attack.allocate")
        .expect("allocate");
    assert_eq!(
        allocate["result"]["_meta"][mcp_runtime::ERROR_META]["error_type"],
        json!("ApiLimitExceeded"),
        "{allocate}"
    );
    assert!(
        said("attack.spin").contains("did not finish within 3s"),
        "{}",
        said("attack.spin")
    );
    assert!(
        said("attack.fork_bomb").contains("fork refused after"),
        "{}",
        said("attack.fork_bomb")
    );
    assert!(
        said("attack.find_file").contains("No such file"),
        "{}",
        said("attack.find_file")
    );
    assert_eq!(listener.connections(), 0, "the listener saw a connection");
    assert!(
        !files.join("written.txt").exists(),
        "a file was written outside"
    );
    assert!(
        !files.join("linked.txt").exists(),
        "a file was written through the link"
    );
    assert!(
        !cwd.join("leftover.txt").exists(),
        "the leftover reached the server's directory"
    );
    assert_eq!(text_of(&echo), "still here", "{echo}");
    for secret in [FILE_SECRET, ENV_SECRET, GREETING] {
        assert!(
            !stderr.contains(secret),
            "the log leaked {secret}: {stderr}"
        );
    }
    let left: Vec<_> = std::fs::read_dir(std::env::temp_dir())
        .expect("the temporary directory")
        .flatten()
        .filter(|entry| {
            entry
                .file_name()
                .to_string_lossy()
                .starts_with("mcp-sandbox-")
        })
        .filter(|entry| entry.path().join("leftover.txt").exists())
        .collect();
    assert!(
        left.is_empty(),
        "a scratch directory outlived its call: {left:?}"
    );
}

#[test]
fn the_safe_escapes_succeed_unsandboxed_so_the_test_can_fail() {
    let files = outside("unsandboxed");
    let cwd = outside("unsandboxed-cwd");
    std::fs::write(files.join("secret.txt"), FILE_SECRET).expect("the secret");
    let listener = Listener::start();
    let safe = [
        "attack.read_file",
        "attack.write_file",
        "attack.write_through_link",
        "attack.connect",
        "attack.env",
        "attack.leave_file",
        "attack.find_file",
    ];
    let (results, echo, stderr) = session(
        &["--allow-unsandboxed-all"],
        &[(mcp_runtime::sandbox::UNAVAILABLE_ENV, "all")],
        &cwd,
        |pid| {
            attacks(&files, listener.port, pid)
                .into_iter()
                .filter(|(tool, _)| safe.contains(tool))
                .collect()
        },
    );
    assert_eq!(results.len(), safe.len());
    for (tool, response) in &results {
        assert!(!failed(response), "{tool} failed unsandboxed: {response}");
    }
    let said = |tool: &str| -> String {
        let (_, response) = results.iter().find(|(name, _)| *name == tool).expect(tool);
        text_of(response)
    };
    assert!(said("attack.read_file").contains(FILE_SECRET));
    assert!(said("attack.env").contains(ENV_SECRET));
    assert!(said("attack.connect").contains(GREETING));
    assert_eq!(listener.connections(), 1);
    assert!(files.join("written.txt").exists());
    assert!(files.join("linked.txt").exists());
    assert!(cwd.join("leftover.txt").exists());
    assert_eq!(text_of(&echo), "still here");
    assert!(stderr.contains("runs unsandboxed, as allowed"), "{stderr}");
}

/// `network = "any"` is the host's network: its tool reaches a service on the host's
/// loopback, which a tool with no network, or with a loopback of its own, does not.
#[test]
fn network_any_reaches_the_hosts_loopback_where_none_and_loopback_do_not() {
    let cwd = outside("network");
    let listener = Listener::start();
    let port = listener.port;
    let (results, echo, stderr) = session(&[], &[], &cwd, |_| {
        vec![
            ("attack.connect", json!({ "port": port })),
            ("attack.connect_loopback", json!({ "port": port })),
        ]
    });
    assert_eq!(results.len(), 2);
    for (tool, response) in &results {
        assert!(failed(response), "{tool} reached the host: {response}");
        assert!(!text_of(response).contains(GREETING), "{tool}: {response}");
    }
    // No socket at all without a network; a loopback of its own, where nothing listens.
    assert!(
        text_of(&results[0].1).contains("Operation not permitted"),
        "{}",
        results[0].1
    );
    assert!(
        text_of(&results[1].1).contains("Connection refused"),
        "{}",
        results[1].1
    );
    assert_eq!(text_of(&echo), "still here", "{stderr}");
    assert_eq!(
        listener.connections(),
        0,
        "the listener saw a connection from a tool without the host's network"
    );

    let (results, _, stderr) = session(&[], &[], &cwd, |_| {
        vec![("attack.connect_any", json!({ "port": port }))]
    });
    let (_, response) = &results[0];
    assert!(!failed(response), "{response}\n{stderr}");
    assert_eq!(text_of(response), GREETING, "{response}");
    assert_eq!(listener.connections(), 1);
}

/// With `network = "any"` only the network is the host's: every other escape still fails.
#[test]
fn with_network_any_every_other_escape_still_fails() {
    let files = outside("any-escapes");
    let cwd = outside("any-escapes-cwd");
    std::fs::write(files.join("secret.txt"), FILE_SECRET).expect("the secret");
    // The server's pid is given to `attack.signal` once the server runs.
    let others: Vec<(&'static str, Value)> = attacks(&files, 0, 0)
        .into_iter()
        .filter(|(tool, _)| !matches!(*tool, "attack.connect" | "attack.leave_file"))
        .collect();
    let tools: serde_json::Map<String, Value> = others
        .iter()
        .map(|(tool, _)| ((*tool).to_owned(), json!({ "network": "any" })))
        .collect();
    let policy = files.join("any.json");
    std::fs::write(&policy, json!({ "tools": tools }).to_string()).expect("the policy");
    let policy = policy.to_str().expect("UTF-8");
    let (results, echo, stderr) = session(&["--sandbox-policy", policy], &[], &cwd, |pid| {
        others
            .into_iter()
            .map(|(tool, arguments)| match tool {
                "attack.signal" => (tool, json!({ "pid": pid })),
                _ => (tool, arguments),
            })
            .collect()
    });
    assert_eq!(results.len(), 9, "{results:?}");
    for (tool, response) in &results {
        assert!(
            failed(response),
            "{tool} escaped with network any: {response}"
        );
        for secret in [FILE_SECRET, ENV_SECRET] {
            assert!(
                !text_of(response).contains(secret),
                "{tool} leaked {secret}: {response}"
            );
        }
    }
    assert!(!files.join("written.txt").exists(), "a file was written");
    assert!(!files.join("linked.txt").exists(), "a file was written");
    assert_eq!(text_of(&echo), "still here", "{stderr}");
}

#[test]
fn without_the_kernel_mechanisms_a_sandboxed_tool_fails_closed_naming_what_is_missing() {
    let files = outside("closed");
    std::fs::write(files.join("secret.txt"), FILE_SECRET).expect("the secret");
    for (missing, named) in [("landlock", "Landlock"), ("seccomp", "seccomp")] {
        let (results, echo, _) = session(
            &[],
            &[(mcp_runtime::sandbox::UNAVAILABLE_ENV, missing)],
            &files,
            |_| {
                vec![(
                    "attack.read_file",
                    json!({ "path": files.join("secret.txt") }),
                )]
            },
        );
        let (_, response) = &results[0];
        let text = text_of(response);
        assert!(failed(response), "{response}");
        assert!(
            text.contains("must run sandboxed") && text.contains(named),
            "{text}"
        );
        assert!(
            text.contains("--allow-unsandboxed attack.read_file"),
            "{text}"
        );
        assert!(!text.contains(FILE_SECRET), "{text}");
        assert_eq!(
            response["result"]["_meta"][mcp_runtime::ERROR_META]["error_type"],
            json!("PermissionError"),
            "{response}"
        );
        assert_eq!(text_of(&echo), "still here");
    }
    // Allowed by name, the one tool runs unsandboxed; another stays refused.
    let (results, _, _) = session(
        &["--allow-unsandboxed", "attack.read_file"],
        &[(mcp_runtime::sandbox::UNAVAILABLE_ENV, "all")],
        &files,
        |_| {
            vec![
                (
                    "attack.read_file",
                    json!({ "path": files.join("secret.txt") }),
                ),
                ("attack.env", json!({ "name": "SANDBOX_TEST_SECRET" })),
            ]
        },
    );
    assert_eq!(text_of(&results[0].1), FILE_SECRET, "{}", results[0].1);
    assert!(
        text_of(&results[1].1).contains("must run sandboxed"),
        "{}",
        results[1].1
    );
}

#[test]
fn progress_and_log_messages_cross_from_the_worker() {
    let cwd = outside("reports");
    let (mut child, mut input, output) = serving(&[], &cwd);
    let messages = [
        json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize",
                "params": { "protocolVersion": "2025-11-25", "capabilities": {},
                            "clientInfo": { "name": "t", "version": "1" } } }),
        json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
        json!({ "jsonrpc": "2.0", "id": 1, "method": "logging/setLevel", "params": { "level": "info" } }),
        json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": { "name": "attack.report", "arguments": {}, "_meta": { "progressToken": "p" } } }),
    ];
    for message in messages {
        writeln!(input, "{message}").expect("written");
    }
    input.flush().expect("flushed");
    let mut lines = output.lines();
    let mut seen = Vec::new();
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while std::time::Instant::now() < deadline {
        let line = lines.next().expect("a line").expect("read");
        let message: Value = serde_json::from_str(&line).expect("JSON");
        let done = message["id"] == json!(2);
        seen.push(message);
        if done {
            break;
        }
    }
    drop(input);
    let _ = child.wait();
    let progress = seen
        .iter()
        .find(|message| message["method"] == "notifications/progress")
        .unwrap_or_else(|| panic!("no progress: {seen:?}"));
    assert_eq!(progress["params"]["progress"], json!(1.0));
    assert_eq!(progress["params"]["message"], json!("halfway"));
    let log = seen
        .iter()
        .find(|message| message["method"] == "notifications/message")
        .unwrap_or_else(|| panic!("no log message: {seen:?}"));
    assert_eq!(log["params"]["data"], json!("from the worker"));
    let result = seen.last().expect("the result");
    assert_eq!(text_of(result), "reported", "{result}");
}

#[test]
fn check_says_what_the_machine_gives_sandboxed_tools_or_what_it_lacks() {
    let output = Command::new(SERVER)
        .arg("check")
        .env_remove(mcp_runtime::sandbox::UNAVAILABLE_ENV)
        .output()
        .expect("check runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let line = stderr
        .lines()
        .find(|line| line.starts_with("sandbox: "))
        .unwrap_or_else(|| panic!("no sandbox line: {stderr}"));
    assert!(
        line.contains("Landlock ABI") && line.contains("seccomp filter"),
        "{line}"
    );
    assert!(line.contains("pid") && line.contains("network"), "{line}");
    // The probe's namespaces are the strict policy's: the line names the tools that keep
    // the host's network.
    assert!(
        line.ends_with(
            "1 of them in the host's network namespace (network any): `attack.connect_any`"
        ),
        "{line}"
    );

    let output = Command::new(SERVER)
        .arg("check")
        .env(mcp_runtime::sandbox::UNAVAILABLE_ENV, "landlock")
        .output()
        .expect("check runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("error: sandbox:") && stderr.contains("lacks Landlock"),
        "{stderr}"
    );
}

#[test]
fn an_operators_policy_file_widens_a_tool_at_serve_time_and_list_shows_it() {
    let files = outside("policy");
    std::fs::write(files.join("secret.txt"), FILE_SECRET).expect("the secret");
    let policy = files.join("policy.json");
    std::fs::write(
        &policy,
        json!({
            "paths": { "DATA": files },
            "tools": {
                "attack.read_file": { "read": ["$DATA/secret.txt"] },
                "attack.env": { "env": ["SANDBOX_TEST_SECRET"], "memory": "64MiB" }
            }
        })
        .to_string(),
    )
    .expect("the policy");
    let policy = policy.to_str().expect("UTF-8");

    let listed = Command::new(SERVER)
        .args(["list", "--format", "json", "--sandbox-policy", policy])
        .output()
        .expect("list runs");
    assert!(
        listed.status.success(),
        "{}",
        String::from_utf8_lossy(&listed.stderr)
    );
    let manifest: Value = serde_json::from_slice(&listed.stdout).expect("JSON");
    let entry = |name: &str| {
        manifest["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .find(|tool| tool["name"] == name)
            .cloned()
            .expect(name)
    };
    assert_eq!(entry("attack.env")["sandbox"]["memory"], json!("64 MiB"));
    assert_eq!(
        entry("attack.env")["sandbox"]["env"],
        json!(["SANDBOX_TEST_SECRET"])
    );
    assert_eq!(
        entry("attack.connect")["sandbox"]["memory"],
        json!("256 MiB")
    );
    assert_eq!(entry("attack.connect")["sandbox"]["network"], json!("none"));
    assert!(entry("attack.echo").get("sandbox").is_none());

    // Served with the file, the two tools reach what it grants, and nothing more.
    let (results, _, _) = session(&["--sandbox-policy", policy], &[], &files, |_| {
        vec![
            (
                "attack.read_file",
                json!({ "path": files.join("secret.txt") }),
            ),
            ("attack.env", json!({ "name": "SANDBOX_TEST_SECRET" })),
            (
                "attack.read_file",
                json!({ "path": files.join("policy.json") }),
            ),
        ]
    });
    assert_eq!(text_of(&results[0].1), FILE_SECRET, "{}", results[0].1);
    assert_eq!(text_of(&results[1].1), ENV_SECRET, "{}", results[1].1);
    assert!(failed(&results[2].1), "{}", results[2].1);

    // A name that is no sandboxed tool is a usage error, naming those that are.
    std::fs::write(files.join("bad.json"), r#"{"tools": {"attack.echo": {}}}"#).expect("written");
    let bad = Command::new(SERVER)
        .args(["serve", "--stdio", "--sandbox-policy"])
        .arg(files.join("bad.json"))
        .stdin(Stdio::null())
        .output()
        .expect("serve runs");
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert_eq!(bad.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("no tool marked requires_sandbox is named `attack.echo`"),
        "{stderr}"
    );
}

/// The quickstart's `text.grep`, served over stdio and over HTTP, through the project's
/// client: it answers from its sandbox, where a file of the host stays out of reach.
#[tokio::test(flavor = "multi_thread")]
async fn the_quickstarts_grep_runs_sandboxed_over_stdio_and_http() {
    use mcp_runtime::MCPToolCall;
    use mcp_runtime::client::{Client, HttpServer, StdioServer};

    let quickstart = mcp_tests::quickstart_bin();
    let listed = Command::new(quickstart)
        .args(["list", "--format", "table", "--kind", "tool"])
        .output()
        .expect("list runs");
    let table = String::from_utf8_lossy(&listed.stdout);
    assert!(
        table.contains("text.grep") && table.contains("network none, memory 256 MiB"),
        "{table}"
    );
    let over_http = mcp_tests::HttpServer::spawn(quickstart, &[]);
    for http in [false, true] {
        let client = match http {
            false => {
                let server =
                    StdioServer::new(quickstart.to_string_lossy()).args(["serve", "--stdio"]);
                Client::builder().stdio(server).await
            }
            true => {
                Client::builder()
                    .http(HttpServer::new(over_http.url()))
                    .await
            }
        }
        .expect("connects");
        let grep = MCPToolCall::new(
            "text.grep",
            json!({ "pattern": "^b", "text": "apple\nbanana\ncherry\nblueberry" }),
        )
        .expect("a call");
        let result = client.call(&grep).await.expect("answered");
        assert_eq!(
            result.data().map(|data| Value::Object(data.clone())),
            Some(json!({ "matches": [
                { "line": 2, "text": "banana" },
                { "line": 4, "text": "blueberry" }
            ] })),
            "over HTTP: {http}: {result:?}"
        );
        // A pattern that is no regular expression is the caller's mistake, named.
        let bad =
            MCPToolCall::new("text.grep", json!({ "pattern": "(", "text": "x" })).expect("a call");
        let result = client.call(&bad).await.expect("answered");
        let error = result.error().expect("an error");
        assert!(
            error.error_message.contains("not a regular expression"),
            "{error:?}"
        );
    }
    let stderr = over_http.stop();
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn registry_call_in_a_programs_own_main_runs_the_tool_sandboxed() {
    let files = outside("in-process");
    std::fs::write(files.join("secret.txt"), FILE_SECRET).expect("the secret");
    let call = |env: &[(&str, &str)]| -> Value {
        let mut command = Command::new(SERVER);
        command
            .env("SANDBOX_ATTACKS_CALL", "attack.read_file")
            .env(
                "SANDBOX_ATTACKS_ARGUMENTS",
                json!({ "path": files.join("secret.txt") }).to_string(),
            )
            .env_remove(mcp_runtime::sandbox::UNAVAILABLE_ENV);
        for (name, value) in env {
            command.env(name, value);
        }
        let output = command.output().expect("the program runs");
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        serde_json::from_slice(&output.stdout).expect("a result")
    };
    let sandboxed = call(&[]);
    assert_eq!(sandboxed["status"], "failure", "{sandboxed}");
    assert!(
        sandboxed["error"]["error_message"]
            .as_str()
            .is_some_and(|message| message.contains("Permission denied")),
        "{sandboxed}"
    );
    // Where the sandbox is missing, the registry's default refuses to run it at all.
    let closed = call(&[(mcp_runtime::sandbox::UNAVAILABLE_ENV, "all")]);
    assert_eq!(closed["error"]["error_type"], "PermissionError", "{closed}");
    assert!(!closed.to_string().contains(FILE_SECRET), "{closed}");
}

/// A sandboxed tool run as a task (MCP's tasks extension, at 2026-07-28 over stdio): the
/// task's result comes from the worker.
#[test]
fn a_sandboxed_tool_run_as_a_task_runs_in_its_sandbox() {
    let files = outside("task");
    std::fs::write(files.join("secret.txt"), FILE_SECRET).expect("the secret");
    let (mut child, mut input, mut output) = serving(&[], &files);
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "extensions": { "io.modelcontextprotocol/tasks": {} }
        },
    });
    let mut request = |id: u64, method: &str, mut params: Value| -> Value {
        params["_meta"] = meta.clone();
        let message = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        writeln!(input, "{message}").expect("written");
        input.flush().expect("flushed");
        answer_to(&mut output, id)
    };
    let created = request(
        1,
        "tools/call",
        json!({ "name": "attack.read_file", "arguments": { "path": files.join("secret.txt") } }),
    );
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let task = created["result"]["taskId"]
        .as_str()
        .expect("a task id")
        .to_owned();
    let started = std::time::Instant::now();
    let done = loop {
        let got = request(2, "tasks/get", json!({ "taskId": task }));
        if got["result"]["status"] != "working" {
            break got;
        }
        assert!(started.elapsed() < Duration::from_secs(20), "{got}");
        std::thread::sleep(Duration::from_millis(20));
    };
    let result = &done["result"]["result"];
    assert_eq!(result["isError"], json!(true), "{done}");
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains("Permission denied"), "{done}");
    assert!(!done.to_string().contains(FILE_SECRET), "{done}");
    let _ = child.kill();
    let _ = child.wait();
}

/// The processes descended from `root` whose command line is a sandbox worker's, started
/// for the `dispatch()` entry that `cli::run` calls (a zombie has none), by walking `/proc`.
fn workers_under(root: u32) -> Vec<u32> {
    let mut parents = std::collections::HashMap::new();
    let mut marked = Vec::new();
    for entry in std::fs::read_dir("/proc").expect("/proc").flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        // `pid (comm) state ppid …`, where comm may hold spaces: read after the last ')'.
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|ppid| ppid.parse::<u32>().ok());
        if let Some(ppid) = ppid {
            parents.insert(pid, ppid);
        }
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        if cmdline.split(|byte| *byte == 0).nth(1) == Some(b"--mcp-runtime-sandbox-worker") {
            marked.push(pid);
        }
    }
    marked
        .into_iter()
        .filter(|pid| {
            let mut at = *pid;
            for _ in 0..16 {
                match parents.get(&at) {
                    Some(&parent) if parent == root => return true,
                    Some(&parent) if parent > 1 => at = parent,
                    _ => return false,
                }
            }
            false
        })
        .collect()
}

#[test]
fn a_cancelled_call_kills_its_worker_and_the_server_answers_the_next() {
    let cwd = outside("cancel");
    let (mut child, mut input, mut output) = serving(&["--sandbox-warm", "0"], &cwd);
    let server = child.id();
    let mut send = |message: Value| {
        writeln!(input, "{message}").expect("written");
        input.flush().expect("flushed");
    };
    send(json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize",
                 "params": { "protocolVersion": "2025-11-25", "capabilities": {},
                             "clientInfo": { "name": "t", "version": "1" } } }));
    send(json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }));
    send(json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call",
                 "params": { "name": "attack.spin_long", "arguments": {} } }));
    let started = std::time::Instant::now();
    while workers_under(server).is_empty() {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "no worker started"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    send(
        json!({ "jsonrpc": "2.0", "method": "notifications/cancelled",
                 "params": { "requestId": 1, "reason": "the user gave up" } }),
    );
    let cancelled = std::time::Instant::now();
    while !workers_under(server).is_empty() {
        // The tool's timeout is 30 s: gone well before, it was the cancellation.
        assert!(
            cancelled.elapsed() < Duration::from_secs(5),
            "the worker outlived its call's cancellation: {:?}",
            workers_under(server)
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    send(json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call",
                 "params": { "name": "attack.echo", "arguments": { "text": "next" } } }));
    let answer = answer_to(&mut output, 2);
    assert_eq!(text_of(&answer), "next", "{answer}");
    let _ = child.kill();
    let _ = child.wait();
}

#[test]
fn what_a_sandboxed_tool_prints_goes_to_the_log_not_into_its_answer() {
    let cwd = outside("chatty");
    let (results, echo, stderr) = session(&[], &[], &cwd, |_| {
        vec![("attack.chatty", json!({})), ("attack.chatty", json!({}))]
    });
    for (_, response) in &results {
        assert_eq!(text_of(response), "answered", "{response}");
    }
    assert_eq!(text_of(&echo), "still here");
    assert!(stderr.contains("noise without a newline"), "{stderr}");
}
