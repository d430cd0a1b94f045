//! Test tools through what a client really sees: a [`Client`] connected to a [`Server`] in
//! memory, over the same message loop as stdio, at any revision. No process, no socket.
//!
//! ```
//! use mcp_runtime::{Registry, mcp_tool, testing};
//! use mcp_runtime::server::Server;
//! use serde_json::json;
//!
//! /// Adds two numbers.
//! #[mcp_tool(namespace = "math")]
//! fn add(a: i64, b: i64) -> i64 {
//!     a + b
//! }
//!
//! # #[tokio::main(flavor = "multi_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let client = testing::connect(Server::new(Registry::global())).await?;
//! assert_eq!(client.server().protocol_version, "2026-07-28");
//! let result = client.call_tool("math.add", json!({ "a": 2, "b": 3 })).await?;
//! assert_eq!(result.data().unwrap()["result"], 5);
//! # Ok(()) }
//! ```
//!
//! A tool marked `requires_sandbox` runs as it does in a served session: each call in a
//! worker, isolated by its policy. The worker is the test program itself, run again, and on
//! Linux the runtime serves it as the program loads, before the test harness starts, so a
//! `#[test]` needs nothing for it (see [`sandbox`](crate::sandbox)). Where the machine
//! cannot isolate a tool, the call fails, naming what is missing and how to let the tool run
//! unsandboxed in code ([`Sandboxing::allow_unsandboxed`](crate::sandbox::Sandboxing::allow_unsandboxed)).

use std::collections::VecDeque;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::sync::{Arc, Condvar, Mutex, PoisonError};

use tokio::sync::mpsc;

use crate::client::{Client, ClientBuilder, ClientError, Inbound, Outbound, Outlet, Streams};
use crate::server::Server;

/// A client connected in memory to `server`, with the default options.
pub async fn connect(server: impl Into<Arc<Server>>) -> Result<Client, ClientError> {
    Client::builder().in_memory(server).await
}

impl ClientBuilder {
    /// Connects to `server` in memory: the server runs its stdio message loop on this
    /// runtime, as a task, until the client is dropped.
    pub async fn in_memory(self, server: impl Into<Arc<Server>>) -> Result<Client, ClientError> {
        let server = server.into();
        let (to_server, server_input) = pipe();
        let (server_output, from_server) = pipe();
        tokio::spawn(async move {
            if let Err(err) = crate::server::stdio::serve(
                server,
                server_input,
                server_output,
                std::future::pending(),
            )
            .await
            {
                tracing::warn!(error = %err, "the in-memory server stopped");
            }
        });
        let (outbox, mut outgoing) = mpsc::channel::<Outbound>(64);
        let (inbound, inbox) = mpsc::channel(64);
        tokio::spawn(async move {
            let mut to_server = to_server;
            while let Some(message) = outgoing.recv().await {
                let mut line = message.text.into_bytes();
                line.push(b'\n');
                if to_server.write_all(&line).is_err() {
                    break;
                }
            }
            // Dropped: the server reads the end of its input.
        });
        std::thread::Builder::new()
            .name("mcp-testing-reader".to_owned())
            .spawn(move || {
                for line in BufReader::new(from_server).lines() {
                    let Ok(line) = line else { break };
                    if !line.trim().is_empty()
                        && inbound.blocking_send(Inbound::Message(line)).is_err()
                    {
                        return;
                    }
                }
                let _ = inbound.blocking_send(Inbound::End(ClientError::closed(
                    "the in-memory server stopped",
                )));
            })
            .map_err(|err| ClientError::Connect(err.to_string()))?;
        self.connect(Outlet::channel(outbox), inbox, Streams::Shared)
            .await
    }
}

/// A pipe in memory: what is written is read in order; the reader sees the end once the
/// writer is dropped.
fn pipe() -> (PipeWriter, PipeReader) {
    let shared = Arc::new(Shared::default());
    (PipeWriter(Arc::clone(&shared)), PipeReader(shared))
}

#[derive(Default)]
struct Shared {
    state: Mutex<(VecDeque<u8>, bool)>,
    ready: Condvar,
}

struct PipeWriter(Arc<Shared>);
struct PipeReader(Arc<Shared>);

impl Write for PipeWriter {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let mut state = self.0.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.0.extend(bytes);
        self.0.ready.notify_all();
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Drop for PipeWriter {
    fn drop(&mut self) {
        let mut state = self.0.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.1 = true;
        self.0.ready.notify_all();
    }
}

impl Read for PipeReader {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        let mut state = self.0.state.lock().unwrap_or_else(PoisonError::into_inner);
        while state.0.is_empty() && !state.1 {
            state = self
                .0
                .ready
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
        let count = buffer.len().min(state.0.len());
        for (slot, byte) in buffer.iter_mut().zip(state.0.drain(..count)) {
            *slot = byte;
        }
        Ok(count)
    }
}
