//! The quickstart binary as a user runs it: `list` and `call`, their output and exit codes.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

fn quickstart(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_quickstart"))
        .args(args)
        .output()
        .expect("quickstart runs")
}

/// Runs `call`, checks the exit code and returns the printed `MCPToolResult`.
fn call(name: &str, arguments: &str, expected_code: i32) -> Value {
    let output = quickstart(&["call", name, arguments]);
    assert_eq!(
        output.status.code(),
        Some(expected_code),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("stdout is one JSON result")
}

#[test]
fn list_prints_every_name_in_order_a_kind_at_a_time() {
    let output = quickstart(&["list"]);
    assert!(output.status.success());
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        "calculator.add\nfile_utility.read_file_content\nfile_utility.write_file_content\n\
         text.grep\ntext.slow_count\ntext.summarize\ntext.word_count\nquickstart://about\nquickstart://tools/{name}\ncode_review\n"
    );
    let tools = quickstart(&["list", "--kind", "tool"]);
    assert_eq!(
        String::from_utf8(tools.stdout).unwrap(),
        "calculator.add\nfile_utility.read_file_content\nfile_utility.write_file_content\n\
         text.grep\ntext.slow_count\ntext.summarize\ntext.word_count\n"
    );
    let prompts = quickstart(&["list", "--kind", "prompt"]);
    assert_eq!(String::from_utf8(prompts.stdout).unwrap(), "code_review\n");
}

#[test]
fn read_prints_a_resource_and_prompt_renders_one() {
    let about = quickstart(&["read", "quickstart://about"]);
    assert!(about.status.success());
    assert!(
        String::from_utf8(about.stdout)
            .unwrap()
            .starts_with("# quickstart")
    );
    let spec = quickstart(&["read", "quickstart://tools/text.word_count"]);
    assert!(
        String::from_utf8(spec.stdout)
            .unwrap()
            .starts_with("## Tool: `text.word_count`")
    );
    let missing = quickstart(&["read", "quickstart://tools/text.nope"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&missing.stderr)
            .contains("resource not found: quickstart://tools/text.nope")
    );
    let review = quickstart(&[
        "prompt",
        "code_review",
        r#"{"code": "x = 1", "language": "python"}"#,
    ]);
    assert!(review.status.success());
    let text = String::from_utf8(review.stdout).unwrap();
    assert!(
        text.starts_with("[user] Please review this code, written in python."),
        "{text}"
    );
    assert!(text.contains("```python\nx = 1\n```"), "{text}");
    let no_code = quickstart(&["prompt", "code_review", "{}"]);
    assert_eq!(no_code.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&no_code.stderr).contains("missing required argument `code`"));
}

#[test]
fn add_succeeds_with_exit_code_0() {
    let result = call("calculator.add", r#"{"a": 2, "b": 40}"#, 0);
    assert_eq!(
        result,
        json!({ "status": "success", "data": { "sum": 42 }, "error": null, "explanation": null })
    );
}

#[test]
fn add_overflow_is_a_failure_with_exit_code_1() {
    let result = call(
        "calculator.add",
        &format!(r#"{{"a": {}, "b": 1}}"#, i64::MAX),
        1,
    );
    assert_eq!(result["status"], "failure");
    assert_eq!(result["error"]["error_type"], "ValidationError");
    assert!(result["data"].is_null());
}

#[test]
fn add_with_ill_typed_argument_names_it() {
    let result = call("calculator.add", r#"{"a": 1.5, "b": 1}"#, 1);
    assert_eq!(result["error"]["error_type"], "ValidationError");
    let message = result["error"]["error_message"].as_str().unwrap();
    assert!(message.contains("`/a`"), "{message}");
    assert_eq!(result["error"]["error_details"]["errors"][0]["path"], "/a");
}

#[test]
fn add_with_missing_argument_names_it() {
    let result = call("calculator.add", r#"{"a": 1}"#, 1);
    let message = result["error"]["error_message"].as_str().unwrap();
    assert!(
        message.contains("\"b\" is a required property"),
        "{message}"
    );
}

#[test]
fn word_count_counts_words_and_chars() {
    let result = call("text.word_count", r#"{"text": "the quick  brown fox"}"#, 0);
    assert_eq!(result["data"], json!({ "words": 4, "chars": 20 }));
}

#[test]
fn read_file_content_reads_and_truncates() {
    let dir = std::env::temp_dir().join(format!("quickstart-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("hello.txt");
    std::fs::write(&path, "héllo world").unwrap();
    let path = path.to_str().unwrap();

    let whole = call(
        "file_utility.read_file_content",
        &json!({ "file_path": path }).to_string(),
        0,
    );
    assert_eq!(
        whole["data"],
        json!({ "file_content": "héllo world", "truncated": false })
    );

    let cut = call(
        "file_utility.read_file_content",
        &json!({ "file_path": path, "max_chars": 2 }).to_string(),
        0,
    );
    assert_eq!(
        cut["data"],
        json!({ "file_content": "hé", "truncated": true })
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn read_missing_file_is_file_not_found_error() {
    let result = call(
        "file_utility.read_file_content",
        r#"{"file_path": "/nonexistent/quickstart/missing.txt"}"#,
        1,
    );
    assert_eq!(result["status"], "failure");
    assert_eq!(result["error"]["error_type"], "FileNotFoundError");
    let message = result["error"]["error_message"].as_str().unwrap();
    assert!(
        message.contains("/nonexistent/quickstart/missing.txt"),
        "{message}"
    );
}

#[test]
fn unknown_tool_is_resource_not_found_with_exit_code_1() {
    let result = call("calculator.sub", "{}", 1);
    assert_eq!(result["error"]["error_type"], "ResourceNotFound");
}

#[test]
fn arguments_that_are_not_json_are_a_usage_error() {
    let output = quickstart(&["call", "calculator.add", "{a: 1"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("not valid JSON"), "{stderr}");
}

#[test]
fn invalid_tool_name_is_a_usage_error() {
    let output = quickstart(&["call", "Calculator.Add", "{}"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("tool_name"), "{stderr}");
}

#[test]
fn arguments_can_come_from_standard_input() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_quickstart"))
        .args(["call", "calculator.add", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(br#"{"a": 1, "b": 2}"#)
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    let result: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(result["data"]["sum"], 3);
}

#[test]
fn text_flag_prints_the_seed_003_form() {
    let output = quickstart(&["call", "text.word_count", r#"{"text": "a b"}"#, "--text"]);
    assert!(output.status.success());
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        "[OK] Tool executed successfully:\n{\"words\":2,\"chars\":3}\n"
    );
}

#[test]
fn text_flag_prints_a_failure_in_the_seed_003_form_without_an_empty_output_line() {
    let output = quickstart(&[
        "call",
        "calculator.add",
        r#"{"a": 9223372036854775807, "b": 1}"#,
        "--text",
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        "[FAIL] Tool execution failed:\n\
         Error: ValidationError: 9223372036854775807 + 1 does not fit in a 64-bit integer\n"
    );
}

#[test]
fn serve_stdio_answers_and_stops_on_sigterm() {
    use std::io::{BufRead, BufReader};

    let mut child = Command::new(env!("CARGO_BIN_EXE_quickstart"))
        .args(["serve", "--stdio"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(
        stdin,
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"calculator.add","arguments":{{"a":1,"b":2}}}}}}"#
    )
    .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    let answer: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(answer["result"]["structuredContent"], json!({ "sum": 3 }));

    // Standard input stays open: only the signal stops the server.
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "still running after SIGTERM"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert!(status.success(), "{status:?}");
    drop(stdin);
}

#[test]
fn list_json_is_the_manifest_with_schemas() {
    let output = quickstart(&["list", "--format", "json"]);
    assert!(output.status.success());
    let manifest: Value = serde_json::from_slice(&output.stdout).unwrap();
    let tools = manifest["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 7);
    let add = &tools[0];
    assert_eq!(add["name"], "calculator.add");
    assert_eq!(add["version"], "1.0.0");
    assert_eq!(add["category"], "math");
    assert_eq!(add["annotations"]["readOnly"], true);
    assert_eq!(add["inputSchema"]["required"], json!(["a", "b"]));
    assert_eq!(add["outputSchema"]["required"], json!(["sum"]));
}

#[test]
fn list_filters_by_category_and_formats_as_markdown() {
    let output = quickstart(&["list", "--format", "markdown", "--category", "filesystem"]);
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        text.starts_with("| Tool | Version | Category | Description |"),
        "{text}"
    );
    assert!(text.contains("`file_utility.read_file_content`"), "{text}");
    assert!(!text.contains("calculator.add"), "{text}");
    let table =
        String::from_utf8(quickstart(&["list", "--format", "table", "--kind", "tool"]).stdout)
            .unwrap();
    assert!(table.starts_with("NAME "), "{table}");
    // A header and a line per tool; then the sandboxed tool's policy.
    assert_eq!(table.lines().count(), 8 + 3, "{table}");
    assert!(
        table.contains("text.grep       network none, memory 256 MiB, 8 processes, write $SCRATCH"),
        "{table}"
    );
}

#[test]
fn schema_prints_the_input_or_the_portable_output_schema() {
    let input: Value =
        serde_json::from_slice(&quickstart(&["schema", "text.word_count"]).stdout).unwrap();
    assert_eq!(input["required"], json!(["text"]));
    let output = quickstart(&["schema", "text.word_count", "--output", "--portable"]);
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(!text.contains("$ref") && !text.contains("$defs"), "{text}");
    let schema: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(schema["required"], json!(["words", "chars"]));
    assert_eq!(
        quickstart(&["schema", "no.such_tool"]).status.code(),
        Some(2)
    );
}

#[test]
fn check_passes_on_the_quickstart() {
    let output = quickstart(&["check"]);
    assert!(output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("checked 7 tool(s), 1 resource(s), 1 template(s), 1 prompt(s): 0 error(s)"),
        "{stderr}"
    );
}
