//! Percentiles, medians and the CPU time and memory figures read from `/proc`.

use std::time::Duration;

/// Latency percentiles of a run, in microseconds.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Latency {
    pub(crate) p50_us: f64,
    pub(crate) p90_us: f64,
    pub(crate) p99_us: f64,
    pub(crate) mean_us: f64,
}

impl Latency {
    /// The percentiles of `samples` (nanoseconds); `None` when there are none.
    pub(crate) fn of(samples: &mut [u64]) -> Option<Self> {
        if samples.is_empty() {
            return None;
        }
        samples.sort_unstable();
        let total: u128 = samples.iter().map(|&s| u128::from(s)).sum();
        Some(Self {
            p50_us: percentile(samples, 0.50) / 1e3,
            p90_us: percentile(samples, 0.90) / 1e3,
            p99_us: percentile(samples, 0.99) / 1e3,
            mean_us: total as f64 / samples.len() as f64 / 1e3,
        })
    }
}

/// The `q` quantile of sorted `samples` (nearest rank).
pub(crate) fn percentile(sorted: &[u64], q: f64) -> f64 {
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1] as f64
}

/// The median of `values` (the mean of the middle two for an even count); NaN when empty.
pub(crate) fn median(values: &[f64]) -> f64 {
    quantile(values, 0.5)
}

/// The `q` quantile of `values`, interpolated between neighbours; NaN when empty.
pub(crate) fn quantile(values: &[f64], q: f64) -> f64 {
    let mut sorted: Vec<f64> = values.iter().copied().filter(|v| !v.is_nan()).collect();
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted.sort_by(f64::total_cmp);
    let position = q * (sorted.len() - 1) as f64;
    let (low, high) = (position.floor() as usize, position.ceil() as usize);
    let weight = position - low as f64;
    sorted[low] * (1.0 - weight) + sorted[high] * weight
}

/// Calls per second.
pub(crate) fn rate(count: u64, elapsed: Duration) -> f64 {
    count as f64 / elapsed.as_secs_f64().max(1e-9)
}

/// The CPU time (user + system, all threads) a process has used so far, from
/// `/proc/<pid>/stat`; `None` where there is no `/proc`.
pub(crate) fn cpu_time(pid: Option<u32>) -> Option<Duration> {
    let path = match pid {
        Some(pid) => format!("/proc/{pid}/stat"),
        None => "/proc/self/stat".to_owned(),
    };
    let stat = std::fs::read_to_string(path).ok()?;
    // The command name, in parentheses, may hold spaces: count fields after it.
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // Fields 14 and 15 of the whole line, utime and stime, in USER_HZ (100 per second).
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some(Duration::from_millis((utime + stime) * 10))
}

/// The CPU time all processes of the machine have used so far (every state but idle and
/// I/O wait), from `/proc/stat`; `None` where there is no `/proc`.
pub(crate) fn machine_busy_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let fields: Vec<u64> = stat
        .lines()
        .next()?
        .strip_prefix("cpu ")?
        .split_whitespace()
        .map(|field| field.parse().unwrap_or(0))
        .collect();
    // user nice system idle iowait irq softirq steal: all but idle and iowait.
    let busy: u64 = fields
        .iter()
        .take(8)
        .enumerate()
        .filter(|(i, _)| *i != 3 && *i != 4)
        .map(|(_, ticks)| ticks)
        .sum();
    Some(Duration::from_millis(busy * 10))
}

/// CPU readings of the server, the driver and the whole machine, taken together.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CpuSnapshot {
    server: Option<Duration>,
    driver: Option<Duration>,
    machine: Option<Duration>,
}

impl CpuSnapshot {
    /// Readings now; `server` is the server's process id, if known.
    pub(crate) fn take(server: Option<u32>) -> Self {
        Self {
            server: server.and_then(|pid| cpu_time(Some(pid))),
            driver: cpu_time(None),
            machine: machine_busy_time(),
        }
    }

    /// What was used between `self` and `later`, over `calls` calls and `elapsed`.
    pub(crate) fn until(&self, later: &Self, calls: u64, elapsed: Duration) -> CpuUse {
        let others = (|| {
            let machine = later.machine?.checked_sub(self.machine?)?;
            let ours = later.driver?.saturating_sub(self.driver?)
                + later.server?.saturating_sub(self.server?);
            Some(machine.saturating_sub(ours).as_secs_f64() / elapsed.as_secs_f64().max(1e-9))
        })();
        CpuUse {
            server_us: cpu_per_call(self.server, later.server, calls),
            driver_us: cpu_per_call(self.driver, later.driver, calls),
            others_cores: others,
        }
    }
}

/// CPU used during a run.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct CpuUse {
    /// The server's, in microseconds per call.
    pub(crate) server_us: Option<f64>,
    /// The driver's, in microseconds per call.
    pub(crate) driver_us: Option<f64>,
    /// Every other process's, in cores busy on average: what disturbed the run.
    pub(crate) others_cores: Option<f64>,
}

impl CpuUse {
    /// ` server_cpu=…/call driver_cpu=…/call others=…cores`.
    pub(crate) fn text(&self) -> String {
        format!(
            "server_cpu={}/call driver_cpu={}/call others_cpu={}",
            us(self.server_us),
            us(self.driver_us),
            self.others_cores
                .map_or_else(|| "-".to_owned(), |cores| format!("{cores:.2}cores")),
        )
    }

    /// The same fields for a JSON object.
    pub(crate) fn insert_into(&self, object: &mut serde_json::Value) {
        object["server_cpu_us_per_call"] = json_number(self.server_us);
        object["driver_cpu_us_per_call"] = json_number(self.driver_us);
        object["others_cpu_cores"] = json_number(self.others_cores);
    }
}

/// Microseconds of CPU per call between two readings of [`cpu_time`].
pub(crate) fn cpu_per_call(
    before: Option<Duration>,
    after: Option<Duration>,
    calls: u64,
) -> Option<f64> {
    let used = after?.checked_sub(before?)?;
    (calls > 0).then(|| used.as_secs_f64() * 1e6 / calls as f64)
}

/// A `kB` figure of `/proc/<pid>/status`, such as `VmRSS` or `VmHWM`, in KiB.
pub(crate) fn proc_status_kib(pid: u32, key: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status.lines().find_map(|line| {
        let value = line.strip_prefix(key)?.strip_prefix(':')?;
        value.trim().trim_end_matches("kB").trim().parse().ok()
    })
}

/// A JSON number, or `null` for a figure that could not be taken.
pub(crate) fn json_number(value: Option<f64>) -> serde_json::Value {
    match value {
        Some(value) if value.is_finite() => serde_json::json!((value * 1000.0).round() / 1000.0),
        _ => serde_json::Value::Null,
    }
}

/// `12.3us`, or `-` when absent.
pub(crate) fn us(value: Option<f64>) -> String {
    value.map_or_else(|| "-".to_owned(), |value| format!("{value:.1}us"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_and_medians() {
        let mut samples: Vec<u64> = (1..=100).map(|n| n * 1000).collect();
        let latency = Latency::of(&mut samples).unwrap();
        assert_eq!(latency.p50_us, 50.0);
        assert_eq!(latency.p90_us, 90.0);
        assert_eq!(latency.p99_us, 99.0);
        assert_eq!(latency.mean_us, 50.5);
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(&[]).is_nan());
        assert_eq!(quantile(&[1.0, 2.0, 3.0, 4.0, 5.0], 0.9), 4.6);
    }
}
