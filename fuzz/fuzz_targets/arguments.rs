//! A tool call built from the input, run through the registry; the input's format and the
//! invariants are in `src/arguments.rs`.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    mcp_runtime_fuzz::judge(mcp_runtime_fuzz::arguments::run(data));
});
