//! Tools marked `requires_sandbox`, each trying one escape, for the sandbox's tests
//! (`tests/sandbox.rs`). Each reports success when the escape worked: the tests expect
//! every one to fail sandboxed, and the safe ones to succeed unsandboxed.
// Fork, signals and ptrace are the attacks themselves: there is no safe way to write them.
#![allow(unsafe_code)]

use std::io::{Read, Write};

use mcp_runtime::{ToolError, mcp_tool};

/// Reads a file and returns its text.
#[mcp_tool(namespace = "attack", requires_sandbox, task = "optional")]
fn read_file(
    /// The file.
    path: String,
) -> Result<String, ToolError> {
    std::fs::read_to_string(&path).map_err(|err| ToolError::execution(format!("read: {err}")))
}

/// Writes `text` to a file.
#[mcp_tool(namespace = "attack", requires_sandbox)]
fn write_file(
    /// The file.
    path: String,
    /// What to write.
    text: String,
) -> Result<String, ToolError> {
    std::fs::write(&path, text).map_err(|err| ToolError::execution(format!("write: {err}")))?;
    Ok(format!("wrote {path}"))
}

/// Plants a symbolic link in the current (scratch) directory to `target`, then writes
/// `text` through it.
#[mcp_tool(namespace = "attack", requires_sandbox)]
fn write_through_link(
    /// Where the link points.
    target: String,
    /// What to write.
    text: String,
) -> Result<String, ToolError> {
    let link = std::env::current_dir()
        .map_err(|err| ToolError::execution(format!("cwd: {err}")))?
        .join("planted");
    std::os::unix::fs::symlink(&target, &link)
        .map_err(|err| ToolError::execution(format!("symlink: {err}")))?;
    std::fs::write(&link, text).map_err(|err| ToolError::execution(format!("write: {err}")))?;
    Ok(format!("wrote {target} through {}", link.display()))
}

/// Connects to 127.0.0.1 at `port` and reads what the listener says.
#[mcp_tool(namespace = "attack", requires_sandbox)]
fn connect(
    /// The port.
    port: u16,
) -> Result<String, ToolError> {
    greeting_at(port)
}

/// Connects to 127.0.0.1 at `port` from a loopback of the call's own.
#[mcp_tool(namespace = "attack", requires_sandbox(network = "loopback"))]
fn connect_loopback(
    /// The port.
    port: u16,
) -> Result<String, ToolError> {
    greeting_at(port)
}

/// Connects to 127.0.0.1 at `port` in the host's network, which its policy grants: not an
/// escape, the grant the other two are measured against.
#[mcp_tool(namespace = "attack", requires_sandbox(network = "any"))]
fn connect_any(
    /// The port.
    port: u16,
) -> Result<String, ToolError> {
    greeting_at(port)
}

/// What the listener on 127.0.0.1 at `port` says.
fn greeting_at(port: u16) -> Result<String, ToolError> {
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port))
        .map_err(|err| ToolError::execution(format!("connect: {err}")))?;
    let mut text = String::new();
    stream
        .read_to_string(&mut text)
        .map_err(|err| ToolError::execution(format!("read: {err}")))?;
    Ok(text)
}

/// Reads an environment variable.
#[mcp_tool(namespace = "attack", requires_sandbox)]
fn env(
    /// Its name.
    name: String,
) -> Result<String, ToolError> {
    std::env::var(&name).map_err(|err| ToolError::execution(format!("{name}: {err}")))
}

/// Forks until refused; succeeds only when it made `goal` processes.
#[mcp_tool(namespace = "attack", requires_sandbox)]
fn fork_bomb(
    /// How many processes count as an escape.
    goal: u32,
) -> Result<String, ToolError> {
    let mut made = 0;
    while made < goal {
        // SAFETY: the child only sleeps, then exits, touching nothing of the parent's.
        match unsafe { libc::fork() } {
            0 => loop {
                // SAFETY: `pause` waits for a signal; nothing else.
                unsafe { libc::pause() };
            },
            pid if pid > 0 => made += 1,
            _ => {
                let err = std::io::Error::last_os_error();
                return Err(ToolError::execution(format!(
                    "fork refused after {made} processes: {err}"
                )));
            }
        }
    }
    Ok(format!("made {made} processes"))
}

/// Allocates `gib` GiB and touches every page.
#[mcp_tool(namespace = "attack", requires_sandbox)]
fn allocate(
    /// How many GiB.
    gib: u64,
) -> String {
    let mut memory = vec![0_u8; usize::try_from(gib << 30).unwrap_or(usize::MAX)];
    for page in memory.chunks_mut(4096) {
        page[0] = 1;
    }
    format!("allocated {} bytes", memory.len())
}

/// Spins the CPU forever.
#[mcp_tool(namespace = "attack", requires_sandbox, timeout = "3s")]
fn spin() -> u64 {
    let mut count: u64 = 0;
    loop {
        count = std::hint::black_box(count.wrapping_add(1));
        if count == u64::MAX {
            return count;
        }
    }
}

/// Spins the CPU until its timeout, 30 s, or until cancelled: the cancellation's test.
#[mcp_tool(namespace = "attack", requires_sandbox, timeout = "30s")]
fn spin_long() -> u64 {
    spin()
}

/// Sends `SIGSTOP` to the process `pid`, then tries to trace it.
#[mcp_tool(namespace = "attack", requires_sandbox)]
fn signal(
    /// The process.
    pid: i32,
) -> Result<String, ToolError> {
    // SAFETY: plain system calls on a process id.
    let killed = unsafe { libc::kill(pid, libc::SIGSTOP) };
    let kill_error = std::io::Error::last_os_error();
    // SAFETY: as above; no memory is passed.
    let traced = unsafe {
        libc::ptrace(
            libc::PTRACE_ATTACH,
            pid,
            std::ptr::null_mut::<libc::c_void>(),
            std::ptr::null_mut::<libc::c_void>(),
        )
    };
    let trace_error = std::io::Error::last_os_error();
    if killed == 0 || traced == 0 {
        if killed == 0 {
            // SAFETY: undoes the stop, so that the test's server goes on.
            unsafe { libc::kill(pid, libc::SIGCONT) };
        }
        return Ok(format!("signal {killed}, ptrace {traced}"));
    }
    Err(ToolError::execution(format!(
        "kill: {kill_error}; ptrace: {trace_error}"
    )))
}

/// Leaves a file named `name` in the current directory for a later call to find.
#[mcp_tool(namespace = "attack", requires_sandbox)]
fn leave_file(
    /// The file's name.
    name: String,
) -> Result<String, ToolError> {
    let mut file = std::fs::File::create(&name)
        .map_err(|err| ToolError::execution(format!("create: {err}")))?;
    file.write_all(b"left behind")
        .map_err(|err| ToolError::execution(format!("write: {err}")))?;
    Ok(format!("left {name}"))
}

/// Looks for a file named `name` that an earlier call left in its current directory.
#[mcp_tool(namespace = "attack", requires_sandbox)]
fn find_file(
    /// The file's name.
    name: String,
) -> Result<String, ToolError> {
    std::fs::read_to_string(&name).map_err(|err| ToolError::execution(format!("{name}: {err}")))
}

/// Reports progress and a log message, then answers: what crosses from a worker.
#[mcp_tool(namespace = "attack", requires_sandbox)]
async fn report(ctx: mcp_runtime::ToolContext) -> String {
    ctx.progress(1.0, Some(2.0), Some("halfway"));
    ctx.log(mcp_runtime::LoggingLevel::Info, "from the worker");
    "reported".to_owned()
}

/// Prints to standard output, with no newline and half a protocol line, then answers.
#[mcp_tool(namespace = "attack", requires_sandbox)]
#[allow(clippy::print_stdout)]
fn chatty() -> String {
    print!("noise without a newline {{\"result\":");
    let _ = std::io::stdout().flush();
    "answered".to_owned()
}

/// An ordinary tool beside them, run in process.
#[mcp_tool(namespace = "attack", inline)]
fn echo(
    /// What to echo.
    text: String,
) -> String {
    text
}

/// With `SANDBOX_ATTACKS_CALL` set to a tool's name (and its arguments in
/// `SANDBOX_ATTACKS_ARGUMENTS`), calls it through `Registry::call` in this process and
/// prints the result: the in-process path, in a `main` of its own. Otherwise the command
/// line.
fn main() {
    // First, before any thread: a worker of this binary serves its call here.
    mcp_runtime::sandbox::dispatch();
    let Ok(tool) = std::env::var("SANDBOX_ATTACKS_CALL") else {
        mcp_runtime::cli::run!()
    };
    let arguments = std::env::var("SANDBOX_ATTACKS_ARGUMENTS").unwrap_or_else(|_| "{}".into());
    let arguments = mcp_runtime::serde_json::from_str(&arguments).expect("JSON arguments");
    let call = mcp_runtime::MCPToolCall::new(&tool, arguments).expect("a call");
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let result = runtime.block_on(mcp_runtime::Registry::global().call(call));
    let json = mcp_runtime::serde_json::to_string(&result).expect("JSON");
    std::io::stdout()
        .write_all(format!("{json}\n").as_bytes())
        .expect("written");
}
