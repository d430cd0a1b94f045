//! Calls through `mcp_runtime::client` instead of the driver's own hand-written client:
//! what the client costs, measured against the driver's rate on the same server.

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use mcp_runtime::client::{Client, StdioServer};
use serde_json::{Value, json};

use super::report::Report;
use super::stats;

/// What a run measured.
pub(crate) struct ClientReport {
    pub(crate) n: u64,
    pub(crate) window: u64,
    pub(crate) seconds: f64,
    pub(crate) p50_us: f64,
    pub(crate) wrong: u64,
}

impl Report for ClientReport {
    fn line(&self) -> String {
        format!(
            "client: {} calls, window {}: {:.0} calls/s, p50 {:.1} µs, {} wrong",
            self.n,
            self.window,
            self.n as f64 / self.seconds,
            self.p50_us,
            self.wrong
        )
    }

    fn json(&self) -> Value {
        json!({
            "n": self.n,
            "window": self.window,
            "calls_per_sec": self.n as f64 / self.seconds,
            "p50_us": self.p50_us,
            "wrong": self.wrong,
        })
    }

    fn wrong(&self) -> u64 {
        self.wrong
    }
}

/// Spawns `command`, connects with the handshake (as the driver does), warms up, then
/// makes `n` calls of `tool` (`{a, b}` → `{"sum": a + b}`), `window` at a time.
pub(crate) fn run(
    command: &[String],
    n: u64,
    warmup: u64,
    window: u64,
    tool: &str,
) -> std::io::Result<ClientReport> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let (program, args) = command
            .split_first()
            .ok_or_else(|| std::io::Error::other("no server command"))?;
        let client = Client::builder()
            .handshake_only()
            .timeout(Duration::from_secs(60))
            .stdio(StdioServer::new(program.clone()).args(args.iter().cloned()))
            .await
            .map_err(std::io::Error::other)?;
        let call = |i: u64| {
            let client = &client;
            async move {
                let started = Instant::now();
                let result = client.call_tool(tool, json!({ "a": i, "b": 1 })).await.ok();
                let right = result
                    .and_then(|result| result.data().and_then(|data| data.get("sum")).cloned())
                    == Some(json!(i + 1));
                (started.elapsed(), right)
            }
        };
        futures_util::stream::iter(0..warmup)
            .map(call)
            .buffer_unordered(window as usize)
            .collect::<Vec<_>>()
            .await;
        let started = Instant::now();
        let answers: Vec<(Duration, bool)> = futures_util::stream::iter(0..n)
            .map(call)
            .buffer_unordered(window as usize)
            .collect()
            .await;
        let seconds = started.elapsed().as_secs_f64();
        let mut latencies: Vec<u64> = answers
            .iter()
            .map(|(took, _)| u64::try_from(took.as_nanos()).unwrap_or(u64::MAX))
            .collect();
        let wrong = answers.iter().filter(|(_, right)| !right).count() as u64;
        Ok(ClientReport {
            n,
            window,
            seconds,
            p50_us: stats::Latency::of(&mut latencies).map_or(f64::NAN, |latency| latency.p50_us),
            wrong,
        })
    })
}
