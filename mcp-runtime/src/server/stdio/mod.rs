//! The stdio transport: newline-delimited JSON-RPC messages on standard input and output.
//!
//! Standard output carries protocol messages only; logs belong on standard error. One
//! thread reads the input and answers at once what needs no waiting (the handshake,
//! listings, and calls to inline tools), so a quick call costs one read and one write, as
//! in a hand-written loop; answers to a run of requests already read are written together.
//! Other calls run concurrently on the Tokio runtime and are answered out of order,
//! through a writer thread. At most [`MAX_IN_FLIGHT`] run at once, and reading pauses
//! while that many do; a client that stops reading stalls the writes and then the reading,
//! so nothing is buffered without bound. At end of input the calls in flight are answered
//! before the server returns.

use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use mcp_core::LoggingLevel;
use tokio::runtime::Handle;
use tokio::sync::{Semaphore, mpsc, oneshot};

mod output;
mod start;

use output::{Outbox, Outgoing, Output, write_loop};

use super::jsonrpc::Incoming;
use super::listen::ListenGuard;
use super::{Notifier, Server, Step};

/// The most requests handled at once.
pub const MAX_IN_FLIGHT: usize = 256;

/// The largest message read, in bytes; a longer line is skipped and answered with an
/// error, so a client cannot make the server buffer without bound.
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// How much input is read, and output gathered, at once: 64 KiB, which only speed needs.
const BUFFER: usize = 65_536;

/// Serves `server` on this process's standard input and output until input ends or the
/// process is asked to stop (SIGTERM, Ctrl-C); either way, the calls in flight are answered
/// (each within its timeout) before it returns.
///
/// Standard output belongs to the protocol while this runs: whatever else the program
/// writes there (a `println!` in a tool, a library's chatter) goes to standard error
/// instead, so it cannot break the stream of messages. On Unix this is done by moving the
/// protocol to a duplicate of the original standard output and pointing descriptor 1 at
/// standard error; elsewhere, stray output is not redirected.
pub async fn serve_stdio(server: Arc<Server>) -> io::Result<()> {
    let output = protocol_output()?;
    serve(server, io::stdin(), output, super::stop_signal()).await
}

/// The protocol's own standard output, with descriptor 1 sent to standard error.
#[cfg(unix)]
fn protocol_output() -> io::Result<std::fs::File> {
    use std::os::fd::AsFd;
    io::stdout().flush()?;
    let protocol = io::stdout().as_fd().try_clone_to_owned()?;
    rustix::stdio::dup2_stdout(io::stderr().as_fd())?;
    Ok(std::fs::File::from(protocol))
}

#[cfg(not(unix))]
fn protocol_output() -> io::Result<io::Stdout> {
    Ok(io::stdout())
}

/// Serves `server` on `input` and `output` until input ends or `stop` resolves.
pub(crate) async fn serve<R, W>(
    server: Arc<Server>,
    input: R,
    output: W,
    stop: impl std::future::Future<Output = ()>,
) -> io::Result<()>
where
    R: Read + Send + 'static,
    W: Write + Send + 'static,
{
    let output: Output<W> = Arc::new(Mutex::new(BufWriter::with_capacity(BUFFER, output)));
    let (sender, outgoing) = mpsc::channel::<Outgoing>(MAX_IN_FLIGHT);
    let outbox = Outbox::new(Arc::clone(&output), sender.clone());
    let writer = std::thread::Builder::new()
        .name("mcp-stdio-writer".to_owned())
        .spawn({
            let (output, queued) = (Arc::clone(&output), outbox.queued());
            move || write_loop(outgoing, &output, &queued)
        })?;
    let reading = Reading {
        server,
        runtime: Handle::current(),
        output: Arc::clone(&output),
        outbox,
        limit: Arc::new(Semaphore::new(MAX_IN_FLIGHT)),
        stopping: Arc::new(AtomicBool::new(false)),
        busy: Arc::new(Mutex::new(())),
        listening: Mutex::new(Vec::new()),
        connection: Mutex::new(None),
        log_level: Mutex::new(None),
        capabilities: Mutex::new(None),
    };
    let (limit, stopping, busy) = (
        Arc::clone(&reading.limit),
        Arc::clone(&reading.stopping),
        Arc::clone(&reading.busy),
    );
    let (done, read_to_end) = oneshot::channel();
    std::thread::Builder::new()
        .name("mcp-stdio-reader".to_owned())
        .spawn(move || {
            let _ = done.send(reading.read_loop(input));
        })?;
    let read = tokio::select! {
        read = read_to_end => read.unwrap_or(Ok(())),
        () = stop => {
            // Asked to stop: read no more, answer what is in flight. The reading thread
            // may be blocked on input for good; it is left behind once its current
            // message is handled.
            stopping.store(true, Ordering::SeqCst);
            let _ = tokio::task::spawn_blocking(move || drop(lock(&busy))).await;
            Ok(())
        }
    };
    // Every place back means every call in flight has been answered.
    let _all = limit.acquire_many(MAX_IN_FLIGHT as u32).await;
    let _ = sender.send(Outgoing::Close).await;
    let written = tokio::task::spawn_blocking(move || writer.join())
        .await
        .map_err(io::Error::other)?
        .unwrap_or_else(|_| Err(io::Error::other("the stdio writer panicked")));
    read.and(written)
}

/// The reading thread's share.
struct Reading<W: Write> {
    server: Arc<Server>,
    runtime: Handle,
    output: Output<W>,
    outbox: Outbox<W>,
    limit: Arc<Semaphore>,
    stopping: Arc<AtomicBool>,
    /// Held while a message is handled, so a stop waits for the one at hand.
    busy: Arc<Mutex<()>>,
    /// What this connection listens for: every change once it completed the handshake,
    /// and its `subscriptions/listen` streams. Ends with the input.
    listening: Mutex<Vec<ListenGuard>>,
    /// The connection's own listener, from the handshake on (or its first subscription):
    /// list changes, and updates of the resources it subscribed to.
    connection: Mutex<Option<ListenGuard>>,
    /// The least severe log messages this connection wants (`logging/setLevel`); none
    /// until it sets a level.
    log_level: Mutex<Option<LoggingLevel>>,
    /// What the client declared at `initialize`: the requests a tool may send it.
    capabilities: Mutex<Option<Arc<serde_json::Map<String, serde_json::Value>>>>,
}

impl<W: Write + Send + 'static> Reading<W> {
    fn read_loop(self, input: impl Read) -> io::Result<()> {
        // Tools that run inline may look for the runtime, as they would on a worker.
        let _runtime = self.runtime.enter();
        let notify: Notifier = {
            let outbox = self.outbox.clone();
            // A full outbox drops a progress report rather than stall the tool.
            Arc::new(move |message| outbox.notify(message))
        };
        let mut input = BufReader::with_capacity(BUFFER, input);
        let mut line = Vec::new();
        loop {
            line.clear();
            let Some(whole) = read_message(&mut input, &mut line)? else {
                break;
            };
            let _busy = lock(&self.busy);
            if self.stopping.load(Ordering::SeqCst) {
                break;
            }
            if !whole {
                self.write_now(&super::jsonrpc::error_response(
                    &super::jsonrpc::Id::NONE,
                    super::INVALID_REQUEST,
                    &format!(
                        "the message is longer than the limit of {} MiB and was skipped",
                        MAX_MESSAGE_BYTES / (1024 * 1024)
                    ),
                    None,
                ))?;
            } else if !line.iter().all(u8::is_ascii_whitespace) {
                self.handle(&line, &notify)?;
            }
            // Answers wait in the buffer while more requests are already here to be read.
            if !input.buffer().contains(&b'\n') {
                lock(&self.output).flush()?;
            }
        }
        lock(&self.output).flush()
    }

    /// Writes an answer; it is flushed with the others once no request is waiting.
    fn write_now(&self, answer: &str) -> io::Result<()> {
        let mut output = lock(&self.output);
        output.write_all(answer.as_bytes())?;
        output.write_all(b"\n")
    }

    fn handle(&self, message: &[u8], notify: &Notifier) -> io::Result<()> {
        let step = match super::parse(message) {
            Err(refusal) => Step::Answered(Some(super::Answer::ok(refusal.into_response()))),
            Ok(incoming) => {
                // A client that completed the handshake hears of changes to the tool list,
                // as the stateful revisions have it.
                let initialized = matches!(
                    &incoming,
                    Incoming::Notification { method, .. } if method == "notifications/initialized"
                );
                // The handshake's subscriptions only: the stateless revision has none.
                let subscription = super::subscribes(&incoming);
                if initialized || subscription.is_some() {
                    let mut connection = lock(&self.connection);
                    let guard = connection
                        .get_or_insert_with(|| self.server.hear_changes(Arc::clone(notify)));
                    if let Some((uri, on)) = subscription {
                        guard.subscribe(&uri, on);
                    }
                }
                if let Some(level) = super::sets_level(&incoming) {
                    *lock(&self.log_level) = Some(level);
                }
                if let Some(capabilities) = super::declared_capabilities(&incoming) {
                    *lock(&self.capabilities) = Some(capabilities);
                }
                let peer = super::Peer {
                    client: "",
                    log_level: *lock(&self.log_level),
                    capabilities: lock(&self.capabilities).clone(),
                    auth: None,
                };
                self.server.begin_for(incoming, &peer, None)
            }
        };
        match step {
            Step::Answered(None) => Ok(()),
            Step::Answered(Some(answer)) => self.write_now(&answer.text),
            Step::Listen(listen) => {
                // On stdio every stream shares the one output; the subscription's id tells
                // them apart. It listens until cancelled or the input ends.
                let guard = self.server.listen(&listen, "", Arc::clone(notify));
                lock(&self.listening).push(guard);
                Ok(())
            }
            Step::Await(awaiting) => {
                let permit = self
                    .runtime
                    .block_on(Arc::clone(&self.limit).acquire_owned())
                    .map_err(io::Error::other)?;
                let (server, outbox) = (Arc::clone(&self.server), self.outbox.clone());
                self.runtime.spawn(async move {
                    let answer = server.finish_awaiting(awaiting).await;
                    outbox.answer(answer).await;
                    drop(permit);
                });
                Ok(())
            }
            Step::Call(pending) => {
                let permit = self
                    .runtime
                    .block_on(Arc::clone(&self.limit).acquire_owned())
                    .map_err(io::Error::other)?;
                let (server, outbox, notify) = (
                    Arc::clone(&self.server),
                    self.outbox.clone(),
                    Arc::clone(notify),
                );
                let here = pending.starts_at_once();
                let call = async move {
                    if let Some(answer) = server.finish(pending, Some(notify)).await {
                        outbox.answer(answer).await;
                    }
                    drop(permit);
                };
                if here {
                    start::start_here(&self.runtime, call);
                } else {
                    self.runtime.spawn(call);
                }
                Ok(())
            }
        }
    }
}

/// Reads one line into `line`: `None` at the end of input, `Some(false)` when the line is
/// longer than [`MAX_MESSAGE_BYTES`] (what was read of it is left in `line`, the rest is
/// skipped).
fn read_message(input: &mut impl BufRead, line: &mut Vec<u8>) -> io::Result<Option<bool>> {
    let limit = MAX_MESSAGE_BYTES as u64 + 1;
    if input.by_ref().take(limit).read_until(b'\n', line)? == 0 {
        return Ok(None);
    }
    if line.len() <= MAX_MESSAGE_BYTES || line.ends_with(b"\n") {
        return Ok(Some(true));
    }
    loop {
        let buffer = input.fill_buf()?;
        if buffer.is_empty() {
            break;
        }
        match buffer.iter().position(|&byte| byte == b'\n') {
            Some(end) => {
                input.consume(end + 1);
                break;
            }
            None => {
                let all = buffer.len();
                input.consume(all);
            }
        }
    }
    Ok(Some(false))
}

/// A lock whose holder panicked is still good: the data behind it is bytes or nothing.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
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
        let server = Arc::new(Server::new(crate::Registry::global()));
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
        let registry = crate::Registry::builder()
            .tool(
                crate::ToolDefinition::new("t.echo", schemars::json_schema!({ "type": "object" }))
                    .unwrap(),
                |arguments: crate::Arguments, _ctx: crate::ToolContext| async move {
                    tokio::task::yield_now().await;
                    Ok::<_, crate::ToolError>(Value::Object(arguments))
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

    fn tool(name: &str) -> crate::ToolDefinition {
        crate::ToolDefinition::new(name, schemars::json_schema!({ "type": "object" })).unwrap()
    }

    fn answer_empty(
        _: crate::Arguments,
        _: crate::ToolContext,
    ) -> std::future::Ready<Result<Value, crate::ToolError>> {
        std::future::ready(Ok(Value::Null))
    }

    impl Session {
        fn start() -> Self {
            let registry = crate::Registry::builder()
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
            let changed = self
                .server
                .change(|registry| {
                    if enabled {
                        registry.enable("t.one")
                    } else {
                        registry.disable("t.one")
                    }
                })
                .unwrap();
            assert!(changed);
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
            registry.register(asking, |_, ctx: crate::ToolContext| async move {
                let roots = ctx.roots("roots").await?;
                Ok::<_, crate::ToolError>(Value::from(roots.len()))
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
            answer["result"]["structuredContent"]["error_type"], "TimeoutError",
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
            session.send(
                r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t.needy"}}"#,
            );
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
            registry.register(tool("t.noisy"), |_, ctx: crate::ToolContext| async move {
                ctx.debug("d");
                ctx.warning("w");
                Ok::<_, crate::ToolError>(Value::Null)
            })
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
        session.send(
            r#"{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"debug"}}"#,
        );
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
        session.send(
            r#"{"jsonrpc":"2.0","id":5,"method":"logging/setLevel","params":{"level":"error"}}"#,
        );
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
            registry.register_prompt(mcp_core::PromptDefinition::new("p"), |_| async {
                Ok::<_, mcp_core::ToolError>(mcp_core::PromptResult::default())
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
        session.send(
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"L"}}"#,
        );
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
        let server = Arc::new(Server::new(crate::Registry::global()));
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
}
