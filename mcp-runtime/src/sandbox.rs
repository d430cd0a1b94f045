//! Tools marked `requires_sandbox` run isolated, in a worker process of their own.
//!
//! The worker is the application's own binary, run again with a first argument that
//! [`dispatch`] recognises (or, in a program that never calls it, the runtime's entry at
//! load): before it reads a byte of the call, it drops what the tool's [`SandboxPolicy`]
//! does not grant. On Linux:
//!
//! - new user and PID namespaces (where the kernel allows them): no process of the host's
//!   in sight; and, unless the policy's network is `any`, a new network namespace: no
//!   network interface (`none`), or a loopback of the call's own (`loopback`). With `any`
//!   the tool stays in the host's network namespace: it reaches what the server reaches,
//!   services on the host's loopback included;
//! - as root, the user `nobody` (65534) rather than root;
//! - `no_new_privs`, then Landlock: no file but the call's scratch directory and the
//!   policy's paths, no TCP (unless the policy's network allows it), no signal to a
//!   process outside the sandbox;
//! - a seccomp filter: no `ptrace`, mounts, kernel modules, keyrings, BPF, namespaces,
//!   and no socket the policy's network does not allow;
//! - rlimits: memory, CPU time (the tool's timeout), open files, processes;
//! - an empty environment but the variables the policy names.
//!
//! Only JSON crosses, over pipes: the call in, then the tool's progress, its log messages
//! and the [`MCPToolResult`](crate::MCPToolResult) out. Each worker serves one call and
//! dies with it: a timeout or a cancellation kills its whole process group.
//!
//! Where the kernel lacks what a policy needs, a sandboxed tool does not run: its result
//! names what is missing, unless the registry allows it to run unsandboxed
//! ([`Sandboxing::allow_unsandboxed`], `--allow-unsandboxed NAME`).
//!
//! A binary that does not run [`cli::run`](crate::cli::run()) (or `run!`, or [`App::run`](
//! crate::cli::App::run)) calls [`dispatch`] first thing in `main`, so that it serves as
//! its own worker from `main`, as Rust's runtime set it up. A program that cannot call it,
//! a `cargo test` harness or a doctest, is served on Linux by an entry the runtime places
//! among the program's constructors, which the loader runs before `main` and before the
//! harness starts a thread: a sandboxed tool called in a `#[test]` (through
//! [`Registry::call`](crate::Registry::call), the `client` feature's `testing::connect`, or
//! a served session) runs isolated, in a worker, as it does in production.

pub use crate::isolation::*;
pub use crate::worker::dispatch;
