//! A server whose tools take state: a call counter, given with `cli::app!().state(…)`.
//! With `STATE_SERVER_GIVES_NOTHING` set, the application forgets to give it, and every
//! command must stop before it runs.

use std::sync::atomic::{AtomicU64, Ordering};

use mcp_runtime::{Registry, State, mcp_tool};

/// How many times `state.count` ran.
#[derive(Default)]
struct Calls(AtomicU64);

/// Counts its calls: the first answers 1.
#[mcp_tool(namespace = "state", inline)]
fn count(calls: State<Calls>) -> u64 {
    calls.0.fetch_add(1, Ordering::Relaxed) + 1
}

/// The tools of `Registry::global()`: the registry the command line runs, with its state.
#[mcp_tool(namespace = "state", inline)]
fn names() -> Vec<String> {
    let tools = Registry::global().list();
    tools.map(|tool| tool.name().to_string()).collect()
}

fn main() {
    let app = mcp_runtime::cli::app!();
    if std::env::var_os("STATE_SERVER_GIVES_NOTHING").is_some() {
        app.run()
    } else {
        app.state(Calls::default()).run()
    }
}
