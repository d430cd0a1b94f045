//! A server of fixture tools for the tests that run a real process: `fixture.echo`,
//! `fixture.wait` (until cancelled, saying on standard error how it is doing),
//! `fixture.probe` (which asks the waiting calls to say so), and two tools marked
//! `dangerous`, `danger.wipe` and `danger.launch`, which only pretend.

use mcp_runtime::mcp_tool;

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

fn main() {
    mcp_runtime::cli::run!()
}
