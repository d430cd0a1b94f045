//! A server of fixture tools for the tests that run a real process: `fixture.echo`,
//! `fixture.wait` (until cancelled, saying on standard error how it is doing),
//! `fixture.probe` (which asks the waiting calls to say so), and two tools marked
//! `dangerous`, `danger.wipe` and `danger.launch`, which only pretend; and a resource
//! template, `fixture://parts/{serial}`, whose refusals say "not found" where they mean
//! invalid, and do not where they mean missing; and `fixture.two_questions`, which asks two
//! questions in an order that changes from call to call.

use mcp_runtime::{ToolError, mcp_resource, mcp_tool};

/// Says `text` back.
#[mcp_tool(namespace = "fixture", read_only, idempotent, inline)]
fn echo(
    /// What to say back.
    text: String,
) -> String {
    text
}

/// Pretends to wipe a disk: marked dangerous, it runs only when the policy allows it.
#[mcp_tool(namespace = "danger", dangerous, destructive, inline)]
fn wipe(
    /// The disk it would wipe.
    disk: String,
) -> String {
    format!("wiped {disk} (not really)")
}

/// Pretends to launch something: marked dangerous, it runs only when the policy allows it.
#[mcp_tool(namespace = "danger", dangerous, inline)]
fn launch() -> String {
    "launched (not really)".to_owned()
}

/// What asks every `fixture.wait` call in flight whether it still waits.
static PROBE: tokio::sync::Notify = tokio::sync::Notify::const_new();

/// Waits until the client cancels the call, or a minute passes. Says on standard error,
/// after `fixture.wait LABEL:`, `started` once it waits, `still waiting` each time
/// `fixture.probe` asks and it was not cancelled, and, when it stops, how: `stopped:
/// cancelled`, or `stopped: dropped` when the call was dropped otherwise (its timeout).
#[mcp_tool(namespace = "fixture", timeout = "60s")]
async fn wait(
    ctx: mcp_runtime::ToolContext,
    /// The name the call goes by on standard error.
    label: String,
) -> String {
    struct Stopped {
        ctx: mcp_runtime::ToolContext,
        label: String,
    }
    impl Drop for Stopped {
        fn drop(&mut self) {
            // A timeout drops the call before it cancels its token; a cancellation
            // cancels the token first.
            let how = if self.ctx.is_cancelled() {
                "cancelled"
            } else {
                "dropped"
            };
            eprintln!("fixture.wait {}: stopped: {how}", self.label);
        }
    }
    let stopped = Stopped { ctx, label };
    let mut state = "started";
    loop {
        let probed = PROBE.notified();
        tokio::pin!(probed);
        // Listening from here: a probe after the line below reaches this call.
        probed.as_mut().enable();
        eprintln!("fixture.wait {}: {state}", stopped.label);
        tokio::select! {
            // A probe that finds the call cancelled ends it rather than say it waits.
            biased;
            () = stopped.ctx.cancellation().cancelled() => return "cancelled".to_owned(),
            () = probed => state = "still waiting",
        }
    }
}

/// Asks every `fixture.wait` call in flight to say on standard error whether it still
/// waits; the calls cancelled before this one stop instead.
#[mcp_tool(namespace = "fixture", inline)]
fn probe() -> String {
    PROBE.notify_waiters();
    "probed".to_owned()
}

/// A part, by its serial: `P-<number>-<check digit>`. A serial without its check digit
/// is invalid, and its error says "not found"; a well-formed serial of no part is missing,
/// and its error does not say so in those words. Only `P-1-1` exists.
#[mcp_resource(uri_template = "fixture://parts/{serial}", mime_type = "text/plain")]
fn part(serial: String) -> Result<String, ToolError> {
    let mut pieces = serial.split('-');
    let (Some("P"), Some(number), Some(check), None) =
        (pieces.next(), pieces.next(), pieces.next(), pieces.next())
    else {
        return Err(
            ToolError::validation(format!("serial `{serial}`: check digit not found"))
                .with_details(serde_json::json!({ "argument": "serial" })),
        );
    };
    match (number, check) {
        ("1", "1") => Ok("part P-1-1: a bolt".to_owned()),
        _ => Err(ToolError::not_found(format!(
            "no part has serial `{serial}`"
        ))),
    }
}

/// How many times `fixture.two_questions` was called.
static ASKED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Asks `first?` then `second?` on its odd calls, `second?` then `first?` on its even ones,
/// and says what each was answered: as a model-driven tool may ask what it needs in another
/// order when it runs again.
#[mcp_tool(namespace = "fixture", timeout = "30s")]
async fn two_questions(ctx: mcp_runtime::ToolContext) -> Result<serde_json::Value, ToolError> {
    let odd = ASKED.fetch_add(1, std::sync::atomic::Ordering::SeqCst) % 2 == 0;
    let order = if odd {
        ["first", "second"]
    } else {
        ["second", "first"]
    };
    let form = serde_json::json!({
        "type": "object",
        "properties": { "value": { "type": "string" } },
    });
    let mut answers = serde_json::Map::new();
    for question in order {
        let answer = ctx
            .asker()
            .elicit_with(question, &format!("{question}?"), form.clone())
            .await?;
        let value = answer
            .accepted()
            .and_then(|mut content| content.remove("value"))
            .unwrap_or_default();
        answers.insert(question.to_owned(), value);
    }
    Ok(serde_json::Value::Object(answers))
}

fn main() {
    mcp_runtime::cli::run!()
}
