//! The worker's entry for a program that never calls [`dispatch`](super::dispatch): a
//! `cargo test` harness, a doctest, a `main` of its own. The dynamic loader runs it as the
//! program loads, before `main`, while the process has one thread; so the test harness's
//! threads never start in a worker, and a sandboxed tool called from a `#[test]` runs
//! isolated, as a served one does.
//!
//! A program that calls `dispatch` (as `cli::run` does) starts its workers with
//! [`WORKER_ARG`], served in `main`; the others with [`LOAD_ARG`], served here.
//!
//! The entry is one of the program's constructors (`.init_array`), as those that register
//! `#[mcp_tool]` functions are. It has a priority (`.init_array.00101`), which the linker
//! places after the standard library's (`00099`, which keeps the program's arguments) and
//! before every constructor of no priority, the registrations among them. So, before it
//! serves a worker, it runs the constructors placed after its own, once (it never returns
//! to the loader, which would run them): every tool is registered before the worker looks
//! its tool up, whatever order the linker gave them.
// A constructor is a function pointer in a section of the linker's, called by the loader;
// running those placed after it reads the bounds the linker gives that section.
#![allow(unsafe_code)]

use std::ffi::{OsString, c_char, c_int};
use std::os::unix::ffi::OsStringExt;

#[cfg(doc)]
use crate::isolation::WORKER_ARG;
use crate::isolation::{self, LOAD_ARG};

/// What the loader calls: glibc passes the program's arguments and environment, musl
/// nothing (then the arguments are read from `/proc`).
type Constructor = unsafe extern "C" fn(c_int, *const *const c_char, *const *const c_char);

#[used]
#[unsafe(link_section = ".init_array.00101")]
static AT_LOAD: Constructor = at_load;

unsafe extern "C" {
    // The end of the program's `.init_array`, which every ELF linker defines.
    static __init_array_end: [usize; 0];
}

/// Serves a worker when the program was started as one, and exits; otherwise records that
/// the program can start workers of itself, and returns to the loader.
unsafe extern "C" fn at_load(argc: c_int, argv: *const *const c_char, envp: *const *const c_char) {
    let mut args = arguments().into_iter();
    let _program = args.next();
    if args.next().is_none_or(|first| first != LOAD_ARG) {
        isolation::note_loaded();
        return;
    }
    let config = args.next().unwrap_or_default();
    // SAFETY: the constructors after this one, each called once, with what the loader
    // gave this one, before any thread starts (the process never returns to the loader).
    unsafe { run_later_constructors(argc, argv, envp) };
    // Rust's `main` would have ignored SIGPIPE: a tool writing to a closed socket gets
    // `EPIPE`, as it would in a worker served by `dispatch`.
    // SAFETY: one signal's disposition set, in a process of one thread.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
    isolation::note_in_worker();
    super::serve(&config.to_string_lossy())
}

/// The program's arguments: those the standard library read (glibc gives them to its
/// constructor, which runs before this one), else `/proc/self/cmdline` (musl).
fn arguments() -> Vec<OsString> {
    let args: Vec<OsString> = std::env::args_os().collect();
    if !args.is_empty() {
        return args;
    }
    std::fs::read("/proc/self/cmdline")
        .map(|bytes| {
            bytes
                .split(|byte| *byte == 0)
                .filter(|arg| !arg.is_empty())
                .map(|arg| OsString::from_vec(arg.to_vec()))
                .collect()
        })
        .unwrap_or_default()
}

/// Calls the constructors that `.init_array` holds after [`AT_LOAD`], as the loader calls
/// them: each in turn, with the program's arguments and environment.
///
/// # Safety
///
/// Only from [`at_load`], called by the loader, which never calls those constructors
/// itself afterwards: the caller does not return.
unsafe fn run_later_constructors(
    argc: c_int,
    argv: *const *const c_char,
    envp: *const *const c_char,
) {
    let end = (&raw const __init_array_end).cast::<Constructor>();
    let mut slot = (&raw const AT_LOAD).wrapping_add(1);
    while slot < end {
        // SAFETY: `slot` lies within `.init_array`, after this entry and before its end: an
        // array of the program's constructors.
        let constructor = unsafe { slot.read() };
        // SAFETY: a constructor of the program, called once, as the loader would call it.
        unsafe { constructor(argc, argv, envp) };
        slot = slot.wrapping_add(1);
    }
}
