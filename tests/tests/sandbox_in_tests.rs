//! Sandboxed tools tested as a `cargo test` tests any tool: through `testing::connect`, in
//! this test harness, which never calls `sandbox::dispatch()`. The harness serves as its
//! own worker, and the tool runs isolated, as a served one does.

use std::process::Command;

use mcp_runtime::sandbox::Sandboxing;
use mcp_runtime::server::Server;
use mcp_runtime::{Registry, ToolError, mcp_tool, testing};
use serde_json::{Value, json};

/// Reads a file and returns its text.
#[mcp_tool(namespace = "in_test", requires_sandbox)]
fn read_file(
    /// The file.
    path: String,
) -> Result<String, ToolError> {
    std::fs::read_to_string(&path).map_err(|err| ToolError::execution(format!("read: {err}")))
}

/// The process the tool runs in, and the first argument of its command line.
#[mcp_tool(namespace = "in_test", requires_sandbox)]
fn process() -> Value {
    json!({ "pid": std::process::id(), "entry": std::env::args().nth(1) })
}

/// Writes to a pipe whose reader is gone: a process that ignores SIGPIPE, as Rust's `main`
/// makes it, gets an error; one that does not is killed. (A socket would not do: the
/// standard library sends on one with `MSG_NOSIGNAL`.)
///
/// Asynchronous, so that it runs on the worker's one thread: without the namespaces, the
/// process limit counts every process of the tool's user on the machine, and a thread of
/// its own could be refused.
#[mcp_tool(namespace = "in_test", requires_sandbox)]
// `std::io::pipe` is newer than the workspace's Rust version: the pipe is libc's.
#[allow(unsafe_code)]
async fn broken_pipe() -> Result<String, ToolError> {
    let mut ends = [0; 2];
    // SAFETY: `ends` has room for the two descriptors `pipe` writes.
    if unsafe { libc::pipe(ends.as_mut_ptr()) } != 0 {
        let err = std::io::Error::last_os_error();
        return Err(ToolError::execution(format!("pipe: {err}")));
    }
    // SAFETY: the read end, just made and closed once; then one byte written from a valid
    // buffer to the write end.
    let written = unsafe {
        libc::close(ends[0]);
        libc::write(ends[1], b"x".as_ptr().cast(), 1)
    };
    if written == 1 {
        return Ok("written".to_owned());
    }
    let err = std::io::Error::last_os_error();
    Err(ToolError::execution(format!("write: {err}")))
}

/// What a model reads of a result: its text.
fn text_of(result: &mcp_runtime::MCPToolResult) -> String {
    match result.data() {
        Some(data) => data["result"].to_string(),
        None => result
            .error()
            .map(|error| error.error_message.clone())
            .unwrap_or_default(),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_sandboxed_tool_called_through_testing_connect_runs_isolated_in_a_worker() {
    let dir = std::env::temp_dir().join(format!("sandbox-in-tests-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("the test's directory");
    let secret = dir.join("secret.txt");
    std::fs::write(&secret, "in-test-secret-5d1e").expect("the secret");
    let path = secret.to_str().expect("UTF-8").to_owned();

    // As a function it runs here, and reads the file: the test can fail.
    assert_eq!(
        read_file(path.clone()).expect("read here"),
        "in-test-secret-5d1e"
    );

    let client = testing::connect(Server::new(Registry::global()))
        .await
        .expect("connects");
    let result = client
        .call_tool("in_test.read_file", json!({ "path": path }))
        .await
        .expect("answered");
    let text = text_of(&result);
    assert!(result.error().is_some(), "the file was read: {text}");
    assert!(text.contains("Permission denied"), "{text}");
    assert!(!text.contains("in-test-secret-5d1e"), "{text}");

    let result = client
        .call_tool("in_test.process", json!({}))
        .await
        .expect("answered");
    let data = result.data().expect("the process")["result"].clone();
    let pid = data["pid"].as_u64().expect("a pid");
    assert_ne!(
        pid,
        u64::from(std::process::id()),
        "it ran in the test's process"
    );
    // Its own PID namespace: the first process there is the tool's.
    assert_eq!(pid, 1, "{data}");
    // This harness never called `dispatch()`: the worker was served by the entry at load.
    assert_eq!(
        data["entry"],
        json!("--mcp-runtime-sandbox-worker-at-load"),
        "{data}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Where the machine lacks what the sandbox needs, the refusal says what to do in code (a
/// test's registry), not on a command line. Run with the mechanism pretended missing, in a
/// process of its own (this test, run again by itself), since the variable is read by every
/// test of this harness.
#[tokio::test(flavor = "multi_thread")]
async fn where_the_sandbox_is_missing_the_refusal_says_what_to_do_in_code() {
    if !in_a_process_of_its_own(
        "where_the_sandbox_is_missing_the_refusal_says_what_to_do_in_code",
        "landlock",
    ) {
        return;
    }
    let client = testing::connect(Server::new(Registry::global()))
        .await
        .expect("connects");
    let result = client
        .call_tool("in_test.read_file", json!({ "path": "/etc/hostname" }))
        .await
        .expect("answered");
    let error = result.error().expect("refused");
    let text = &error.error_message;
    assert_eq!(
        error.error_type,
        mcp_runtime::ErrorType::PermissionError,
        "{text}"
    );
    assert!(text.contains("lacks Landlock"), "{text}");
    assert!(
        text.contains(r#"Sandboxing::new().allow_unsandboxed("in_test.read_file")"#),
        "{text}"
    );
    assert!(!text.contains("--allow-unsandboxed"), "{text}");

    // Allowed so by name, that tool runs unsandboxed, in this process; another stays
    // refused.
    let registry = Registry::builder()
        .inventory()
        .sandboxing(Sandboxing::new().allow_unsandboxed("in_test.process"))
        .build()
        .expect("a registry");
    let client = testing::connect(Server::new(registry))
        .await
        .expect("connects");
    let result = client
        .call_tool("in_test.process", json!({}))
        .await
        .expect("answered");
    let data = result.data().expect("the process")["result"].clone();
    assert_eq!(data["pid"], json!(std::process::id()), "{data}");
    let result = client
        .call_tool("in_test.read_file", json!({ "path": "/etc/hostname" }))
        .await
        .expect("answered");
    assert!(text_of(&result).contains("lacks Landlock"), "{result:?}");
}

/// A worker served at load ignores SIGPIPE, as Rust's `main` would have made it: a tool
/// writing to a closed pipe gets an error, rather than its process killed. Run without the
/// namespaces (pretended missing, in a process of its own), since the first process of a
/// PID namespace is spared SIGPIPE anyway.
#[tokio::test(flavor = "multi_thread")]
async fn a_worker_served_at_load_ignores_sigpipe_as_main_would() {
    if !in_a_process_of_its_own(
        "a_worker_served_at_load_ignores_sigpipe_as_main_would",
        "namespaces",
    ) {
        return;
    }
    let client = testing::connect(Server::new(Registry::global()))
        .await
        .expect("connects");
    let result = client
        .call_tool("in_test.broken_pipe", json!({}))
        .await
        .expect("answered");
    let text = text_of(&result);
    assert!(text.contains("write: Broken pipe"), "{text}");
}

/// Whether this is the test `name` run again by itself, with `missing` pretended missing
/// (`MCP_RUNTIME_SANDBOX_UNAVAILABLE`, which every test of this harness would read): then
/// the test goes on. Otherwise it runs it so, checks that it passed, and the test ends.
fn in_a_process_of_its_own(name: &str, missing: &str) -> bool {
    if std::env::var_os(mcp_runtime::sandbox::UNAVAILABLE_ENV).is_some() {
        return true;
    }
    let output = Command::new(std::env::current_exe().expect("this harness"))
        .args(["--exact", name, "--nocapture", "--test-threads", "1"])
        .env(mcp_runtime::sandbox::UNAVAILABLE_ENV, missing)
        .output()
        .expect("the harness runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("1 passed"), "{stdout}");
    false
}
