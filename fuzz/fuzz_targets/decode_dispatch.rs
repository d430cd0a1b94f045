//! Any bytes, as one JSON-RPC message, to `Server::handle`; the invariants are in
//! `src/dispatch.rs`.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    mcp_runtime_fuzz::judge(mcp_runtime_fuzz::dispatch::run(data));
});
