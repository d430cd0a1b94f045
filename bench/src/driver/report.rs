//! What a measuring subcommand prints, one line or one JSON object, and whether every
//! answer was right; and the summary of a timed run of calls, over stdio or HTTP.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::proto::Tally;
use super::stats::{self, CpuSnapshot, CpuUse, Latency};

/// What a measuring subcommand found.
pub(crate) trait Report {
    /// The one-line summary.
    fn line(&self) -> String;

    /// The same as one JSON object.
    fn json(&self) -> Value;

    /// Wrong or missing answers: the run failed unless there are none.
    fn wrong(&self) -> u64;
}

/// How the answers to a run's calls came out.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Answers {
    /// Right answers.
    pub(crate) ok: u64,
    /// Wrong answers, and answers other than 200.
    pub(crate) errors: u64,
    /// Calls never answered.
    pub(crate) lost: u64,
}

impl From<&Tally> for Answers {
    fn from(tally: &Tally) -> Self {
        Self {
            ok: tally.ok,
            errors: tally.errors,
            lost: tally.lost(),
        }
    }
}

/// One connection's share of a run: the latency of each answer, in nanoseconds, and how
/// the answers came out.
pub(crate) struct ClientRun {
    pub(crate) latencies: Vec<u64>,
    pub(crate) answers: Answers,
}

impl ClientRun {
    /// The runs of all connections together.
    pub(crate) fn merged(runs: impl IntoIterator<Item = Self>) -> Self {
        let mut all = Self {
            latencies: Vec::new(),
            answers: Answers::default(),
        };
        for run in runs {
            all.latencies.extend(run.latencies);
            all.answers.ok += run.answers.ok;
            all.answers.errors += run.answers.errors;
            all.answers.lost += run.answers.lost;
        }
        all
    }
}

/// The clock and the CPU readings of a timed run, from its start.
pub(crate) struct Stopwatch {
    start: Instant,
    before: CpuSnapshot,
    server: Option<u32>,
}

impl Stopwatch {
    /// Starts timing; `server` is the server's process id, if known.
    pub(crate) fn start(server: Option<u32>) -> Self {
        let before = CpuSnapshot::take(server);
        Self {
            start: Instant::now(),
            before,
            server,
        }
    }

    /// The time since the start, and the CPU used since then over `calls` calls.
    pub(crate) fn stop(&self, calls: u64) -> (Duration, CpuUse) {
        let elapsed = self.start.elapsed();
        let after = CpuSnapshot::take(self.server);
        (elapsed, self.before.until(&after, calls, elapsed))
    }
}

/// How a run sent its calls.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Mode {
    /// Over stdio, at most `window` calls in flight.
    Stdio { window: u64 },
    /// Over HTTP, on `clients` connections.
    Http { clients: u64 },
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Self::Stdio { .. } => "stdio",
            Self::Http { .. } => "http",
        }
    }

    /// The load's name and size: `window` or `clients`.
    fn load(self) -> (&'static str, u64) {
        match self {
            Self::Stdio { window } => ("window", window),
            Self::Http { clients } => ("clients", clients),
        }
    }
}

/// What a timed run of calls measured, over stdio or HTTP.
#[derive(Debug, Clone)]
pub(crate) struct Summary {
    pub(crate) mode: Mode,
    pub(crate) n: u64,
    pub(crate) elapsed: Duration,
    pub(crate) calls_per_s: f64,
    pub(crate) latency: Option<Latency>,
    pub(crate) errors: u64,
    pub(crate) lost: u64,
    pub(crate) cpu: CpuUse,
}

impl Summary {
    /// The summary of `n` calls sent as `mode`, timed as `timed` (from [`Stopwatch::stop`]).
    pub(crate) fn new(mode: Mode, n: u64, timed: (Duration, CpuUse), mut run: ClientRun) -> Self {
        let (elapsed, cpu) = timed;
        Self {
            mode,
            n,
            elapsed,
            calls_per_s: stats::rate(run.answers.ok, elapsed),
            latency: Latency::of(&mut run.latencies),
            errors: run.answers.errors,
            lost: run.answers.lost,
            cpu,
        }
    }

    /// The percentiles' part of the line: stdio leaves them out where it timed no call.
    fn latency_text(&self) -> String {
        match (self.mode, self.latency) {
            (Mode::Http { .. }, latency) => {
                let (p50, p99) = latency.map_or((f64::NAN, f64::NAN), |l| (l.p50_us, l.p99_us));
                format!(" p50={p50:.1}us p99={p99:.1}us")
            }
            (Mode::Stdio { .. }, Some(l)) => format!(
                " p50={:.1}us p99={:.1}us mean={:.1}us",
                l.p50_us, l.p99_us, l.mean_us
            ),
            (Mode::Stdio { .. }, None) => String::new(),
        }
    }
}

impl Report for Summary {
    fn line(&self) -> String {
        let (load, size) = self.mode.load();
        format!(
            "{} {load}={size} n={} calls/s={:.0}{} errors={} lost={} {}",
            self.mode.name(),
            self.n,
            self.calls_per_s,
            self.latency_text(),
            self.errors,
            self.lost,
            self.cpu.text(),
        )
    }

    fn json(&self) -> Value {
        let (load, size) = self.mode.load();
        let mut object = json!({ "mode": self.mode.name() });
        object[load] = json!(size);
        object["n"] = json!(self.n);
        object["elapsed_s"] = stats::json_number(Some(self.elapsed.as_secs_f64()));
        object["calls_per_s"] = stats::json_number(Some(self.calls_per_s));
        object["p50_us"] = stats::json_number(self.latency.map(|l| l.p50_us));
        object["p99_us"] = stats::json_number(self.latency.map(|l| l.p99_us));
        object["mean_us"] = stats::json_number(self.latency.map(|l| l.mean_us));
        object["errors"] = json!(self.errors);
        object["lost"] = json!(self.lost);
        self.cpu.insert_into(&mut object);
        object
    }

    fn wrong(&self) -> u64 {
        self.errors + self.lost
    }
}
