//! A server of fixture tools for the tests that run a real process: `fixture.echo`,
//! `fixture.wait` (until cancelled), and
//! two tools marked `dangerous`, `danger.wipe` and `danger.launch`, which only pretend.

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

/// Waits until the client cancels the call, or ten seconds pass.
#[mcp_tool(namespace = "fixture", timeout = "10s")]
async fn wait(ctx: mcp_runtime::ToolContext) -> String {
    ctx.cancellation().cancelled().await;
    "cancelled".to_owned()
}

fn main() {
    mcp_runtime::cli::run()
}
