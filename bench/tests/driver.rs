//! The driver against the floors and the framework, with small counts: every call must be
//! answered, and answered right. No timings are checked.

use std::io::Write;
use std::process::{Command, Stdio};

use mcp_tests::HttpServer;
use serde_json::Value;

const DRIVER: &str = env!("CARGO_BIN_EXE_mcp-bench");
const FLOOR_STDIO: &str = env!("CARGO_BIN_EXE_floor-stdio");
const FLOOR_HTTP: &str = env!("CARGO_BIN_EXE_floor-http");
const SERVER: &str = env!("CARGO_BIN_EXE_bench-server");

/// Runs the driver with `args` and `--json`; its JSON summary, after checking it exited 0.
fn bench(args: &[&str]) -> Value {
    let (options, command) = match args.iter().position(|arg| *arg == "--") {
        Some(split) => args.split_at(split),
        None => (args, &[][..]),
    };
    let output = Command::new(DRIVER)
        .args(options)
        .arg("--json")
        .args(command)
        .stderr(Stdio::inherit())
        .output()
        .expect("the driver runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{args:?}: {}\n{stdout}",
        output.status
    );
    serde_json::from_str(stdout.trim()).unwrap_or_else(|err| panic!("{err}: {stdout}"))
}

fn stdio_servers() -> [Vec<&'static str>; 2] {
    [vec![FLOOR_STDIO], vec![SERVER, "serve", "--stdio"]]
}

#[test]
fn every_call_over_stdio_is_answered_right() {
    for server in stdio_servers() {
        for (window, n) in [("1", "200"), ("16", "2000")] {
            let mut args = vec!["stdio", "--window", window, "-n", n, "--warmup", "50", "--"];
            args.extend(&server);
            let report = bench(&args);
            assert_eq!(report["errors"], 0, "{server:?}: {report}");
            assert_eq!(report["lost"], 0, "{server:?}: {report}");
            assert_eq!(report["n"].as_u64(), Some(n.parse().unwrap()), "{report}");
            if window == "1" {
                assert!(report["p50_us"].as_f64().is_some(), "{report}");
            }
        }
    }
}

#[test]
fn a_burst_is_answered_whole() {
    let report = bench(&["inflight", "-n", "2000", "--", SERVER, "serve", "--stdio"]);
    assert_eq!(report["answered"], 2000, "{report}");
    assert_eq!(report["errors"], 0, "{report}");
    assert_eq!(report["lost"], 0, "{report}");
    if cfg!(target_os = "linux") {
        assert!(report["peak_rss_kib"].as_u64().is_some(), "{report}");
        assert!(report["rss_before_kib"].as_u64().is_some(), "{report}");
    }
}

/// A burst past a stdio connection's bound of requests in flight: the calls past it are
/// refused at once as busy, which is an overloaded answer, not a wrong one.
#[test]
fn a_burst_past_the_connections_bound_is_answered_or_refused_as_overloaded() {
    let report = bench(&[
        "burst",
        "-n",
        "600",
        "--",
        SERVER,
        "serve",
        "--stdio",
        "--max-in-flight-per-connection",
        "100",
    ]);
    let (answered, overloaded) = (report["answered"].as_u64(), report["overloaded"].as_u64());
    assert!(answered.is_some_and(|n| n >= 100), "{report}");
    assert!(overloaded.is_some_and(|n| n > 0), "{report}");
    assert_eq!(
        answered.zip(overloaded).map(|(a, o)| a + o),
        Some(600),
        "{report}"
    );
    assert_eq!(report["errors"], 0, "{report}");
    assert_eq!(report["lost"], 0, "{report}");
}

#[test]
fn startup_is_timed_to_the_first_answer() {
    for list in [false, true] {
        let mut args = vec!["startup", "--runs", "2"];
        if list {
            args.push("--list");
        }
        args.extend(["--", SERVER, "serve", "--stdio"]);
        let report = bench(&args);
        assert_eq!(report["errors"], 0, "{report}");
        assert!(report["median_ms"].as_f64().is_some(), "{report}");
    }
}

#[test]
fn every_call_over_http_is_answered_right() {
    for command in [
        vec![FLOOR_HTTP, "--addr", "127.0.0.1:0"],
        vec![SERVER, "serve", "--http", "127.0.0.1:0"],
    ] {
        let mut spawn = Command::new(command[0]);
        spawn.args(&command[1..]);
        let server = HttpServer::start(spawn);
        let report = bench(&[
            "http",
            &server.url(),
            "--clients",
            "4",
            "-n",
            "400",
            "--warmup",
            "40",
        ]);
        assert_eq!(report["errors"], 0, "{command:?}: {report}");
        assert_eq!(report["lost"], 0, "{command:?}: {report}");
    }
}

/// Runs a stdio server on `input`; its answers, by id.
fn answers(command: &[&str], input: &str) -> std::collections::BTreeMap<String, String> {
    let mut child = Command::new(command[0])
        .args(&command[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the server runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| {
            let value: Value = serde_json::from_str(line).unwrap();
            (value["id"].to_string(), line.to_owned())
        })
        .collect()
}

/// The floor is only a floor if it does the same work: its answers to calls are the
/// framework's, byte for byte.
#[test]
fn the_floor_answers_calls_with_the_frameworks_bytes() {
    let input = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"bench.add","arguments":{"a":1,"b":2}}}"#,
        r#"{"jsonrpc":"2.0","id":"three","method":"tools/call","params":{"name":"bench.add","arguments":{"a":-40,"b":2}}}"#,
        r#"{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"bench.add","arguments":{"a":9223372036854775807,"b":1}}}"#,
        r#"{"jsonrpc":"2.0","id":5,"method":"tools/list"}"#,
        r#"{"jsonrpc":"2.0","id":6,"method":"ping"}"#,
    ]
    .map(|line| format!("{line}\n"))
    .concat();
    let floor = answers(&[FLOOR_STDIO], &input);
    let framework = answers(&[SERVER, "serve", "--stdio"], &input);
    // Each server must answer every request: two missing answers are not equal answers.
    let answer = |answers: &std::collections::BTreeMap<String, String>, who: &str, id: &str| {
        answers
            .get(id)
            .unwrap_or_else(|| panic!("{who} did not answer {id}: {answers:?}"))
            .clone()
    };
    for id in ["2", "\"three\"", "4", "6"] {
        assert_eq!(
            answer(&floor, "the floor", id),
            answer(&framework, "the framework", id),
            "answer {id}"
        );
    }
    // The value at `pointer` in the answer to `id`, which must be there.
    let part = |answers: &std::collections::BTreeMap<String, String>,
                who: &str,
                id: &str,
                pointer: &str| {
        let value: Value = serde_json::from_str(&answer(answers, who, id)).unwrap();
        value
            .pointer(pointer)
            .unwrap_or_else(|| panic!("{who}'s answer {id} has no {pointer}: {value}"))
            .clone()
    };
    assert_eq!(
        part(&floor, "the floor", "5", "/result/tools/0").to_string(),
        part(&framework, "the framework", "5", "/result/tools/0").to_string(),
        "bench.add as listed"
    );
    // bench-server also declares the tasks extension, for `bench.task_add`, which the
    // floor does not serve: the rest must be the same.
    let mut capabilities = part(&framework, "the framework", "1", "/result/capabilities");
    let tasks = capabilities
        .as_object_mut()
        .and_then(|capabilities| capabilities.remove("extensions"));
    assert_eq!(
        tasks,
        Some(serde_json::json!({ "io.modelcontextprotocol/tasks": {} })),
        "the tasks extension"
    );
    assert_eq!(
        part(&floor, "the floor", "1", "/result/capabilities"),
        capabilities,
        "capabilities"
    );
}

/// `mcp-bench oauth`: the server taking access tokens answers every call right, and
/// fetches the authorization server's keys once, then keeps them.
#[test]
fn every_call_with_an_access_token_is_answered_right() {
    let bin_dir = std::path::Path::new(SERVER)
        .parent()
        .expect("the servers' directory")
        .to_str()
        .expect("a UTF-8 path");
    for alg in ["rs256", "es256"] {
        let report = bench(&[
            "oauth",
            "--rounds",
            "1",
            "--alg",
            alg,
            "--clients",
            "4",
            "-n",
            "400",
            "--warmup",
            "40",
            "--bin-dir",
            bin_dir,
        ]);
        assert_eq!(report["wrong"], 0, "{alg}: {report}");
        assert_eq!(report["key_fetches"], 1, "{alg}: {report}");
        for side in ["no_auth", "oauth"] {
            let run = &report["rounds"][0][side];
            assert_eq!(run["errors"], 0, "{alg} {side}: {report}");
            assert_eq!(run["lost"], 0, "{alg} {side}: {report}");
        }
    }
}

/// `mcp-bench tasks`: a task of `bench.task_add` is created and completes with the right
/// sum, then every `tasks/get` of it and every `tools/call` of `bench.add` is answered
/// right; so is every `tasks/get` of `--first-reads-via`, here the same server (with the
/// store in memory there is no other replica to share it, so these reads are not first
/// ones, but their answers are checked the same); `--lifecycle` runs tasks to their end and
/// counts its polls.
#[test]
fn every_task_request_over_http_is_answered_right() {
    let mut spawn = Command::new(SERVER);
    spawn.args(["serve", "--http", "127.0.0.1:0"]);
    let server = HttpServer::start(spawn);
    let report = bench(&[
        "tasks",
        &server.url(),
        "--clients",
        "4",
        "-n",
        "400",
        "--warmup",
        "40",
        "--first-reads-via",
        &server.url(),
        "--first-reads",
        "60",
    ]);
    assert_eq!(report["wrong"], 0, "{report}");
    assert_eq!(report["first_reads"]["n"], 60, "{report}");
    assert_eq!(report["first_reads"]["via"], server.url(), "{report}");
    assert!(
        report["first_reads"]["p50_ratio"].as_f64().is_some(),
        "{report}"
    );
    for kind in ["tasks_get", "tools_call", "first_reads"] {
        assert_eq!(report[kind]["errors"], 0, "{kind}: {report}");
        assert_eq!(report[kind]["lost"], 0, "{kind}: {report}");
        assert!(
            report[kind]["p90_us"].as_f64().is_some(),
            "{kind}: {report}"
        );
    }
    assert!(report["p50_ratio"].as_f64().is_some(), "{report}");
    let lifecycle = bench(&["tasks", &server.url(), "--lifecycle", "5"]);
    assert_eq!(lifecycle["tasks"], 5, "{lifecycle}");
    assert_eq!(lifecycle["wrong"], 0, "{lifecycle}");
    assert!(lifecycle["polls"].as_u64() >= Some(5), "{lifecycle}");
}

/// `mcp-bench soak`: every call of the mix is answered right (the reporting calls with
/// their progress report and log message, the tasks polled to their sum), each kind in its
/// share; and a call that fails is listed with its fault and when it started and ended.
#[test]
fn every_call_of_a_soak_is_answered_right_and_failures_are_listed() {
    let mut spawn = Command::new(SERVER);
    spawn.args(["serve", "--http", "127.0.0.1:0", "--token", "soak-secret"]);
    let server = HttpServer::start(spawn);
    let url = server.url();
    let soak = ["soak", &url, "--clients", "4", "-n", "400"];
    let report = bench(&[&soak[..], &["--bearer", "soak-secret"]].concat());
    assert_eq!(report["errors"], 0, "{report}");
    assert_eq!(report["ok"], 400, "{report}");
    for (kind, calls) in [("inline", 200), ("progress+log", 100), ("task", 100)] {
        assert_eq!(report["kinds"][kind]["calls"], calls, "{kind}: {report}");
    }
    assert!(report["requests"].as_u64() >= Some(500), "{report}");
    assert!(report["latency"]["p99_us"].as_f64().is_some(), "{report}");

    let output = Command::new(DRIVER)
        .args([
            "soak",
            &url,
            "--clients",
            "2",
            "-n",
            "10",
            "--bearer",
            "wrong",
            "--json",
        ])
        .output()
        .expect("the driver runs");
    assert!(!output.status.success(), "failures fail the run");
    let report: Value = serde_json::from_slice(&output.stdout).expect("a JSON summary");
    assert_eq!(
        report["errors_by_fault"],
        serde_json::json!({ "http 401": 10 }),
        "{report}"
    );
    let failures = report["failures"].as_array().expect("the failures, listed");
    assert_eq!(failures.len(), 10, "{report}");
    for failure in failures {
        let (started, ended) = (&failure["started_ms"], &failure["ended_ms"]);
        assert!(
            started.as_u64().is_some() && started.as_u64() <= ended.as_u64(),
            "{failure}"
        );
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("soak: halfway at="), "{stderr}");
}

#[test]
fn the_otlp_sink_takes_every_export_of_a_measured_server() {
    let dir = std::env::temp_dir().join(format!("mcp-bench-sink-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a directory");
    let port_file = dir.join("port");
    let sink = Command::new(DRIVER)
        .args(["otlp-sink", "--port-file"])
        .arg(&port_file)
        .stderr(Stdio::piped())
        .spawn()
        .expect("the sink runs");
    let port = loop {
        if let Ok(port) = std::fs::read_to_string(&port_file) {
            break port;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let output = Command::new(DRIVER)
        .args(["stdio", "--window", "16", "-n", "3000", "--json", "--"])
        .args([SERVER, "serve", "--stdio"])
        .env(
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            format!("http://127.0.0.1:{port}"),
        )
        .env("OTEL_SERVICE_NAME", "bench")
        .output()
        .expect("the driver runs");
    let log = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{log}");
    assert!(!log.contains("could not be exported"), "{log}");
    assert!(!log.contains("dropped"), "{log}");
    let stopped = Command::new("kill")
        .args(["-TERM", &sink.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(stopped.success());
    let taken = sink.wait_with_output().expect("the sink stops");
    let said = String::from_utf8_lossy(&taken.stderr);
    // 5,000 spans (the driver's 2,000 warm-up calls and its 3,000) of about 280 bytes, in
    // batches of at most 512, and the metrics at shutdown.
    let numbers: Vec<u64> = said
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|word| word.parse().ok())
        .collect();
    let [exports, bytes] = numbers[..] else {
        panic!("{said}")
    };
    assert!(exports >= 11, "{said}");
    assert!(bytes > 5_000 * 200, "{said}");
    let _ = std::fs::remove_dir_all(&dir);
}
