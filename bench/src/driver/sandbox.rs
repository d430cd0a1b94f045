//! What the sandbox costs a call: `bench.add` run in process, against the same sum in a
//! sandboxed tool (`bench.add_sandboxed`) whose worker waits ready (warm) or is started
//! for the call (cold), one call at a time, in the same run, rounds interleaved.

use std::io;
use std::time::Duration;

use serde_json::json;

use super::proto::CallTemplate;
use super::report::Report;
use super::stats::{self, Latency};
use super::stdio::ServerProcess;

/// How the three are measured.
pub(crate) struct SandboxOptions {
    /// Calls timed per mode and round.
    pub(crate) calls: u64,
    /// Rounds, each of the three modes in turn.
    pub(crate) rounds: usize,
    /// The pause after each call, untimed: a waiting worker is started again in it.
    pub(crate) pause: Duration,
}

/// The ways a call runs.
const MODES: [(&str, &str, &str); 3] = [
    ("inline", "bench.add", "1"),
    ("warm", "bench.add_sandboxed", "1"),
    ("cold", "bench.add_sandboxed", "0"),
];

/// Each mode's latencies, in nanoseconds, over every round.
pub(crate) struct SandboxReport {
    latencies: Vec<(&'static str, Vec<u64>)>,
    wrong: u64,
}

/// Runs the three modes against `server` (the program and arguments before `serve`).
pub(crate) fn run(server: &[String], options: &SandboxOptions) -> io::Result<SandboxReport> {
    let mut report = SandboxReport {
        latencies: MODES.iter().map(|(mode, ..)| (*mode, Vec::new())).collect(),
        wrong: 0,
    };
    for _ in 0..options.rounds {
        for (index, (_, tool, warm)) in MODES.iter().enumerate() {
            let mut command = server.to_vec();
            command
                .extend(["serve", "--stdio", "--quiet", "--sandbox-warm", warm].map(str::to_owned));
            let mut process = ServerProcess::spawn(&command, Duration::from_secs(600))?;
            process.handshake()?;
            let template = CallTemplate::new(tool);
            // Untimed: the first call starts the first waiting worker.
            for _ in 0..3 {
                let (_, tally) = process.calls_one_at_a_time(&template, 1)?;
                report.wrong += 1 - tally.ok.min(1);
                std::thread::sleep(options.pause);
            }
            for _ in 0..options.calls {
                let (latency, tally) = process.calls_one_at_a_time(&template, 1)?;
                report.wrong += 1 - tally.ok.min(1);
                report.latencies[index].1.extend(latency);
                std::thread::sleep(options.pause);
            }
            let _ = process.close(Duration::from_secs(5));
        }
    }
    Ok(report)
}

impl SandboxReport {
    fn of(&self, mode: &str) -> Option<Latency> {
        let mut samples = self
            .latencies
            .iter()
            .find(|(name, _)| *name == mode)?
            .1
            .clone();
        Latency::of(&mut samples)
    }
}

impl Report for SandboxReport {
    fn line(&self) -> String {
        let inline = self.of("inline");
        let mut line = String::from("sandbox");
        for (mode, ..) in MODES {
            if let Some(latency) = self.of(mode) {
                line.push_str(&format!(
                    " {mode}: p50={:.1}us p99={:.1}us",
                    latency.p50_us, latency.p99_us
                ));
                if let (Some(inline), true) = (inline, mode != "inline") {
                    line.push_str(&format!(
                        " (+{:.1}us p50, +{:.1}us p99)",
                        latency.p50_us - inline.p50_us,
                        latency.p99_us - inline.p99_us
                    ));
                }
                line.push(';');
            }
        }
        line.push_str(&format!(" errors={}", self.wrong));
        line
    }

    fn json(&self) -> serde_json::Value {
        let inline = self.of("inline");
        let mut object = serde_json::Map::new();
        for (mode, ..) in MODES {
            if let Some(latency) = self.of(mode) {
                let overhead = inline.map(|inline| {
                    json!({
                        "p50_us": latency.p50_us - inline.p50_us,
                        "p99_us": latency.p99_us - inline.p99_us,
                    })
                });
                object.insert(
                    mode.to_owned(),
                    json!({
                        "p50_us": stats::json_number(Some(latency.p50_us)),
                        "p99_us": stats::json_number(Some(latency.p99_us)),
                        "overhead": overhead,
                    }),
                );
            }
        }
        object.insert("errors".to_owned(), json!(self.wrong));
        serde_json::Value::Object(object)
    }

    fn wrong(&self) -> u64 {
        self.wrong
    }
}
