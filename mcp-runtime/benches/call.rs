//! The cost of `Registry::call` on a two-integer tool, against a hand-written baseline that
//! does only the essential work: deserialize the arguments, call the function, serialize
//! the result. Both start from the same owned arguments object, made outside the timing.
//!
//! Run with `cargo bench -p mcp-runtime --bench call`. With `MCP_CALL_COUNT=N` set, it
//! runs N calls of each of [`one_baseline`] and [`one_call`] instead, with nothing else
//! around them, for `scripts/callgrind-call.sh` to count their instructions.

mod adder;

use std::hint::black_box;

use criterion::{BatchSize, Criterion};
use futures_util::FutureExt;
use mcp_runtime::{MCPToolCall, MCPToolResult, Registry, mcp_tool};
use serde::Deserialize;

use adder::add;
use serde_json::{Map, Value, json};

/// Adds two integers, on the caller's task; the bare integer is sent as `{"result": n}`.
#[mcp_tool(namespace = "bench", inline)]
fn add_wrapped(a: i64, b: i64) -> i64 {
    a.wrapping_add(b)
}

/// Adds two integers, as an `async fn`.
#[mcp_tool(namespace = "bench")]
async fn add_async(a: i64, b: i64) -> i64 {
    a.wrapping_add(b)
}

/// Adds two integers, on the blocking thread pool.
#[mcp_tool(namespace = "bench")]
fn add_blocking(a: i64, b: i64) -> i64 {
    a.wrapping_add(b)
}

#[derive(Deserialize)]
struct AddArguments {
    a: i64,
    b: i64,
}

fn arguments() -> Map<String, Value> {
    json!({ "a": 40, "b": 2 })
        .as_object()
        .cloned()
        .unwrap_or_default()
}

fn baseline(arguments: Map<String, Value>) -> Value {
    let Ok(AddArguments { a, b }) = serde_json::from_value(Value::Object(arguments)) else {
        return Value::Null;
    };
    serde_json::to_value(add(a, b)).unwrap_or_default()
}

/// MCP's `structuredContent` is an object: a tool returning a bare integer answers
/// `{"result": n}`, and so does its hand-written baseline.
fn baseline_wrapped(arguments: Map<String, Value>) -> Value {
    let Ok(AddArguments { a, b }) = serde_json::from_value(Value::Object(arguments)) else {
        return Value::Null;
    };
    json!({ "result": add_wrapped(a, b) })
}

fn call_of(name: &str) -> MCPToolCall {
    MCPToolCall::new(name, Value::Object(arguments())).expect("a valid call")
}

fn bench(c: &mut Criterion) {
    let registry = Registry::global();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    // Check once that every variant answers as it should.
    assert_eq!(baseline(arguments()), json!({ "sum": 42 }));
    assert_eq!(baseline_wrapped(arguments()), json!({ "result": 42 }));
    let result = runtime.block_on(registry.call(call_of("bench.add")));
    assert_eq!(result.data(), json!({ "sum": 42 }).as_object());
    for name in ["bench.add_wrapped", "bench.add_async", "bench.add_blocking"] {
        let result = runtime.block_on(registry.call(call_of(name)));
        assert_eq!(result.data(), json!({ "result": 42 }).as_object(), "{name}");
    }

    let mut group = c.benchmark_group("two_integer_tool");
    group.bench_function("baseline_serde", |b| {
        b.iter_batched(
            arguments,
            |arguments| black_box(baseline(arguments)),
            BatchSize::SmallInput,
        )
    });
    group.bench_function("registry_call_inline", |b| {
        b.iter_batched(
            || call_of("bench.add"),
            |call| black_box(registry.call(call).now_or_never()),
            BatchSize::SmallInput,
        )
    });
    group.bench_function("baseline_serde_integer", |b| {
        b.iter_batched(
            arguments,
            |arguments| black_box(baseline_wrapped(arguments)),
            BatchSize::SmallInput,
        )
    });
    group.bench_function("registry_call_inline_integer", |b| {
        b.iter_batched(
            || call_of("bench.add_wrapped"),
            |call| black_box(registry.call(call).now_or_never()),
            BatchSize::SmallInput,
        )
    });
    group.bench_function("registry_call_async", |b| {
        b.iter_batched(
            || call_of("bench.add_async"),
            |call| black_box(runtime.block_on(registry.call(call))),
            BatchSize::SmallInput,
        )
    });
    group.bench_function("registry_call_blocking_pool", |b| {
        b.iter_batched(
            || call_of("bench.add_blocking"),
            |call| black_box(runtime.block_on(registry.call(call))),
            BatchSize::SmallInput,
        )
    });
    group.finish();
}

/// One baseline call, kept out of line so that callgrind can count it alone.
#[inline(never)]
fn one_baseline(arguments: Map<String, Value>) -> Value {
    baseline(arguments)
}

/// One `Registry::call` of the inline object-returning tool, kept out of line likewise.
#[inline(never)]
fn one_call(registry: &Registry, call: MCPToolCall) -> Option<MCPToolResult> {
    registry.call(call).now_or_never()
}

/// Runs `n` calls of each of [`one_baseline`] and [`one_call`], their inputs made before
/// and their outputs dropped after, as criterion's batches do.
fn count(n: usize) {
    let registry = Registry::global();
    // Once each outside the count: what is built on first use is not a call's cost.
    black_box(baseline(arguments()));
    black_box(registry.call(call_of("bench.add")).now_or_never());
    let inputs: Vec<_> = (0..n).map(|_| arguments()).collect();
    let outputs: Vec<_> = inputs.into_iter().map(one_baseline).collect();
    assert!(outputs.iter().all(|output| *output == json!({ "sum": 42 })));
    let calls: Vec<_> = (0..n).map(|_| call_of("bench.add")).collect();
    let results: Vec<_> = calls
        .into_iter()
        .map(|call| one_call(registry, call))
        .collect();
    assert!(results.iter().all(|result| {
        result.as_ref().and_then(MCPToolResult::data) == json!({ "sum": 42 }).as_object()
    }));
}

// criterion's macro generates an undocumented function.
#[allow(missing_docs)]
mod group {
    criterion::criterion_group!(benches, super::bench);
}

fn main() {
    if let Some(n) = std::env::var("MCP_CALL_COUNT")
        .ok()
        .and_then(|n| n.parse().ok())
    {
        count(n);
        return;
    }
    group::benches();
    Criterion::default().configure_from_args().final_summary();
}
