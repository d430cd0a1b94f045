//! The stdio server's tests: a server over pipes of bytes, written and read back.

use super::*;
use serde_json::Value;

/// Bytes written, readable after.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        lock(&self.0).extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn the_limit_is_sixteen_mebibytes() {
    // What the error message says, and what clients are told to stay under.
    assert_eq!(MAX_MESSAGE_BYTES, 16_777_216);
}

/// Each outcome of `read_message` over `input`, to its end: whether the message was
/// whole, and how many bytes of it were kept. No input here holds more than 3.
fn messages(input: &[u8]) -> Vec<(bool, usize)> {
    let mut input = io::BufReader::with_capacity(BUFFER, input);
    let mut read = Vec::new();
    loop {
        let mut line = Vec::new();
        match read_message(&mut input, &mut line).unwrap() {
            None => return read,
            Some(whole) => read.push((whole, line.len())),
        }
        assert!(read.len() <= 3, "more messages than were written: {read:?}");
    }
}

#[test]
fn a_message_up_to_the_limit_is_read_whole_and_a_longer_one_is_skipped() {
    let at_limit = [vec![b' '; MAX_MESSAGE_BYTES], b"\n".to_vec()].concat();
    assert_eq!(messages(&at_limit), [(true, MAX_MESSAGE_BYTES + 1)]);
    // The last line of the input needs no newline.
    assert_eq!(
        messages(&at_limit[..MAX_MESSAGE_BYTES]),
        [(true, MAX_MESSAGE_BYTES)]
    );
    // One byte more: skipped to its newline, and the next message is read whole.
    let past = [
        vec![b' '; MAX_MESSAGE_BYTES + 1],
        b"\n{}\n".to_vec(),
        vec![b' '; 2 * MAX_MESSAGE_BYTES],
    ]
    .concat();
    assert_eq!(
        messages(&past),
        [
            (false, MAX_MESSAGE_BYTES + 1),
            (true, 3),
            (false, MAX_MESSAGE_BYTES + 1)
        ]
    );
}

/// Bytes written, announced on a channel as they come.
struct Announced(std::sync::mpsc::Sender<Vec<u8>>);

impl Write for Announced {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let _ = self.0.send(bytes.to_vec());
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn an_answer_is_written_while_input_stays_open() {
    let (input, mut client) = io::pipe().unwrap();
    let (written, answers) = std::sync::mpsc::channel();
    let server = Arc::new(Server::new(crate::registry::Registry::global()));
    let serving = tokio::spawn(serve(
        server,
        input,
        Announced(written),
        std::future::pending(),
    ));
    client
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n")
        .unwrap();
    let answer = tokio::task::spawn_blocking(move || {
        answers.recv_timeout(std::time::Duration::from_secs(10))
    })
    .await
    .unwrap()
    .expect("the answer, before input ends");
    assert_eq!(answer, b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n");
    drop(client);
    serving.await.unwrap().unwrap();
}

#[tokio::test]
async fn an_awaited_call_is_answered_by_the_writer() {
    let registry = crate::registry::Registry::builder()
        .tool(
            mcp_runtime_core::ToolDefinition::new("t.echo", schemars::json_schema!({ "type": "object" }))
                .unwrap(),
            |arguments: crate::registration::Arguments, _ctx: crate::context::ToolContext| async move {
                tokio::task::yield_now().await;
                Ok::<_, mcp_runtime_core::ToolError>(Value::Object(arguments))
            },
        )
        .build()
        .unwrap();
    let (input, mut client) = io::pipe().unwrap();
    let (written, answers) = std::sync::mpsc::channel();
    let serving = tokio::spawn(serve(
        Arc::new(Server::new(registry)),
        input,
        Announced(written),
        std::future::pending(),
    ));
    client
        .write_all(
            concat!(
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","#,
                r#""params":{"name":"t.echo","arguments":{"a":1}}}"#,
                "\n"
            )
            .as_bytes(),
        )
        .unwrap();
    let answer = tokio::task::spawn_blocking(move || {
        answers.recv_timeout(std::time::Duration::from_secs(10))
    })
    .await
    .unwrap()
    .expect("the call's answer, before input ends");
    let answer: Value = serde_json::from_slice(&answer).unwrap();
    assert_eq!(answer["id"], 1);
    assert_eq!(
        answer["result"]["structuredContent"],
        serde_json::json!({ "a": 1 })
    );
    drop(client);
    serving.await.unwrap().unwrap();
}

/// A server over one dynamic tool, `t.one`, and what it writes, line by line.
struct Session {
    server: Arc<Server>,
    client: io::PipeWriter,
    lines: std::sync::mpsc::Receiver<Vec<u8>>,
    pending: Vec<u8>,
    serving: tokio::task::JoinHandle<io::Result<()>>,
}

fn tool(name: &str) -> mcp_runtime_core::ToolDefinition {
    mcp_runtime_core::ToolDefinition::new(name, schemars::json_schema!({ "type": "object" }))
        .unwrap()
}

fn answer_empty(
    _: crate::registration::Arguments,
    _: crate::context::ToolContext,
) -> std::future::Ready<Result<Value, mcp_runtime_core::ToolError>> {
    std::future::ready(Ok(Value::Null))
}

impl Session {
    fn start() -> Self {
        let registry = crate::registry::Registry::builder()
            .tool(tool("t.one"), answer_empty)
            .build()
            .unwrap();
        let server = Arc::new(Server::new(registry));
        let (input, client) = io::pipe().unwrap();
        let (written, lines) = std::sync::mpsc::channel();
        let serving = tokio::spawn(serve(
            Arc::clone(&server),
            input,
            Announced(written),
            std::future::pending(),
        ));
        Self {
            server,
            client,
            lines,
            pending: Vec::new(),
            serving,
        }
    }

    fn send(&mut self, message: &str) {
        self.client.write_all(message.as_bytes()).unwrap();
        self.client.write_all(b"\n").unwrap();
    }

    /// The next line written, within 10 s.
    async fn line(&mut self) -> Value {
        loop {
            if let Some(end) = self.pending.iter().position(|&byte| byte == b'\n') {
                let line: Vec<u8> = self.pending.drain(..=end).collect();
                return serde_json::from_slice(&line).unwrap();
            }
            let lines = std::mem::replace(&mut self.lines, std::sync::mpsc::channel().1);
            let (lines, bytes) = tokio::task::spawn_blocking(move || {
                let bytes = lines.recv_timeout(std::time::Duration::from_secs(10));
                (lines, bytes)
            })
            .await
            .unwrap();
            self.lines = lines;
            self.pending.extend(bytes.expect("a line within 10 s"));
        }
    }

    /// Sends a ping and waits for its answer: every message sent before it is handled.
    async fn sync(&mut self, id: u64) -> Vec<Value> {
        self.send(&format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#));
        let mut before = Vec::new();
        loop {
            let line = self.line().await;
            if line["id"] == id {
                return before;
            }
            before.push(line);
        }
    }

    fn change(&self, enabled: bool) {
        assert!(switch_t_one(&self.server, enabled));
    }

    /// Ends the input; every line written after what was read.
    async fn end(mut self) -> Vec<Value> {
        drop(self.client);
        self.serving.await.unwrap().unwrap();
        while let Ok(bytes) = self.lines.try_recv() {
            self.pending.extend(bytes);
        }
        self.pending
            .split(|&byte| byte == b'\n')
            .filter(|line| !line.is_empty())
            .map(|line| serde_json::from_slice(line).unwrap())
            .collect()
    }
}

/// Enables or disables `t.one` on `server`: whether that changed what it serves.
fn switch_t_one(server: &Server, enabled: bool) -> bool {
    server
        .change(|registry| {
            if enabled {
                registry.enable("t.one")
            } else {
                registry.disable("t.one")
            }
        })
        .unwrap()
}

fn tools_changed(lines: &[Value]) -> Vec<&Value> {
    lines
        .iter()
        .filter(|line| line["method"] == "notifications/tools/list_changed")
        .collect()
}

#[tokio::test]
async fn a_client_that_completed_the_handshake_hears_of_each_change() {
    let mut session = Session::start();
    session.send(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#);
    assert_eq!(session.line().await["id"], 1);
    // Before `notifications/initialized`, a change is not told.
    session.change(false);
    session.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    let mut seen = session.sync(2).await;
    session.change(true);
    // Edits that change nothing tell no one: a tool that is not there, a name taken.
    let server = Arc::clone(&session.server);
    assert!(
        !server
            .change(|registry| registry.disable("t.none"))
            .unwrap()
    );
    assert!(
        server
            .change(|registry| registry.unregister("t.none"))
            .unwrap()
            .is_none()
    );
    let taken = server.change(|registry| registry.register(tool("t.one"), answer_empty));
    assert!(taken.unwrap().is_err(), "the name is taken");
    seen.extend(session.sync(3).await);
    // Removing a tool, and registering one, are changes.
    assert!(
        server
            .change(|registry| registry.unregister("t.one"))
            .unwrap()
            .is_some()
    );
    let registered = server.change(|registry| registry.register(tool("t.two"), answer_empty));
    assert!(registered.unwrap().is_ok());
    seen.extend(session.sync(4).await);
    seen.extend(session.end().await);
    let told = tools_changed(&seen);
    assert_eq!(told.len(), 3, "{seen:?}");
    assert_eq!(
        *told[0],
        serde_json::json!({ "jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {} })
    );
}

#[tokio::test]
async fn a_tool_asks_the_client_on_the_stream_and_a_client_that_never_answers_is_timed_out() {
    let mut session = Session::start();
    let server = Arc::clone(&session.server);
    let asking = tool("t.ask").with_timeout(std::time::Duration::from_millis(300));
    let added = server.change(|registry| {
        registry.register(asking, |_, ctx: crate::context::ToolContext| async move {
            let roots = ctx.roots("roots").await?;
            Ok::<_, mcp_runtime_core::ToolError>(Value::from(roots.len()))
        })
    });
    assert!(added.unwrap().is_ok());
    session.send(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{}},"clientInfo":{"name":"t","version":"1"}}}"#);
    assert_eq!(session.line().await["id"], 1);
    let call = |id: u64| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"t.ask"}}}}"#
        )
    };

    // Asked, and answered: the answer reaches the tool.
    session.send(&call(2));
    let request = session.line().await;
    assert_eq!(request["method"], "roots/list", "{request}");
    let id = request["id"].as_str().expect("a string id").to_owned();
    assert!(
        id.starts_with("mcp-runtime-") && id.len() == 12 + 32,
        "{id}"
    );
    session.send(&format!(
        r#"{{"jsonrpc":"2.0","id":"{id}","result":{{"roots":[{{"uri":"file:///a"}},{{"uri":"file:///b"}}]}}}}"#
    ));
    let answer = session.line().await;
    assert_eq!(answer["id"], 2);
    assert_eq!(
        answer["result"]["structuredContent"],
        serde_json::json!({ "result": 2 })
    );

    // An error response is the ask's error.
    session.send(&call(3));
    let id = session.line().await["id"].as_str().unwrap().to_owned();
    session.send(&format!(
        r#"{{"jsonrpc":"2.0","id":"{id}","error":{{"code":-1,"message":"no roots for you"}}}}"#
    ));
    let answer = session.line().await;
    assert_eq!(answer["id"], 3);
    assert!(
        answer["result"]["content"][0]["text"]
            .as_str()
            .is_some_and(|text| text.contains("no roots for you")),
        "{answer}"
    );

    // Never answered: the tool's timeout ends the wait, and a late answer goes nowhere.
    session.send(&call(4));
    let late = session.line().await["id"].as_str().unwrap().to_owned();
    let answer = session.line().await;
    assert_eq!(answer["id"], 4);
    assert_eq!(
        answer["result"]["_meta"][mcp_runtime_core::wire::ERROR_META]["error_type"],
        "TimeoutError",
        "{answer}"
    );
    session.send(&format!(
        r#"{{"jsonrpc":"2.0","id":"{late}","result":{{"roots":[]}}}}"#
    ));
    assert!(
        session.sync(5).await.is_empty(),
        "nothing answers a late answer"
    );
    assert!(session.end().await.is_empty());
}

#[tokio::test]
async fn a_tool_needing_a_capability_the_connection_did_not_declare_does_not_run() {
    for (declared, runs) in [("{}", false), (r#"{"sampling":{}}"#, true)] {
        let mut session = Session::start();
        let server = Arc::clone(&session.server);
        let required = serde_json::json!({ "sampling": {} })
            .as_object()
            .cloned()
            .unwrap();
        let needy = tool("t.needy")
            .with_required_client_capabilities(required)
            .unwrap();
        let added = server.change(|registry| registry.register(needy, answer_empty));
        assert!(added.unwrap().is_ok());
        session.send(&format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"2025-11-25","capabilities":{declared},"clientInfo":{{"name":"t","version":"1"}}}}}}"#
        ));
        assert_eq!(session.line().await["id"], 1);
        session
            .send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t.needy"}}"#);
        let answer = session.line().await;
        if runs {
            assert_eq!(answer["result"]["isError"], false, "{answer}");
        } else {
            assert_eq!(answer["error"]["code"], -32021, "{answer}");
            assert_eq!(
                answer["error"]["data"]["requiredCapabilities"],
                serde_json::json!({ "sampling": {} })
            );
        }
        session.end().await;
    }
}

#[tokio::test]
async fn a_connection_gets_the_log_messages_at_or_above_the_level_it_set() {
    let mut session = Session::start();
    let server = Arc::clone(&session.server);
    let added = server.change(|registry| {
        registry.register(
            tool("t.noisy"),
            |_, ctx: crate::context::ToolContext| async move {
                ctx.debug("d");
                ctx.warning("w");
                Ok::<_, mcp_runtime_core::ToolError>(Value::Null)
            },
        )
    });
    assert!(added.unwrap().is_ok());
    let call = |id: u64| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"t.noisy"}}}}"#
        )
    };
    // No level set: no messages.
    session.send(&call(1));
    assert_eq!(session.line().await["id"], 1);
    session
        .send(r#"{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"debug"}}"#);
    assert_eq!(session.line().await["result"], serde_json::json!({}));
    // A level that is none is refused, and the one set stays.
    session.send(
        r#"{"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"verbose"}}"#,
    );
    assert_eq!(session.line().await["error"]["code"], -32602);
    session.send(&call(4));
    let mut lines = vec![
        session.line().await,
        session.line().await,
        session.line().await,
    ];
    assert_eq!(lines.pop().unwrap()["id"], 4, "the answer comes last");
    let levels: Vec<&Value> = lines.iter().map(|line| &line["params"]["level"]).collect();
    assert_eq!(levels, ["debug", "warning"], "{lines:?}");
    assert_eq!(
        lines[1],
        serde_json::json!({
            "jsonrpc": "2.0",
            "method": "notifications/message",
            "params": { "level": "warning", "logger": "t.noisy", "data": "w" },
        })
    );
    session
        .send(r#"{"jsonrpc":"2.0","id":5,"method":"logging/setLevel","params":{"level":"error"}}"#);
    assert_eq!(session.line().await["id"], 5);
    session.send(&call(6));
    assert_eq!(session.line().await["id"], 6, "nothing at error or above");
    assert!(session.end().await.is_empty());
}

#[tokio::test]
async fn a_connection_hears_of_the_resources_it_subscribed_to_and_of_prompt_changes() {
    let mut session = Session::start();
    let server = Arc::clone(&session.server);
    // The stateless revision has no `resources/subscribe`: refused, and nothing kept.
    session.send(r#"{"jsonrpc":"2.0","id":0,"method":"resources/subscribe","params":{"uri":"a://x","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    assert_eq!(session.line().await["error"]["code"], -32601);
    server.notify_resource_updated("a://x");
    // A subscription is the connection's, handshake or not.
    session.send(
        r#"{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"a://x"}}"#,
    );
    assert_eq!(session.line().await["result"], serde_json::json!({}));
    server.notify_resource_updated("a://x");
    server.notify_resource_updated("a://other");
    assert_eq!(
        session.line().await,
        serde_json::json!({ "jsonrpc": "2.0", "method": "notifications/resources/updated", "params": { "uri": "a://x" } })
    );
    session.send(
        r#"{"jsonrpc":"2.0","id":2,"method":"resources/unsubscribe","params":{"uri":"a://x"}}"#,
    );
    assert_eq!(session.line().await["id"], 2);
    server.notify_resource_updated("a://x");
    let registered = server.change(|registry| {
        registry.register_prompt(mcp_runtime_core::PromptDefinition::new("p"), |_| async {
            Ok::<_, mcp_runtime_core::ToolError>(mcp_runtime_core::PromptResult::default())
        })
    });
    assert!(registered.unwrap().is_ok());
    assert_eq!(
        session.line().await,
        serde_json::json!({ "jsonrpc": "2.0", "method": "notifications/prompts/list_changed", "params": {} }),
        "no update after the unsubscription, and no tools change for a prompt"
    );
    let seen = session.end().await;
    assert!(seen.is_empty(), "{seen:?}");
}

#[tokio::test]
async fn a_listen_stream_is_acknowledged_tagged_and_ends_when_cancelled() {
    let mut session = Session::start();
    session.send(r#"{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#);
    let acknowledgement = session.line().await;
    assert_eq!(
        acknowledgement["method"],
        "notifications/subscriptions/acknowledged"
    );
    assert_eq!(
        acknowledgement["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "L"
    );
    session.change(false);
    let told = session.line().await;
    assert_eq!(
        told,
        serde_json::json!({
            "jsonrpc": "2.0",
            "method": "notifications/tools/list_changed",
            "params": { "_meta": { "io.modelcontextprotocol/subscriptionId": "L" } },
        })
    );
    session
        .send(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"L"}}"#);
    let mut seen = session.sync(2).await;
    session.change(true);
    seen.extend(session.end().await);
    assert!(
        tools_changed(&seen).is_empty(),
        "told after the cancellation: {seen:?}"
    );
    // A cancelled listen request is not answered, like any other.
    assert!(seen.iter().all(|line| line["id"] != "L"), "{seen:?}");
}

#[tokio::test]
async fn answers_every_request_and_nothing_else() {
    let input = concat!(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        "\n",
        "\n",
        r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#,
        "\n",
        "not json\n",
        r#"{"jsonrpc":"2.0","id":3,"method":"nope"}"#,
        "\n",
    );
    let written = Shared::default();
    let server = Arc::new(Server::new(crate::registry::Registry::global()));
    serve(
        server,
        input.as_bytes(),
        written.clone(),
        std::future::pending(),
    )
    .await
    .unwrap();
    let output = String::from_utf8(lock(&written.0).clone()).unwrap();
    let answers: Vec<Value> = output
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(answers.len(), 4, "{output}");
    let by_id = |id: Value| answers.iter().find(|a| a["id"] == id).cloned();
    assert_eq!(
        by_id(1.into()).unwrap()["result"]["protocolVersion"],
        "2025-06-18"
    );
    assert_eq!(by_id(2.into()).unwrap()["result"], serde_json::json!({}));
    assert_eq!(by_id(3.into()).unwrap()["error"]["code"], -32601);
    assert_eq!(by_id(Value::Null).unwrap()["error"]["code"], -32700);
}

/// A registry of one tool, `t.wait`, that runs until its call is cancelled, and tells
/// `started` each time one starts.
fn waiting_registry(started: tokio::sync::mpsc::UnboundedSender<()>) -> crate::registry::Registry {
    crate::registry::Registry::builder()
        .tool(
            tool("t.wait"),
            move |_: crate::registration::Arguments, ctx: crate::context::ToolContext| {
                let started = started.clone();
                async move {
                    let _ = started.send(());
                    ctx.cancellation().cancelled().await;
                    Ok::<_, mcp_runtime_core::ToolError>(Value::Null)
                }
            },
        )
        .build()
        .unwrap()
}

fn wait_call(id: usize) -> String {
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"t.wait\",\"arguments\":{{}}}}}}\n"
    )
}

/// The answers written, as JSON, until one has `id`, within ten seconds; and the
/// receiver, for what comes after.
async fn answers_until(
    lines: std::sync::mpsc::Receiver<Vec<u8>>,
    id: u64,
) -> (Vec<Value>, std::sync::mpsc::Receiver<Vec<u8>>) {
    tokio::task::spawn_blocking(move || {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        let mut text = Vec::new();
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let Ok(bytes) = lines.recv_timeout(left) else {
                panic!("no answer to {id} within ten seconds; answers so far: {seen:?}");
            };
            // Each write is one whole answer or more, never part of one.
            text.extend_from_slice(&bytes);
            while let Some(end) = text.iter().position(|&byte| byte == b'\n') {
                let line: Vec<u8> = text.drain(..=end).collect();
                let answer: Value = serde_json::from_slice(&line).unwrap();
                let done = answer["id"] == id;
                seen.push(answer);
                if done {
                    return (seen, lines);
                }
            }
        }
    })
    .await
    .unwrap()
}

const CANCEL_FIRST: &str = concat!(
    r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
    "\n"
);

#[tokio::test]
async fn a_request_past_the_connections_bound_is_refused_and_reading_goes_on() {
    let (started, mut starts) = tokio::sync::mpsc::unbounded_channel();
    let server = Arc::new(Server::new(waiting_registry(started)));
    let (input, mut client) = io::pipe().unwrap();
    let (written, lines) = std::sync::mpsc::channel();
    let serving = tokio::spawn(serve(
        server,
        input,
        Announced(written),
        std::future::pending(),
    ));
    let calls: String = (1..=MAX_IN_FLIGHT + 1).map(wait_call).collect();
    client.write_all(calls.as_bytes()).unwrap();
    // The one past the bound is refused, not queued: reading goes on, so the cancellation
    // of the first call and the ping after it are read and answered.
    client.write_all(CANCEL_FIRST.as_bytes()).unwrap();
    client
        .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":9999,\"method\":\"ping\"}\n")
        .unwrap();
    let (answers, _) = answers_until(lines, 9999).await;
    let past = u64::try_from(MAX_IN_FLIGHT + 1).unwrap();
    let refused: Vec<&Value> = answers
        .iter()
        .filter(|answer| answer["error"]["code"] == crate::server::BUSY)
        .collect();
    assert_eq!(refused.len(), 1, "{answers:?}");
    assert_eq!(refused[0]["id"], past);
    let message = refused[0]["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("this connection has 256 requests in flight"),
        "{message}"
    );
    assert_eq!(refused[0]["error"]["data"]["retryAfterSeconds"], 1);
    for _ in 0..MAX_IN_FLIGHT {
        starts.recv().await.unwrap();
    }
    assert!(starts.try_recv().is_err(), "the refused call never ran");
    serving.abort();
}

#[tokio::test]
async fn the_servers_bound_counts_every_connection_and_a_place_frees_with_an_answer() {
    let (started, mut starts) = tokio::sync::mpsc::unbounded_channel();
    let server = Arc::new(Server::new(waiting_registry(started)).with_max_in_flight(3));
    let connect = || {
        let (input, client) = io::pipe().unwrap();
        let (written, lines) = std::sync::mpsc::channel();
        let serving = tokio::spawn(serve(
            Arc::clone(&server),
            input,
            Announced(written),
            std::future::pending(),
        ));
        (client, lines, serving)
    };
    let (mut first, mut first_lines, first_serving) = connect();
    let (mut second, second_lines, second_serving) = connect();
    first
        .write_all(format!("{}{}", wait_call(1), wait_call(2)).as_bytes())
        .unwrap();
    starts.recv().await.unwrap();
    starts.recv().await.unwrap();
    // One place left: the second connection's first call takes it, its second is refused.
    second
        .write_all(format!("{}{}", wait_call(1), wait_call(2)).as_bytes())
        .unwrap();
    let (answers, _) = answers_until(second_lines, 2).await;
    assert_eq!(answers.len(), 1, "{answers:?}");
    assert_eq!(answers[0]["error"]["code"], crate::server::BUSY);
    assert_eq!(answers[0]["error"]["data"]["scope"], "server");
    assert_eq!(answers[0]["error"]["data"]["limit"], 3);
    // A cancelled call gives its place back, once it has ended: a call sent after it is
    // refused until then, and then runs.
    first.write_all(CANCEL_FIRST.as_bytes()).unwrap();
    let mut id = 10;
    loop {
        first
            .write_all(
                format!(
                    "{}{{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"ping\"}}\n",
                    wait_call(id)
                )
                .as_bytes(),
            )
            .unwrap();
        let (answers, lines) = answers_until(first_lines, 0).await;
        first_lines = lines;
        if answers.len() == 1 {
            break;
        }
        assert!(
            id < 10_000,
            "the cancelled call's place was never given back"
        );
        id += 1;
        tokio::task::yield_now().await;
    }
    starts.recv().await.unwrap();
    first_serving.abort();
    second_serving.abort();
}

/// Bytes written, announced on a channel as they come, but only while the gate is open: a
/// client that stops reading.
struct Gated {
    written: std::sync::mpsc::Sender<Vec<u8>>,
    open: Arc<(Mutex<bool>, std::sync::Condvar)>,
}

impl Write for Gated {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let (open, opened) = &*self.open;
        let mut is_open = lock(open);
        while !*is_open {
            is_open = opened.wait(is_open).unwrap_or_else(PoisonError::into_inner);
        }
        let _ = self.written.send(bytes.to_vec());
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_connection_that_fell_behind_and_lost_notifications_is_told_every_change_after() {
    let registry = crate::registry::Registry::builder()
        .tool(tool("t.one"), answer_empty)
        .build()
        .unwrap();
    let server = Arc::new(Server::new(registry));
    let (input, mut client) = io::pipe().unwrap();
    let (written, lines) = std::sync::mpsc::channel();
    let gate = Arc::new((Mutex::new(true), std::sync::Condvar::new()));
    let output = Gated {
        written,
        open: Arc::clone(&gate),
    };
    let serving = tokio::spawn(serve(
        Arc::clone(&server),
        input,
        output,
        std::future::pending(),
    ));
    client
        .write_all(concat!(
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
            "\n",
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            "\n",
            r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#,
            "\n",
        ).as_bytes())
        .unwrap();
    let (_, lines) = answers_until(lines, 2).await;
    // The client stops reading; the tool list changes more times than the queue holds.
    *lock(&gate.0) = false;
    for change in 0..2 * MAX_IN_FLIGHT {
        switch_t_one(&server, change % 2 == 1);
    }
    *lock(&gate.0) = true;
    gate.1.notify_all();
    // What was queued comes, then what tells it of every change it may have missed: the
    // prompts' list among them, which never changed.
    let told = tokio::task::spawn_blocking(move || {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        let mut text = Vec::new();
        let mut tools = 0;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let Ok(bytes) = lines.recv_timeout(left) else {
                return Err(format!("{tools} tool list changes, then nothing more"));
            };
            text.extend_from_slice(&bytes);
            while let Some(end) = text.iter().position(|&byte| byte == b'\n') {
                let line: Vec<u8> = text.drain(..=end).collect();
                let message: Value = serde_json::from_slice(&line).unwrap();
                match message["method"].as_str() {
                    Some("notifications/tools/list_changed") => tools += 1,
                    Some("notifications/prompts/list_changed") => return Ok(tools),
                    _ => {}
                }
            }
        }
    })
    .await
    .unwrap();
    let tools = told.expect("told of every change after falling behind");
    assert!(tools < 2 * MAX_IN_FLIGHT, "{tools} changes were all queued");
    serving.abort();
}
