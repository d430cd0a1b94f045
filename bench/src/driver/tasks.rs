//! Tasks over streamable HTTP at protocol revision 2026-07-28: what a `tasks/get` of a
//! finished task costs, against a `tools/call` of an inline tool on the same server, at the
//! same wire, under the same load.
//!
//! A run creates one task with a `tools/call` of [`TASK_TOOL`] (which finishes at once),
//! polls it until it is completed and checks its inlined result; then it times `tasks/get`
//! of that task over C keep-alive connections, one request at a time on each, every answer
//! checked; then, the same way, `tools/call` of [`proto::DEFAULT_TOOL`] without the tasks
//! extension declared. With `--first-reads-via URL2`, a second replica sharing the task
//! store, it also creates M finished tasks through the first URL before measuring, and
//! then times one `tasks/get` of each through URL2: a first read there, which no replica's
//! memory of ended tasks can answer. With `--lifecycle K` it instead runs K tasks one after
//! another, polling each every 10 ms until completed, and counts the polls: the client's
//! share of the store's round trips.

use std::io;
use std::sync::Arc;
use std::time::{Duration, Instant};

use hyper::header::{HeaderName, HeaderValue};
use hyper::{StatusCode, Uri};
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::json;

use super::http::{Connection, endpoint, on_each, runtime};
use super::proto;
use super::report::{Answers, ClientRun, Report};
use super::stats::{self, Latency};

/// The tool run as a task: `{a, b}` in, `{"sum": a + b}` out, done at once.
pub(crate) const TASK_TOOL: &str = "bench.task_add";

/// The revision spoken: the one that mirrors the method and the name into headers.
pub(crate) const VERSION: &str = "2026-07-28";

/// The extension's name, in the client's capabilities.
const TASKS: &str = "io.modelcontextprotocol/tasks";

/// The first addend of every call; the second is the id modulo [`B_RANGE`].
const A: i64 = 1;
const B_RANGE: u64 = 1000;

/// How often a task not yet completed is polled.
const POLL_EVERY: Duration = Duration::from_millis(10);

/// How long a task may take to complete before the run gives up on it.
const GIVE_UP_AFTER: Duration = Duration::from_secs(10);

/// The options of a run.
#[derive(Debug, Clone)]
pub(crate) struct TasksOptions {
    /// Connections, each with one request at a time.
    pub(crate) clients: u64,
    /// Requests measured of each kind, over all connections.
    pub(crate) n: u64,
    /// Requests of each kind before measuring, over all connections.
    pub(crate) warmup: u64,
    /// The driver's own runtime threads.
    pub(crate) threads: usize,
    /// A second replica sharing the task store, to read tasks it has never read.
    pub(crate) first_reads_via: Option<String>,
    /// Tasks read once each through `first_reads_via`, measured.
    pub(crate) first_reads: u64,
}

/// What one kind of request measured.
#[derive(Debug, Clone)]
pub(crate) struct Phase {
    pub(crate) n: u64,
    pub(crate) elapsed: Duration,
    pub(crate) per_s: f64,
    pub(crate) latency: Option<Latency>,
    /// Wrong answers, and answers other than 200.
    pub(crate) errors: u64,
    /// Requests never answered.
    pub(crate) lost: u64,
}

impl Phase {
    fn text(&self) -> String {
        let at = |pick: fn(&Latency) -> f64| self.latency.as_ref().map_or(f64::NAN, pick);
        format!(
            "{:.0}/s p50={:.1}us p90={:.1}us p99={:.1}us errors={} lost={}",
            self.per_s,
            at(|l| l.p50_us),
            at(|l| l.p90_us),
            at(|l| l.p99_us),
            self.errors,
            self.lost,
        )
    }

    fn json(&self) -> serde_json::Value {
        json!({
            "n": self.n,
            "elapsed_s": stats::json_number(Some(self.elapsed.as_secs_f64())),
            "per_s": stats::json_number(Some(self.per_s)),
            "p50_us": stats::json_number(self.latency.map(|l| l.p50_us)),
            "p90_us": stats::json_number(self.latency.map(|l| l.p90_us)),
            "p99_us": stats::json_number(self.latency.map(|l| l.p99_us)),
            "mean_us": stats::json_number(self.latency.map(|l| l.mean_us)),
            "errors": self.errors,
            "lost": self.lost,
        })
    }
}

/// What a run measured: `tasks/get` of a finished task, and `tools/call` of an inline tool.
#[derive(Debug, Clone)]
pub(crate) struct TasksReport {
    pub(crate) clients: u64,
    pub(crate) task_id: String,
    /// The `tasks/get`s it took the task to be seen completed.
    pub(crate) first_polls: u64,
    pub(crate) get: Phase,
    pub(crate) call: Phase,
    /// `tasks/get` through the second replica, each of a task it had not read.
    pub(crate) first_reads: Option<FirstReads>,
}

/// `tasks/get`s of tasks finished through one replica, read once each through another.
#[derive(Debug, Clone)]
pub(crate) struct FirstReads {
    /// The second replica.
    pub(crate) via: String,
    pub(crate) phase: Phase,
}

impl TasksReport {
    /// `phase`'s p50 over `tools/call`'s.
    fn p50_ratio_of(&self, phase: &Phase) -> Option<f64> {
        let (get, call) = (phase.latency?, self.call.latency?);
        (call.p50_us > 0.0).then(|| get.p50_us / call.p50_us)
    }

    /// `phase`'s throughput over `tools/call`'s.
    fn throughput_ratio_of(&self, phase: &Phase) -> Option<f64> {
        (self.call.per_s > 0.0).then(|| phase.per_s / self.call.per_s)
    }
}

impl Report for TasksReport {
    /// Wrong and missing answers, of every kind.
    fn wrong(&self) -> u64 {
        let first = self
            .first_reads
            .as_ref()
            .map_or(0, |first| first.phase.errors + first.phase.lost);
        self.get.errors + self.get.lost + self.call.errors + self.call.lost + first
    }

    fn line(&self) -> String {
        let mut line = format!(
            "tasks clients={} n={} | tasks/get {} | tools/call {} | get/call p50 x{:.2} throughput x{:.2}",
            self.clients,
            self.get.n,
            self.get.text(),
            self.call.text(),
            self.p50_ratio_of(&self.get).unwrap_or(f64::NAN),
            self.throughput_ratio_of(&self.get).unwrap_or(f64::NAN),
        );
        if let Some(first) = &self.first_reads {
            line.push_str(&format!(
                " | first reads via {} n={} {} | first/call p50 x{:.2} throughput x{:.2}",
                first.via,
                first.phase.n,
                first.phase.text(),
                self.p50_ratio_of(&first.phase).unwrap_or(f64::NAN),
                self.throughput_ratio_of(&first.phase).unwrap_or(f64::NAN),
            ));
        }
        line
    }

    fn json(&self) -> serde_json::Value {
        json!({
            "mode": "tasks",
            "clients": self.clients,
            "n": self.get.n,
            "task_id": self.task_id,
            "first_polls": self.first_polls,
            "tasks_get": self.get.json(),
            "tools_call": self.call.json(),
            "p50_ratio": stats::json_number(self.p50_ratio_of(&self.get)),
            "throughput_ratio": stats::json_number(self.throughput_ratio_of(&self.get)),
            "first_reads": self.first_reads.as_ref().map(|first| {
                let mut phase = first.phase.json();
                phase["via"] = json!(first.via);
                phase["p50_ratio"] = stats::json_number(self.p50_ratio_of(&first.phase));
                phase["throughput_ratio"] =
                    stats::json_number(self.throughput_ratio_of(&first.phase));
                phase
            }),
            "wrong": self.wrong(),
        })
    }
}

/// What `--lifecycle K` did: K tasks, each polled until completed.
#[derive(Debug, Clone)]
pub(crate) struct LifecycleReport {
    pub(crate) tasks: u64,
    /// `tasks/get`s sent, over all tasks.
    pub(crate) polls: u64,
    pub(crate) elapsed: Duration,
    /// Tasks not created, not completed in time, or completed with a wrong result.
    pub(crate) wrong: u64,
}

impl Report for LifecycleReport {
    fn line(&self) -> String {
        format!(
            "tasks lifecycle tasks={} polls={} polls/task={:.2} elapsed={:.2}s wrong={}",
            self.tasks,
            self.polls,
            self.polls as f64 / self.tasks.max(1) as f64,
            self.elapsed.as_secs_f64(),
            self.wrong,
        )
    }

    fn json(&self) -> serde_json::Value {
        json!({
            "mode": "tasks-lifecycle",
            "tasks": self.tasks,
            "polls": self.polls,
            "polls_per_task": stats::json_number(Some(self.polls as f64 / self.tasks.max(1) as f64)),
            "elapsed_s": stats::json_number(Some(self.elapsed.as_secs_f64())),
            "wrong": self.wrong,
        })
    }

    fn wrong(&self) -> u64 {
        self.wrong
    }
}

/// One kind of request, formatted from bytes made once.
#[derive(Debug, Clone)]
enum Kind {
    /// `tasks/get` of the finished task `task`, whose sum is `sum`.
    Get { task: String, sum: i64 },
    /// `tools/call` of the inline tool, the tasks extension not declared.
    Call,
    /// `tools/call` of [`TASK_TOOL`], the tasks extension declared: a new task.
    Create,
}

/// The requests of one [`Kind`]: their bytes but the id, and their headers.
#[derive(Debug, Clone)]
struct Template {
    kind: Kind,
    /// What follows the id: the method and the params, up to the second addend if any.
    middle: Vec<u8>,
    headers: Vec<(HeaderName, HeaderValue)>,
}

/// `_meta` of a 2026-07-28 request, with the tasks extension declared when `tasks`.
pub(crate) fn meta(tasks: bool) -> serde_json::Value {
    let capabilities = if tasks {
        json!({ "extensions": { TASKS: {} } })
    } else {
        json!({})
    };
    json!({
        "io.modelcontextprotocol/protocolVersion": VERSION,
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    })
}

/// `value` as a header value, or why it cannot be one.
pub(crate) fn header(value: &str) -> io::Result<HeaderValue> {
    HeaderValue::try_from(value)
        .map_err(|_| io::Error::other(format!("`{value}` is not a valid header value")))
}

impl Template {
    fn new(kind: Kind) -> io::Result<Self> {
        let quoted = |text: &str| serde_json::to_string(text).unwrap_or_default();
        let (method, name, middle) = match &kind {
            Kind::Get { task, .. } => (
                "tasks/get",
                task.as_str(),
                format!(
                    r#","method":"tasks/get","params":{{"taskId":{},"_meta":{}}}}}"#,
                    quoted(task),
                    meta(true)
                ),
            ),
            Kind::Call | Kind::Create => {
                let (tool, tasks) = match kind {
                    Kind::Create => (TASK_TOOL, true),
                    _ => (proto::DEFAULT_TOOL, false),
                };
                (
                    "tools/call",
                    tool,
                    format!(
                        r#","method":"tools/call","params":{{"name":{},"_meta":{},"arguments":{{"a":{A},"b":"#,
                        quoted(tool),
                        meta(tasks)
                    ),
                )
            }
        };
        Ok(Self {
            middle: middle.into_bytes(),
            headers: vec![
                (HeaderName::from_static("mcp-method"), header(method)?),
                (HeaderName::from_static("mcp-name"), header(name)?),
            ],
            kind,
        })
    }

    /// The request with id `id`.
    fn body(&self, id: u64) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.middle.len() + 48);
        out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
        out.extend_from_slice(id.to_string().as_bytes());
        out.extend_from_slice(&self.middle);
        if !matches!(self.kind, Kind::Get { .. }) {
            out.extend_from_slice((id % B_RANGE).to_string().as_bytes());
            out.extend_from_slice(b"}}}");
        }
        out
    }

    /// Whether `answer` is the right one to request `id`.
    fn check(&self, id: u64, answer: &[u8]) -> bool {
        let Ok(answer) = serde_json::from_slice::<Answer>(answer) else {
            return false;
        };
        if answer.id != Some(id) || answer.error.is_some() {
            return false;
        }
        let Some(outcome) = answer.result else {
            return false;
        };
        match &self.kind {
            Kind::Get { task, sum } => {
                outcome.task_id.as_deref() == Some(task.as_str())
                    && outcome.status.as_deref() == Some("completed")
                    && outcome
                        .result
                        .is_some_and(|result| result.sum() == Some(*sum))
            }
            Kind::Call => outcome.sum() == Some(expected_sum(id)),
            Kind::Create => {
                outcome.result_type.as_deref() == Some("task") && outcome.task_id.is_some()
            }
        }
    }
}

/// The sum the answer to call `id` must carry.
fn expected_sum(id: u64) -> i64 {
    A + (id % B_RANGE) as i64
}

/// An answer, as far as the checks read it.
#[derive(Deserialize)]
struct Answer {
    id: Option<u64>,
    result: Option<Outcome>,
    error: Option<IgnoredAny>,
}

/// A result: a task (`CreateTaskResult`, or a `tasks/get` with the tool's result inlined)
/// or a tool's result.
#[derive(Deserialize)]
struct Outcome {
    #[serde(rename = "resultType")]
    result_type: Option<String>,
    #[serde(rename = "taskId")]
    task_id: Option<String>,
    status: Option<String>,
    result: Option<Box<Outcome>>,
    #[serde(rename = "structuredContent")]
    structured: Option<Structured>,
    #[serde(rename = "isError")]
    is_error: Option<bool>,
}

impl Outcome {
    /// The sum of a successful call.
    fn sum(&self) -> Option<i64> {
        if self.is_error != Some(false) {
            return None;
        }
        self.structured.as_ref()?.sum
    }
}

#[derive(Deserialize)]
struct Structured {
    sum: Option<i64>,
}

/// The version header of every request.
fn version() -> HeaderValue {
    HeaderValue::from_static(VERSION)
}

/// Sends request `id` of `template`; its answer's body, if it came with 200.
async fn send(
    connection: &mut Connection,
    template: &Template,
    id: u64,
) -> io::Result<Option<Vec<u8>>> {
    let (status, body) = connection
        .post_with(template.body(id), version(), &template.headers)
        .await?;
    Ok((status == StatusCode::OK).then(|| body.to_vec()))
}

/// Creates a task with request `id` (second addend `id % 1000`) and polls it every
/// [`POLL_EVERY`] until it is completed; its id and the polls it took, or why it failed.
async fn run_task(connection: &mut Connection, id: u64) -> io::Result<(String, u64)> {
    let create = Template::new(Kind::Create)?;
    let body = send(connection, &create, id).await?;
    let task = body
        .as_deref()
        .filter(|body| create.check(id, body))
        .and_then(|body| serde_json::from_slice::<Answer>(body).ok())
        .and_then(|answer| answer.result?.task_id)
        .ok_or_else(|| {
            io::Error::other(format!(
                "`tools/call` of {TASK_TOOL} was not answered with a task: {}",
                String::from_utf8_lossy(body.as_deref().unwrap_or_default())
            ))
        })?;
    let get = Template::new(Kind::Get {
        task: task.clone(),
        sum: expected_sum(id),
    })?;
    let started = Instant::now();
    let mut polls = 0;
    loop {
        tokio::time::sleep(POLL_EVERY).await;
        polls += 1;
        let body = send(connection, &get, id).await?.unwrap_or_default();
        if get.check(id, &body) {
            return Ok((task, polls));
        }
        let status = serde_json::from_slice::<Answer>(&body)
            .ok()
            .and_then(|answer| answer.result?.status);
        if status.as_deref() != Some("working") || started.elapsed() > GIVE_UP_AFTER {
            return Err(io::Error::other(format!(
                "task {task} did not complete with the sum {}: {}",
                expected_sum(id),
                String::from_utf8_lossy(&body)
            )));
        }
    }
}

/// `n` requests, ids from `first`, one after another: request `id` is of
/// `templates[id % templates.len()]`.
async fn requests(
    connection: &mut Connection,
    templates: &[Template],
    first: u64,
    n: u64,
) -> ClientRun {
    let count = templates.len() as u64;
    let mut latencies = Vec::with_capacity(usize::try_from(n).unwrap_or(0));
    let mut answers = Answers::default();
    for id in first..first + n {
        let Some(template) = usize::try_from(id % count)
            .ok()
            .and_then(|at| templates.get(at))
        else {
            answers.errors += 1;
            break;
        };
        let start = Instant::now();
        match send(connection, template, id).await {
            Ok(answer) => {
                latencies.push(u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX));
                match answer {
                    Some(body) if template.check(id, &body) => answers.ok += 1,
                    _ => answers.errors += 1,
                }
            }
            Err(_) => {
                answers.errors += 1;
                break;
            }
        }
    }
    answers.lost = n.saturating_sub(latencies.len() as u64);
    ClientRun { latencies, answers }
}

/// `clients` connections, each with its share of the `warmup` requests (ids `n..n +
/// warmup`), then, all starting together, its share of the `n` measured (ids `0..n`):
/// request `id` is of `templates[id % templates.len()]`.
async fn phase(
    uri: &Uri,
    templates: Arc<[Template]>,
    clients: u64,
    n: u64,
    warmup: u64,
) -> io::Result<Phase> {
    if templates.is_empty() {
        return Err(io::Error::other("no requests to send"));
    }
    let mut connections = Vec::with_capacity(usize::try_from(clients).unwrap_or(0));
    for _ in 0..clients {
        connections.push(Connection::open(uri, None).await?);
    }
    let measure = |mut connection: Connection, first: u64, n: u64| {
        let templates = Arc::clone(&templates);
        async move {
            let run = requests(&mut connection, &templates, first, n).await;
            (connection, run)
        }
    };
    let mut warmed = Vec::with_capacity(connections.len());
    for (connection, run) in on_each(connections, warmup, n, measure).await? {
        if run.answers.errors > 0 {
            return Err(io::Error::other(format!(
                "warm-up: {} wrong or missing answers",
                run.answers.errors
            )));
        }
        warmed.push(connection);
    }
    let start = Instant::now();
    let runs = on_each(warmed, n, 0, measure).await?;
    let elapsed = start.elapsed();
    let ClientRun {
        mut latencies,
        answers,
    } = ClientRun::merged(runs.into_iter().map(|(_, run)| run));
    Ok(Phase {
        n,
        elapsed,
        per_s: stats::rate(answers.ok, elapsed),
        latency: Latency::of(&mut latencies),
        errors: answers.errors,
        lost: answers.lost,
    })
}

/// Creates `count` tasks over `clients` connections, each polled until completed: a
/// `tasks/get` of each, with its sum.
async fn finished_tasks(uri: &Uri, clients: u64, count: u64) -> io::Result<Vec<Template>> {
    let mut connections = Vec::with_capacity(usize::try_from(clients).unwrap_or(0));
    for _ in 0..clients {
        connections.push(Connection::open(uri, None).await?);
    }
    let create = |mut connection: Connection, first: u64, n: u64| async move {
        let mut made = Vec::with_capacity(usize::try_from(n).unwrap_or(0));
        for id in first..first + n {
            match run_task(&mut connection, id).await {
                Ok((task, _)) => made.push((id, task)),
                Err(err) => return (connection, Err(err)),
            }
        }
        (connection, Ok(made))
    };
    let mut made = Vec::with_capacity(usize::try_from(count).unwrap_or(0));
    for (_, created) in on_each(connections, count, 1, create).await? {
        made.extend(created?);
    }
    made.sort_unstable();
    made.into_iter()
        .map(|(id, task)| {
            Template::new(Kind::Get {
                task,
                sum: expected_sum(id),
            })
        })
        .collect()
}

/// Creates a task and waits for it, then times `tasks/get` of it, then `tools/call` of the
/// inline tool; with `first_reads_via`, also creates that many finished tasks first, and
/// at the end reads each once through the second replica.
pub(crate) fn run(url: &str, options: &TasksOptions) -> io::Result<TasksReport> {
    let uri = endpoint(url)?;
    let via = options
        .first_reads_via
        .as_deref()
        .map(|via| Ok::<_, io::Error>((via.to_owned(), endpoint(via)?)))
        .transpose()?;
    let clients = options.clients.max(1);
    runtime(options.threads)?.block_on(async {
        let mut connection = Connection::open(&uri, None).await?;
        // The sum 1 + 41.
        let created = 41;
        let (task, first_polls) = run_task(&mut connection, created).await?;
        drop(connection);
        // The tasks the second replica reads: the measured ones, then the warm-up's, each
        // read once.
        let unread = match &via {
            Some(_) => {
                let count = options.first_reads + options.warmup;
                Some(finished_tasks(&uri, clients, count).await?)
            }
            None => None,
        };
        let get = Template::new(Kind::Get {
            task: task.clone(),
            sum: expected_sum(created),
        })?;
        let get = phase(&uri, Arc::new([get]), clients, options.n, options.warmup).await?;
        let call = Template::new(Kind::Call)?;
        let call = phase(&uri, Arc::new([call]), clients, options.n, options.warmup).await?;
        let first_reads = match (via, unread) {
            (Some((via, via_uri)), Some(unread)) => {
                let templates = Arc::from(unread);
                let phase = phase(
                    &via_uri,
                    templates,
                    clients,
                    options.first_reads,
                    options.warmup,
                )
                .await?;
                Some(FirstReads { via, phase })
            }
            _ => None,
        };
        Ok(TasksReport {
            clients,
            task_id: task,
            first_polls,
            get,
            call,
            first_reads,
        })
    })
}

/// Runs `tasks` tasks one after another over one connection, each polled every 10 ms
/// until completed, and counts the polls.
pub(crate) fn lifecycle(url: &str, tasks: u64) -> io::Result<LifecycleReport> {
    let uri = endpoint(url)?;
    runtime(1)?.block_on(async {
        let mut connection = Connection::open(&uri, None).await?;
        let start = Instant::now();
        let (mut polls, mut wrong) = (0, 0);
        for id in 1..=tasks {
            match run_task(&mut connection, id).await {
                Ok((_, took)) => polls += took,
                Err(err) => {
                    eprintln!("mcp-bench: {err}");
                    wrong += 1;
                    // A connection that failed is not used again.
                    connection = Connection::open(&uri, None).await?;
                }
            }
        }
        Ok(LifecycleReport {
            tasks,
            polls,
            elapsed: start.elapsed(),
            wrong,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_well_formed_and_answers_checked() {
        let call = Template::new(Kind::Call).unwrap();
        let body: serde_json::Value = serde_json::from_slice(&call.body(1234)).unwrap();
        assert_eq!(body["id"], 1234);
        assert_eq!(body["method"], "tools/call");
        assert_eq!(body["params"]["name"], proto::DEFAULT_TOOL);
        assert_eq!(body["params"]["arguments"], json!({ "a": 1, "b": 234 }));
        assert_eq!(body["params"]["_meta"], meta(false));
        assert_eq!(call.headers[1].1, proto::DEFAULT_TOOL);
        let good = br#"{"jsonrpc":"2.0","id":1234,"result":{"resultType":"complete","structuredContent":{"sum":235},"content":[],"isError":false}}"#;
        assert!(call.check(1234, good));
        assert!(!call.check(1235, good));

        let create = Template::new(Kind::Create).unwrap();
        let body: serde_json::Value = serde_json::from_slice(&create.body(7)).unwrap();
        assert_eq!(body["params"]["name"], TASK_TOOL);
        assert_eq!(
            body["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]["extensions"]
                [TASKS],
            json!({})
        );
        assert!(create.check(
            7,
            br#"{"jsonrpc":"2.0","id":7,"result":{"resultType":"task","taskId":"t1","status":"working"}}"#
        ));

        let get = Template::new(Kind::Get {
            task: "t1".into(),
            sum: 42,
        })
        .unwrap();
        let body: serde_json::Value = serde_json::from_slice(&get.body(9)).unwrap();
        assert_eq!(body["method"], "tasks/get");
        assert_eq!(body["params"]["taskId"], "t1");
        assert_eq!(body["params"]["_meta"], meta(true));
        assert_eq!(get.headers[0].1, "tasks/get");
        assert_eq!(get.headers[1].1, "t1");
        let done = br#"{"jsonrpc":"2.0","id":9,"result":{"resultType":"complete","taskId":"t1","status":"completed","result":{"structuredContent":{"sum":42},"content":[],"isError":false}}}"#;
        assert!(get.check(9, done));
        let working = br#"{"jsonrpc":"2.0","id":9,"result":{"resultType":"complete","taskId":"t1","status":"working"}}"#;
        assert!(!get.check(9, working));
        let other = String::from_utf8_lossy(done).replace("42", "43");
        assert!(!get.check(9, other.as_bytes()));
    }
}
