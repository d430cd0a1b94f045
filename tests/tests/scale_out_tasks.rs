//! Scale-out of tasks: two quickstart processes behind nginx share their tasks through one
//! Redis. A client starts 200 tasks of `text.slow_count` through the balancer and polls
//! them through it, cancelling some and answering the question of others, while one
//! process is killed. Every task ends: those the survivor ran with their exact count,
//! those the dead one was running reported failed once its lease lapsed, every cancelled
//! one cancelled, and none missing.
//!
//! `scripts/test.sh` installs nginx and redis-server; without them this test fails rather
//! than skips.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_runtime::tasks::{RedisStore, TaskStore};
use mcp_tests::nginx::{self, Nginx};
use mcp_tests::redis::Redis;
use mcp_tests::{HttpServer, quickstart_bin};
use serde_json::{Value, json};
use tokio::task::JoinSet;

/// Tasks started.
const TASKS: usize = 200;
/// How long a replica's hold on a task lasts; the dead one's tasks fail within it.
const LEASE: Duration = Duration::from_secs(2);
const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// What a task is asked to do, and so how it must end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Counts after a delay.
    Count,
    /// Asks the user first; answered through the balancer.
    Confirm,
    /// Cancelled through the balancer right after it starts.
    Cancel,
}

fn kind(number: usize) -> Kind {
    match number % 8 {
        0 => Kind::Cancel,
        1 | 2 => Kind::Confirm,
        _ => Kind::Count,
    }
}

/// The text task `number` counts: `number % 9 + 1` words.
fn text(number: usize) -> String {
    vec![format!("w{number}"); number % 9 + 1].join(" ")
}

/// A client of the balancer at the stateless revision, declaring the tasks extension.
#[derive(Clone)]
struct Client {
    http: reqwest::Client,
    url: String,
}

impl Client {
    async fn post(&self, method: &str, name: &str, mut params: Value) -> Result<Value, String> {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {
                "elicitation": {},
                "extensions": { TASKS_EXTENSION: {} },
            },
        });
        let body = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
        let response = self
            .http
            .post(&self.url)
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", "2026-07-28")
            .header("Mcp-Method", method)
            .header("Mcp-Name", name)
            .json(&body)
            .send()
            .await
            .map_err(|err| format!("{method} {name}: {err}"))?;
        let status = response.status();
        let text = response.text().await.map_err(|err| err.to_string())?;
        let answer: Value = serde_json::from_str(&text)
            .map_err(|err| format!("{method} {name}: HTTP {status}, not JSON ({err}): {text}"))?;
        match answer.get("result") {
            Some(result) if status.is_success() => Ok(result.clone()),
            _ => Err(format!("{method} {name}: HTTP {status}: {answer}")),
        }
    }

    async fn start(&self, number: usize) -> Result<String, String> {
        let (delay_ms, confirm) = match kind(number) {
            Kind::Count => (1500 + (number as u64 % 5) * 200, false),
            Kind::Confirm => (300, true),
            Kind::Cancel => (60_000, false),
        };
        let created = self
            .post(
                "tools/call",
                "text.slow_count",
                json!({ "name": "text.slow_count", "arguments": {
                    "text": text(number), "delay_ms": delay_ms, "confirm": confirm,
                } }),
            )
            .await?;
        match created["taskId"].as_str() {
            Some(id) if created["resultType"] == "task" => Ok(id.to_owned()),
            _ => Err(format!(
                "task {number} was not created as a task: {created}"
            )),
        }
    }

    async fn get(&self, id: &str) -> Result<Value, String> {
        self.post("tasks/get", id, json!({ "taskId": id })).await
    }
}

/// Drives task `number` (`id`) to its end through the balancer: cancels it, or answers its
/// question, and polls until it ends. Its last `tasks/get`, and when it was seen to end.
async fn drive(client: Client, number: usize, id: String) -> Result<(Value, Instant), String> {
    if kind(number) == Kind::Cancel {
        let ack = client
            .post("tasks/cancel", &id, json!({ "taskId": id }))
            .await?;
        if ack != json!({ "resultType": "complete", "_meta": ack["_meta"] }) {
            return Err(format!(
                "task {number}: the cancel acknowledgement is {ack}"
            ));
        }
    }
    let started = Instant::now();
    let mut answered = false;
    loop {
        let task = client.get(&id).await?;
        match task["status"].as_str() {
            Some("completed" | "failed" | "cancelled") => return Ok((task, Instant::now())),
            Some("input_required") if !answered => {
                let keys: Vec<&String> = task["inputRequests"]
                    .as_object()
                    .map(|requests| requests.keys().collect())
                    .unwrap_or_default();
                if keys != ["go"] {
                    return Err(format!("task {number} asks {keys:?}, not `go`: {task}"));
                }
                let ack = client
                    .post(
                        "tasks/update",
                        &id,
                        json!({ "taskId": id, "inputResponses": {
                            "go": { "action": "accept", "content": { "go": true } },
                        } }),
                    )
                    .await?;
                if ack["resultType"] != "complete" {
                    return Err(format!(
                        "task {number}: the update acknowledgement is {ack}"
                    ));
                }
                answered = true;
            }
            Some("working" | "input_required") => {}
            _ => return Err(format!("task {number}: not a task: {task}")),
        }
        if started.elapsed() > Duration::from_secs(60) {
            return Err(format!("task {number} never ended: {task}"));
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The replica a task's record names as its runner, read from Redis.
async fn runner(store: &RedisStore, id: &str) -> String {
    let kept = store.load(id).await.expect("Redis answers");
    let kept = kept.unwrap_or_else(|| panic!("task {id} has a record in Redis"));
    kept.record.runner.unwrap_or_default()
}

#[test]
fn two_servers_behind_nginx_share_tasks_through_redis_and_survive_a_kill() {
    let redis = Redis::start();
    let lease = format!("{}ms", LEASE.as_millis());
    let args = [
        "--task-store",
        redis.url.as_str(),
        "--task-namespace",
        "scale-out",
        "--task-lease",
        lease.as_str(),
    ];
    let mut first = HttpServer::spawn(quickstart_bin(), &args);
    let mut second = HttpServer::spawn(quickstart_bin(), &args);
    let servers = [first.address.to_string(), second.address.to_string()];
    let proxy = Nginx::start(|address| nginx::example(address, &servers[0], &servers[1]));
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let http = reqwest::Client::new();
    let balanced = Client {
        http: http.clone(),
        url: format!("http://{}/mcp", proxy.address),
    };

    // Which replica is which: a task started on the first process directly names it.
    let direct = Client {
        http,
        url: format!("http://{}/mcp", servers[0]),
    };
    let store = runtime
        .block_on(RedisStore::connect_with_namespace(&redis.url, "scale-out"))
        .expect("the test reads the records too");
    let doomed = runtime.block_on(async {
        let probe = direct.start(3).await.expect("a task on the first process");
        runner(&store, &probe).await
    });

    // 200 tasks, started through the balancer, 16 at a time.
    let ids: Vec<String> = runtime.block_on(async {
        let limit = Arc::new(tokio::sync::Semaphore::new(16));
        let mut started = JoinSet::new();
        for number in 0..TASKS {
            let (client, limit) = (balanced.clone(), Arc::clone(&limit));
            started.spawn(async move {
                let _permit = limit.acquire().await.expect("a permit");
                (number, client.start(number).await)
            });
        }
        let mut ids = vec![String::new(); TASKS];
        while let Some(joined) = started.join_next().await {
            let (number, id) = joined.expect("the start ran");
            ids[number] = id.unwrap_or_else(|err| panic!("{err}\n{}", proxy.error_log()));
        }
        ids
    });
    let runners: Vec<String> = runtime.block_on(async {
        let mut runners = Vec::new();
        for id in &ids {
            runners.push(runner(&store, id).await);
        }
        runners
    });
    let mut per_runner = BTreeMap::new();
    for runner in &runners {
        *per_runner.entry(runner.clone()).or_insert(0) += 1;
    }
    assert_eq!(
        per_runner.len(),
        2,
        "both replicas run tasks: {per_runner:?}"
    );
    assert!(per_runner.contains_key(&doomed), "{per_runner:?} {doomed}");

    // Driven to their ends through the balancer; the first process is killed meanwhile.
    let (ends, killed_at) = runtime.block_on(async {
        let mut driving = JoinSet::new();
        for (number, id) in ids.iter().enumerate() {
            let client = balanced.clone();
            let id = id.clone();
            driving.spawn(async move { (number, drive(client, number, id).await) });
        }
        tokio::time::sleep(Duration::from_millis(700)).await;
        first.child.kill().expect("the first process is killed");
        first.child.wait().expect("the first process is gone");
        let killed_at = Instant::now();
        let mut ends = vec![None; TASKS];
        while let Some(joined) = driving.join_next().await {
            let (number, end) = joined.expect("the driving ran");
            ends[number] = Some(end);
        }
        (ends, killed_at)
    });

    let mut problems = Vec::new();
    let mut tally: BTreeMap<(&str, String), usize> = BTreeMap::new();
    for (number, end) in ends.into_iter().enumerate() {
        let (task, seen) = match end.expect("every task was driven") {
            Ok(end) => end,
            Err(err) => {
                problems.push(err);
                continue;
            }
        };
        let status = task["status"].as_str().unwrap_or_default();
        let replica = if runners[number] == doomed {
            "dead"
        } else {
            "survivor"
        };
        *tally.entry((replica, status.to_owned())).or_default() += 1;
        let words = number % 9 + 1;
        let exact = task["result"]["structuredContent"]
            == json!({ "words": words, "chars": text(number).chars().count() });
        let ok = match (kind(number), status) {
            (Kind::Cancel, "cancelled") => true,
            (_, "completed") => exact && task["result"]["isError"] == false,
            // Only a task of the dead replica may fail: with the lease's message, and
            // within the lease of the kill (and a poll).
            (_, "failed") if runners[number] == doomed => {
                let message = task["error"]["message"].as_str().unwrap_or_default();
                message.contains("lapsed")
                    && task["error"]["code"] == -32603
                    && seen.duration_since(killed_at) <= LEASE + Duration::from_millis(1500)
            }
            _ => false,
        };
        if !ok {
            problems.push(format!(
                "task {number} ({:?}, on the {} replica): {task}",
                kind(number),
                if runners[number] == doomed {
                    "dead"
                } else {
                    "surviving"
                }
            ));
        }
    }
    eprintln!("tasks per replica and status: {tally:?}");
    let dead_failed = tally.get(&("dead", "failed".to_owned())).copied();
    assert!(
        dead_failed.unwrap_or(0) > 0,
        "the kill caught none of the dead replica's tasks running: {tally:?}"
    );
    assert!(
        problems.is_empty(),
        "{} of {TASKS} tasks ended wrong or not at all:\n{}\n\nsurvivor:\n{}\nnginx:\n{}",
        problems.len(),
        problems.join("\n"),
        second.stderr.so_far(),
        proxy.error_log()
    );
}
