//! A burst of calls of a synchronous tool, all written at once: how many threads and how
//! much memory the server grew to, and whether every call was answered, by its result or
//! by a failure that says the server is overloaded.

use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;

use super::proto::CallTemplate;
use super::report::Report;
use super::stats;
use super::stdio::ServerProcess;

/// The tool `burst` calls unless told another: 10 ms asleep on its thread.
pub(crate) const DEFAULT_TOOL: &str = "bench.add_slow";

/// How often the server's thread count is read while the burst runs.
const SAMPLE_EVERY: Duration = Duration::from_millis(2);

/// What `burst` measured.
#[derive(Debug, Clone)]
pub(crate) struct BurstReport {
    pub(crate) n: u64,
    pub(crate) tool: String,
    pub(crate) elapsed: Duration,
    /// Calls answered with the right result.
    pub(crate) answered: u64,
    /// Calls refused as overloaded: `ApiLimitExceeded`, or the server's refusal of a
    /// request past its bound of requests in flight (`BUSY`).
    pub(crate) overloaded: u64,
    /// Other failures, and wrong or unreadable answers.
    pub(crate) errors: u64,
    pub(crate) lost: u64,
    pub(crate) threads_before: Option<u64>,
    /// The most threads the server had, read every 2 ms.
    pub(crate) peak_threads: u64,
    pub(crate) rss_before_kib: Option<u64>,
    pub(crate) peak_kib: Option<u64>,
    pub(crate) rss_after_kib: Option<u64>,
}

impl Report for BurstReport {
    fn line(&self) -> String {
        let kib = |value: Option<u64>| value.map_or_else(|| "-".to_owned(), |v| format!("{v}KiB"));
        format!(
            "burst n={} tool={} elapsed={:.2}s answered={} overloaded={} errors={} lost={} threads_before={} peak_threads={} rss_before={} peak_rss={} rss_after={}",
            self.n,
            self.tool,
            self.elapsed.as_secs_f64(),
            self.answered,
            self.overloaded,
            self.errors,
            self.lost,
            self.threads_before
                .map_or_else(|| "-".to_owned(), |t| t.to_string()),
            self.peak_threads,
            kib(self.rss_before_kib),
            kib(self.peak_kib),
            kib(self.rss_after_kib),
        )
    }

    fn json(&self) -> serde_json::Value {
        json!({
            "mode": "burst",
            "n": self.n,
            "tool": self.tool,
            "elapsed_s": stats::json_number(Some(self.elapsed.as_secs_f64())),
            "answered": self.answered,
            "overloaded": self.overloaded,
            "errors": self.errors,
            "lost": self.lost,
            "threads_before": self.threads_before,
            "peak_threads": self.peak_threads,
            "rss_before_kib": self.rss_before_kib,
            "peak_rss_kib": self.peak_kib,
            "rss_after_kib": self.rss_after_kib,
        })
    }

    /// An overloaded call was answered: only wrong answers and lost calls are wrong.
    fn wrong(&self) -> u64 {
        self.errors + self.lost
    }
}

/// Handshake, then `n` calls of `tool` written without waiting while another thread reads
/// the answers, and a third reads the server's thread count every 2 ms.
pub(crate) fn run(
    command: &[String],
    tool: &str,
    n: u64,
    deadline: Duration,
) -> io::Result<BurstReport> {
    let mut server = ServerProcess::spawn(command, deadline)?;
    server.handshake()?;
    let pid = server.pid();
    let threads_before = stats::proc_status_kib(pid, "Threads");
    let rss_before_kib = stats::proc_status_kib(pid, "VmRSS");
    let template = CallTemplate::new(tool);
    let (done, peak) = (AtomicBool::new(false), AtomicU64::new(0));
    let start = Instant::now();
    let tally = std::thread::scope(|scope| {
        scope.spawn(|| {
            while !done.load(Ordering::Acquire) {
                if let Some(threads) = stats::proc_status_kib(pid, "Threads") {
                    peak.fetch_max(threads, Ordering::Relaxed);
                }
                std::thread::sleep(SAMPLE_EVERY);
            }
        });
        let tally = server.calls_pipelined(&template, n, u64::MAX);
        done.store(true, Ordering::Release);
        tally
    })?;
    let elapsed = start.elapsed();
    let peak_kib = stats::proc_status_kib(pid, "VmHWM");
    let rss_after_kib = stats::proc_status_kib(pid, "VmRSS");
    let _ = server.close(Duration::from_secs(5));
    Ok(BurstReport {
        n,
        tool: tool.to_owned(),
        elapsed,
        answered: tally.ok,
        overloaded: tally.overloaded,
        errors: tally.errors - tally.overloaded,
        lost: tally.lost(),
        threads_before,
        peak_threads: peak.into_inner(),
        rss_before_kib,
        peak_kib,
        rss_after_kib,
    })
}
