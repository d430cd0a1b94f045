//! Hostile messages against the quickstart server, over stdio and over streamable HTTP.
//!
//! Every file of `tests/hostile/` is one message; `tests/hostile/expected.txt` says what the
//! server must answer to it (the format is in `tests/hostile/README.md`). For each transport
//! one server process is started; each message is sent, its answer checked, and a normal
//! `calculator.add` call follows at once, whose exact answer shows that the server still
//! serves and lost nothing. At the end the server must still be running.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::OnceLock;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use mcp_tests::{HttpServer, Lines, mcp_validator, quickstart_bin, schema_errors};
use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

/// How long one answer may take.
const PATIENCE: Duration = Duration::from_secs(15);

/// How long a missing answer is waited for once a later message has been answered.
const GRACE: Duration = Duration::from_secs(2);

/// The protocol revision whose JSON-RPC envelopes the answers are checked against.
const REVISION: &str = "2025-11-25";

/// The corpus.
fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("hostile")
}

// ---------------------------------------------------------------------------------------
// The corpus and its expectations

/// What a message must get on one transport.
#[derive(Debug, Clone)]
struct Expect {
    outcome: Outcome,
    /// Answers expected (stdio only: a message holding raw newlines is several lines).
    answers: usize,
    /// The HTTP status, when it is not the one the outcome implies.
    status: Option<u16>,
    /// The id the answer must carry, when it is not the one read from the message.
    id: Option<Value>,
    /// The answer is known to fall outside MCP's schema (see the case's note).
    off_schema: bool,
}

#[derive(Debug, Clone)]
enum Outcome {
    /// A JSON-RPC error with this code.
    Error(i64),
    /// A result with `isError` and this `error_type` in its `_meta` (`ERROR_META`).
    ToolError(String),
    /// A result; each JSON pointer (into `result`) must hold its value.
    Result(Vec<(String, Value)>),
    /// No answer at all.
    Nothing,
    /// An HTTP status and no JSON-RPC answer (HTTP only).
    Status(u16),
}

#[derive(Debug)]
struct Case {
    file: String,
    message: Vec<u8>,
    stdio: Expect,
    http: Expect,
    note: String,
}

fn parse_expect(file: &str, text: &str) -> Expect {
    let mut words = text.split_whitespace();
    let bad = |why: &str| -> ! { panic!("expected.txt, {file}: {why} in `{text}`") };
    let kind = words.next().unwrap_or_else(|| bad("no outcome"));
    let mut expect = Expect {
        outcome: Outcome::Nothing,
        answers: 1,
        status: None,
        id: None,
        off_schema: false,
    };
    let mut checks = Vec::new();
    let mut argument = None;
    for word in words {
        if let Some(status) = word.strip_prefix("http=") {
            expect.status = Some(status.parse().unwrap_or_else(|_| bad("a bad status")));
        } else if let Some(id) = word.strip_prefix("id=") {
            expect.id = Some(serde_json::from_str(id).unwrap_or_else(|_| bad("a bad id")));
        } else if word == "off-schema" {
            expect.off_schema = true;
        } else if let Some(count) = word.strip_prefix('x').and_then(|n| n.parse().ok()) {
            expect.answers = count;
        } else if let Some((pointer, value)) =
            word.split_once('=').filter(|_| word.starts_with('/'))
        {
            let value = serde_json::from_str(value).unwrap_or_else(|_| bad("a bad value"));
            checks.push((pointer.to_owned(), value));
        } else if argument.is_none() {
            argument = Some(word);
        } else {
            bad("an unknown word");
        }
    }
    if !checks.is_empty() && kind != "result" {
        bad("pointers are checked in a result");
    }
    expect.outcome = match (kind, argument) {
        ("error", Some(code)) => Outcome::Error(code.parse().unwrap_or_else(|_| bad("a code"))),
        ("tool-error", Some(error_type)) => Outcome::ToolError(error_type.to_owned()),
        ("result", None) => Outcome::Result(checks),
        ("none", None) => {
            expect.answers = 0;
            Outcome::Nothing
        }
        ("status", Some(status)) => {
            Outcome::Status(status.parse().unwrap_or_else(|_| bad("a status")))
        }
        _ => bad("an unknown outcome"),
    };
    expect
}

/// Expands `@@REPEAT:N:TEXT@@` (TEXT repeated N times) in a template.
fn expand(template: &[u8]) -> Vec<u8> {
    const MARK: &[u8] = b"@@REPEAT:";
    let find = |haystack: &[u8], needle: &[u8]| {
        haystack
            .windows(needle.len())
            .position(|window| window == needle)
    };
    let mut out = Vec::new();
    let mut rest = template;
    while let Some(start) = find(rest, MARK) {
        out.extend_from_slice(&rest[..start]);
        rest = &rest[start + MARK.len()..];
        let colon = find(rest, b":").expect("@@REPEAT:N:TEXT@@");
        let count: usize = std::str::from_utf8(&rest[..colon])
            .ok()
            .and_then(|n| n.parse().ok())
            .expect("a count in @@REPEAT:N:TEXT@@");
        rest = &rest[colon + 1..];
        let end = find(rest, b"@@").expect("@@REPEAT:N:TEXT@@ is closed");
        out.extend_from_slice(&rest[..end].repeat(count));
        rest = &rest[end + 2..];
    }
    out.extend_from_slice(rest);
    out
}

/// Every case of the corpus, each file with exactly one line of expectations.
fn corpus() -> Vec<Case> {
    let dir = corpus_dir();
    let listing = std::fs::read_to_string(dir.join("expected.txt")).expect("expected.txt");
    let mut cases = Vec::new();
    for line in listing.lines() {
        let (line, note) = match line.find('#') {
            Some(at) => (&line[..at], line[at + 1..].trim()),
            None => (line, ""),
        };
        // An answer is decided, never pinned as it happens to be.
        assert!(
            !note.contains("current behaviour") && !note.contains("questionable"),
            "expected.txt: `{line}` pins an answer as questionable: decide it, and say why"
        );
        let Some((file, spec)) = line.trim().split_once(char::is_whitespace) else {
            assert!(
                line.trim().is_empty(),
                "expected.txt: `{line}` has no outcome"
            );
            continue;
        };
        let (stdio, http) = match spec.split_once(';') {
            Some((stdio, http)) => {
                let stdio = stdio.trim().strip_prefix("stdio:").expect("`stdio:` first");
                let http = http.trim().strip_prefix("http:").expect("`http:` second");
                (parse_expect(file, stdio), parse_expect(file, http))
            }
            None => (parse_expect(file, spec), parse_expect(file, spec)),
        };
        let mut message =
            std::fs::read(dir.join(file)).unwrap_or_else(|err| panic!("{file}: {err}"));
        if message.last() == Some(&b'\n') {
            message.pop();
        }
        if file.ends_with(".tmpl") {
            message = expand(&message);
        }
        cases.push(Case {
            file: file.to_owned(),
            message,
            stdio,
            http,
            note: note.to_owned(),
        });
    }
    let listed: BTreeSet<&str> = cases.iter().map(|case| case.file.as_str()).collect();
    assert_eq!(
        listed.len(),
        cases.len(),
        "a file is listed twice in expected.txt"
    );
    for entry in std::fs::read_dir(&dir).expect("the corpus") {
        let name = entry
            .expect("an entry")
            .file_name()
            .into_string()
            .expect("a name");
        if !name.starts_with('.') && name != "expected.txt" && name != "README.md" {
            assert!(
                listed.contains(name.as_str()),
                "{name} is not in expected.txt"
            );
        }
    }
    cases
}

// ---------------------------------------------------------------------------------------
// Checking an answer

/// A request id: its text as sent, and what it means, to compare ids by.
#[derive(Debug)]
struct Id {
    text: String,
    value: IdValue,
}

/// The string, or the number's exact decimal value.
#[derive(Debug, PartialEq)]
enum IdValue {
    String(String),
    /// Sign, digits without leading or trailing zeros, and exponent.
    Number(bool, String, i64),
}

/// The exact value of a JSON number's text, so that ids compare as numbers, exactly.
fn decimal(text: &str) -> Option<(bool, String, i64)> {
    let (negative, text) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa, exponent) = match text.split_once(['e', 'E']) {
        Some((mantissa, exponent)) => (mantissa, exponent.parse::<i64>().ok()?),
        None => (text, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let mut digits = format!("{whole}{fraction}");
    let mut exponent = exponent - i64::try_from(fraction.len()).ok()?;
    if !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let trimmed = digits.trim_start_matches('0').len();
    digits.drain(..digits.len() - trimmed);
    while digits.ends_with('0') {
        digits.pop();
        exponent += 1;
    }
    if digits.is_empty() {
        return Some((false, digits, 0));
    }
    Some((negative, digits, exponent))
}

fn id_of(raw: &RawValue) -> Option<Id> {
    let value = match serde_json::from_str::<Value>(raw.get()).ok()? {
        Value::String(id) => IdValue::String(id),
        Value::Number(_) => {
            let (negative, digits, exponent) = decimal(raw.get())?;
            IdValue::Number(negative, digits, exponent)
        }
        _ => return None,
    };
    Some(Id {
        text: raw.get().to_owned(),
        value,
    })
}

/// The id of `message` as sent, when it is a string or a number; `None` when there is none
/// or it cannot be read.
fn request_id(message: &[u8]) -> Option<Id> {
    #[derive(Deserialize)]
    struct Envelope<'a> {
        #[serde(borrow)]
        id: Option<&'a RawValue>,
    }
    // Only a message that is JSON (as serde_json reads it) has an id to read.
    let value: Value = serde_json::from_slice(message).ok()?;
    match serde_json::from_slice::<Envelope<'_>>(message) {
        Ok(envelope) => envelope.id.and_then(id_of),
        // Duplicate members, for one: read as a tree, the last one wins.
        Err(_) => id_of(&serde_json::value::to_raw_value(value.get("id")?).ok()?),
    }
}

/// The MCP schema validators of a JSON-RPC result and error, made once.
fn validators() -> &'static (jsonschema::Validator, jsonschema::Validator) {
    static VALIDATORS: OnceLock<(jsonschema::Validator, jsonschema::Validator)> = OnceLock::new();
    VALIDATORS.get_or_init(|| {
        (
            mcp_validator(REVISION, "JSONRPCResultResponse"),
            mcp_validator(REVISION, "JSONRPCErrorResponse"),
        )
    })
}

/// What is wrong with `answer` to `message`, expected to be `expect`; `None` when right.
fn judge(answer: &str, message: &[u8], expect: &Expect) -> Option<String> {
    let wrong = |why: String| Some(format!("{why}\n      answer: {}", clip(answer)));
    let value: Value = match serde_json::from_str(answer) {
        Ok(value) => value,
        Err(err) => return wrong(format!("the answer is not JSON ({err})")),
    };
    if value["jsonrpc"] != "2.0" {
        return wrong("the answer lacks `jsonrpc: \"2.0\"`".to_owned());
    }
    // The id: the one asked for, the request's own, or none at all.
    #[derive(Deserialize)]
    struct Envelope<'a> {
        #[serde(borrow)]
        id: Option<&'a RawValue>,
    }
    let answered = serde_json::from_str::<Envelope<'_>>(answer)
        .ok()
        .and_then(|envelope| envelope.id)
        .filter(|raw| raw.get() != "null");
    let expected_id = match &expect.id {
        Some(id) => id_of(&serde_json::value::to_raw_value(id).expect("an id")),
        None => request_id(message),
    };
    match (&expected_id, answered) {
        (Some(expected), Some(raw)) if id_of(raw).is_some_and(|id| id.value == expected.value) => {}
        (None, None) => {}
        (expected, raw) => {
            return wrong(format!(
                "the answer's id is {} where {} was expected",
                raw.map_or("missing", |raw| raw.get()),
                expected.as_ref().map_or("none", |id| id.text.as_str())
            ));
        }
    }
    let (result_schema, error_schema) = validators();
    match &expect.outcome {
        Outcome::Error(code) => {
            let error = &value["error"];
            if value.get("result").is_some() || !error.is_object() {
                return wrong(format!("error {code} expected"));
            }
            if error["code"].as_i64() != Some(*code) {
                return wrong(format!("error {code} expected"));
            }
            if !error["message"].is_string() {
                return wrong("the error has no message".to_owned());
            }
            if !expect.off_schema {
                let errors = schema_errors(error_schema, &value);
                if !errors.is_empty() {
                    return wrong(format!("not an MCP JSONRPCErrorResponse: {errors:?}"));
                }
            }
        }
        Outcome::ToolError(_) | Outcome::Result(_) => {
            let result = &value["result"];
            if value.get("error").is_some() || !result.is_object() {
                return wrong("a result expected".to_owned());
            }
            if !expect.off_schema {
                let errors = schema_errors(result_schema, &value);
                if !errors.is_empty() {
                    return wrong(format!("not an MCP JSONRPCResultResponse: {errors:?}"));
                }
            }
            match &expect.outcome {
                Outcome::ToolError(error_type) => {
                    if result["isError"] != true {
                        return wrong("a result with `isError: true` expected".to_owned());
                    }
                    if result["_meta"][mcp_runtime::ERROR_META]["error_type"] != error_type.as_str()
                    {
                        return wrong(format!("error_type {error_type} expected"));
                    }
                }
                Outcome::Result(checks) => {
                    if result["isError"] == true {
                        return wrong("a result without `isError` expected".to_owned());
                    }
                    for (pointer, expected) in checks {
                        if result.pointer(pointer) != Some(expected) {
                            return wrong(format!("result{pointer} should be {expected}"));
                        }
                    }
                }
                _ => unreachable!(),
            }
        }
        Outcome::Nothing | Outcome::Status(_) => {
            return wrong("no JSON-RPC answer expected".to_owned());
        }
    }
    None
}

/// The start of a long text, for messages.
fn clip(text: &str) -> String {
    match text.char_indices().nth(300) {
        Some((at, _)) => format!("{}… ({} bytes)", &text[..at], text.len()),
        None => text.to_owned(),
    }
}

fn show(message: &[u8]) -> String {
    clip(&String::from_utf8_lossy(message))
}

/// The normal call sent after case `n`, with an id of its own: the message and the id.
fn follow_up(n: usize) -> (String, Value) {
    let (id, a, b) = (1_000_000 + n, n as i64 * 7, 1_000_000_007_i64);
    let message = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"calculator.add","arguments":{{"a":{a},"b":{b}}}}}}}"#
    );
    (message, Value::from(id))
}

/// What is wrong with the follow-up's answer, if anything.
fn judge_follow_up(n: usize, answer: &Value) -> Option<String> {
    let (_, id) = follow_up(n);
    let sum = n as i64 * 7 + 1_000_000_007;
    let right = answer["jsonrpc"] == "2.0"
        && answer["id"] == id
        && answer.get("error").is_none()
        && answer["result"]["isError"] != true
        && answer["result"]["structuredContent"] == serde_json::json!({ "sum": sum });
    (!right).then(|| format!("the follow-up call (sum {sum}) was answered wrongly: {answer}"))
}

// ---------------------------------------------------------------------------------------
// The server

/// The quickstart serving stdio, killed when dropped; its standard error kept for failure
/// reports.
struct Server {
    child: Child,
    stderr: Lines,
}

impl Server {
    fn stdio() -> Self {
        let mut child = Command::new(quickstart_bin())
            .args(["serve", "--stdio"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the quickstart starts");
        let stderr = Lines::read(BufReader::new(child.stderr.take().expect("stderr")));
        Self { child, stderr }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The last lines a server wrote on standard error so far.
fn last_words(stderr: &mut Lines) -> String {
    let said = stderr.so_far();
    let lines: Vec<&str> = said.lines().collect();
    lines[lines.len().saturating_sub(20)..].join("\n")
}

/// `None` while the server runs; how it ended otherwise.
fn exited(server: &mut Child) -> Option<String> {
    match server.try_wait() {
        Ok(None) => None,
        Ok(Some(status)) => Some(format!("the server exited: {status}")),
        Err(err) => Some(format!("the server cannot be waited for: {err}")),
    }
}

/// Fails the test with every failure found, each naming its case.
fn report(transport: &str, cases: usize, failures: &[String], stderr: &mut Lines) {
    assert!(
        failures.is_empty(),
        "{transport}: {} failure(s) in {cases} cases:\n\n{}\n\nthe server's last words:\n{}",
        failures.len(),
        failures.join("\n\n"),
        last_words(stderr)
    );
}

// ---------------------------------------------------------------------------------------
// stdio

struct StdioClient {
    server: Server,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl StdioClient {
    fn start() -> Self {
        let mut server = Server::stdio();
        let stdin = server.child.stdin.take().expect("stdin");
        let stdout = server.child.stdout.take().expect("stdout");
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            let mut stdout = BufReader::new(stdout);
            let mut bytes = Vec::new();
            while let Ok(1..) = stdout.read_until(b'\n', &mut bytes) {
                if bytes.last() == Some(&b'\n') {
                    bytes.pop();
                }
                // Output that is not UTF-8 is kept in a form no answer can be mistaken for.
                let line = String::from_utf8(std::mem::take(&mut bytes)).unwrap_or_else(|err| {
                    format!("(not UTF-8) {}", String::from_utf8_lossy(err.as_bytes()))
                });
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Self {
            server,
            stdin,
            lines,
        }
    }

    fn send(&mut self, message: &[u8]) -> std::io::Result<()> {
        self.stdin.write_all(message)?;
        self.stdin.write_all(b"\n")?;
        self.stdin.flush()
    }

    /// Every line read until the follow-up `n` is answered and `others` more came, or a
    /// little while after the follow-up's answer when fewer come (an answer to a call
    /// awaited on the runtime may come after a later, quicker one). An error when the
    /// follow-up is not answered in time.
    fn read_until_follow_up(
        &self,
        n: usize,
        others: usize,
    ) -> Result<(Vec<String>, Value), String> {
        let (_, id) = follow_up(n);
        let mut deadline = Instant::now() + PATIENCE;
        let (mut answers, mut follow) = (Vec::new(), None);
        while follow.is_none() || answers.len() < others {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = match self.lines.recv_timeout(left) {
                Ok(line) => line,
                Err(_) if follow.is_some() => break,
                Err(RecvTimeoutError::Timeout) => {
                    return Err(format!(
                        "the follow-up call was not answered within {PATIENCE:?}; other \
                         answers: {answers:?}"
                    ));
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(format!(
                        "the server closed its output; other answers: {answers:?}"
                    ));
                }
            };
            match serde_json::from_str::<Value>(&line) {
                Ok(value) if value.get("id") == Some(&id) && follow.is_none() => {
                    follow = Some(value);
                    deadline = deadline.min(Instant::now() + GRACE);
                }
                _ => answers.push(line),
            }
        }
        Ok((answers, follow.expect("the follow-up")))
    }
}

#[test]
fn hostile_messages_over_stdio() {
    run_stdio(corpus());
}

#[test]
fn hostile_messages_over_http() {
    run_http(corpus());
}

fn run_stdio(cases: Vec<Case>) {
    let mut stdio = StdioClient::start();
    let mut failures = Vec::new();
    // Whether the server may still answer: a lost answer or a dead server ends the run.
    let mut serving = true;
    for (n, case) in cases.iter().enumerate() {
        let expect = &case.stdio;
        let (follow, _) = follow_up(n);
        if let Err(err) = stdio
            .send(&case.message)
            .and_then(|()| stdio.send(follow.as_bytes()))
        {
            failures.push(format!("{}: cannot write to the server: {err}", case.file));
            serving = false;
            break;
        }
        let (answers, follow) = match stdio.read_until_follow_up(n, expect.answers) {
            Ok(read) => read,
            Err(err) => {
                failures.push(format!("{}: {err}", case.file));
                serving = false;
                break;
            }
        };
        let mut wrong = Vec::new();
        if answers.len() != expect.answers {
            wrong.push(format!(
                "{} answer(s) where {} expected: {answers:?}",
                answers.len(),
                expect.answers
            ));
        } else {
            // A message holding raw newlines is one message per line.
            let lines: Vec<&[u8]> = case
                .message
                .split(|&b| b == b'\n')
                .filter(|line| !line.iter().all(u8::is_ascii_whitespace))
                .collect();
            for (i, answer) in answers.iter().enumerate() {
                let sent = if lines.len() == answers.len() {
                    lines[i]
                } else {
                    &case.message[..]
                };
                wrong.extend(judge(answer, sent, expect));
            }
        }
        wrong.extend(judge_follow_up(n, &follow));
        for why in wrong {
            failures.push(format!(
                "{} ({}):\n      sent: {}\n      {why}",
                case.file,
                case.note,
                show(&case.message)
            ));
        }
        if let Some(exited) = exited(&mut stdio.server.child) {
            failures.push(format!("{}: {exited}", case.file));
            serving = false;
            break;
        }
    }
    // One more call: nothing may come before its answer (a late answer to the last case).
    if serving {
        let last = cases.len();
        let (follow, _) = follow_up(last);
        let read = stdio
            .send(follow.as_bytes())
            .map_err(|err| err.to_string())
            .and_then(|()| stdio.read_until_follow_up(last, 0));
        match read {
            Ok((answers, follow)) => {
                if !answers.is_empty() {
                    failures.push(format!("at the end: answers no one asked for: {answers:?}"));
                }
                failures.extend(judge_follow_up(last, &follow));
            }
            Err(err) => failures.push(format!("at the end: {err}")),
        }
    }
    if let Some(exited) = exited(&mut stdio.server.child) {
        failures.push(format!("at the end: {exited}"));
    }
    report("stdio", cases.len(), &failures, &mut stdio.server.stderr);

    // At end of input the server stops, cleanly.
    let StdioClient {
        mut server, stdin, ..
    } = stdio;
    drop(stdin);
    let deadline = Instant::now() + PATIENCE;
    let status = loop {
        if let Some(status) = server.child.try_wait().expect("wait") {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "still running after end of input"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(
        status.success(),
        "{status}: {}",
        last_words(&mut server.stderr)
    );
}

// ---------------------------------------------------------------------------------------
// HTTP

/// An HTTP answer: status, content type, body.
struct Reply {
    status: u16,
    content_type: String,
    body: Vec<u8>,
}

/// One `POST /mcp` of `body` on a fresh connection. The body is written while the answer
/// is read, as a server may answer (413) before it has read the whole body.
fn post(address: &str, body: &[u8]) -> Result<Reply, String> {
    let stream = TcpStream::connect(address).map_err(|err| format!("connect: {err}"))?;
    stream.set_read_timeout(Some(PATIENCE)).ok();
    stream.set_write_timeout(Some(PATIENCE)).ok();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n",
        body.len()
    );
    let mut writer = stream.try_clone().map_err(|err| format!("HTTP: {err}"))?;
    std::thread::scope(|scope| {
        scope.spawn(move || {
            // A server that answers early may close before the body is all written.
            let _ = writer
                .write_all(head.as_bytes())
                .and_then(|()| writer.write_all(body))
                .and_then(|()| writer.flush());
        });
        let mut reader = BufReader::new(stream);
        loop {
            let (status, headers) = read_head(&mut reader)?;
            if status != 100 {
                return read_reply(reader, status, &headers);
            }
        }
    })
}

/// The status line and headers of one HTTP response.
fn read_head(reader: &mut impl BufRead) -> Result<(u16, Vec<(String, String)>), String> {
    let mut line = String::new();
    reader
        .read_line(&mut line)
        .map_err(|err| format!("reading the status line: {err}"))?;
    let status = line
        .split_whitespace()
        .nth(1)
        .and_then(|status| status.parse().ok())
        .ok_or_else(|| format!("not an HTTP status line: {line:?}"))?;
    let mut headers = Vec::new();
    loop {
        line.clear();
        reader
            .read_line(&mut line)
            .map_err(|err| format!("reading the headers: {err}"))?;
        let line = line.trim_end();
        if line.is_empty() {
            return Ok((status, headers));
        }
        if let Some((name, value)) = line.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
        }
    }
}

fn header(headers: &[(String, String)], name: &str) -> Option<String> {
    headers
        .iter()
        .find(|(key, _)| key == name)
        .map(|(_, value)| value.clone())
}

/// Reads the body: `Content-Length` bytes, or else to the end of the connection,
/// de-chunked when it was sent in chunks.
fn read_reply(
    mut reader: impl Read,
    status: u16,
    headers: &[(String, String)],
) -> Result<Reply, String> {
    let mut raw = Vec::new();
    let read = match header(headers, "content-length").and_then(|n| n.parse().ok()) {
        Some(length) => {
            raw.resize(length, 0);
            reader.read_exact(&mut raw)
        }
        None => reader.read_to_end(&mut raw).map(drop),
    };
    read.map_err(|err| format!("reading the body: {err}"))?;
    let chunked =
        header(headers, "transfer-encoding").is_some_and(|value| value.contains("chunked"));
    Ok(Reply {
        status,
        content_type: header(headers, "content-type").unwrap_or_default(),
        body: if chunked { dechunk(&raw)? } else { raw },
    })
}

fn dechunk(mut raw: &[u8]) -> Result<Vec<u8>, String> {
    let mut body = Vec::new();
    loop {
        let end = raw
            .windows(2)
            .position(|window| window == b"\r\n")
            .ok_or("a chunk size line")?;
        let size = std::str::from_utf8(&raw[..end])
            .ok()
            .and_then(|line| usize::from_str_radix(line.split(';').next()?.trim(), 16).ok())
            .ok_or("a chunk size")?;
        raw = &raw[end + 2..];
        if size == 0 {
            return Ok(body);
        }
        body.extend_from_slice(raw.get(..size).ok_or("a whole chunk")?);
        raw = raw.get(size + 2..).ok_or("a chunk's end")?;
    }
}

/// The JSON-RPC messages of a reply: its JSON body, or its SSE events' data.
fn messages(reply: &Reply) -> Vec<String> {
    let body = String::from_utf8_lossy(&reply.body).into_owned();
    if reply.content_type.starts_with("text/event-stream") {
        body.split("\n\n")
            .filter_map(|event| {
                let data: Vec<&str> = event
                    .lines()
                    .filter_map(|line| line.strip_prefix("data:"))
                    .map(str::trim_start)
                    .collect();
                (!data.is_empty()).then(|| data.join("\n"))
            })
            .collect()
    } else if body.trim().is_empty() {
        Vec::new()
    } else {
        vec![body]
    }
}

/// What is wrong with the reply to `message`, if anything.
fn judge_http(reply: &Reply, message: &[u8], expect: &Expect) -> Option<String> {
    let expected_status = match (&expect.outcome, expect.status) {
        (_, Some(status)) => status,
        (Outcome::Status(status), None) => *status,
        (Outcome::Error(-32700 | -32600), None) => 400,
        (Outcome::Nothing, None) => 202,
        _ => 200,
    };
    let body = show(&reply.body);
    if reply.status != expected_status {
        return Some(format!(
            "HTTP {} where {expected_status} expected\n      body: {body}",
            reply.status
        ));
    }
    let answers = messages(reply);
    match &expect.outcome {
        Outcome::Status(_) => None,
        Outcome::Nothing if answers.is_empty() => None,
        Outcome::Nothing => Some(format!("no answer expected\n      body: {body}")),
        _ => {
            let json = reply.content_type.starts_with("application/json")
                || reply.content_type.starts_with("text/event-stream");
            if !json {
                return Some(format!(
                    "content type `{}`\n      body: {body}",
                    reply.content_type
                ));
            }
            // Only the last message answers; any before it are notifications.
            let Some(answer) = answers.last() else {
                return Some("no answer".to_owned());
            };
            judge(answer, message, expect)
        }
    }
}

fn run_http(cases: Vec<Case>) {
    let mut server = HttpServer::spawn(quickstart_bin(), &[]);
    let address = server.address.to_string();
    let mut failures = Vec::new();
    let mut serving = true;
    for (n, case) in cases.iter().enumerate() {
        let mut wrong = Vec::new();
        match post(&address, &case.message) {
            Ok(reply) => wrong.extend(judge_http(&reply, &case.message, &case.http)),
            Err(err) => wrong.push(err),
        }
        let (follow, _) = follow_up(n);
        match post(&address, follow.as_bytes()) {
            Ok(reply) if reply.status == 200 => {
                match serde_json::from_slice::<Value>(&reply.body) {
                    Ok(answer) => wrong.extend(judge_follow_up(n, &answer)),
                    Err(err) => wrong.push(format!("the follow-up's answer is not JSON: {err}")),
                }
            }
            Ok(reply) => wrong.push(format!(
                "the follow-up call got HTTP {}: {}",
                reply.status,
                show(&reply.body)
            )),
            Err(err) => {
                wrong.push(format!("the follow-up call: {err}"));
                // Nothing more to learn from a server that no longer answers.
                serving = false;
            }
        }
        for why in wrong {
            failures.push(format!(
                "{} ({}):\n      sent: {}\n      {why}",
                case.file,
                case.note,
                show(&case.message)
            ));
        }
        if let Some(exited) = exited(&mut server.child) {
            failures.push(format!("{}: {exited}", case.file));
            break;
        }
        if !serving {
            break;
        }
    }
    if let Some(exited) = exited(&mut server.child) {
        failures.push(format!("at the end: {exited}"));
    }
    report("HTTP", cases.len(), &failures, &mut server.stderr);
}

#[test]
fn the_corpus_is_large_and_every_case_is_expected() {
    let cases = corpus();
    assert!(cases.len() >= 60, "{} cases", cases.len());
    for case in &cases {
        assert!(
            !matches!(case.stdio.outcome, Outcome::Status(_)),
            "{}: a bare status is an HTTP outcome",
            case.file
        );
        assert!(
            case.http.answers <= 1,
            "{}: several answers to one message is a stdio outcome",
            case.file
        );
    }
}
