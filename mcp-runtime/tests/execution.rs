//! What a call goes through in `Registry::call`, seen from outside: the caller's options,
//! the dangerous-tool policy, the input schema, the timeout, the output schema and the
//! audit event.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_runtime::{
    AUDIT_TARGET, CallOptions, CancellationToken, DangerousPolicy, ErrorType, MCPToolCall,
    MCPToolResult, Registry, ToolAnnotations, ToolDefinition, ToolError, ToolStatus, mcp_tool,
    schema,
};
use serde_json::{Map, Value, json};

mod support;
use support::failure;

/// Adds; its schema states nothing beyond the parameter types.
#[mcp_tool(namespace = "exec", inline)]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Picks a digit; the schema states its range, which the type does not.
#[mcp_tool(namespace = "exec", inline)]
fn pick(
    /// From 1 to 9.
    #[schemars(range(min = 1, max = 9))]
    n: u8,
) -> u8 {
    n
}

fn tool_call(name: &str, arguments: Value) -> MCPToolCall {
    MCPToolCall::new(name, arguments).expect("a valid call")
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

fn definition(name: &str, schema: Value) -> ToolDefinition {
    let schema = schemars::Schema::try_from(schema).expect("a schema");
    ToolDefinition::new(name, schema).expect("a valid definition")
}

/// A dynamic tool that answers with its arguments and what its context carries, after one
/// progress report.
fn echo() -> Registry {
    let schema = json!({
        "type": "object",
        "properties": { "text": { "type": "string" } },
        "required": ["text"],
    });
    Registry::builder()
        .tool(
            definition("ctx.echo", schema),
            |arguments, ctx| async move {
                ctx.progress(1.0, Some(2.0), Some("half"));
                Ok::<_, ToolError>(json!({
                    "arguments": arguments,
                    "meta": ctx.meta(),
                    "wants_progress": ctx.wants_progress(),
                }))
            },
        )
        .build()
        .expect("a registry")
}

#[tokio::test]
async fn a_dynamic_tool_receives_its_arguments_metadata_and_progress_sink() {
    let registry = echo();
    let reports = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&reports);
    let options = CallOptions::new()
        .with_meta(object(json!({ "progressToken": 7 })))
        .with_progress(move |report| sink.lock().unwrap().push(report));
    let result = registry
        .call_with(tool_call("ctx.echo", json!({ "text": "hi" })), options)
        .await;
    assert_eq!(result.status(), ToolStatus::Success, "{result:?}");
    assert_eq!(
        result.data(),
        Some(&object(json!({
            "arguments": { "text": "hi" },
            "meta": { "progressToken": 7 },
            "wants_progress": true,
        })))
    );
    let reports = reports.lock().unwrap();
    assert_eq!(reports.len(), 1, "{reports:?}");
    assert_eq!((reports[0].progress, reports[0].total), (1.0, Some(2.0)));
    assert_eq!(reports[0].message.as_deref(), Some("half"));
}

#[tokio::test]
async fn a_call_whose_token_is_cancelled_answers_that_it_was_cancelled() {
    let registry = echo();
    let token = CancellationToken::new();
    token.cancel();
    let options = CallOptions::new().with_cancellation(token);
    let result = registry
        .call_with(tool_call("ctx.echo", json!({ "text": "hi" })), options)
        .await;
    let (error_type, message, _) = failure(&result);
    assert_eq!(error_type, ErrorType::ToolExecutionError);
    assert_eq!(message, "the call of tool `ctx.echo` was cancelled");
}

/// Counts its runs; runs inline.
#[mcp_tool(namespace = "exec", inline)]
fn count_inline(ctx: &mcp_runtime::ToolContext) -> bool {
    INLINE_RUNS.fetch_add(1, Ordering::SeqCst);
    ctx.is_cancelled()
}
static INLINE_RUNS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

#[tokio::test]
async fn an_inline_tool_whose_caller_cancelled_before_it_began_does_not_run() {
    let registry = Registry::global();
    let token = CancellationToken::new();
    token.cancel();
    let options = CallOptions::new().with_cancellation(token);
    let result = registry
        .call_with(tool_call("exec.count_inline", json!({})), options)
        .await;
    let (error_type, message, _) = failure(&result);
    assert_eq!(error_type, ErrorType::ToolExecutionError);
    assert_eq!(
        message,
        "the call of tool `exec.count_inline` was cancelled"
    );
    assert_eq!(INLINE_RUNS.load(Ordering::SeqCst), 0, "the tool ran");

    // A token not cancelled lets it run, and it is not told it was.
    let options = CallOptions::new().with_cancellation(CancellationToken::new());
    let result = registry
        .call_with(tool_call("exec.count_inline", json!({})), options)
        .await;
    assert_eq!(result.data(), Some(&object(json!({ "result": false }))));
    assert_eq!(INLINE_RUNS.load(Ordering::SeqCst), 1);
}

#[test]
fn call_options_show_what_is_attached_but_not_the_sink() {
    assert_eq!(
        format!("{:?}", CallOptions::new()),
        "CallOptions { meta: None, progress: false, log_level: None, cancellation: None, caller: None }"
    );
    let options = CallOptions::new()
        .with_meta(object(json!({ "k": "v" })))
        .with_progress(|_| {})
        .with_log(mcp_runtime::LoggingLevel::Notice, |_| {});
    assert_eq!(
        format!("{options:?}"),
        "CallOptions { meta: Some({\"k\": String(\"v\")}), progress: true, log_level: Some(Notice), cancellation: None, caller: None }"
    );
}

fn dangerous(name: &str) -> ToolDefinition {
    definition(name, json!({ "type": "object", "properties": {} })).with_annotations(
        ToolAnnotations {
            dangerous: true,
            ..ToolAnnotations::default()
        },
    )
}

/// A registry of a dangerous tool `fs.wipe` and a safe one `fs.look`, under `policy`.
fn guarded(policy: DangerousPolicy) -> Registry {
    let safe = definition("fs.look", json!({ "type": "object", "properties": {} }));
    Registry::builder()
        .tool(dangerous("fs.wipe"), |_, _| async {
            Ok::<_, ToolError>(json!({ "wiped": true }))
        })
        .tool(safe, |_, _| async {
            Ok::<_, ToolError>(json!({ "looked": true }))
        })
        .dangerous_policy(policy)
        .build()
        .expect("a registry")
}

async fn wipe(registry: &Registry, arguments: Value) -> MCPToolResult {
    registry.call(tool_call("fs.wipe", arguments)).await
}

#[track_caller]
fn assert_refused(result: &MCPToolResult) {
    let (error_type, message, _) = failure(result);
    assert_eq!(error_type, ErrorType::PermissionError);
    assert_eq!(
        message,
        "tool `fs.wipe` is marked dangerous and this registry's policy does not allow it to run; \
         a server started with `--allow-dangerous fs.wipe` allows it, as does a registry built \
         with `allow_dangerous`"
    );
}

#[track_caller]
fn assert_wiped(result: &MCPToolResult) {
    assert_eq!(result.status(), ToolStatus::Success, "{result:?}");
    assert_eq!(result.data(), Some(&object(json!({ "wiped": true }))));
}

#[tokio::test]
async fn a_dangerous_tool_runs_only_when_the_policy_allows_it() {
    let deny = guarded(DangerousPolicy::default());
    assert_refused(&wipe(&deny, json!({})).await);
    let look = deny.call(tool_call("fs.look", json!({}))).await;
    assert_eq!(look.data(), Some(&object(json!({ "looked": true }))));

    let named = |names: &[&str]| {
        DangerousPolicy::Allow(names.iter().map(|name| (*name).to_owned()).collect())
    };
    assert_wiped(&wipe(&guarded(named(&["fs.wipe"])), json!({})).await);
    assert_refused(&wipe(&guarded(named(&["fs.look"])), json!({})).await);
    assert_wiped(&wipe(&guarded(DangerousPolicy::AllowAll), json!({})).await);

    let asked = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::clone(&asked);
    let confirm = DangerousPolicy::Confirm(Arc::new(move |definition, arguments| {
        seen.lock()
            .unwrap()
            .push(definition.name().as_str().to_owned());
        arguments.get("sure") == Some(&json!(true))
    }));
    let confirming = guarded(confirm);
    assert_wiped(&wipe(&confirming, json!({ "sure": true })).await);
    assert_refused(&wipe(&confirming, json!({ "sure": false })).await);
    let look = confirming.call(tool_call("fs.look", json!({}))).await;
    assert_eq!(look.status(), ToolStatus::Success, "{look:?}");
    assert_eq!(
        *asked.lock().unwrap(),
        ["fs.wipe", "fs.wipe"],
        "only dangerous tools are put to the callback"
    );
}

#[test]
fn a_policy_shows_its_kind_and_the_names_it_allows() {
    let names = ["b.b", "a.a"].map(str::to_owned).into_iter().collect();
    assert_eq!(format!("{:?}", DangerousPolicy::Deny), "Deny");
    assert_eq!(
        format!("{:?}", DangerousPolicy::Allow(names)),
        "Allow({\"a.a\", \"b.b\"})"
    );
    assert_eq!(
        format!("{:?}", DangerousPolicy::Confirm(Arc::new(|_, _| true))),
        "Confirm(..)"
    );
    assert_eq!(format!("{:?}", DangerousPolicy::AllowAll), "AllowAll");
}

#[tokio::test]
async fn the_arguments_of_a_dynamic_tool_are_checked_against_its_schema() {
    let ran = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&ran);
    let schema = json!({
        "type": "object",
        "properties": { "text": { "type": "string" } },
        "required": ["text"],
    });
    let registry = Registry::builder()
        .tool(definition("text.shout", schema), move |_, _| {
            flag.store(true, Ordering::SeqCst);
            async { Ok::<_, ToolError>(json!({})) }
        })
        .build()
        .expect("a registry");
    let tool = registry.get("text.shout").expect("registered");
    assert!(tool.validates_arguments());
    let result = registry
        .call(tool_call("text.shout", json!({ "text": 5 })))
        .await;
    let (error_type, message, details) = failure(&result);
    assert_eq!(error_type, ErrorType::ValidationError);
    assert_eq!(
        message,
        "invalid arguments for tool `text.shout`: `/text`: the value is not of type \"string\""
    );
    assert_eq!(
        details,
        json!({ "errors": [{
            "path": "/text",
            "keyword": "type",
            "message": "the value is not of type \"string\"",
        }] })
    );
    assert!(!ran.load(Ordering::SeqCst), "the tool must not run");
}

#[test]
fn a_typed_tool_checks_its_schema_only_when_it_says_more_than_the_types() {
    let registry = Registry::global();
    let add = registry.get("exec.add").expect("registered");
    let pick = registry.get("exec.pick").expect("registered");
    assert!(!add.validates_arguments());
    assert!(pick.validates_arguments());
    let result = registry.call_blocking(tool_call("exec.pick", json!({ "n": 0 })));
    let (error_type, message, details) = failure(&result);
    assert_eq!(error_type, ErrorType::ValidationError);
    assert_eq!(
        message,
        "invalid arguments for tool `exec.pick`: `/n`: the value is less than the minimum of 1"
    );
    assert_eq!(
        details,
        json!({ "errors": [{
            "path": "/n",
            "keyword": "minimum",
            "message": "the value is less than the minimum of 1",
        }] })
    );
    let result = registry.call_blocking(tool_call("exec.pick", json!({ "n": 9 })));
    assert_eq!(result.data(), Some(&object(json!({ "result": 9 }))));
}

#[test]
fn arguments_that_do_not_deserialize_are_reported_by_the_schema_when_it_can_tell() {
    let registry = Registry::global();
    // The schema sees what is wrong: its violations are the report.
    let result = registry.call_blocking(tool_call("exec.add", json!({ "a": "x", "b": 1 })));
    let (error_type, message, details) = failure(&result);
    assert_eq!(error_type, ErrorType::ValidationError);
    assert_eq!(
        message,
        "invalid arguments for tool `exec.add`: `/a`: the value is not of type \"integer\""
    );
    assert_eq!(
        details,
        json!({ "errors": [{
            "path": "/a",
            "keyword": "type",
            "message": "the value is not of type \"integer\"",
        }] })
    );
    // The schema counts 1e20 as an integer; an `i64` does not take it: deserialization's
    // report, rid of the value.
    let result = registry.call_blocking(tool_call("exec.add", json!({ "a": 1e20, "b": 1 })));
    let (error_type, message, details) = failure(&result);
    let expected = "invalid type: expected i64, found an integral number beyond ±2^53, which \
                    a float does not hold exactly";
    assert_eq!(error_type, ErrorType::ValidationError);
    assert_eq!(
        message,
        format!("invalid arguments for tool `exec.add`: `/a`: {expected}")
    );
    assert_eq!(
        details,
        json!({ "errors": [{ "path": "/a", "keyword": "deserialize", "message": expected }] })
    );
}

#[tokio::test]
async fn a_call_past_its_timeout_is_a_timeout_error_naming_the_limit() {
    let schema = json!({ "type": "object", "properties": {} });
    let registry = Registry::builder()
        .tool(
            definition("slow.wait", schema).with_timeout(Duration::from_millis(50)),
            |_, ctx| async move {
                ctx.cancellation().cancelled().await;
                Ok::<_, ToolError>(json!({}))
            },
        )
        .build()
        .expect("a registry");
    let result = registry.call(tool_call("slow.wait", json!({}))).await;
    let (error_type, message, _) = failure(&result);
    assert_eq!(error_type, ErrorType::TimeoutError);
    assert_eq!(message, "tool `slow.wait` did not finish within 50ms");
}

#[tokio::test]
async fn data_is_checked_against_the_output_schema_only_when_asked() {
    let output = schema::OutputSchema {
        schema: schemars::json_schema!({
            "type": "object",
            "properties": { "n": { "type": "integer" } },
            "required": ["n"],
        }),
        wrapped: false,
    };
    let liar = definition("out.liar", json!({ "type": "object", "properties": {} }))
        .with_output(output)
        .expect("an object schema");
    let build = |validate: bool| {
        Registry::builder()
            .tool(liar.clone(), |_, _| async {
                Ok::<_, ToolError>(json!({ "n": "many" }))
            })
            .validate_output(validate)
            .build()
            .expect("a registry")
    };
    let result = build(true).call(tool_call("out.liar", json!({}))).await;
    let (error_type, message, details) = failure(&result);
    assert_eq!(error_type, ErrorType::ToolExecutionError);
    assert_eq!(
        message,
        "tool `out.liar` returned data that does not match its output schema: `/n`: the value \
         is not of type \"integer\""
    );
    assert_eq!(
        details,
        json!({ "errors": [{
            "path": "/n",
            "keyword": "type",
            "message": "the value is not of type \"integer\"",
        }] })
    );
    let result = build(false).call(tool_call("out.liar", json!({}))).await;
    assert_eq!(result.status(), ToolStatus::Success, "{result:?}");
    assert_eq!(result.data(), Some(&object(json!({ "n": "many" }))));
}

/// The fields of each audit event, by name, as `Debug` shows them.
#[derive(Default, Clone)]
struct Audit(Arc<Mutex<Vec<BTreeMap<String, String>>>>);

impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Audit {
    fn on_event(&self, event: &tracing::Event<'_>, _: tracing_subscriber::layer::Context<'_, S>) {
        struct Fields(BTreeMap<String, String>);
        impl tracing::field::Visit for Fields {
            fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
                self.0.insert(field.name().to_owned(), format!("{value:?}"));
            }
        }
        if event.metadata().target() == AUDIT_TARGET {
            let mut fields = Fields(BTreeMap::new());
            event.record(&mut fields);
            self.0.lock().unwrap().push(fields.0);
        }
    }
}

#[test]
fn every_call_emits_one_audit_event_with_its_tool_status_and_duration() {
    use tracing_subscriber::layer::SubscriberExt;
    let audit = Audit::default();
    let subscriber = tracing_subscriber::registry().with(audit.clone());
    let registry = echo();
    tracing::subscriber::with_default(subscriber, || {
        registry.call_blocking(tool_call("ctx.echo", json!({ "text": "hi" })));
        registry.call_blocking(tool_call("ctx.echo", json!({})));
        Registry::global().call_blocking(tool_call("exec.add", json!({ "a": 1, "b": 2 })));
    });
    let mut events = audit.0.lock().unwrap().clone();
    assert_eq!(events.len(), 3, "{events:?}");
    for event in &mut events {
        let duration = event.remove("duration_us").expect("a duration");
        assert!(duration.parse::<u64>().is_ok(), "{duration}");
    }
    let event = |pairs: &[(&str, &str)]| {
        pairs
            .iter()
            .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
            .collect::<BTreeMap<_, _>>()
    };
    assert_eq!(
        events,
        [
            event(&[
                ("message", "tool call"),
                ("tool", "ctx.echo"),
                ("status", "success"),
            ]),
            event(&[
                ("message", "tool call"),
                ("tool", "ctx.echo"),
                ("status", "failure"),
                ("error_type", "\"ValidationError\""),
            ]),
            event(&[
                ("message", "tool call"),
                ("tool", "exec.add"),
                ("status", "success"),
            ]),
        ]
    );
}
