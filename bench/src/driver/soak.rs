//! The soak: a long run of mixed calls over streamable HTTP at revision 2026-07-28, each
//! checked, with every failure kept with its kind and the wall-clock times its call started
//! and ended, so that whoever disturbs the servers during the run (kills one, say) can tell
//! the failures of the calls then in flight from any other.
//!
//! Call `id` is of kind `id % 4`: 0 and 1 call `bench.add` (inline); 2 calls
//! `bench.add_reported` with a progress token and the log level `info`, which must be
//! answered with an SSE stream carrying its progress report and its log message before the
//! sum; 3 calls [`TASK_TOOL`] as a task (the tasks extension declared), then polls it with
//! `tasks/get` until it ends, which must be completed with the sum. Every request carries
//! the access token, if one is given. A connection that fails, or that the server closes
//! (as nginx does after `keepalive_requests`, 1000 by default), is opened again for the
//! next call.
//!
//! Standard error gets `soak: at=MS calls=DONE/N errors=E` every `--every` seconds and
//! `soak: halfway at=MS` once half the calls have ended (MS: milliseconds since the Unix
//! epoch), for a script to act on.

use std::collections::BTreeMap;
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use hyper::Uri;
use hyper::header::{HeaderName, HeaderValue};
use serde_json::{Value, json};

use super::http::{Connection, Reply, endpoint, runtime};
use super::proto;
use super::report::Report;
use super::stats::{self, percentile};
use super::tasks::{self, TASK_TOOL};

/// The tool that reports progress and logs before it answers.
const REPORTING_TOOL: &str = "bench.add_reported";

/// The log level the reporting calls ask for; the tool logs at it.
const LOG_LEVEL: &str = "info";

/// How long a task may take to end; longer than a task lease (10 s by default), so that a
/// task whose replica died is seen failed rather than given up on.
const TASK_DEADLINE: Duration = Duration::from_secs(60);

/// The longest pause between two polls of a task.
const POLL_AT_MOST: Duration = Duration::from_millis(20);

/// How many failures are listed one by one; the rest are only counted.
const LISTED: usize = 10_000;

/// The options of a soak.
#[derive(Debug, Clone)]
pub(crate) struct SoakOptions {
    /// Connections, each with one call at a time.
    pub(crate) clients: u64,
    /// Calls, over all connections.
    pub(crate) n: u64,
    /// An access token every request carries (`Authorization: Bearer …`), if any.
    pub(crate) bearer: Option<String>,
    /// The driver's own runtime threads.
    pub(crate) threads: usize,
    /// How often a line of progress goes to standard error.
    pub(crate) every: Duration,
}

/// What a call does; see the module's documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum CallKind {
    Inline,
    Reported,
    Task,
}

impl CallKind {
    const ALL: [Self; 3] = [Self::Inline, Self::Reported, Self::Task];

    fn of(id: u64) -> Self {
        match id % 4 {
            2 => Self::Reported,
            3 => Self::Task,
            _ => Self::Inline,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::Inline => "inline",
            Self::Reported => "progress+log",
            Self::Task => "task",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// Why a call failed.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Fault {
    /// The connection failed: refused, reset or closed before the answer.
    Connection,
    /// An HTTP status other than 200.
    Status(u16),
    /// A JSON-RPC error, by code.
    Rpc(i64),
    /// An answer that is not the right one, or not readable.
    Wrong,
    /// A reporting call answered without its progress report.
    NoProgress,
    /// A reporting call answered without its log message.
    NoLog,
    /// A task that ended other than completed: its status.
    Task(String),
    /// A task not ended within [`TASK_DEADLINE`].
    TaskTimeout,
}

impl Fault {
    fn label(&self) -> String {
        match self {
            Self::Connection => "connection".to_owned(),
            Self::Status(status) => format!("http {status}"),
            Self::Rpc(code) => format!("json-rpc {code}"),
            Self::Wrong => "wrong answer".to_owned(),
            Self::NoProgress => "no progress".to_owned(),
            Self::NoLog => "no log message".to_owned(),
            Self::Task(status) => format!("task {status}"),
            Self::TaskTimeout => "task not ended".to_owned(),
        }
    }
}

/// A failed call: why, and when it started and ended (ms since the Unix epoch).
#[derive(Debug, Clone)]
struct Failure {
    fault: Fault,
    kind: CallKind,
    id: u64,
    started_ms: u64,
    ended_ms: u64,
    /// What came instead of the answer, shortened.
    detail: String,
}

/// What one client's calls did.
#[derive(Default)]
struct Outcome {
    /// Latencies of the calls that succeeded, in nanoseconds, by [`CallKind::index`].
    latencies: [Vec<u64>; 3],
    failures: Vec<Failure>,
    /// HTTP requests sent: a task's polls count, each.
    requests: u64,
    /// Connections opened again after one failed or was closed.
    reconnects: u64,
}

/// One client's connection, opened when there is none: at first, after one failed, and
/// after the server said it would close it.
struct Link {
    shared: Arc<Shared>,
    open: Option<Connection>,
    /// Connections opened so far.
    opened: u64,
    /// HTTP requests sent.
    requests: u64,
}

/// Milliseconds since the Unix epoch.
fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| {
            u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
        })
}

/// `_meta` of a call of `kind` with id `id`.
fn meta(kind: CallKind, id: u64) -> Value {
    let mut meta = tasks::meta(kind == CallKind::Task);
    if kind == CallKind::Reported {
        meta["progressToken"] = json!(id);
        meta["io.modelcontextprotocol/logLevel"] = json!(LOG_LEVEL);
    }
    meta
}

/// A request of `method` on `name` with `params`: its body and its mirrored headers.
fn request(id: u64, method: &str, name: &str, params: Value) -> io::Result<(Vec<u8>, Headers)> {
    let body = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
    let headers = vec![
        (
            HeaderName::from_static("mcp-method"),
            tasks::header(method)?,
        ),
        (HeaderName::from_static("mcp-name"), tasks::header(name)?),
    ];
    Ok((body.to_string().into_bytes(), headers))
}

type Headers = Vec<(HeaderName, HeaderValue)>;

impl Link {
    fn new(shared: Arc<Shared>) -> Self {
        Self {
            shared,
            open: None,
            opened: 0,
            requests: 0,
        }
    }

    /// Sends one request; the messages that came back (one, or the events of an SSE
    /// stream).
    async fn send(
        &mut self,
        (body, headers): (Vec<u8>, Headers),
    ) -> Result<Vec<Value>, (Fault, String)> {
        let connection = match self.open.take() {
            Some(open) if !open.is_closed() => self.open.insert(open),
            _ => {
                let shared = &self.shared;
                let open = Connection::open(&shared.uri, shared.authorization.as_ref())
                    .await
                    .map_err(|err| (Fault::Connection, err.to_string()))?;
                self.opened += 1;
                self.open.insert(open)
            }
        };
        self.requests += 1;
        let answered = connection
            .exchange(body, HeaderValue::from_static(tasks::VERSION), &headers)
            .await;
        let Reply {
            status,
            stream,
            body,
        } = answered.map_err(|err| {
            self.open = None;
            (Fault::Connection, err.to_string())
        })?;
        let text = String::from_utf8_lossy(&body);
        if status != hyper::StatusCode::OK {
            return Err((Fault::Status(status.as_u16()), shorten(&text)));
        }
        if !stream {
            return serde_json::from_str(&text)
                .map(|message| vec![message])
                .map_err(|_| (Fault::Wrong, shorten(&text)));
        }
        Ok(events(&text))
    }
}

/// The JSON messages of an SSE stream's events (their `data` lines joined).
fn events(text: &str) -> Vec<Value> {
    let mut messages = Vec::new();
    for event in text.split("\n\n") {
        let data: Vec<&str> = event
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .map(|data| data.strip_prefix(' ').unwrap_or(data))
            .collect();
        if let Ok(message) = serde_json::from_str(&data.join("\n")) {
            messages.push(message);
        }
    }
    messages
}

fn shorten(text: &str) -> String {
    text.chars().take(300).collect()
}

/// The answer to request `id` among `messages`: its `result`, or why there is none.
fn answer(messages: &[Value], id: u64) -> Result<&Value, (Fault, String)> {
    let answer = messages
        .iter()
        .find(|message| message.get("id") == Some(&json!(id)))
        .ok_or_else(|| (Fault::Wrong, shorten(&json!(messages).to_string())))?;
    if let Some(error) = answer.get("error") {
        let code = error.get("code").and_then(Value::as_i64).unwrap_or(0);
        return Err((Fault::Rpc(code), shorten(&error.to_string())));
    }
    answer
        .get("result")
        .ok_or_else(|| (Fault::Wrong, shorten(&answer.to_string())))
}

/// Whether `result`, a tool's result, is a success with the sum of call `id`.
fn right_sum(result: &Value, id: u64) -> Result<(), (Fault, String)> {
    let sum = result
        .pointer("/structuredContent/sum")
        .and_then(Value::as_i64);
    if result.get("isError") == Some(&json!(false)) && sum == Some(proto::expected_sum(id)) {
        Ok(())
    } else {
        Err((Fault::Wrong, shorten(&result.to_string())))
    }
}

/// The arguments of call `id`, those of every other subcommand: the first addend (the sum
/// of call 0), and the id modulo 1000.
fn arguments(id: u64) -> Value {
    json!({ "a": proto::expected_sum(0), "b": id % 1000 })
}

/// Call `id`, of its kind, through `link`.
async fn call(link: &mut Link, id: u64) -> Result<(), (Fault, String)> {
    let kind = CallKind::of(id);
    let tool = match kind {
        CallKind::Inline => proto::DEFAULT_TOOL,
        CallKind::Reported => REPORTING_TOOL,
        CallKind::Task => TASK_TOOL,
    };
    let params = json!({ "name": tool, "arguments": arguments(id), "_meta": meta(kind, id) });
    let sent =
        request(id, "tools/call", tool, params).map_err(|err| (Fault::Wrong, err.to_string()))?;
    let messages = link.send(sent).await?;
    let result = answer(&messages, id)?;
    match kind {
        CallKind::Inline => right_sum(result, id),
        CallKind::Reported => {
            right_sum(result, id)?;
            reported(&messages, id)
        }
        CallKind::Task => {
            let task = result
                .get("taskId")
                .and_then(Value::as_str)
                .filter(|_| result.get("resultType") == Some(&json!("task")))
                .ok_or_else(|| (Fault::Wrong, shorten(&result.to_string())))?
                .to_owned();
            poll(link, id, &task).await
        }
    }
}

/// Whether the messages before the answer to reporting call `id` hold its progress report
/// and its log message.
fn reported(messages: &[Value], id: u64) -> Result<(), (Fault, String)> {
    let said = |method: &str| {
        messages
            .iter()
            .filter(|message| message.get("method") == Some(&json!(method)))
            .map(|message| &message["params"])
            .collect::<Vec<_>>()
    };
    let progress = said("notifications/progress")
        .into_iter()
        .any(|params| params["progressToken"] == json!(id) && params["progress"] == json!(1.0));
    if !progress {
        return Err((Fault::NoProgress, shorten(&json!(messages).to_string())));
    }
    let logged = said("notifications/message").into_iter().any(|params| {
        params["level"] == json!(LOG_LEVEL) && params["logger"] == json!(REPORTING_TOOL)
    });
    if !logged {
        return Err((Fault::NoLog, shorten(&json!(messages).to_string())));
    }
    Ok(())
}

/// Polls task `task` of call `id` until it ends: at once, then after pauses that double
/// up to [`POLL_AT_MOST`].
async fn poll(link: &mut Link, id: u64, task: &str) -> Result<(), (Fault, String)> {
    let deadline = Instant::now() + TASK_DEADLINE;
    let mut pause = Duration::from_millis(1);
    loop {
        let params = json!({ "taskId": task, "_meta": tasks::meta(true) });
        let sent = request(id, "tasks/get", task, params)
            .map_err(|err| (Fault::Wrong, err.to_string()))?;
        let messages = link.send(sent).await?;
        let result = answer(&messages, id)?;
        match result.get("status").and_then(Value::as_str) {
            Some("completed") => {
                let inlined = result.get("result").unwrap_or(&Value::Null);
                return right_sum(inlined, id);
            }
            Some("working") if Instant::now() < deadline => {}
            Some("working") => return Err((Fault::TaskTimeout, task.to_owned())),
            Some(status) => {
                return Err((Fault::Task(status.to_owned()), shorten(&result.to_string())));
            }
            None => return Err((Fault::Wrong, shorten(&result.to_string()))),
        }
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(POLL_AT_MOST);
    }
}

/// What every connection shares: the endpoint, the token, and the count of calls ended.
struct Shared {
    uri: Uri,
    authorization: Option<HeaderValue>,
    n: u64,
    done: AtomicU64,
    errors: AtomicU64,
}

impl Shared {
    /// Counts one call ended; says so on standard error when it is the one at half.
    fn ended(&self, failed: bool) {
        if failed {
            self.errors.fetch_add(1, Ordering::Relaxed);
        }
        if self.done.fetch_add(1, Ordering::Relaxed) + 1 == self.n / 2 {
            eprintln!("soak: halfway at={}", now_ms());
        }
    }

    fn progress_line(&self) -> String {
        format!(
            "soak: at={} calls={}/{} errors={}",
            now_ms(),
            self.done.load(Ordering::Relaxed),
            self.n,
            self.errors.load(Ordering::Relaxed),
        )
    }
}

/// Calls `first..first + n` through one link, one after another.
async fn client(shared: Arc<Shared>, first: u64, n: u64) -> Outcome {
    let mut outcome = Outcome::default();
    let mut link = Link::new(Arc::clone(&shared));
    for id in first..first + n {
        let (started_ms, clock) = (now_ms(), Instant::now());
        let result = call(&mut link, id).await;
        let elapsed = u64::try_from(clock.elapsed().as_nanos()).unwrap_or(u64::MAX);
        let kind = CallKind::of(id);
        shared.ended(result.is_err());
        match result {
            Ok(()) => outcome.latencies[kind.index()].push(elapsed),
            Err((fault, detail)) => outcome.failures.push(Failure {
                fault,
                kind,
                id,
                started_ms,
                ended_ms: now_ms(),
                detail,
            }),
        }
    }
    outcome.requests = link.requests;
    outcome.reconnects = link.opened.saturating_sub(1);
    outcome
}

/// What a soak measured.
pub(crate) struct SoakReport {
    clients: u64,
    n: u64,
    started_ms: u64,
    elapsed: Duration,
    requests: u64,
    reconnects: u64,
    /// Latencies of the calls that succeeded, sorted, by [`CallKind::index`].
    latencies: [Vec<u64>; 3],
    failures: Vec<Failure>,
}

/// p50, p90, p99, p99.9 and the longest of sorted `samples`, in microseconds.
fn percentiles(sorted: &[u64]) -> Value {
    if sorted.is_empty() {
        return json!(null);
    }
    let at = |q: f64| stats::json_number(Some(percentile(sorted, q) / 1e3));
    json!({
        "calls": sorted.len(),
        "p50_us": at(0.5),
        "p90_us": at(0.9),
        "p99_us": at(0.99),
        "p999_us": at(0.999),
        "max_us": at(1.0),
    })
}

impl SoakReport {
    fn ok(&self) -> u64 {
        self.latencies.iter().map(|kind| kind.len() as u64).sum()
    }

    fn all_sorted(&self) -> Vec<u64> {
        let mut all: Vec<u64> = self.latencies.concat();
        all.sort_unstable();
        all
    }

    fn calls_per_s(&self) -> f64 {
        stats::rate(self.ok(), self.elapsed)
    }

    /// The failures counted by their fault's label.
    fn by_fault(&self) -> BTreeMap<String, u64> {
        let mut counts = BTreeMap::new();
        for failure in &self.failures {
            *counts.entry(failure.fault.label()).or_insert(0) += 1;
        }
        counts
    }
}

impl Report for SoakReport {
    fn line(&self) -> String {
        let all = self.all_sorted();
        let at = |q: f64| {
            if all.is_empty() {
                f64::NAN
            } else {
                percentile(&all, q) / 1e3
            }
        };
        format!(
            "soak clients={} n={} calls/s={:.0} p50={:.1}us p99={:.1}us requests={} errors={} {:?} reconnects={}",
            self.clients,
            self.n,
            self.calls_per_s(),
            at(0.5),
            at(0.99),
            self.requests,
            self.failures.len(),
            self.by_fault(),
            self.reconnects,
        )
    }

    fn json(&self) -> Value {
        let kinds: serde_json::Map<String, Value> = CallKind::ALL
            .iter()
            .map(|kind| {
                (
                    kind.name().to_owned(),
                    percentiles(&self.latencies[kind.index()]),
                )
            })
            .collect();
        let listed: Vec<Value> = self
            .failures
            .iter()
            .take(LISTED)
            .map(|failure| {
                json!({
                    "fault": failure.fault.label(),
                    "call": failure.kind.name(),
                    "id": failure.id,
                    "started_ms": failure.started_ms,
                    "ended_ms": failure.ended_ms,
                    "detail": failure.detail,
                })
            })
            .collect();
        json!({
            "mode": "soak",
            "clients": self.clients,
            "n": self.n,
            "started_ms": self.started_ms,
            "elapsed_s": stats::json_number(Some(self.elapsed.as_secs_f64())),
            "calls_per_s": stats::json_number(Some(self.calls_per_s())),
            "ok": self.ok(),
            "requests": self.requests,
            "reconnects": self.reconnects,
            "latency": percentiles(&self.all_sorted()),
            "kinds": kinds,
            "errors": self.failures.len(),
            "errors_by_fault": self.by_fault(),
            "failures": listed,
        })
    }

    fn wrong(&self) -> u64 {
        self.failures.len() as u64
    }
}

/// Runs the soak against `url`.
pub(crate) fn run(url: &str, options: &SoakOptions) -> io::Result<SoakReport> {
    let authorization = options
        .bearer
        .as_ref()
        .map(|token| HeaderValue::try_from(format!("Bearer {token}")))
        .transpose()
        .map_err(|_| io::Error::other("the token is not a valid header value"))?;
    let shared = Arc::new(Shared {
        uri: endpoint(url)?,
        authorization,
        n: options.n,
        done: AtomicU64::new(0),
        errors: AtomicU64::new(0),
    });
    let clients = options.clients.max(1);
    runtime(options.threads)?.block_on(async {
        let ticker = {
            let shared = Arc::clone(&shared);
            let every = options.every.max(Duration::from_millis(100));
            tokio::spawn(async move {
                let mut ticks =
                    tokio::time::interval_at(tokio::time::Instant::now() + every, every);
                loop {
                    ticks.tick().await;
                    eprintln!("{}", shared.progress_line());
                }
            })
        };
        let (started_ms, start) = (now_ms(), Instant::now());
        let mut runs = tokio::task::JoinSet::new();
        let mut next = 0;
        for client_number in 0..clients {
            let n = options.n / clients + u64::from(client_number < options.n % clients);
            runs.spawn(client(Arc::clone(&shared), next, n));
            next += n;
        }
        let mut report = SoakReport {
            clients,
            n: options.n,
            started_ms,
            elapsed: Duration::ZERO,
            requests: 0,
            reconnects: 0,
            latencies: Default::default(),
            failures: Vec::new(),
        };
        while let Some(joined) = runs.join_next().await {
            let outcome = joined.map_err(io::Error::other)?;
            for (all, some) in report.latencies.iter_mut().zip(outcome.latencies) {
                all.extend(some);
            }
            report.failures.extend(outcome.failures);
            report.requests += outcome.requests;
            report.reconnects += outcome.reconnects;
        }
        report.elapsed = start.elapsed();
        ticker.abort();
        eprintln!("{}", shared.progress_line());
        for kind in &mut report.latencies {
            kind.sort_unstable();
        }
        report.failures.sort_by_key(|failure| failure.ended_ms);
        Ok(report)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_are_mixed_and_reports_checked() {
        let kinds: Vec<CallKind> = (0..8).map(CallKind::of).collect();
        use CallKind::{Inline, Reported, Task};
        assert_eq!(
            kinds,
            [
                Inline, Inline, Reported, Task, Inline, Inline, Reported, Task
            ]
        );
        assert_eq!(meta(Reported, 6)["progressToken"], 6);
        assert_eq!(
            meta(Reported, 6)["io.modelcontextprotocol/logLevel"],
            "info"
        );
        assert!(meta(Inline, 4).get("progressToken").is_none());

        let stream = concat!(
            "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",",
            "\"params\":{\"progressToken\":6,\"progress\":1.0,\"total\":1.0}}\n\n",
            "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",",
            "\"params\":{\"level\":\"info\",\"logger\":\"bench.add_reported\",\"data\":\"1 + 6\"}}\n\n",
            "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":6,\"result\":",
            "{\"structuredContent\":{\"sum\":7},\"content\":[],\"isError\":false}}\n\n",
        );
        let messages = events(stream);
        assert_eq!(messages.len(), 3);
        let result = answer(&messages, 6).unwrap();
        assert_eq!(right_sum(result, 6), Ok(()));
        assert_eq!(reported(&messages, 6), Ok(()));
        assert_eq!(
            reported(&messages[1..], 6).unwrap_err().0,
            Fault::NoProgress
        );
        let without_log = [messages[0].clone(), messages[2].clone()];
        assert_eq!(reported(&without_log, 6).unwrap_err().0, Fault::NoLog);
        assert_eq!(right_sum(result, 7).unwrap_err().0, Fault::Wrong);
        assert_eq!(reported(&messages, 7).unwrap_err().0, Fault::NoProgress);

        let refused =
            [json!({ "jsonrpc": "2.0", "id": 3, "error": { "code": -32001, "message": "x" } })];
        assert_eq!(answer(&refused, 3).unwrap_err().0, Fault::Rpc(-32001));
        assert_eq!(answer(&refused, 4).unwrap_err().0, Fault::Wrong);
        assert_eq!(Fault::Status(502).label(), "http 502");
    }
}
