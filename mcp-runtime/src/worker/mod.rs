//! A sandboxed tool's worker: the process entry point of the application's own binary run
//! again as a worker ([`dispatch`] in `main`, or the entry at load). It isolates itself,
//! says so, reads the one call, runs it through a registry of its own, answers, and exits.

use std::io::{self, BufRead, Write};
use std::sync::{Arc, Mutex};

use mcp_runtime_core::{MCPToolCall, MCPToolResult, ToolError};

use crate::context::options::CallOptions;
use crate::isolation::protocol::{Call, Config, Line};
use crate::isolation::{self, WORKER_ARG, isolate};
use crate::policy::DangerousPolicy;
use crate::registry::Registry;

#[cfg(target_os = "linux")]
mod load;

/// Serves as a sandboxed tool's worker when the process was started as one, and then
/// exits; otherwise returns at once, and the process may run sandboxed tools.
///
/// [`cli::run`](crate::cli::run()) and its kin call it first. A binary with a `main` of its
/// own that calls [`Registry::call`](crate::Registry::call) on a sandboxed tool calls it
/// first thing, before it starts a thread or a runtime (a test harness, which has no such
/// `main`, needs nothing: see the [sandbox](crate::sandbox)):
///
/// ```no_run
/// fn main() {
///     mcp_runtime::sandbox::dispatch();
///     // … build a runtime, call tools …
/// }
/// ```
pub fn dispatch() {
    let mut args = std::env::args_os();
    let _program = args.next();
    if args.next().is_some_and(|first| first == WORKER_ARG) {
        let config = args.next().unwrap_or_default();
        isolation::note_in_worker();
        serve(&config.to_string_lossy())
    }
    isolation::note_dispatches();
}

/// Exit code of a worker whose command line it could not read.
const BAD_CONFIG: i32 = 64;

/// Serves one call as `config` (JSON) says, and exits.
fn serve(config: &str) -> ! {
    let config: Config = match serde_json::from_str(config) {
        Ok(config) => config,
        Err(err) => {
            eprintln!("error: not a sandbox worker's configuration: {err}");
            std::process::exit(BAD_CONFIG)
        }
    };
    // The protocol's lines go to a copy of standard output; standard output itself becomes
    // standard error, so that what a tool prints cannot break a line of the protocol (the
    // server logs it).
    let stdout = Arc::new(Mutex::new(protocol_output()));
    let isolated = {
        let mut out = lock(&stdout);
        isolate(&config, &mut *out)
    };
    let support = match isolated {
        Ok(support) => support,
        Err(support) => {
            send(&stdout, &Line::Unavailable(support));
            std::process::exit(0)
        }
    };
    if config.tool.is_empty() {
        // A probe: it isolated itself, and says how.
        send(&stdout, &Line::Ready(support));
        std::process::exit(0)
    }
    // Everything the call needs but its arguments, made before the worker says it is
    // ready: a worker kept waiting answers its call without making them.
    let prepared = prepare(&config);
    send(&stdout, &Line::Ready(support));

    let mut line = String::new();
    if io::stdin().lock().read_line(&mut line).unwrap_or(0) == 0 {
        // The server went away, or this worker was never used.
        std::process::exit(0)
    }
    let result = match (prepared, serde_json::from_str::<Call>(&line)) {
        (Ok((registry, runtime)), Ok(call)) => run(&config, &registry, &runtime, call, &stdout),
        (Err(failed), _) => failed,
        (_, Err(err)) => MCPToolResult::failure(ToolError::execution(format!(
            "the sandbox worker could not read its call: {err}"
        ))),
    };
    match serde_json::to_value(&result) {
        Ok(serde_json::Value::Object(map)) => send(&stdout, &Line::Result(map)),
        _ => send(
            &stdout,
            &Line::Result(serde_json::Map::from_iter([(
                "status".to_owned(),
                "failure".into(),
            )])),
        ),
    }
    std::process::exit(0)
}

/// A registry of the one `#[mcp_tool]` asked for, its definition built, which runs it
/// whatever its policies (the server applied them; it keeps the time, so the worker sets
/// none of its own); and a runtime of one thread to run it on.
fn prepare(config: &Config) -> Result<(Registry, tokio::runtime::Runtime), MCPToolResult> {
    let tool = config.tool.clone();
    let registry = Registry::builder()
        .inventory()
        .filter(move |definition| definition.name().as_str() == tool)
        .dangerous_policy(DangerousPolicy::AllowAll)
        .expose_panics(config.expose_panics)
        .default_timeout(None)
        .build()
        .map_err(|err| {
            MCPToolResult::failure(ToolError::execution(format!(
                "the sandbox worker could not build its registry: {err}"
            )))
        })?;
    if let Some(tool) = registry.get(&config.tool) {
        let _ = tool.definition();
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .map_err(|err| {
            MCPToolResult::failure(ToolError::execution(format!(
                "the sandbox worker could not start its runtime: {err}"
            )))
        })?;
    Ok((registry, runtime))
}

/// Runs the call, its progress and log messages sent as they come.
fn run(
    config: &Config,
    registry: &Registry,
    runtime: &tokio::runtime::Runtime,
    call: Call,
    stdout: &Arc<Mutex<Output>>,
) -> MCPToolResult {
    let mut options = CallOptions::new();
    if let Some(meta) = call.meta {
        options = options.with_meta(meta);
    }
    if call.progress {
        let out = Arc::clone(stdout);
        options = options.with_progress(move |progress| {
            send(
                &out,
                &Line::Progress {
                    progress: progress.progress,
                    total: progress.total,
                    message: progress.message,
                },
            );
        });
    }
    if let Some(least) = call.log {
        let out = Arc::clone(stdout);
        options = options.with_log(least, move |message| send(&out, &Line::Log(message)));
    }
    let call = match MCPToolCall::new(&config.tool, call.arguments) {
        Ok(call) => call,
        Err(err) => return MCPToolResult::failure(ToolError::execution(err.to_string())),
    };
    runtime.block_on(registry.call_with(call, options))
}

/// Where the protocol's lines go.
type Output = Box<dyn Write + Send>;

/// A copy of standard output, standard output then pointed at standard error; standard
/// output itself where that cannot be done.
fn protocol_output() -> Output {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        if let Ok(copy) = rustix::io::fcntl_dupfd_cloexec(io::stdout(), 3) {
            if rustix::stdio::dup2_stdout(io::stderr().as_fd()).is_ok() {
                return Box::new(std::fs::File::from(copy));
            }
        }
    }
    Box::new(io::stdout())
}

fn lock(stdout: &Mutex<Output>) -> std::sync::MutexGuard<'_, Output> {
    stdout
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Writes `line` whole, flushed: the server reads each as it comes.
fn send(stdout: &Mutex<Output>, line: &Line) {
    if let Ok(text) = serde_json::to_string(line) {
        let mut out = lock(stdout);
        let _ = writeln!(out, "{text}");
        let _ = out.flush();
    }
}
