use std::cell::RefCell;

use mcp_runtime::{State, mcp_tool};

/// Counts its calls, in a cell that calls on two threads would share.
#[mcp_tool(namespace = "ui")]
fn count(calls: State<RefCell<u64>>) -> u64 {
    *calls.borrow_mut() += 1;
    *calls.borrow()
}

fn main() {}
