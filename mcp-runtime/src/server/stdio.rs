//! The stdio transport: newline-delimited JSON-RPC messages on standard input and output.
//!
//! Standard output carries protocol messages only, each written whole by one writer task;
//! logs belong on standard error. Requests run concurrently and may be answered out of
//! order; at most [`MAX_IN_FLIGHT`] run at once, and reading pauses while that many do, so
//! a client that floods the server is slowed, not buffered without bound. At end of input
//! the calls in flight are answered before the server returns.

use std::io;
use std::sync::Arc;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::{Semaphore, mpsc};
use tokio::task::JoinSet;

use super::{Notifier, Server};

/// The most requests handled at once.
pub const MAX_IN_FLIGHT: usize = 256;

/// Serves `server` on this process's standard input and output until input ends or the
/// process is asked to stop (SIGTERM, Ctrl-C); either way, the calls in flight are answered
/// (each within its timeout) before it returns.
pub async fn serve_stdio(server: Arc<Server>) -> io::Result<()> {
    serve(
        server,
        tokio::io::stdin(),
        tokio::io::stdout(),
        super::stop_signal(),
    )
    .await
}

/// Serves `server` on `input` and `output` until input ends or `stop` resolves.
pub(crate) async fn serve<R, W>(
    server: Arc<Server>,
    input: R,
    mut output: W,
    stop: impl std::future::Future<Output = ()>,
) -> io::Result<()>
where
    R: tokio::io::AsyncRead + Unpin,
    W: tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let (sender, mut outbox) = mpsc::channel::<String>(MAX_IN_FLIGHT);
    let writer = tokio::spawn(async move {
        while let Some(message) = outbox.recv().await {
            output.write_all(message.as_bytes()).await?;
            output.write_all(b"\n").await?;
            output.flush().await?;
        }
        Ok::<_, io::Error>(())
    });
    let notify: Notifier = {
        let sender = sender.clone();
        Arc::new(move |message| {
            // A full outbox drops a progress report rather than stall the tool.
            let _ = sender.try_send(message);
        })
    };
    let limit = Arc::new(Semaphore::new(MAX_IN_FLIGHT));
    let mut calls = JoinSet::new();
    let mut input = BufReader::new(input);
    let mut line = Vec::new();
    tokio::pin!(stop);
    loop {
        line.clear();
        let read = tokio::select! {
            read = input.read_until(b'\n', &mut line) => read?,
            // Asked to stop: read no more, answer what is in flight.
            () = &mut stop => break,
        };
        if read == 0 {
            break;
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let permit = Arc::clone(&limit)
            .acquire_owned()
            .await
            .map_err(io::Error::other)?;
        let (server, sender, notify, message) = (
            Arc::clone(&server),
            sender.clone(),
            Arc::clone(&notify),
            std::mem::take(&mut line),
        );
        calls.spawn(async move {
            if let Some(answer) = server.handle(&message, Some(notify)).await {
                let _ = sender.send(answer).await;
            }
            drop(permit);
        });
        // Reap finished calls as we go, so the set does not grow with the session.
        while calls.try_join_next().is_some() {}
    }
    while calls.join_next().await.is_some() {}
    drop(notify);
    drop(sender);
    writer.await.map_err(io::Error::other)?
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

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
        let (client, server_end) = tokio::io::duplex(1 << 16);
        let server = Arc::new(Server::new(crate::Registry::global()));
        serve(server, input.as_bytes(), server_end, std::future::pending())
            .await
            .unwrap();
        let mut output = String::new();
        tokio::io::AsyncReadExt::read_to_string(&mut { client }, &mut output)
            .await
            .unwrap();
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
