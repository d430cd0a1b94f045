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

use super::link::{Inbound, Outbound};
use super::{ClientError, MAX_MESSAGE_BYTES};

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

    /// Spawns the server: the channel to its input, and the one from its output.
    pub(crate) fn spawn(
        &self,
    ) -> Result<(mpsc::Sender<Outbound>, mpsc::Receiver<Inbound>), ClientError> {
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
        tokio::spawn(async move {
            // What is waiting goes in one write: a pipelining client sends many at once.
            let mut batch = Vec::new();
            while let Some(message) = outgoing.recv().await {
                batch.clear();
                batch.extend_from_slice(message.text.as_bytes());
                batch.push(b'\n');
                while batch.len() < 64 * 1024 {
                    let Ok(more) = outgoing.try_recv() else { break };
                    batch.extend_from_slice(more.text.as_bytes());
                    batch.push(b'\n');
                }
                if stdin.write_all(&batch).await.is_err() || stdin.flush().await.is_err() {
                    break;
                }
            }
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
        Ok((outbox, inbox))
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
    let mut reader = BufReader::new(stdout);
    let mut line = Vec::new();
    let reading = async {
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
                    if !text.trim().is_empty()
                        && inbound.send(Inbound::Message(text)).await.is_err()
                    {
                        return None;
                    }
                }
                Err(err) => return Some(ClientError::Closed(format!("reading its output: {err}"))),
            }
        }
    };
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
    let _ = inbound
        .send(Inbound::End(ClientError::Closed(format!(
            "the server exited ({status}){said}"
        ))))
        .await;
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
