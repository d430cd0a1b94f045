//! The cost of one round's `requestState`: sealing the answers given so far when the round
//! ends, and opening them when the client calls again. The baseline is the work each round
//! does with those answers anyway: writing them as JSON and reading them back.
//!
//! Run with `cargo bench -p mcp-runtime --bench request_state`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_main};
use mcp_runtime::talk::StateKey;
use serde_json::{Value, json};

/// Two rounds' answers, as a multi-round elicitation carries them: about 300 bytes.
fn answers() -> Value {
    json!({
        "user_name": { "action": "accept", "content": { "name": "Alice" } },
        "color": { "action": "accept", "content": { "color": "blue", "shade": "dark" } },
        "summary": {
            "role": "assistant",
            "content": { "type": "text", "text": "A short summary the client's model wrote." },
            "model": "test-model",
            "stopReason": "endTurn"
        }
    })
}

fn request_state(c: &mut Criterion) {
    let key = StateKey::new(b"a benchmark secret of at least 32 bytes").expect("a key");
    let context = b"tools/call demo.multi_round";
    let answers = answers();
    let ttl = Duration::from_secs(600);

    let mut group = c.benchmark_group("request_state");
    group.bench_function("json_round_trip_baseline", |b| {
        b.iter(|| {
            let written = serde_json::to_vec(black_box(&answers)).expect("JSON");
            let read: Value = serde_json::from_slice(&written).expect("JSON");
            black_box(read)
        });
    });
    let written = serde_json::to_vec(&answers).expect("JSON");
    group.bench_function("seal_and_open_only", |b| {
        b.iter(|| {
            let sealed = key.seal(context, black_box(&written), ttl);
            black_box(key.open(context, black_box(&sealed)).expect("opens"))
        });
    });
    group.bench_function("seal_and_open", |b| {
        b.iter(|| {
            let written = serde_json::to_vec(black_box(&answers)).expect("JSON");
            let sealed = key.seal(context, &written, ttl);
            let opened = key.open(context, black_box(&sealed)).expect("opens");
            let read: Value = serde_json::from_slice(&opened).expect("JSON");
            black_box(read)
        });
    });
    group.finish();
}

// criterion's macro generates an undocumented function.
#[allow(missing_docs)]
mod group {
    criterion::criterion_group!(benches, super::request_state);
}
criterion_main!(group::benches);
