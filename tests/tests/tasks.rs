//! The tasks extension through the server's dispatcher: a call answered with a task, its
//! record polled, answered, cancelled; tasks seen from another replica sharing the store;
//! a replica that stops has its tasks reported failed once its lease lapses.

use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_runtime::serde_json::{Map, Value, json};
use mcp_runtime::server::Server;
use mcp_runtime::talk::Elicitation;
use mcp_runtime::tasks::{MemoryStore, TaskSettings, TaskStore};
use mcp_runtime::{Registry, TaskSupport, ToolDefinition, ToolError};

const TASKS: &str = "io.modelcontextprotocol/tasks";

/// Tools that run as tasks: `job.sleep` (sleeps `ms`, then says `text`), `job.ask` (asks
/// `confirm` within its task), `job.must` (requires a task).
fn registry() -> Registry {
    let mut registry = Registry::builder()
        .filter(|_| false)
        .build()
        .expect("an empty registry");
    let schema = |properties: Value| {
        json!({ "type": "object", "properties": properties })
            .try_into()
            .expect("a schema")
    };
    registry
        .register(
            ToolDefinition::new(
                "job.sleep",
                schema(json!({ "ms": { "type": "integer" }, "text": { "type": "string" } })),
            )
            .expect("a definition")
            .with_task_support(TaskSupport::Optional),
            |arguments, ctx| async move {
                let ms = arguments.get("ms").and_then(Value::as_u64).unwrap_or(0);
                ctx.progress(0.0, Some(1.0), Some("sleeping"));
                tokio::time::sleep(Duration::from_millis(ms)).await;
                Ok::<_, ToolError>(json!({ "text": arguments.get("text").cloned() }))
            },
        )
        .expect("registered");
    registry
        .register(
            ToolDefinition::new("job.ask", schema(json!({})))
                .expect("a definition")
                .with_task_support(TaskSupport::Optional),
            |_, ctx| async move {
                ctx.start_task();
                let form =
                    json!({ "type": "object", "properties": { "ok": { "type": "boolean" } } });
                let answer = ctx.elicit_with("confirm", "Go on?", form).await?;
                Ok::<_, ToolError>(json!({ "accepted": matches!(answer, Elicitation::Accept(_)) }))
            },
        )
        .expect("registered");
    registry
        .register(
            ToolDefinition::new("job.must", schema(json!({})))
                .expect("a definition")
                .with_task_support(TaskSupport::Required),
            |_, _| async { Ok::<_, ToolError>(json!({ "done": true })) },
        )
        .expect("registered");
    registry
}

fn server(store: Arc<dyn TaskStore>, lease: Duration) -> Server {
    Server::new(registry()).with_task_store(
        store,
        TaskSettings {
            lease,
            ..TaskSettings::default()
        },
    )
}

/// A 2026-07-28 request, declaring the tasks extension (and elicitation) when `tasks`.
fn request(method: &str, mut params: Map<String, Value>, tasks: bool) -> Vec<u8> {
    let capabilities = if tasks {
        json!({ "elicitation": {}, "extensions": { TASKS: {} } })
    } else {
        json!({})
    };
    params.insert(
        "_meta".into(),
        json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": capabilities,
        }),
    );
    json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params })
        .to_string()
        .into_bytes()
}

async fn send(server: &Server, method: &str, params: Value, tasks: bool) -> Value {
    let Value::Object(params) = params else {
        panic!("params are an object")
    };
    let answer = server
        .handle(&request(method, params, tasks), None)
        .await
        .expect("answered");
    mcp_runtime::serde_json::from_str(&answer).expect("JSON")
}

async fn call(server: &Server, tool: &str, arguments: Value) -> Value {
    send(
        server,
        "tools/call",
        json!({ "name": tool, "arguments": arguments }),
        true,
    )
    .await
}

async fn get(server: &Server, task: &str) -> Value {
    send(server, "tasks/get", json!({ "taskId": task }), true).await
}

/// Polls until the task is in one of `statuses`, for at most 10 s.
async fn until(server: &Server, task: &str, statuses: &[&str]) -> Value {
    let started = Instant::now();
    loop {
        let got = get(server, task).await;
        let status = got["result"]["status"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        if statuses.contains(&status.as_str()) {
            return got;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "task {task} never reached {statuses:?}: {got}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn task_id(created: &Value) -> String {
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    created["result"]["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("a task id: {created}"))
        .to_owned()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_call_becomes_a_task_whose_result_is_inlined_once_completed() {
    let server = server(Arc::new(MemoryStore::new()), Duration::from_secs(5));
    let created = call(&server, "job.sleep", json!({ "ms": 300, "text": "hi" })).await;
    let task = task_id(&created);
    assert_eq!(created["result"]["status"], "working", "{created}");
    assert!(created["result"]["ttlMs"].as_u64().is_some(), "{created}");
    // Durable at once: the very next get finds it.
    let working = get(&server, &task).await;
    assert_eq!(working["result"]["taskId"], task.as_str(), "{working}");
    assert!(working["result"].get("result").is_none(), "{working}");
    let done = until(&server, &task, &["completed"]).await;
    assert_eq!(
        done["result"]["result"]["structuredContent"],
        json!({ "text": "hi" }),
        "{done}"
    );
    assert_eq!(done["result"]["resultType"], "complete", "{done}");
}

#[tokio::test(flavor = "multi_thread")]
async fn without_the_extension_a_call_is_answered_at_once_and_a_required_task_refused() {
    let server = server(Arc::new(MemoryStore::new()), Duration::from_secs(5));
    let plain = send(
        &server,
        "tools/call",
        json!({ "name": "job.sleep", "arguments": { "ms": 0, "text": "now" } }),
        false,
    )
    .await;
    assert_eq!(plain["result"]["resultType"], "complete", "{plain}");
    assert_eq!(
        plain["result"]["structuredContent"]["text"], "now",
        "{plain}"
    );
    let refused = send(
        &server,
        "tools/call",
        json!({ "name": "job.must", "arguments": {} }),
        false,
    )
    .await;
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    assert_eq!(
        refused["error"]["data"]["requiredCapabilities"]["extensions"][TASKS],
        json!({}),
        "{refused}"
    );
    let gated = send(&server, "tasks/get", json!({ "taskId": "x" }), false).await;
    assert_eq!(gated["error"]["code"], -32021, "{gated}");
    let unknown = get(&server, "no-such-task").await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
}

#[tokio::test(flavor = "multi_thread")]
async fn another_replica_answers_and_cancels_the_tasks_of_the_first() {
    let store: Arc<dyn TaskStore> = Arc::new(MemoryStore::new());
    let (first, second) = (
        server(Arc::clone(&store), Duration::from_secs(5)),
        server(Arc::clone(&store), Duration::from_secs(5)),
    );
    // Asked within its task, answered through the other replica.
    let task = task_id(&call(&first, "job.ask", json!({})).await);
    let waiting = until(&second, &task, &["input_required"]).await;
    let request = &waiting["result"]["inputRequests"]["confirm"];
    assert_eq!(request["method"], "elicitation/create", "{waiting}");
    let ack = send(
        &second,
        "tasks/update",
        json!({ "taskId": task, "inputResponses": {
            "confirm": { "action": "accept", "content": { "ok": true } },
            "unasked": { "action": "accept", "content": {} },
        } }),
        true,
    )
    .await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    assert!(ack["result"].get("status").is_none(), "{ack}");
    let done = until(&second, &task, &["completed"]).await;
    assert_eq!(
        done["result"]["result"]["structuredContent"]["accepted"], true,
        "{done}"
    );

    // Cancelled through the other replica: it stays cancelled, and a second cancel is
    // the same acknowledgement.
    let long = task_id(&call(&first, "job.sleep", json!({ "ms": 60_000 })).await);
    for _ in 0..2 {
        let ack = send(&second, "tasks/cancel", json!({ "taskId": long }), true).await;
        assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    }
    let cancelled = until(&first, &long, &["cancelled"]).await;
    assert!(cancelled["result"].get("result").is_none(), "{cancelled}");
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(get(&first, &long).await["result"]["status"], "cancelled");
}

#[test]
fn a_stopped_replicas_tasks_are_reported_failed_once_its_lease_lapses() {
    let store: Arc<dyn TaskStore> = Arc::new(MemoryStore::new());
    let lease = Duration::from_millis(600);
    // The first replica runs on a runtime of its own, which stops, with its tasks.
    let doomed = tokio::runtime::Runtime::new().expect("a runtime");
    let first = server(Arc::clone(&store), lease);
    let task = doomed.block_on(async {
        let task = task_id(&call(&first, "job.sleep", json!({ "ms": 60_000 })).await);
        // Renewed while it runs.
        tokio::time::sleep(lease * 2).await;
        assert_eq!(get(&first, &task).await["result"]["status"], "working");
        task
    });
    doomed.shutdown_background();

    let survivor = tokio::runtime::Runtime::new().expect("a runtime");
    survivor.block_on(async {
        let second = server(Arc::clone(&store), lease);
        let stopped = Instant::now();
        let failed = until(&second, &task, &["failed"]).await;
        assert!(
            stopped.elapsed() < lease * 3,
            "reported failed within the lease: {:?}",
            stopped.elapsed()
        );
        assert_eq!(failed["result"]["error"]["code"], -32603, "{failed}");
        let message = failed["result"]["error"]["message"]
            .as_str()
            .unwrap_or_default();
        assert!(message.contains("lapsed"), "{failed}");
    });
}

/// The quickstart over stdio, at 2025-11-25: the client declares the extension at
/// `initialize`, and its calls of `text.slow_count` become tasks that ask within.
#[test]
fn a_handshake_client_over_stdio_runs_a_task_that_asks() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::{Command, Stdio};

    let mut child = Command::new(mcp_tests::quickstart_bin())
        .args(["serve", "--stdio"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the quickstart starts");
    let mut input = child.stdin.take().expect("stdin");
    let mut output = BufReader::new(child.stdout.take().expect("stdout"));
    let mut next_id = 0;
    let mut request = |method: &str, params: Value| -> Value {
        next_id += 1;
        let message =
            json!({ "jsonrpc": "2.0", "id": next_id, "method": method, "params": params });
        writeln!(input, "{message}").expect("the server reads");
        loop {
            let mut line = String::new();
            assert!(
                output.read_line(&mut line).expect("a line") > 0,
                "the server ended"
            );
            let answer: Value = mcp_runtime::serde_json::from_str(&line).expect("JSON");
            if answer["id"] == next_id {
                return answer;
            }
        }
    };
    let initialized = request(
        "initialize",
        json!({ "protocolVersion": "2025-11-25", "clientInfo": { "name": "t", "version": "1" },
                "capabilities": { "elicitation": {}, "extensions": { TASKS: {} } } }),
    );
    assert_eq!(
        initialized["result"]["capabilities"]["extensions"][TASKS],
        json!({}),
        "{initialized}"
    );
    let created = request(
        "tools/call",
        json!({ "name": "text.slow_count",
                "arguments": { "text": "one two three", "delay_ms": 50, "confirm": true } }),
    );
    let task = task_id(&created);
    let started = Instant::now();
    let mut answered = false;
    let done = loop {
        let got = request("tasks/get", json!({ "taskId": task }));
        match got["result"]["status"].as_str() {
            Some("completed") => break got,
            Some("input_required") if !answered => {
                assert!(got["result"]["inputRequests"]["go"].is_object(), "{got}");
                let ack = request(
                    "tasks/update",
                    json!({ "taskId": task, "inputResponses": {
                        "go": { "action": "accept", "content": { "go": true } } } }),
                );
                assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
                answered = true;
            }
            Some("working" | "input_required") => {}
            _ => panic!("{got}"),
        }
        assert!(started.elapsed() < Duration::from_secs(10), "{got}");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(answered, "the task asked");
    assert_eq!(
        done["result"]["result"]["structuredContent"],
        json!({ "words": 3, "chars": 13 }),
        "{done}"
    );
    let _ = child.kill();
    let _ = child.wait();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_task_reports_progress_and_its_tool_sees_the_cancellation() {
    use std::sync::OnceLock;
    use std::sync::atomic::{AtomicBool, Ordering};
    /// Whether the tool's cancellation token is cancelled, and whether its body was stopped.
    type Seen = Box<dyn Fn() -> bool + Send + Sync>;
    static CANCELLED: OnceLock<Seen> = OnceLock::new();
    static STOPPED: AtomicBool = AtomicBool::new(false);
    struct Stopped;
    impl Drop for Stopped {
        fn drop(&mut self) {
            STOPPED.store(true, Ordering::SeqCst);
        }
    }
    let mut registry = registry();
    registry
        .register(
            ToolDefinition::new(
                "job.watch",
                json!({ "type": "object" }).try_into().expect("a schema"),
            )
            .expect("a definition")
            .with_task_support(TaskSupport::Optional),
            |_, ctx| async move {
                let _stopped = Stopped;
                let token = ctx.cancellation().clone();
                let _ = CANCELLED.set(Box::new(move || token.is_cancelled()));
                ctx.progress(1.0, Some(4.0), Some("a quarter done"));
                std::future::pending::<()>().await;
                Ok::<_, ToolError>(json!({}))
            },
        )
        .expect("registered");
    let server = Server::new(registry)
        .with_task_store(Arc::new(MemoryStore::new()), TaskSettings::default());
    let task = task_id(&call(&server, "job.watch", json!({})).await);
    let started = Instant::now();
    loop {
        let got = get(&server, &task).await;
        if got["result"]["statusMessage"] == "a quarter done" {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(10), "{got}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let cancelled = CANCELLED.get().expect("the tool ran");
    assert!(!cancelled() && !STOPPED.load(Ordering::SeqCst));
    let ack = send(&server, "tasks/cancel", json!({ "taskId": task }), true).await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    while !(cancelled() && STOPPED.load(Ordering::SeqCst)) {
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the tool's token was not cancelled, or its body not stopped"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(get(&server, &task).await["result"]["status"], "cancelled");
}

#[tokio::test(flavor = "multi_thread")]
async fn over_http_a_tasks_request_names_its_task_in_mcp_name() {
    use mcp_runtime::server::{HttpConfig, router};

    let server = server(Arc::new(MemoryStore::new()), Duration::from_secs(5));
    let task = task_id(&call(&server, "job.sleep", json!({ "ms": 0 })).await);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let address = listener.local_addr().expect("bound");
    let app = router(Arc::new(server), HttpConfig::default())
        .into_make_service_with_connect_info::<std::net::SocketAddr>();
    tokio::spawn(async move { axum::serve(listener, app).await });
    let get = |name: Option<&str>| {
        let Value::Object(params) = json!({ "taskId": task }) else {
            unreachable!()
        };
        let body = request("tasks/get", params, true);
        let mut post = reqwest::Client::new()
            .post(format!("http://{address}/mcp"))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", "2026-07-28")
            .header("Mcp-Method", "tasks/get")
            .body(body);
        if let Some(name) = name {
            post = post.header("Mcp-Name", name);
        }
        async move {
            let response = post.send().await.expect("answered");
            let status = response.status().as_u16();
            (status, response.json::<Value>().await.expect("JSON"))
        }
    };
    let (status, named) = get(Some(&task)).await;
    assert_eq!(status, 200, "{named}");
    assert_eq!(named["result"]["taskId"], task.as_str(), "{named}");
    for name in [None, Some("another-task")] {
        let (status, refused) = get(name).await;
        assert_eq!(status, 400, "{name:?}: {refused}");
        assert_eq!(refused["error"]["code"], -32020, "{name:?}: {refused}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_running_task_holds_a_place_among_the_requests_in_flight_until_it_ends() {
    let server = server(Arc::new(MemoryStore::new()), Duration::from_secs(5)).with_max_in_flight(2);
    let first = task_id(&call(&server, "job.sleep", json!({ "ms": 600_000 })).await);
    task_id(&call(&server, "job.sleep", json!({ "ms": 600_000 })).await);
    // A client that starts tasks without waiting for them is refused past the bound, at
    // once, and told when to come back.
    let refused = call(&server, "job.sleep", json!({ "ms": 600_000 })).await;
    assert_eq!(
        refused["error"]["code"],
        mcp_runtime::server::BUSY,
        "{refused}"
    );
    assert_eq!(refused["error"]["data"]["limit"], 2, "{refused}");
    assert_eq!(
        refused["error"]["data"]["retryAfterSeconds"], 1,
        "{refused}"
    );
    // A task that ends gives its place back.
    send(&server, "tasks/cancel", json!({ "taskId": first }), true).await;
    until(&server, &first, &["cancelled"]).await;
    let started = Instant::now();
    loop {
        let created = call(&server, "job.sleep", json!({ "ms": 600_000 })).await;
        if created["result"]["resultType"] == "task" {
            break;
        }
        assert_eq!(
            created["error"]["code"],
            mcp_runtime::server::BUSY,
            "{created}"
        );
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the cancelled task's place was never given back"
        );
        tokio::task::yield_now().await;
    }
}
