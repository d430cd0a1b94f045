//! A server spawned as a child process, spoken to over its standard input and output: one
//! JSON-RPC message a line. Its standard error goes to `tracing`, and its last lines say
//! why, when it exits in the middle of the conversation.

use std::collections::{BTreeMap, VecDeque};
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use super::ClientError;
use super::link::{Direct, Inbound, Outbound, Outlet};
use mcp_runtime_core::wire::MAX_MESSAGE_BYTES;

/// How long a server may take to exit once its input is closed, before it is killed.
const EXIT_GRACE: Duration = Duration::from_secs(5);

/// The lines of standard error kept, to say why a server ended.
const LAST_WORDS: usize = 5;

/// A server to spawn: a command, its arguments, environment and working directory.
///
/// ```
/// use mcp_runtime::client::StdioServer;
///
/// let server = StdioServer::new("python3")
///     .args(["-m", "my_server"])
///     .env("LOG_LEVEL", "debug");
/// assert_eq!(server.program(), "python3");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StdioServer {
    program: String,
    args: Vec<String>,
    env: BTreeMap<String, String>,
    cwd: Option<PathBuf>,
}

impl StdioServer {
    /// The server `program`, found on `PATH` unless it is a path.
    pub fn new(program: impl Into<String>) -> Self {
        Self {
            program: program.into(),
            args: Vec::new(),
            env: BTreeMap::new(),
            cwd: None,
        }
    }

    /// Adds arguments.
    #[must_use]
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Sets an environment variable, besides those this process has.
    #[must_use]
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.insert(key.into(), value.into());
        self
    }

    /// Runs the server in `dir`.
    #[must_use]
    pub fn current_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.cwd = Some(dir.into());
        self
    }

    /// The program.
    pub fn program(&self) -> &str {
        &self.program
    }

    /// Spawns the server: the way to its input, and the channel from its output.
    pub(crate) fn spawn(&self) -> Result<(Outlet, mpsc::Receiver<Inbound>), ClientError> {
        let mut command = Command::new(&self.program);
        command
            .args(&self.args)
            .envs(&self.env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        if let Some(dir) = &self.cwd {
            command.current_dir(dir);
        }
        let mut child = command.spawn().map_err(|err| {
            ClientError::Connect(format!("could not start `{}`: {err}", self.program))
        })?;
        let (Some(mut stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(ClientError::Connect(
                "the server's pipes were not opened".to_owned(),
            ));
        };
        let name = self.program.clone();
        let last_words = Arc::new(Mutex::new(VecDeque::with_capacity(LAST_WORDS)));
        let stderr_read = tokio::spawn(log_stderr(stderr, name.clone(), Arc::clone(&last_words)));

        let (outbox, mut outgoing) = mpsc::channel::<Outbound>(64);
        let (inbound, inbox) = mpsc::channel::<Inbound>(64);
        let (input_closed, closed) = oneshot::channel::<()>();
        #[cfg(unix)]
        let input = Input::new(std::os::fd::AsFd::as_fd(&stdin).try_clone_to_owned().ok());
        #[cfg(not(unix))]
        let input = Input::new();
        let input = Arc::new(input);
        let writer_input = Arc::clone(&input);
        tokio::spawn(async move {
            // What is waiting goes in one write: a pipelining client sends many at once.
            let mut batch = Vec::new();
            while let Some(message) = outgoing.recv().await {
                batch.clear();
                batch.extend_from_slice(message.text.as_bytes());
                batch.push(b'\n');
                let mut count = 1;
                while batch.len() < 64 * 1024 {
                    let Ok(more) = outgoing.try_recv() else { break };
                    batch.extend_from_slice(more.text.as_bytes());
                    batch.push(b'\n');
                    count += 1;
                }
                if stdin.write_all(&batch).await.is_err() || stdin.flush().await.is_err() {
                    break;
                }
                writer_input.written(count);
            }
            writer_input.close();
            drop(stdin);
            let _ = input_closed.send(());
        });
        tokio::spawn(read_stdout(
            child,
            stdout,
            inbound,
            closed,
            (stderr_read, last_words),
        ));
        Ok((Outlet::pipe(outbox, input), inbox))
    }
}

/// The largest write a pipe takes whole or not at all (POSIX's `PIPE_BUF`; Linux's is 4096).
#[cfg(unix)]
const PIPE_BUF: usize = if cfg!(target_os = "linux") { 4096 } else { 512 };

/// The server's standard input, as its writer task and the link's senders share it. A
/// message is written at once by whoever sends it when nothing queued for the writer task
/// is still unwritten (so it overtakes nothing) and the pipe takes it whole without
/// waiting; a quick request then costs no wake-up of the writer. Otherwise it is queued.
pub(crate) struct Input {
    state: Mutex<InputState>,
}

struct InputState {
    /// Messages counted as queued for the writer task and not yet written.
    queued: usize,
    /// A second handle on the pipe, while the writer task has it open: it shares the
    /// first's non-blocking mode, so a full pipe refuses rather than waits.
    #[cfg(unix)]
    pipe: Option<std::os::fd::OwnedFd>,
}

impl Input {
    /// The way into a server's input, `pipe` a second handle on it.
    #[cfg(unix)]
    fn new(pipe: Option<std::os::fd::OwnedFd>) -> Self {
        Self {
            state: Mutex::new(InputState { queued: 0, pipe }),
        }
    }

    /// The way into a server's input, all of it through the writer task.
    #[cfg(not(unix))]
    fn new() -> Self {
        Self {
            state: Mutex::new(InputState { queued: 0 }),
        }
    }

    /// The writer task wrote `count` queued messages.
    fn written(&self, count: usize) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.queued = state.queued.saturating_sub(count);
    }

    /// The writer task closed the pipe: nothing more is written at once, and the server
    /// sees its input end.
    fn close(&self) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        #[cfg(unix)]
        {
            state.pipe = None;
        }
    }
}

impl Direct for Input {
    /// Writes `text` and its line end now, if nothing queued is unwritten and the pipe
    /// takes it whole without waiting: `true`. Otherwise it counts one more message queued,
    /// for the sender to queue, and says `false`.
    fn write_now(&self, text: &str) -> bool {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        #[cfg(unix)]
        if state.queued == 0 && text.len() < PIPE_BUF {
            if let Some(pipe) = &state.pipe {
                let line = [
                    std::io::IoSlice::new(text.as_bytes()),
                    std::io::IoSlice::new(b"\n"),
                ];
                // A pipe write of at most `PIPE_BUF` bytes is whole or refused (`EAGAIN`
                // when full); a failure is the writer task's to meet and report.
                match rustix::io::writev(pipe, &line) {
                    Ok(0) | Err(_) => {}
                    Ok(n) if n == text.len() + 1 => return true,
                    Ok(n) => {
                        finish_line(pipe, text, n);
                        return true;
                    }
                }
            }
        }
        #[cfg(not(unix))]
        let _ = text;
        state.queued += 1;
        false
    }

    /// A message counted by [`Direct::write_now`] was not queued after all.
    fn unqueue(&self) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.queued = state.queued.saturating_sub(1);
    }
}

/// Writes the rest of a line the pipe took only `written` bytes of. POSIX has a pipe take a
/// write of at most `PIPE_BUF` bytes whole, so this is not expected; were it to happen, the
/// line is finished before any other, so no message is cut or mixed with another.
#[cfg(unix)]
fn finish_line(pipe: &std::os::fd::OwnedFd, text: &str, written: usize) {
    let mut line = Vec::with_capacity(text.len() + 1);
    line.extend_from_slice(text.as_bytes());
    line.push(b'\n');
    let mut at = written;
    while at < line.len() {
        match rustix::io::write(pipe, &line[at..]) {
            Ok(n) => at += n,
            Err(rustix::io::Errno::AGAIN | rustix::io::Errno::INTR) => std::thread::yield_now(),
            // The pipe is broken: the writer task meets the same failure and ends the link.
            Err(_) => return,
        }
    }
}

/// Reads the server's messages until its output ends, then says why it ended. Once its input
/// is closed (the client is gone), the server has [`EXIT_GRACE`] to exit before it is killed.
async fn read_stdout(
    mut child: Child,
    stdout: impl AsyncRead + Unpin,
    inbound: mpsc::Sender<Inbound>,
    closed: oneshot::Receiver<()>,
    (stderr_read, last_words): (JoinHandle<()>, Arc<Mutex<VecDeque<String>>>),
) {
    let reading = read_messages(stdout, &inbound);
    tokio::pin!(reading);
    let failure = tokio::select! {
        failure = &mut reading => failure,
        _ = closed => {
            // The client is gone: the server may still be answering; give it time to exit.
            tokio::select! {
                failure = &mut reading => failure,
                () = tokio::time::sleep(EXIT_GRACE) => {
                    let _ = child.start_kill();
                    None
                }
            }
        }
    };
    if let Some(failure) = failure {
        // The stream can no longer be read as messages: say so at once, and stop the server.
        let _ = inbound.send(Inbound::End(failure)).await;
        let _ = child.start_kill();
        let _ = child.wait().await;
        return;
    }
    let ended = exited(child, stderr_read, &last_words).await;
    let _ = inbound.send(Inbound::End(ended)).await;
}

/// Hands each line of the server's output to the link as a message, until the output ends
/// or the link is gone (`None`), or until the output cannot be read as messages: why.
async fn read_messages(
    stdout: impl AsyncRead + Unpin,
    inbound: &mpsc::Sender<Inbound>,
) -> Option<ClientError> {
    let mut reader = BufReader::new(stdout);
    let mut line = Vec::new();
    loop {
        line.clear();
        let read = (&mut reader)
            .take(MAX_MESSAGE_BYTES as u64 + 1)
            .read_until(b'\n', &mut line)
            .await;
        match read {
            Ok(0) => return None,
            Ok(_) if line.len() > MAX_MESSAGE_BYTES => {
                return Some(ClientError::Malformed(format!(
                    "a message over {MAX_MESSAGE_BYTES} bytes"
                )));
            }
            Ok(_) => {
                // Copied at its size: the buffer, grown to the longest line so far, is
                // kept for the next.
                let text = String::from_utf8_lossy(&line).into_owned();
                if !text.trim().is_empty() && inbound.send(Inbound::Message(text)).await.is_err() {
                    return None;
                }
            }
            Err(err) => return Some(ClientError::Closed(format!("reading its output: {err}"))),
        }
    }
}

/// Why the connection ended, once the server's output closed: its exit status (killed if
/// it does not exit in time), and its last words on standard error.
async fn exited(
    mut child: Child,
    stderr_read: JoinHandle<()>,
    last_words: &Mutex<VecDeque<String>>,
) -> ClientError {
    let status = match tokio::time::timeout(EXIT_GRACE, child.wait()).await {
        Ok(Ok(status)) => status.to_string(),
        _ => {
            let _ = child.start_kill();
            "its output closed; killed".to_owned()
        }
    };
    // Its standard error ends with it: read to the end, its last words are all there.
    let _ = tokio::time::timeout(Duration::from_secs(1), stderr_read).await;
    let words: Vec<String> = last_words
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .iter()
        .cloned()
        .collect();
    let said = if words.is_empty() {
        String::new()
    } else {
        format!("; its last words on standard error: {}", words.join(" | "))
    };
    ClientError::Closed(format!("the server exited ({status}){said}"))
}

/// The server's standard error, a `tracing` event a line; the last few kept.
async fn log_stderr(
    stderr: impl AsyncRead + Unpin,
    server: String,
    last_words: Arc<Mutex<VecDeque<String>>>,
) {
    let mut lines = BufReader::new(stderr).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        tracing::info!(target: "mcp_runtime::client::stderr", %server, "{line}");
        let mut kept = last_words.lock().unwrap_or_else(PoisonError::into_inner);
        if kept.len() == LAST_WORDS {
            kept.pop_front();
        }
        kept.push_back(line);
    }
}

#[cfg(all(test, unix))]
mod tests {
    use std::io::Read;

    use super::*;

    /// A pipe whose writing end refuses rather than waits, as a child's input is here.
    fn pipe() -> (std::fs::File, Input) {
        let (reader, writer) = rustix::pipe::pipe().unwrap();
        rustix::io::ioctl_fionbio(&writer, true).unwrap();
        (reader.into(), Input::new(Some(writer)))
    }

    fn drain(reader: &mut std::fs::File, bytes: usize) -> Vec<u8> {
        let mut read = vec![0; bytes];
        reader.read_exact(&mut read).unwrap();
        read
    }

    #[test]
    fn a_message_is_written_at_once_only_when_it_overtakes_nothing_and_fits_whole() {
        let (mut reader, input) = pipe();
        assert!(input.write_now("first"), "an empty pipe takes it");
        assert_eq!(drain(&mut reader, 6), b"first\n");

        // Too long for one whole write: queued, and whatever comes next queues behind it.
        let long = "x".repeat(PIPE_BUF);
        assert!(!input.write_now(&long));
        assert!(!input.write_now("second"), "it would overtake the long one");
        // The writer task writes both; only then are messages written at once again.
        input.written(1);
        assert!(!input.write_now("third"), "the second is still queued");
        input.written(2);
        assert!(input.write_now("fourth"));
        assert_eq!(drain(&mut reader, 7), b"fourth\n");

        // A full pipe refuses, whole: nothing of the message is written, and it is queued.
        let line = "y".repeat(999);
        let mut taken = 0;
        while input.write_now(&line) {
            taken += 1;
        }
        input.written(1);
        let mut read = Vec::new();
        for _ in 0..taken {
            read.extend(drain(&mut reader, 1000));
        }
        assert!(read.chunks(1000).all(|chunk| chunk.ends_with(b"y\n")));
        // Room again, nothing queued: at once.
        assert!(input.write_now("fifth"));
        assert_eq!(drain(&mut reader, 6), b"fifth\n");

        // Counted as queued and then not sent: the count comes back.
        assert!(!input.write_now(&long));
        input.unqueue();
        assert!(input.write_now("sixth"));
        assert_eq!(drain(&mut reader, 6), b"sixth\n");

        // Closed by the writer task: nothing more at once, and the reader sees the end.
        input.close();
        assert!(!input.write_now("seventh"));
        let mut rest = Vec::new();
        reader.read_to_end(&mut rest).unwrap();
        assert!(rest.is_empty(), "{rest:?}");
    }
}
