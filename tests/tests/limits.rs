//! `serve`'s per-tool limits, end to end: the quickstart served over HTTP with
//! `--tool-rate-limit`, alone and as two replicas sharing one Redis (`--limit-store`), and
//! over stdio, where an inline tool's call runs from its arguments' text;
//! what a call does when that Redis dies (`--limit-store-fail`); `--tool-cache`'s cached
//! answers; and the usage errors of malformed flags.
//!
//! `scripts/test.sh` installs redis-server; without it this test fails rather than skips.

use std::io::Write;
use std::process::{Command, Stdio};

use mcp_tests::redis::Redis;
use mcp_tests::{HttpServer, quickstart_bin};
use serde_json::{Value, json};

/// The tool limited: read-only and idempotent, so that it may be cached too.
const TOOL: &str = "calculator.add";

/// Calls `TOOL` at `url` at the stateless revision, as one client (one address): the
/// `tools/call` result.
fn call(runtime: &tokio::runtime::Runtime, url: &str, a: i64) -> Value {
    runtime.block_on(call_async(url, a))
}

/// [`call`], awaited.
async fn call_async(url: &str, a: i64) -> Value {
    {
        let body = json!({
            "jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {
                "name": TOOL, "arguments": { "a": a, "b": 1 },
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": {},
                },
            },
        });
        let response = reqwest::Client::new()
            .post(url)
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", "2026-07-28")
            .header("Mcp-Method", "tools/call")
            .header("Mcp-Name", TOOL)
            .json(&body)
            .send()
            .await
            .expect("the server answers");
        let answer: Value = response.json().await.expect("a JSON answer");
        answer["result"].clone()
    }
}

/// The error detail of a failed call's result; panics when it succeeded.
fn error_of(result: &Value) -> &Value {
    assert_eq!(result["isError"], true, "the call should fail: {result}");
    &result["_meta"]["io.github.mcp-runtime/error"]
}

/// Asserts that `result` is the refusal of a call past 3 a minute.
fn assert_limited(result: &Value) {
    let error = error_of(result);
    assert_eq!(error["error_type"], "ApiLimitExceeded", "{result}");
    let message = error["error_message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with("`calculator.add` allows 3 calls per minute per caller; retry in "),
        "{message}"
    );
    let retry = error["error_details"]["retry_after_ms"].as_u64();
    assert!(
        retry.is_some_and(|ms| (1..=20_000).contains(&ms)),
        "retry_after_ms {retry:?} in {result}"
    );
}

fn assert_answered(result: &Value, a: i64) {
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(result["structuredContent"]["sum"], a + 1, "{result}");
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Runtime::new().expect("a runtime")
}

#[test]
fn the_fourth_call_of_three_a_minute_is_refused_with_when_to_retry() {
    let server = HttpServer::spawn(
        quickstart_bin(),
        &["--tool-rate-limit", "calculator.add=3/min"],
    );
    let runtime = runtime();
    for a in 0..3 {
        assert_answered(&call(&runtime, &server.url(), a), a);
    }
    assert_limited(&call(&runtime, &server.url(), 3));
}

/// Over stdio, on the handshake's wire, a call of an inline tool is run from its arguments'
/// text. Its limits admit it once, whether it runs there or its arguments do not read into
/// the tool's parameters and it goes the ordinary way, which names the wrong argument.
#[test]
fn a_limited_call_counts_once_whichever_way_it_runs() {
    let mut child = Command::new(quickstart_bin())
        .args(["serve", "--stdio", "--quiet"])
        .args(["--tool-rate-limit", "calculator.add=3/min"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the quickstart starts");
    let mut lines = vec![
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "limits", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ];
    let arguments = [
        json!({"a": "two", "b": 1}),
        json!({"a": 1, "b": 1}),
        json!({"a": 2, "b": 1}),
        json!({"a": 3, "b": 1}),
    ];
    for (id, arguments) in (1..).zip(arguments) {
        lines.push(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": TOOL, "arguments": arguments}}));
    }
    let mut stdin = child.stdin.take().expect("stdin");
    for line in &lines {
        writeln!(stdin, "{line}").expect("the server reads");
    }
    drop(stdin);
    let output = child.wait_with_output().expect("the server ends");
    let mut results = std::collections::BTreeMap::new();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let answer: Value = serde_json::from_str(line).expect("a JSON line");
        results.insert(
            answer["id"].as_i64().expect("an id"),
            answer["result"].clone(),
        );
    }
    let wrong = &results[&1];
    assert_eq!(error_of(wrong)["error_type"], "ValidationError", "{wrong}");
    assert!(wrong.to_string().contains("`/a`"), "{wrong}");
    assert_answered(&results[&2], 1);
    assert_answered(&results[&3], 2);
    assert_limited(&results[&4]);
}

#[test]
fn two_replicas_sharing_a_redis_share_the_limit_and_follow_the_failure_policy() {
    let mut redis = Redis::start();
    let limit = ["--tool-rate-limit", "calculator.add=3/min", "--limit-store"];
    let closed = HttpServer::spawn(
        quickstart_bin(),
        &[&limit[..], &[redis.url.as_str()]].concat(),
    );
    let open = HttpServer::spawn(
        quickstart_bin(),
        &[
            &limit[..],
            &[redis.url.as_str(), "--limit-store-fail", "open"],
        ]
        .concat(),
    );
    let runtime = runtime();
    let replicas = [closed.url(), open.url()];
    // Three calls spread over both replicas: the fleet's three.
    for a in 0..3 {
        assert_answered(&call(&runtime, &replicas[a as usize % 2], a), a);
    }
    for url in &replicas {
        assert_limited(&call(&runtime, url, 9));
    }
    let keys = redis.command(&["KEYS", "mcp-runtime:limit:*"]);
    assert_eq!(
        keys.as_deref(),
        Some("*1"),
        "one key, for one caller of one tool"
    );
    redis.kill();
    // Closed, the default: refused, saying why.
    let refused = call(&runtime, &replicas[0], 10);
    let error = error_of(&refused);
    assert_eq!(error["error_type"], "ApiLimitExceeded", "{refused}");
    let message = error["error_message"].as_str().unwrap_or_default();
    assert!(
        message.contains("limit store cannot be reached"),
        "{message}"
    );
    // Open: let through.
    assert_answered(&call(&runtime, &replicas[1], 11), 11);
}

#[test]
fn calls_at_once_through_two_replicas_sharing_a_redis_each_count_once() {
    let redis = Redis::start();
    let args = [
        "--tool-rate-limit",
        "calculator.add=5/min",
        "--limit-store",
        redis.url.as_str(),
    ];
    let replicas = [
        HttpServer::spawn(quickstart_bin(), &args),
        HttpServer::spawn(quickstart_bin(), &args),
    ];
    let urls = [replicas[0].url(), replicas[1].url()];
    // Checks that arrive together go to Redis together: each must still count once.
    let calls = (0..20).map(|a| call_async(&urls[a % 2], a as i64));
    let results = runtime().block_on(futures_util::future::join_all(calls));
    let answered = results.iter().filter(|r| r["isError"] == false).count();
    assert_eq!(answered, 5, "the fleet's five calls a minute: {results:?}");
    for refused in results.iter().filter(|r| r["isError"] == true) {
        assert_eq!(
            error_of(refused)["error_type"],
            "ApiLimitExceeded",
            "{refused}"
        );
    }
}

/// The scripts Redis ran (`EVALSHA`, and `EVAL` when it did not have the script yet).
fn script_calls(redis: &Redis) -> u64 {
    redis
        .info("commandstats")
        .into_iter()
        .filter(|(name, _)| name == "cmdstat_evalsha" || name == "cmdstat_eval")
        .filter_map(|(_, stats)| {
            let calls = stats
                .split(',')
                .find_map(|stat| stat.strip_prefix("calls="));
            calls?.parse::<u64>().ok()
        })
        .sum()
}

/// Calls `TOOL` at `url` until a call is refused for its rate limit, at most `most` times:
/// how many were answered.
fn answered_until_refused(runtime: &tokio::runtime::Runtime, url: &str, most: i64) -> i64 {
    for a in 0..most {
        let result = call(runtime, url, a);
        if result["isError"] == true {
            assert_eq!(
                error_of(&result)["error_type"],
                "ApiLimitExceeded",
                "{result}"
            );
            return a;
        }
        assert_answered(&result, a);
    }
    panic!("{most} calls answered at {url}, none refused");
}

/// A caller whose calls come fast has some granted ahead, which its replica admits without
/// asking Redis; what it did not admit in time goes back, and the fleet admits the quota,
/// no more and no less.
#[test]
fn a_fast_callers_calls_granted_ahead_count_once_across_the_fleet() {
    let redis = Redis::start();
    let args = [
        "--tool-rate-limit",
        "calculator.add=320/h",
        "--limit-store",
        redis.url.as_str(),
    ];
    let replicas = [
        HttpServer::spawn(quickstart_bin(), &args),
        HttpServer::spawn(quickstart_bin(), &args),
    ];
    let runtime = runtime();
    let first = replicas[0].url();
    for a in 0..200 {
        assert_answered(&call(&runtime, &first, a), a);
    }
    let scripts = script_calls(&redis);
    assert!(
        scripts < 50,
        "{scripts} script calls for 200 calls one after another"
    );
    // The other replica gets what the first did not take; the first, once what it holds
    // is past its time, gives that back and admits it again.
    let second = answered_until_refused(&runtime, &replicas[1].url(), 400);
    std::thread::sleep(std::time::Duration::from_millis(50));
    let back = answered_until_refused(&runtime, &first, 400);
    // 320 an hour is one more every 11.25 s: one more at most while the test runs.
    let total = 200 + second + back;
    assert!(
        (320..=321).contains(&total),
        "the fleet admitted {total} calls (200, then {second}, then {back}) of 320 an hour"
    );
}

/// Serves the quickstart with `calculator.*=OTHER` and `calculator.add=3/min` in Redis,
/// and asserts that the caller gets its three calls of `calculator.add` and that each limit
/// has a key of its own: the Redis, for the caller to look further.
fn assert_two_limits_count_apart_in_redis(other: &str) -> Redis {
    let redis = Redis::start();
    let looser = format!("calculator.*={other}");
    let server = HttpServer::spawn(
        quickstart_bin(),
        &[
            "--tool-rate-limit",
            &looser,
            "--tool-rate-limit",
            "calculator.add=3/min",
            "--limit-store",
            redis.url.as_str(),
        ],
    );
    let runtime = runtime();
    for a in 0..3 {
        assert_answered(&call(&runtime, &server.url(), a), a);
    }
    assert_limited(&call(&runtime, &server.url(), 3));
    let keys = redis.command(&["KEYS", "mcp-runtime:limit:calculator.add:*"]);
    assert_eq!(keys.as_deref(), Some("*2"), "one key for each limit");
    redis
}

/// Two limits of one tool keep their own state in Redis, as in memory: the looser one
/// moving the caller's state does not use up the stricter one's calls.
#[test]
fn two_limits_of_one_tool_in_redis_count_apart() {
    assert_two_limits_count_apart_in_redis("100/min");
}

/// Two limits of one tool with the same quota, picked by two selectors, each count a call
/// once in Redis, as they do in memory: they keep their state apart.
#[test]
fn two_limits_of_one_tool_with_the_same_quota_count_apart_in_redis() {
    let redis = assert_two_limits_count_apart_in_redis("3/min");
    // One of the keys named by the selector `calculator.*`, escaped in the pattern.
    let pattern = r"mcp-runtime:limit:calculator.add:calculator.\*=3/min:*";
    let named = redis.command(&["KEYS", pattern]);
    assert_eq!(named.as_deref(), Some("*1"), "a key named by its selector");
}

#[test]
fn a_cached_answer_says_so_in_its_meta() {
    let server = HttpServer::spawn(quickstart_bin(), &["--tool-cache", "calculator.add=1m"]);
    let runtime = runtime();
    let first = call(&runtime, &server.url(), 5);
    assert_answered(&first, 5);
    assert!(
        first["_meta"].get("io.github.mcp-runtime/cache").is_none(),
        "{first}"
    );
    let second = call(&runtime, &server.url(), 5);
    assert_answered(&second, 5);
    let note = &second["_meta"]["io.github.mcp-runtime/cache"];
    assert_eq!(note["hit"], true, "{second}");
    assert!(note["age_ms"].as_u64().is_some(), "{second}");
}

/// `quickstart serve --stdio ARGS`: its exit code and standard error.
fn serve_refused(args: &[&str]) -> (Option<i32>, String) {
    let output = Command::new(quickstart_bin())
        .args(["serve", "--stdio"])
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("the quickstart runs");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn malformed_limit_flags_are_usage_errors_that_say_what_is_accepted() {
    for (args, says) in [
        (
            ["--tool-rate-limit", "calculator.add=3/fortnight"],
            "SELECTOR=N/PERIOD: N a whole number above 0, PERIOD `s`, `min` or `h`",
        ),
        (
            ["--tool-rate-limit", "calculator.add=0/min"],
            "SELECTOR=N/PERIOD: N a whole number above 0, PERIOD `s`, `min` or `h`",
        ),
        (
            ["--tool-rate-limit", "calculator.ad=3/min"],
            "`calculator.ad` picks nothing; did you mean `calculator.add`?",
        ),
        (
            ["--tool-cache", "file_utility.write_file_content=30s"],
            "`file_utility.write_file_content` is not marked both read_only and idempotent",
        ),
        (
            ["--limit-store", "mysql://localhost"],
            "write `memory` or a Redis URL",
        ),
    ] {
        let (code, stderr) = serve_refused(&args);
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
}
