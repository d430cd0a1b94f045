//! What `Registry::call` does around a tool: the input schema, panics, timeouts,
//! cancellation, the dangerous-tool policy, the context, the audit event, the output
//! schema, and many calls at once.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcp_runtime::{
    AUDIT_TARGET, CallOptions, CancellationToken, ErrorType, MCPToolCall, MCPToolResult, Registry,
    ToolContext, ToolDefinition, ToolError, ToolStatus, mcp_tool, schema,
};
use serde_json::{Value, json};

/// Takes constrained arguments.
#[mcp_tool(namespace = "exec", inline)]
fn constrained(
    /// Between 1 and 10.
    #[schemars(range(min = 1, max = 10))]
    level: u8,
    /// Lower-case letters only.
    #[schemars(regex(pattern = r"^[a-z]+$"))]
    code: String,
    /// At most two.
    #[schemars(length(max = 2))]
    labels: Vec<String>,
) -> u8 {
    level + code.len() as u8 + labels.len() as u8
}

/// Takes plain arguments.
#[mcp_tool(namespace = "exec", inline)]
fn plain(a: i64, b: Option<String>, c: Vec<u8>) -> i64 {
    a + b.map_or(0, |b| b.len() as i64) + c.len() as i64
}

/// Takes an argument under an alias: types alone, so its calls skip the schema.
#[mcp_tool(namespace = "exec", inline)]
fn aliased(
    /// Whether to shout.
    #[serde(alias = "loud")]
    shout: bool,
) -> bool {
    shout
}

/// A place, whose fields have aliases and which refuses unknown fields.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct Spot {
    /// Across.
    #[serde(alias = "across")]
    x: i32,
    /// Down.
    y: i32,
}

/// A move, one variant of which has an alias.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Move {
    /// By so much.
    #[serde(alias = "shift")]
    By(i32),
    /// Nowhere.
    Stay,
}

/// Takes types with aliases inside: their closed objects make its calls go through the schema.
#[mcp_tool(namespace = "exec", inline)]
fn aliased_inside(
    /// Where.
    spot: Spot,
    /// How it moves.
    step: Option<Move>,
) -> i32 {
    let by = match step {
        Some(Move::By(by)) => by,
        Some(Move::Stay) | None => 0,
    };
    spot.x + spot.y + by
}

/// A span of pages.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct Pages {
    /// The first page.
    from: u32,
    /// The last page.
    to: u32,
}

/// Takes objects and arrays, beside a string and a boolean.
#[mcp_tool(namespace = "exec", inline)]
fn spans(
    /// The main span.
    span: Pages,
    /// Labels.
    labels: Vec<String>,
    /// More spans.
    more: Option<Vec<Pages>>,
    /// A note, any text.
    note: Option<String>,
    /// A switch.
    flag: Option<bool>,
) -> String {
    let pages: u32 = std::iter::once(&span)
        .chain(more.iter().flatten())
        .map(|span| span.to - span.from + 1)
        .sum();
    format!(
        "{pages} pages, {} labels, note {:?}, flag {flag:?}",
        labels.len(),
        note.unwrap_or_default()
    )
}

static ASYNC_DROPPED: AtomicBool = AtomicBool::new(false);

struct SetOnDrop(&'static AtomicBool);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// Never finishes in time.
#[mcp_tool(namespace = "exec", timeout = "50ms")]
async fn slow_async() -> u8 {
    let _guard = SetOnDrop(&ASYNC_DROPPED);
    tokio::time::sleep(Duration::from_secs(30)).await;
    1
}

static BLOCKING_SAW_CANCEL: AtomicBool = AtomicBool::new(false);

/// Blocks until cancelled.
#[mcp_tool(namespace = "exec", timeout = "50ms")]
fn slow_blocking(ctx: &ToolContext) -> u8 {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(30) {
        if ctx.is_cancelled() {
            BLOCKING_SAW_CANCEL.store(true, Ordering::SeqCst);
            return 0;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    1
}

static WAITER_STARTED: AtomicBool = AtomicBool::new(false);
static WAITER_DROPPED: AtomicBool = AtomicBool::new(false);

/// Waits for its cancellation.
#[mcp_tool(namespace = "exec", timeout = "30s")]
async fn waiter(ctx: ToolContext) -> u8 {
    let _guard = SetOnDrop(&WAITER_DROPPED);
    WAITER_STARTED.store(true, Ordering::SeqCst);
    ctx.cancellation().cancelled().await;
    0
}

/// Deletes everything (pretend).
#[mcp_tool(namespace = "exec", dangerous, destructive, inline)]
fn wipe(confirm: bool) -> bool {
    confirm
}

/// Reports progress and echoes the call's metadata.
#[mcp_tool(namespace = "exec", inline)]
fn chatty(ctx: &ToolContext) -> Value {
    ctx.progress(1.0, Some(2.0), Some("half"));
    ctx.progress(2.0, Some(2.0), None);
    json!({ "meta": ctx.meta().cloned(), "tool": ctx.tool_name().as_str() })
}

/// Logs from inside its span.
#[mcp_tool(namespace = "exec", inline)]
fn traced(ctx: &ToolContext) {
    let _inside = ctx.span().enter();
    tracing::info!(target: "exec.traced", "working");
}

/// Adds, asynchronously.
#[mcp_tool(namespace = "exec")]
async fn add_async(a: i64, b: i64) -> i64 {
    tokio::task::yield_now().await;
    a + b
}

/// Adds, on the blocking pool.
#[mcp_tool(namespace = "exec")]
fn add_blocking(a: i64, b: i64) -> i64 {
    a + b
}

/// Adds, inline.
#[mcp_tool(namespace = "exec", inline)]
fn add_inline(a: i64, b: i64) -> i64 {
    a + b
}

/// Integers inside a parameter.
#[derive(Debug, serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
struct Span {
    start: i64,
    end: Option<u32>,
    steps: Vec<i16>,
}

/// Integers in every kind of place, next to a float and a value of any shape.
#[mcp_tool(namespace = "exec", inline)]
fn integers(
    count: i64,
    small: u32,
    span: Span,
    later: Option<Span>,
    list: Vec<i64>,
    ratio: f64,
    raw: Value,
) -> Value {
    json!({
        "count": count, "small": small, "span": span, "later": later, "list": list,
        "ratio": ratio, "raw": raw,
    })
}

fn tool_call(name: &str, arguments: Value) -> MCPToolCall {
    MCPToolCall::new(name, arguments).expect("a valid call")
}

fn call(name: &str, arguments: Value) -> MCPToolResult {
    Registry::global().call_blocking(tool_call(name, arguments))
}

fn error_details(result: &MCPToolResult) -> Value {
    serde_json::to_value(&result.error().expect("a failure").error_details).unwrap()
}

#[test]
fn every_schema_violation_is_reported_with_pointer_and_keyword() {
    let result = call(
        "exec.constrained",
        json!({ "level": 42, "code": "SECRET-CODE", "labels": ["x1", "x2", "x3"] }),
    );
    let error = result.error().expect("refused before the tool runs");
    assert_eq!(error.error_type, ErrorType::ValidationError);
    let details = error_details(&result);
    let mut found: Vec<(String, String)> = details["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["path"].as_str().unwrap().to_owned(),
                e["keyword"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    found.sort();
    assert_eq!(
        found,
        [
            ("/code".to_owned(), "pattern".to_owned()),
            ("/labels".to_owned(), "maxItems".to_owned()),
            ("/level".to_owned(), "maximum".to_owned()),
        ]
    );
}

#[test]
fn submitted_values_are_never_echoed() {
    for arguments in [
        json!({ "level": 42, "code": "SECRET-CODE", "labels": [] }),
        json!({ "level": "SECRET-LEVEL", "code": "abc", "labels": [] }),
        json!({ "level": 1, "code": "abc", "labels": "SECRET-LABELS" }),
    ] {
        let result = call("exec.constrained", arguments);
        let text = serde_json::to_string(&result).unwrap();
        assert!(result.error().is_some(), "{text}");
        assert!(!text.contains("SECRET"), "a value was echoed: {text}");
        assert!(!text.contains("42"), "a value was echoed: {text}");
    }
    let result = call("exec.plain", json!({ "a": "SECRET-A", "c": [] }));
    let text = serde_json::to_string(&result).unwrap();
    assert!(!text.contains("SECRET"), "a value was echoed: {text}");
}

#[test]
fn schemas_with_nothing_beyond_the_types_skip_validation() {
    let registry = Registry::global();
    assert!(!registry.get("exec.plain").unwrap().validates_arguments());
    assert!(
        !registry
            .get("exec.add_inline")
            .unwrap()
            .validates_arguments()
    );
    assert!(
        registry
            .get("exec.constrained")
            .unwrap()
            .validates_arguments()
    );
    // A wrong type is still reported with its path, by the schema after serde refuses it.
    let result = call("exec.plain", json!({ "a": 1.5, "c": [] }));
    assert_eq!(error_details(&result)["errors"][0]["path"], "/a");
    assert_eq!(
        call("exec.plain", json!({ "a": 1, "b": "xy", "c": [1] })).data(),
        json!({ "result": 4 }).as_object()
    );
}

/// The `(path, keyword)` of each violation `result` lists.
fn violations(result: &MCPToolResult) -> Vec<(String, String)> {
    let details = error_details(result);
    let errors = details["errors"].as_array().expect("errors");
    errors
        .iter()
        .map(|error| {
            (
                error["path"].as_str().unwrap().to_owned(),
                error["keyword"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn an_alias_the_schema_does_not_list_is_refused_though_the_schema_is_skipped() {
    let tool = Registry::global().get("exec.aliased").unwrap();
    assert!(!tool.validates_arguments(), "types alone: the fast path");
    let schema = tool.definition().input_schema().as_value();
    assert_eq!(schema["additionalProperties"], false, "{schema}");
    assert!(schema["properties"].get("loud").is_none(), "{schema}");
    assert_eq!(
        call("exec.aliased", json!({ "shout": true })).data(),
        json!({ "result": true }).as_object()
    );
    let result = call("exec.aliased", json!({ "loud": true }));
    assert_eq!(
        result.error().expect("refused").error_type,
        ErrorType::ValidationError
    );
    assert_eq!(
        violations(&result),
        [
            (String::new(), "additionalProperties".to_owned()),
            (String::new(), "required".to_owned())
        ]
    );
    // Beside the name it stands for, too: not a duplicate, an unknown argument.
    let result = call("exec.aliased", json!({ "shout": true, "loud": true }));
    assert_eq!(
        violations(&result),
        [(String::new(), "additionalProperties".to_owned())]
    );
}

#[test]
fn an_unknown_argument_is_refused_by_the_schema_where_no_parameter_has_an_alias() {
    // No alias: the arguments struct refuses what the schema does not list, so the
    // registry leaves the names to it, and reports the refusal as the schema words it.
    for tool in ["exec.add_inline", "exec.add_blocking", "exec.add_async"] {
        let result = call(tool, json!({ "a": 1, "b": 2, "c": 3 }));
        assert_eq!(
            result.error().expect("refused").error_type,
            ErrorType::ValidationError,
            "{tool}"
        );
        assert_eq!(
            violations(&result),
            [(String::new(), "additionalProperties".to_owned())],
            "{tool}"
        );
    }
}

#[test]
fn an_alias_inside_a_parameter_type_is_refused_where_the_schema_closes_the_object() {
    let tool = Registry::global().get("exec.aliased_inside").unwrap();
    assert!(
        tool.validates_arguments(),
        "a closed object below the root needs the schema"
    );
    assert_eq!(
        call(
            "exec.aliased_inside",
            json!({ "spot": { "x": 1, "y": 2 }, "step": { "by": 3 } })
        )
        .data(),
        json!({ "result": 6 }).as_object()
    );
    let result = call(
        "exec.aliased_inside",
        json!({ "spot": { "across": 1, "y": 2 } }),
    );
    assert!(
        violations(&result).contains(&("/spot".to_owned(), "additionalProperties".to_owned())),
        "{result:?}"
    );
    let result = call(
        "exec.aliased_inside",
        json!({ "spot": { "x": 1, "y": 2 }, "step": { "shift": 3 } }),
    );
    assert_eq!(
        result.error().expect("refused").error_type,
        ErrorType::ValidationError
    );
    assert!(
        violations(&result)
            .iter()
            .all(|(path, _)| path.starts_with("/step")),
        "{result:?}"
    );
}

/// A registry of `exec.spans` that reads strings of JSON leniently.
fn lenient() -> Registry {
    Registry::builder()
        .inventory()
        .names(["exec.spans"])
        .lenient_arguments(true)
        .build()
        .unwrap()
}

#[test]
fn a_string_of_json_for_an_object_is_refused_by_default() {
    let result = call(
        "exec.spans",
        json!({ "span": "{\"from\": 1, \"to\": 3}", "labels": [] }),
    );
    let error = result.error().expect("refused");
    assert_eq!(error.error_type, ErrorType::ValidationError);
    assert_eq!(
        violations(&result),
        [("/span".to_owned(), "type".to_owned())]
    );
    assert!(error.error_message.contains("`/span`"), "{error:?}");
    assert_eq!(result.explanation(), None);
}

#[test]
fn lenient_arguments_read_strings_of_json_where_objects_and_arrays_are_wanted() {
    let registry = lenient();
    let result = registry.call_blocking(tool_call(
        "exec.spans",
        json!({
            "span": " {\"from\": 1, \"to\": 3}",
            "labels": "[\"a\", \"b\"]",
            // An array of strings of JSON, and a string that looks like JSON where a string is
            // wanted, which stays as it is.
            "more": ["{\"from\": 5, \"to\": 5}"],
            "note": "{\"not\": \"read\"}",
        }),
    ));
    assert_eq!(
        result.data(),
        json!({ "result": r#"4 pages, 2 labels, note "{\"not\": \"read\"}", flag None"# })
            .as_object(),
        "{result:?}"
    );
    let explanation = result.explanation().expect("an explanation");
    let lines: Vec<&str> = explanation.lines().collect();
    assert_eq!(lines.len(), 3, "{explanation}");
    for (line, (pointer, kind)) in lines.iter().zip([
        ("/span", "object"),
        ("/labels", "array"),
        ("/more/0", "object"),
    ]) {
        assert!(
            line.starts_with("Lenient arguments: ")
                && line.contains(&format!("`{pointer}`"))
                && line.contains(&format!("read as the {kind}")),
            "{line}"
        );
    }
    // Arguments sent as JSON: nothing to say.
    let result = registry.call_blocking(tool_call(
        "exec.spans",
        json!({ "span": { "from": 1, "to": 1 }, "labels": [] }),
    ));
    assert!(result.is_success(), "{result:?}");
    assert_eq!(result.explanation(), None);
}

#[test]
fn lenient_arguments_read_a_whole_array_of_strings_of_json() {
    let result = lenient().call_blocking(tool_call(
        "exec.spans",
        json!({
            "span": { "from": 1, "to": 1 },
            "labels": [],
            "more": r#"["{\"from\": 2, \"to\": 3}"]"#,
        }),
    ));
    assert!(
        result
            .data()
            .is_some_and(|data| data["result"].as_str().unwrap().starts_with("3 pages")),
        "{result:?}"
    );
    let explanation = result.explanation().expect("an explanation");
    assert!(explanation.contains("`/more`"), "{explanation}");
    assert!(explanation.contains("`/more/0`"), "{explanation}");
}

#[test]
fn lenient_arguments_refuse_what_is_no_json_of_the_type_wanted() {
    let registry = lenient();
    let refused = |arguments: Value, pointer: &str, why: &str| {
        let result = registry.call_blocking(tool_call("exec.spans", arguments.clone()));
        let error = result.error().expect("refused");
        assert_eq!(error.error_type, ErrorType::ValidationError, "{arguments}");
        assert!(
            violations(&result)
                .iter()
                .any(|(path, _)| path.as_str() == pointer),
            "{arguments}: {result:?}"
        );
        assert!(
            error.error_message.contains(&format!("`{pointer}`")),
            "{error:?}"
        );
        let explanation = result.explanation().unwrap_or_default();
        assert!(
            explanation.contains(&format!("`{pointer}`")) && explanation.contains(why),
            "{arguments}: {explanation}"
        );
    };
    refused(
        json!({ "span": "{\"from\": 1,", "labels": [] }),
        "/span",
        "not valid JSON (EOF while parsing",
    );
    refused(
        json!({ "span": "[1, 3]", "labels": [] }),
        "/span",
        "its JSON is an array",
    );
    refused(
        json!({ "span": { "from": 1, "to": 1 }, "labels": "{}" }),
        "/labels",
        "its JSON is an object",
    );
    // Nothing but objects and arrays: a number or a boolean sent as a string is refused,
    // without a word about lenient arguments.
    for arguments in [
        json!({ "span": { "from": "1", "to": 1 }, "labels": [] }),
        json!({ "span": { "from": 1, "to": 1 }, "labels": [], "flag": "true" }),
    ] {
        let result = registry.call_blocking(tool_call("exec.spans", arguments.clone()));
        assert_eq!(
            result.error().map(|error| &error.error_type),
            Some(&ErrorType::ValidationError),
            "{arguments}"
        );
        assert_eq!(result.explanation(), None, "{arguments}");
    }
}

#[test]
fn an_async_tool_past_its_timeout_is_a_timeout_error_and_its_future_is_dropped() {
    let started = Instant::now();
    let result = call("exec.slow_async", json!({}));
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "answered at the timeout"
    );
    let error = result.error().expect("timed out");
    assert_eq!(error.error_type, ErrorType::TimeoutError);
    assert!(
        error.error_message.contains("50ms"),
        "{}",
        error.error_message
    );
    assert!(
        ASYNC_DROPPED.load(Ordering::SeqCst),
        "the tool's future was dropped"
    );
}

#[test]
fn a_blocking_tool_past_its_timeout_is_a_timeout_error_and_sees_its_cancellation() {
    let started = Instant::now();
    let result = call("exec.slow_blocking", json!({}));
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "answered at the timeout"
    );
    assert_eq!(result.error().unwrap().error_type, ErrorType::TimeoutError);
    let deadline = Instant::now() + Duration::from_secs(5);
    while !BLOCKING_SAW_CANCEL.load(Ordering::SeqCst) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(
        BLOCKING_SAW_CANCEL.load(Ordering::SeqCst),
        "the tool saw its token cancelled"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropping_the_call_cancels_the_tool() {
    let task = tokio::spawn(Registry::global().call(tool_call("exec.waiter", json!({}))));
    while !WAITER_STARTED.load(Ordering::SeqCst) {
        tokio::task::yield_now().await;
    }
    task.abort();
    let _ = task.await;
    assert!(
        WAITER_DROPPED.load(Ordering::SeqCst),
        "the tool's future was dropped"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_token_answers_the_call_at_once() {
    let token = CancellationToken::new();
    let options = CallOptions::new().with_cancellation(token.clone());
    let call = Registry::global().call_with(tool_call("exec.slow_async", json!({})), options);
    token.cancel();
    let result = call.await;
    assert!(result.error().unwrap().error_message.contains("cancelled"));
}

#[test]
fn dangerous_tools_are_refused_unless_the_policy_allows_them() {
    let result = call("exec.wipe", json!({ "confirm": true }));
    assert_eq!(
        result.error().unwrap().error_type,
        ErrorType::PermissionError
    );

    let allowed = Registry::builder()
        .inventory()
        .prefix("exec.")
        .allow_dangerous(["exec.wipe"])
        .build()
        .unwrap();
    let result = allowed.call_blocking(tool_call("exec.wipe", json!({ "confirm": true })));
    assert_eq!(result.status(), ToolStatus::Success);

    let asked = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&asked);
    let confirming = Registry::builder()
        .inventory()
        .prefix("exec.")
        .confirm_dangerous(move |definition, arguments| {
            counter.fetch_add(1, Ordering::SeqCst);
            definition.name() == "exec.wipe" && arguments["confirm"] == true
        })
        .build()
        .unwrap();
    let yes = confirming.call_blocking(tool_call("exec.wipe", json!({ "confirm": true })));
    let no = confirming.call_blocking(tool_call("exec.wipe", json!({ "confirm": false })));
    let safe = confirming.call_blocking(tool_call("exec.add_inline", json!({ "a": 1, "b": 1 })));
    assert_eq!(yes.status(), ToolStatus::Success);
    assert_eq!(no.error().unwrap().error_type, ErrorType::PermissionError);
    assert_eq!(safe.status(), ToolStatus::Success);
    assert_eq!(
        asked.load(Ordering::SeqCst),
        2,
        "only dangerous tools are put to the callback"
    );
}

#[tokio::test]
async fn the_context_carries_progress_metadata_and_the_tool_name() {
    let reports = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&reports);
    let meta = json!({ "progressToken": 7 }).as_object().cloned().unwrap();
    let options = CallOptions::new()
        .with_meta(meta)
        .with_progress(move |report| sink.lock().unwrap().push(report));
    let result = Registry::global()
        .call_with(tool_call("exec.chatty", json!({})), options)
        .await;
    assert_eq!(
        result.data(),
        json!({ "result": { "meta": { "progressToken": 7 }, "tool": "exec.chatty" } }).as_object()
    );
    let reports = reports.lock().unwrap();
    assert_eq!(reports.len(), 2);
    assert_eq!((reports[0].progress, reports[0].total), (1.0, Some(2.0)));
    assert_eq!(reports[0].message.as_deref(), Some("half"));
    assert_eq!(reports[1].message, None);
}

#[derive(Default, Clone)]
struct Captured(Arc<Mutex<Vec<String>>>);

impl<S> tracing_subscriber::Layer<S> for Captured
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    fn on_event(&self, event: &tracing::Event<'_>, ctx: tracing_subscriber::layer::Context<'_, S>) {
        if event.metadata().target() == "exec.traced" {
            let span = ctx.event_span(event).map(|span| span.name().to_owned());
            self.0.lock().unwrap().push(format!("traced in {span:?}"));
            return;
        }
        if event.metadata().target() != AUDIT_TARGET {
            return;
        }
        struct Fields(String);
        impl tracing::field::Visit for Fields {
            fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
                self.0.push_str(&format!("{}={:?} ", field.name(), value));
            }
        }
        let mut fields = Fields(String::new());
        event.record(&mut fields);
        self.0.lock().unwrap().push(fields.0);
    }
}

/// Runs `body` with `captured` as this thread's subscriber.
///
/// While a single dispatcher is registered, tracing-core decides whether a callsite is
/// wanted, when it first fires, by asking that thread's default alone. A tool's span first
/// fired by another test's thread (which has no subscriber) would then be cached as never
/// wanted, and stay silent here too. A second dispatcher kept for the whole run, which
/// wants nothing, has every callsite decided by all the registered dispatchers instead.
fn capturing(captured: &Captured, body: impl FnOnce()) {
    use tracing_subscriber::layer::SubscriberExt;
    static ANOTHER: std::sync::OnceLock<tracing::Dispatch> = std::sync::OnceLock::new();
    ANOTHER.get_or_init(|| tracing::Dispatch::new(tracing::subscriber::NoSubscriber::default()));
    let subscriber = tracing_subscriber::registry().with(captured.clone());
    tracing::subscriber::with_default(subscriber, body);
}

#[test]
fn every_call_emits_an_audit_event_with_tool_duration_and_status() {
    let captured = Captured::default();
    capturing(&captured, || {
        call("exec.add_inline", json!({ "a": 1, "b": 2 }));
        call("exec.add_inline", json!({ "a": "x", "b": 2 }));
    });
    let events = captured.0.lock().unwrap();
    assert_eq!(events.len(), 2, "{events:?}");
    assert!(events[0].contains("tool=exec.add_inline"), "{}", events[0]);
    assert!(events[0].contains("duration_us="), "{}", events[0]);
    assert!(events[0].contains("status=success"), "{}", events[0]);
    assert!(events[1].contains("status=failure"), "{}", events[1]);
    assert!(
        events[1].contains("error_type=\"ValidationError\""),
        "{}",
        events[1]
    );
}

#[test]
fn a_tool_logs_inside_the_span_of_its_call() {
    let captured = Captured::default();
    capturing(&captured, || {
        call("exec.traced", json!({}));
    });
    let events = captured.0.lock().unwrap();
    assert_eq!(events[0], "traced in Some(\"mcp_tool\")", "{events:?}");
}

#[test]
fn data_that_breaks_the_output_schema_is_a_tool_execution_error() {
    let definition = ToolDefinition::new(
        "out.liar",
        schemars::json_schema!({ "type": "object", "properties": {} }),
    )
    .unwrap()
    .with_output(schema::OutputSchema {
        schema: schemars::json_schema!({
            "type": "object",
            "properties": { "n": { "type": "integer" } },
            "required": ["n"],
        }),
        wrapped: false,
    })
    .unwrap();
    let build = |validate: bool| {
        Registry::builder()
            .tool(definition.clone(), |_, _| async {
                Ok::<_, ToolError>(json!({ "n": "many" }))
            })
            .validate_output(validate)
            .build()
            .unwrap()
    };
    let result = build(true).call_blocking(tool_call("out.liar", json!({})));
    let error = result.error().expect("refused");
    assert_eq!(error.error_type, ErrorType::ToolExecutionError);
    assert!(
        error.error_message.contains("`out.liar`"),
        "{}",
        error.error_message
    );
    assert!(
        error.error_message.contains("output schema"),
        "{}",
        error.error_message
    );
    let result = build(false).call_blocking(tool_call("out.liar", json!({})));
    assert_eq!(result.status(), ToolStatus::Success);
}

#[tokio::test]
async fn call_blocking_inside_a_runtime_answers_instead_of_panicking() {
    let result =
        Registry::global().call_blocking(tool_call("exec.add_inline", json!({ "a": 1, "b": 1 })));
    assert!(
        result
            .error()
            .unwrap()
            .error_message
            .contains("call(..).await")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_concurrent_calls_all_answered_correctly() {
    let tools = ["exec.add_async", "exec.add_inline", "exec.add_blocking"];
    let mut tasks = Vec::with_capacity(10_000);
    for i in 0..10_000_i64 {
        let name = tools[(i % 3) as usize];
        tasks.push(tokio::spawn(async move {
            let result = Registry::global()
                .call(tool_call(name, json!({ "a": i, "b": i })))
                .await;
            (i, result)
        }));
    }
    let mut answered = 0;
    for task in tasks {
        let (i, result) = task.await.expect("the task finished");
        assert_eq!(
            result.data(),
            json!({ "result": 2 * i }).as_object(),
            "call {i}"
        );
        answered += 1;
    }
    assert_eq!(answered, 10_000);
}

/// Whether two values are the same JSON, integers told apart from floats.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.is_f64() == y.is_f64() && x == y,
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// The pointers of a `ValidationError`'s violations.
fn refused_at(result: &MCPToolResult) -> Vec<String> {
    let error = result.error().expect("refused");
    assert_eq!(error.error_type, ErrorType::ValidationError, "{error:?}");
    error_details(result)["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["path"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn integral_floats_are_integers_where_the_schema_says_integer() {
    let result = call(
        "exec.integers",
        json!({
            "count": 1.0,
            "small": 1e2,
            "span": { "start": -0.0, "end": 3.0, "steps": [1.0, 2e1, -3] },
            "later": { "start": 4.0, "steps": [5.0] },
            "list": [1.0, 2, -1e3],
            "ratio": 2.5,
            "raw": { "x": 1.0, "y": [2.0, 1e2] },
        }),
    );
    let data = Value::Object(result.data().expect("a success").clone());
    let expected = json!({ "result": {
        "count": 1,
        "small": 100,
        "span": { "start": 0, "end": 3, "steps": [1, 20, -3] },
        "later": { "start": 4, "end": null, "steps": [5] },
        "list": [1, 2, -1000],
        "ratio": 2.5,
        // A value of any shape: its schema admits any number, so its floats stay floats.
        "raw": { "x": 1.0, "y": [2.0, 100.0] },
    } });
    assert!(same(&data, &expected), "{data}");
    // A float parameter takes an integral float as it is.
    let result = call(
        "exec.integers",
        json!({
            "count": 1, "small": 1, "span": { "start": 1, "steps": [] }, "list": [],
            "ratio": 1.0, "raw": 1.0,
        }),
    );
    let data = &result.data().expect("a success")["result"];
    assert!(same(&data["ratio"], &json!(1.0)), "{data}");
    assert!(same(&data["raw"], &json!(1.0)), "{data}");

    for tool in ["exec.add_inline", "exec.add_blocking", "exec.add_async"] {
        let result = call(tool, json!({ "a": 1.0, "b": 1e2 }));
        assert_eq!(
            result.data(),
            json!({ "result": 101 }).as_object(),
            "{tool}"
        );
    }
}

#[test]
fn a_fraction_or_an_integer_out_of_range_is_still_refused_at_its_place() {
    let read = |text: &str| serde_json::from_str::<Value>(text).unwrap();
    let base = || {
        json!({
            "count": 1, "small": 1, "span": { "start": 1, "end": 1, "steps": [] }, "list": [],
            "ratio": 0.5, "raw": null,
        })
    };
    for (pointer, value, at) in [
        ("/count", json!(1.5), "/count"),
        ("/count", json!(1e20), "/count"),
        ("/count", json!(-1e19), "/count"),
        ("/count", json!(1e19), "/count"),
        // Past ±2^53 a float may not be the number written: this one, past the range of
        // i64, reads as the float of i64::MIN, and must not be taken for it.
        ("/count", read("-9223372036854775809"), "/count"),
        ("/count", read("9007199254740993.0"), "/count"),
        ("/list", read("[1.0, 9007199254740992.0]"), "/list/1"),
        ("/small", json!(-1.0), "/small"),
        ("/small", json!(5e9), "/small"),
        ("/small", json!(0.5), "/small"),
        ("/span/start", json!(2.5), "/span/start"),
        ("/span/end", json!(-2.0), "/span/end"),
        ("/span/steps", json!([1.0, 4e4]), "/span/steps/1"),
        ("/list", json!([1.0, 2.25]), "/list/1"),
    ] {
        let mut arguments = base();
        *arguments.pointer_mut(pointer).unwrap() = value.clone();
        let result = call("exec.integers", arguments);
        assert_eq!(refused_at(&result), [at], "{pointer} = {value}");
        let text = serde_json::to_string(&result).unwrap();
        assert!(!text.contains("e20") && !text.contains("0000"), "{text}");
    }
}

#[test]
fn a_dynamic_tool_receives_integers_where_its_schema_says_integer() {
    let definition = ToolDefinition::new(
        "dyn.echo",
        schemars::json_schema!({
            "type": "object",
            "properties": {
                "n": { "type": "integer", "minimum": 0 },
                "x": { "type": "number" },
            },
        }),
    )
    .unwrap();
    let registry = Registry::builder()
        .tool(definition, |arguments, _| async move {
            Ok::<_, ToolError>(Value::Object(arguments))
        })
        .build()
        .unwrap();
    let result = registry.call_blocking(tool_call("dyn.echo", json!({ "n": 4.0, "x": 4.0 })));
    let data = Value::Object(result.data().expect("a success").clone());
    assert!(same(&data, &json!({ "n": 4, "x": 4.0 })), "{data}");
    let result = registry.call_blocking(tool_call("dyn.echo", json!({ "n": 4.5 })));
    assert_eq!(refused_at(&result), ["/n"]);

    // The dangerous-tool policy sees the arguments as the tool will.
    let dangerous = ToolDefinition::new(
        "dyn.risky",
        schemars::json_schema!({ "type": "object", "properties": { "n": { "type": "integer" } } }),
    )
    .unwrap()
    .with_annotations(mcp_runtime::ToolAnnotations {
        dangerous: true,
        ..Default::default()
    });
    let registry = Registry::builder()
        .tool(dangerous, |arguments, _| async move {
            Ok::<_, ToolError>(Value::Object(arguments))
        })
        .confirm_dangerous(|_, arguments| arguments["n"].is_u64())
        .build()
        .unwrap();
    let result = registry.call_blocking(tool_call("dyn.risky", json!({ "n": 1.0 })));
    assert_eq!(result.status(), ToolStatus::Success, "{result:?}");
}

/// Reads a port number: an `anyhow` error, with its context.
#[mcp_tool(namespace = "exec", inline)]
fn port(text: String) -> anyhow::Result<u16> {
    use anyhow::Context as _;
    text.trim().parse().context("not a port number")
}

/// Reads a number: a boxed error.
#[mcp_tool(namespace = "exec", inline)]
fn boxed_number(text: String) -> Result<i64, Box<dyn std::error::Error + Send + Sync>> {
    Ok(text.trim().parse()?)
}

/// A configuration that could not be read, and why.
#[derive(Debug)]
struct ConfigError(std::io::Error);

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("cannot read the configuration")
    }
}

impl std::error::Error for ConfigError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.0)
    }
}

/// Reads the configuration: an error of the application's own, with a cause.
#[mcp_tool(namespace = "exec", inline)]
fn config() -> Result<String, ConfigError> {
    Err(ConfigError(std::io::Error::other("disk full")))
}

/// A refusal that has a message and nothing else.
struct Refusal;

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("not today")
    }
}

/// Refuses: an error type with `Display` alone.
#[mcp_tool(namespace = "exec", inline)]
fn refuse() -> Result<(), Refusal> {
    Err(Refusal)
}

/// Finds nothing: a `ToolError` of a standard type.
#[mcp_tool(namespace = "exec", inline)]
fn find(kind: String) -> Result<(), ToolError> {
    Err(match kind.as_str() {
        "order" => ToolError::not_found("no order 42"),
        "file" => ToolError::file_not_found("no `orders.csv`"),
        "admin" => ToolError::permission_denied("only an administrator may"),
        "token" => ToolError::unauthenticated("the token expired"),
        "quota" => ToolError::rate_limited("100 calls an hour"),
        _ => ToolError::timeout("the warehouse did not answer"),
    })
}

/// The settings file: an `anyhow` error, with its context, from a resource.
#[mcp_runtime::mcp_resource(uri = "exec://settings")]
fn settings() -> anyhow::Result<String> {
    use anyhow::Context as _;
    let port: u16 = "http".parse().context("the settings name no port")?;
    Ok(port.to_string())
}

/// A page of the manual: an error of the application's own, from a template.
#[mcp_runtime::mcp_resource(uri_template = "exec://manual/{page}")]
async fn manual(page: u32) -> Result<String, ConfigError> {
    Err(ConfigError(std::io::Error::other(format!(
        "page {page} is missing"
    ))))
}

/// Greets: an error with `Display` alone, from a prompt.
#[mcp_runtime::mcp_prompt(name = "exec.greet")]
fn greet(name: String) -> Result<String, Refusal> {
    if name.is_empty() {
        return Err(Refusal);
    }
    Ok(format!("Hello, {name}."))
}

/// Reviews code: a boxed error, from an async prompt.
#[mcp_runtime::mcp_prompt(name = "exec.review")]
async fn review(code: String) -> Result<String, Box<dyn std::error::Error + Send + Sync>> {
    let lines: usize = code.trim().parse()?;
    Ok(format!("Review these {lines} lines."))
}

#[tokio::test]
async fn resources_and_prompts_take_any_error_type_with_a_message_as_tools_do() {
    use mcp_runtime::{PromptError, ReadError};
    let registry = Registry::global();
    let failed_read = |read: Result<_, ReadError>| match read {
        Err(ReadError::Failed(err)) => (err.error_type().clone(), err.message().to_owned()),
        other => panic!("a failed read, not {other:?}"),
    };
    let execution = ErrorType::ToolExecutionError;
    assert_eq!(
        failed_read(registry.read_resource("exec://settings").await),
        (
            execution.clone(),
            "the settings name no port\ncaused by: invalid digit found in string".to_owned()
        )
    );
    assert_eq!(
        failed_read(registry.read_resource("exec://manual/7").await),
        (
            execution.clone(),
            "cannot read the configuration\ncaused by: page 7 is missing".to_owned()
        )
    );
    let arguments = |name: &str, value: &str| {
        [(name.to_owned(), Value::from(value))]
            .into_iter()
            .collect()
    };
    let failed_prompt = |rendered: Result<_, PromptError>| match rendered {
        Err(PromptError::Failed(err)) => (err.error_type().clone(), err.message().to_owned()),
        other => panic!("a failed prompt, not {other:?}"),
    };
    assert_eq!(
        failed_prompt(
            registry
                .get_prompt("exec.greet", arguments("name", ""))
                .await
        ),
        (execution.clone(), "not today".to_owned())
    );
    assert!(
        registry
            .get_prompt("exec.greet", arguments("name", "Ada"))
            .await
            .is_ok()
    );
    assert_eq!(
        failed_prompt(
            registry
                .get_prompt("exec.review", arguments("code", "many"))
                .await
        ),
        (execution, "invalid digit found in string".to_owned())
    );
}

#[tokio::test]
async fn any_error_type_with_a_message_reaches_the_client_with_its_causes() {
    let registry = Registry::global();
    let failed = |result: MCPToolResult| {
        assert_eq!(result.status(), ToolStatus::Failure, "{result:?}");
        let error = result.error().expect("a failure has an error").clone();
        (error.error_type, error.error_message)
    };
    let call = |name: &str, arguments: Value| MCPToolCall::new(name, arguments).expect("a call");
    let execution = ErrorType::ToolExecutionError;
    assert_eq!(
        failed(
            registry
                .call(call("exec.port", json!({ "text": "http" })))
                .await
        ),
        (
            execution.clone(),
            "not a port number\ncaused by: invalid digit found in string".to_owned()
        )
    );
    assert_eq!(
        registry
            .call(call("exec.port", json!({ "text": "8080" })))
            .await
            .data(),
        json!({ "result": 8080 }).as_object()
    );
    assert_eq!(
        failed(
            registry
                .call(call("exec.boxed_number", json!({ "text": "x" })))
                .await
        ),
        (
            execution.clone(),
            "invalid digit found in string".to_owned()
        )
    );
    assert_eq!(
        failed(registry.call(call("exec.config", json!({}))).await),
        (
            execution.clone(),
            "cannot read the configuration\ncaused by: disk full".to_owned()
        )
    );
    assert_eq!(
        failed(registry.call(call("exec.refuse", json!({}))).await),
        (execution, "not today".to_owned())
    );
    for (kind, error_type) in [
        ("order", ErrorType::ResourceNotFound),
        ("file", ErrorType::FileNotFoundError),
        ("admin", ErrorType::PermissionError),
        ("token", ErrorType::AuthenticationError),
        ("quota", ErrorType::ApiLimitExceeded),
        ("wait", ErrorType::TimeoutError),
    ] {
        let (found, _) = failed(
            registry
                .call(call("exec.find", json!({ "kind": kind })))
                .await,
        );
        assert_eq!(found, error_type, "{kind}");
    }
}
