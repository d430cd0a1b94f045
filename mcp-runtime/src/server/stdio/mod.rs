//! The stdio transport: newline-delimited JSON-RPC messages on standard input and output.
//!
//! Standard output carries protocol messages only; logs belong on standard error. One
//! thread reads the input and answers at once what needs no waiting (the handshake,
//! listings, and calls to inline tools), so a quick call costs one read and one write, as
//! in a hand-written loop; answers to a run of requests already read are written together.
//! Other calls run concurrently on the Tokio runtime and are answered out of order,
//! through a writer thread. At most [`MAX_IN_FLIGHT`] run at once (or as many as
//! [`Server::with_max_in_flight_per_connection`] says), within the server's own bound; one
//! more is refused at once with [`BUSY`](super::BUSY), while reading goes on, so that a
//! cancellation still reaches the calls in flight. A client that stops reading stalls the
//! writes and then the reading, so nothing is buffered without bound. At end of input the
//! calls in flight are answered before the server returns.

use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use mcp_runtime_core::LoggingLevel;
use mcp_runtime_core::method::Method;
use tokio::runtime::Handle;
use tokio::sync::{mpsc, oneshot};

mod output;
mod start;

use output::{Outbox, Outgoing, Output, write_loop};

use super::admission::Places;
use super::jsonrpc::{Id, Incoming};
use super::listen::ListenGuard;
use super::{Notifier, Server, Step, observe};
use crate::telemetry::Transport;

/// The most requests one connection has in flight at once, unless
/// [`Server::with_max_in_flight_per_connection`] says otherwise.
pub const MAX_IN_FLIGHT: usize = super::DEFAULT_MAX_IN_FLIGHT_PER_CONNECTION;

pub use mcp_runtime_core::wire::MAX_MESSAGE_BYTES;

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
    let places = server.connection_places();
    let (sender, outgoing) = mpsc::channel::<Outgoing>(places.limit());
    let outbox = Outbox::new(Arc::clone(&output), sender.clone());
    let notify: Notifier = {
        let outbox = outbox.clone();
        // A full outbox drops a notification rather than stall the tool or the change that
        // sent it; the connection then hears of every change once the writer caught up.
        Arc::new(move |message| outbox.notify(message))
    };
    let writer = std::thread::Builder::new()
        .name("mcp-stdio-writer".to_owned())
        .spawn({
            let (output, queued, behind) = (Arc::clone(&output), outbox.queued(), outbox.behind());
            let (server, notify) = (Arc::clone(&server), Arc::clone(&notify));
            move || {
                write_loop(outgoing, &output, (&queued, &behind), &|| {
                    server.resync(&notify)
                })
            }
        })?;
    let reading = Reading {
        server,
        runtime: Handle::current(),
        output: Arc::clone(&output),
        outbox,
        notify,
        places: places.clone(),
        stopping: Arc::new(AtomicBool::new(false)),
        busy: Arc::new(Mutex::new(())),
        listening: Mutex::new(Vec::new()),
        connection: Mutex::new(None),
        log_level: Mutex::new(None),
        capabilities: Mutex::new(None),
        negotiated: Mutex::new(None),
    };
    let (stopping, busy) = (Arc::clone(&reading.stopping), Arc::clone(&reading.busy));
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
    places.all_free().await;
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
    /// Where the connection's notifications go: through the outbox.
    notify: Notifier,
    /// The connection's places among the requests in flight.
    places: Places,
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
    /// The revision the connection's `initialize` settled on, which telemetry reports.
    negotiated: Mutex<Option<&'static str>>,
}

impl<W: Write + Send + 'static> Reading<W> {
    fn read_loop(self, input: impl Read) -> io::Result<()> {
        // Tools that run inline may look for the runtime, as they would on a worker.
        let _runtime = self.runtime.enter();
        let notify = Arc::clone(&self.notify);
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

    /// A place among the requests in flight, on the connection and on the server; when
    /// either is full, the request `id` is answered with the refusal, and `None` returned.
    fn admit(
        &self,
        id: &Id,
        operation: Option<crate::telemetry::ServerOperation>,
    ) -> io::Result<
        Option<(
            super::admission::Admitted,
            Option<crate::telemetry::ServerOperation>,
        )>,
    > {
        match self.server.admit(Some(&self.places)) {
            Ok(admitted) => Ok(Some((admitted, operation))),
            Err(busy) => {
                let answer = super::Answer::ok(super::fault_response(id, busy.fault()));
                observe::answered(operation, &answer);
                self.write_now(&answer.text)?;
                Ok(None)
            }
        }
    }

    /// What the connection keeps of a message of the handshake's revisions (the end of the
    /// handshake, a subscription, the log level, the capabilities declared), and who it
    /// comes from, as the server is to see it.
    fn remember(&self, incoming: &Incoming, notify: &Notifier) -> super::Peer<'static> {
        // A client that completed the handshake hears of changes to the tool list,
        // as the stateful revisions have it.
        let initialized = matches!(
            incoming,
            Incoming::Notification {
                method: Method::Initialized,
                ..
            }
        );
        // The handshake's subscriptions only: the stateless revision has none.
        let subscription = super::subscribes(incoming);
        if initialized || subscription.is_some() {
            let mut connection = lock(&self.connection);
            let guard =
                connection.get_or_insert_with(|| self.server.hear_changes(Arc::clone(notify)));
            if let Some((uri, on)) = subscription {
                guard.subscribe(&uri, on);
            }
        }
        if let Some(level) = super::sets_level(incoming) {
            *lock(&self.log_level) = Some(level);
        }
        if let Some(version) = observe::negotiated(incoming) {
            *lock(&self.negotiated) = Some(version);
        }
        if let Some(capabilities) = super::declared_capabilities(incoming) {
            *lock(&self.capabilities) = Some(capabilities);
        }
        super::Peer {
            client: "",
            session: None,
            log_level: *lock(&self.log_level),
            capabilities: lock(&self.capabilities).clone(),
            auth: None,
            hide_unauthorized: false,
        }
    }

    fn handle(&self, message: &[u8], notify: &Notifier) -> io::Result<()> {
        let (step, operation) = match super::parse(message) {
            Err(refusal) => (
                Step::Answered(Some(super::Answer::ok(refusal.into_response()))),
                None,
            ),
            Ok(incoming) => {
                let peer = self.remember(&incoming, notify);
                let negotiated = crate::telemetry::enabled()
                    .then(|| *lock(&self.negotiated))
                    .flatten();
                let operation = observe::begin(&incoming, Transport::Pipe, None, None, negotiated);
                (self.server.begin_for(incoming, &peer, None), operation)
            }
        };
        match step {
            Step::Answered(None) => {
                observe::end(operation, None);
                Ok(())
            }
            Step::Answered(Some(answer)) => {
                observe::answered(operation, &answer);
                self.write_now(&answer.text)
            }
            Step::Listen(listen) => {
                // On stdio every stream shares the one output; the subscription's id tells
                // them apart. It listens until cancelled or the input ends.
                let guard = self.server.listen(&listen, "", Arc::clone(notify));
                lock(&self.listening).push(guard);
                observe::succeeded(operation);
                Ok(())
            }
            Step::Await(awaiting) => {
                let Some((permit, operation)) = self.admit(&awaiting.id, operation)? else {
                    return Ok(());
                };
                let (server, outbox) = (Arc::clone(&self.server), self.outbox.clone());
                self.runtime.spawn(async move {
                    let answer =
                        observe::scoped(&operation, server.finish_awaiting(awaiting)).await;
                    observe::end(operation, Some(&answer));
                    outbox.answer(answer).await;
                    drop(permit);
                });
                Ok(())
            }
            Step::Call(pending) => {
                let Some((permit, operation)) = self.admit(&pending.id, operation)? else {
                    return Ok(());
                };
                let (server, outbox, notify) = (
                    Arc::clone(&self.server),
                    self.outbox.clone(),
                    Arc::clone(notify),
                );
                let here = pending.starts_at_once();
                let call = async move {
                    let answer =
                        observe::scoped(&operation, server.finish(pending, Some(notify))).await;
                    observe::end(operation, answer.as_deref());
                    if let Some(answer) = answer {
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
mod tests;
