//! The server's side: start a worker (or take one waiting), send it the call, relay what
//! it reports, and kill it when the call ends, times out or is cancelled.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_runtime_core::sandbox::{SCRATCH, SandboxPolicy, display_memory};
use mcp_runtime_core::{ErrorType, MCPToolResult, ToolError};
use rustix::process::Signal;
use serde_json::{Map, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout};
use tokio_util::sync::CancellationToken;

use super::protocol::{Call, Config, Ended, Line};
use super::{Sandboxing, Support, UNAVAILABLE_ENV};
use crate::context::Reports;
use crate::tool::RegisteredTool;

/// The `tracing` target of what workers write to standard error, and of the sandbox's own
/// warnings.
pub(crate) const SANDBOX_TARGET: &str = "mcp_runtime::sandbox";

/// What a program lacks that never ran [`super::dispatch`] and has no entry at load (outside
/// Linux).
const NO_DISPATCH: &str = "a worker: this program never called `mcp_runtime::sandbox::dispatch()` (which `cli::run` calls), and outside Linux no entry at load serves in its place, so it cannot start one of itself";

/// How much of a worker's standard error is kept to explain how it ended.
const STDERR_KEPT: usize = 4096;

/// The workers started and isolated ahead of their call, by what they were started for:
/// the tool, its policy and its timeout.
#[derive(Default)]
pub(super) struct Pools {
    ready: Mutex<HashMap<String, VecDeque<Worker>>>,
}

/// The process's workers waiting for a call.
pub(super) static POOLS: std::sync::LazyLock<Pools> = std::sync::LazyLock::new(Pools::default);

/// What a waiting worker was started for: one with the same key serves the call.
fn pool_key(tool: &str, policy: &SandboxPolicy, timeout: Option<Duration>, expose: bool) -> String {
    format!("{tool}\n{policy:?}\n{timeout:?}\n{expose}")
}

/// A started worker, isolated and waiting for its call; killed, its whole process group,
/// when dropped.
struct Worker {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Lines<BufReader<ChildStdout>>,
    stderr: Arc<Mutex<String>>,
    stderr_done: tokio::task::JoinHandle<()>,
    /// Removed once the worker is dead.
    _scratch: Scratch,
}

impl Worker {
    /// The end of what the worker wrote to standard error, once it closed it (or half a
    /// second passed).
    async fn last_words(&mut self) -> String {
        let _ = tokio::time::timeout(Duration::from_millis(500), &mut self.stderr_done).await;
        self.stderr
            .lock()
            .map(|text| text.clone())
            .unwrap_or_default()
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        if let Some(id) = self.child.id() {
            if let Some(pid) = rustix::process::Pid::from_raw(id as i32) {
                let _ = rustix::process::kill_process_group(pid, Signal::KILL);
            }
        }
        let _ = self.child.start_kill();
        // Reaped by Tokio in the background; the scratch directory goes with `scratch`.
    }
}

/// A call's scratch directory: made empty for it, removed after it.
struct Scratch(PathBuf);

/// The scratch directories not yet removed: a program that exits removes them
/// ([`Pools::clear`]), those of workers still starting included.
static SCRATCHES: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

impl Scratch {
    fn new() -> std::io::Result<Self> {
        let name = crate::base::ids::random_hex::<12>()
            .map_err(|err| std::io::Error::other(err.to_string()))?;
        let path = std::env::temp_dir().join(format!("mcp-sandbox-{name}"));
        {
            use std::os::unix::fs::DirBuilderExt;
            std::fs::DirBuilder::new().mode(0o700).create(&path)?;
        }
        if let Ok(mut live) = SCRATCHES.lock() {
            live.push(path.clone());
        }
        let scratch = Self(path);
        // A worker started by root runs its tool as nobody, who must own the directory.
        if rustix::process::getuid().is_root() {
            std::os::unix::fs::chown(&scratch.0, Some(65_534), Some(65_534))?;
        }
        Ok(scratch)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
        if let Ok(mut live) = SCRATCHES.lock() {
            live.retain(|path| *path != self.0);
        }
    }
}

/// What a sandboxed call runs, and how: the tool, the policy it runs with, the registry's
/// sandboxing, the call's timeout, and whether a panic's message reaches the caller.
pub(crate) struct Runs<'a> {
    pub(crate) tool: &'a RegisteredTool,
    pub(crate) policy: &'a SandboxPolicy,
    pub(crate) sandboxing: &'a Sandboxing,
    pub(crate) timeout: Option<Duration>,
    pub(crate) expose_panics: bool,
}

/// Why a sandboxed call did not reach a worker.
enum NotStarted {
    /// The sandbox is unavailable here: what the worker could do, and what is missing.
    Unavailable(Support),
    /// Something else failed.
    Failed(StartError),
}

impl From<StartError> for NotStarted {
    fn from(failed: StartError) -> Self {
        Self::Failed(failed)
    }
}

/// Why a worker did not start, where the sandbox itself is available.
#[derive(Debug, thiserror::Error)]
enum StartError {
    /// Its scratch directory could not be made.
    #[error("its scratch directory could not be made: {0}")]
    Scratch(std::io::Error),
    /// A path of its policy names no directory.
    #[error(transparent)]
    Path(#[from] PathError),
    /// Its configuration could not be written.
    #[error("its configuration: {0}")]
    Config(serde_json::Error),
    /// This program cannot start a worker of itself.
    #[error("{}", NO_DISPATCH)]
    NoDispatch,
    /// The process did not start.
    #[error("the worker did not start: {0}")]
    Spawn(std::io::Error),
    /// The process has no pipes to talk over.
    #[error("the worker has no pipes")]
    NoPipes,
    /// Its first line could not be read.
    #[error("the worker did not answer: {0}")]
    Silent(std::io::Error),
    /// It ended before it said it was ready: with what it last wrote to standard error.
    #[error("the worker ended before it was ready{}", last_line(.0))]
    EndedEarly(String),
}

/// Why a path of a policy cannot be made absolute.
#[derive(Debug, thiserror::Error)]
enum PathError {
    /// It starts with `$NAME`, and the registry gives no directory of that name.
    #[error(
        "its policy names `${0}`, which no `--sandbox-path {0}=DIR` (or `Sandboxing::path`) gives"
    )]
    Unnamed(String),
}

/// Runs `tool` in a worker, with `arguments` (already checked); the arguments back when
/// the sandbox is unavailable and the registry lets the tool run unsandboxed, in which
/// case the caller runs it in process.
pub(crate) async fn run_sandboxed(
    runs: Runs<'_>,
    arguments: Value,
    meta: Option<Map<String, Value>>,
    reports: &Reports,
    cancellation: &CancellationToken,
) -> Result<MCPToolResult, Value> {
    let Runs {
        tool,
        policy,
        sandboxing,
        timeout,
        expose_panics,
    } = runs;
    let name = tool.name().as_str();
    let worker = match take_or_start(name, policy, sandboxing, timeout, expose_panics).await {
        Ok(worker) => worker,
        Err(not_started) => return without_worker(name, sandboxing, not_started, arguments),
    };
    let call = Call {
        arguments,
        meta,
        log: reports.log.as_ref().map(|(least, _)| *least),
        progress: reports.progress.is_some(),
    };
    let exchange = exchange(worker, call, reports, name, policy, timeout);
    let limited = async {
        match timeout {
            Some(limit) => match tokio::time::timeout(limit, exchange).await {
                Ok(result) => result,
                Err(_) => MCPToolResult::failure(ToolError::new(
                    ErrorType::TimeoutError,
                    format!(
                        "tool `{name}` did not finish within {}; its sandbox was killed",
                        crate::base::duration::format_duration(limit)
                    ),
                )),
            },
            None => exchange.await,
        }
    };
    let result = tokio::select! {
        biased;
        () = cancellation.cancelled() => MCPToolResult::failure(ToolError::execution(format!(
            "the call of tool `{name}` was cancelled"
        ))),
        result = limited => result,
    };
    // The next worker starts once this call is answered, not while it runs: on a machine
    // of few cores, starting a process beside the call would slow the call.
    if sandboxing.warm_workers() > 0 {
        refill(tool, policy, sandboxing, timeout, expose_panics);
    }
    Ok(result)
}

/// A worker for the call: one waiting in the pool, else one started now.
async fn take_or_start(
    name: &str,
    policy: &SandboxPolicy,
    sandboxing: &Sandboxing,
    timeout: Option<Duration>,
    expose_panics: bool,
) -> Result<Worker, NotStarted> {
    if super::worker_arg().is_none() {
        return Err(NotStarted::Unavailable(Support {
            missing: Some(NO_DISPATCH.to_owned()),
            ..Support::default()
        }));
    }
    let pooled = sandboxing.warm_workers() > 0;
    let key = pool_key(name, policy, timeout, expose_panics);
    match pooled.then(|| POOLS.take(&key)).flatten() {
        Some(worker) => Ok(worker),
        None => start(name, policy, sandboxing, timeout, expose_panics)
            .await
            .map(|(worker, _)| worker),
    }
}

/// The answer of a call that reached no worker: its `arguments` back, for the caller to
/// run the tool in process, when the sandbox is unavailable and the registry lets the tool
/// run unsandboxed; otherwise the refusal, or the failure.
fn without_worker(
    name: &str,
    sandboxing: &Sandboxing,
    not_started: NotStarted,
    arguments: Value,
) -> Result<MCPToolResult, Value> {
    match not_started {
        NotStarted::Unavailable(support) => {
            let missing = support
                .missing
                .unwrap_or_else(|| "what its policy needs".to_owned());
            if sandboxing.allows_unsandboxed(name) {
                tracing::warn!(
                    target: SANDBOX_TARGET,
                    tool = name,
                    "runs unsandboxed, as allowed: this machine lacks {missing}"
                );
                return Err(arguments);
            }
            Ok(super::refused(name, &missing, sandboxing))
        }
        NotStarted::Failed(why) => Ok(MCPToolResult::failure(ToolError::execution(format!(
            "tool `{name}` could not start its sandbox: {why}"
        )))),
    }
}

/// Sends `call` to `worker` and reads what it reports until its result, or its end.
async fn exchange(
    mut worker: Worker,
    call: Call,
    reports: &Reports,
    name: &str,
    policy: &SandboxPolicy,
    timeout: Option<Duration>,
) -> MCPToolResult {
    let sent = match (worker.stdin.take(), serde_json::to_vec(&call)) {
        (Some(mut stdin), Ok(mut line)) => {
            line.push(b'\n');
            stdin.write_all(&line).await.and(stdin.shutdown().await)
        }
        (_, Err(err)) => Err(std::io::Error::other(err)),
        (None, Ok(_)) => Err(std::io::Error::other("no input")),
    };
    if let Err(err) = sent {
        return MCPToolResult::failure(ToolError::execution(format!(
            "tool `{name}`: its sandbox worker did not take the call: {err}"
        )));
    }
    let mut ended = None;
    loop {
        let line = match worker.lines.next_line().await {
            Ok(Some(line)) => line,
            Ok(None) | Err(_) => break,
        };
        match serde_json::from_str::<Line>(&line) {
            Ok(Line::Result(map)) => {
                // Killing the worker and removing its scratch directory take a dozen
                // system calls: done beside the answer, not before it.
                retire(worker);
                return MCPToolResult::try_from(map).unwrap_or_else(|err| {
                    MCPToolResult::failure(ToolError::execution(format!(
                        "tool `{name}`: its sandbox worker sent a result that does not read: {err}"
                    )))
                });
            }
            Ok(Line::Progress {
                progress,
                total,
                message,
            }) => {
                if let Some(sink) = &reports.progress {
                    sink(crate::context::Progress {
                        progress,
                        total,
                        message,
                    });
                }
            }
            Ok(Line::Log(message)) => {
                if let Some((least, sink)) = &reports.log {
                    if message.level >= *least {
                        sink(message);
                    }
                }
            }
            Ok(Line::Ended(how)) => ended = Some(how),
            // Lines the tool itself wrote to standard output are not the protocol's.
            Ok(Line::Ready(_) | Line::Unavailable(_)) | Err(_) => {}
        }
    }
    let ended = match ended {
        Some(ended) => Some(ended),
        None => match tokio::time::timeout(Duration::from_secs(2), worker.child.wait()).await {
            Ok(Ok(status)) => {
                use std::os::unix::process::ExitStatusExt;
                status
                    .signal()
                    .map(Ended::Signal)
                    .or(status.code().map(Ended::Code))
            }
            _ => None,
        },
    };
    let stderr = worker.last_words().await;
    ended_without_result(name, policy, timeout, ended, &stderr)
}

/// Kills `worker` and removes its scratch directory, on the blocking pool when there is a
/// runtime.
fn retire(worker: Worker) {
    match tokio::runtime::Handle::try_current() {
        Ok(runtime) => {
            runtime.spawn_blocking(move || drop(worker));
        }
        Err(_) => drop(worker),
    }
}

/// The failure of a worker that ended before its result: the limit it hit, if one did.
fn ended_without_result(
    name: &str,
    policy: &SandboxPolicy,
    timeout: Option<Duration>,
    ended: Option<Ended>,
    stderr: &str,
) -> MCPToolResult {
    let out_of_memory = stderr.contains("memory allocation of") || stderr.contains("out of memory");
    let error = match ended {
        _ if out_of_memory => ToolError::new(
            ErrorType::ApiLimitExceeded,
            format!(
                "tool `{name}` ran out of its sandbox's memory limit ({})",
                display_memory(policy.memory)
            ),
        ),
        Some(Ended::Signal(signal))
            // SIGXCPU at the soft CPU limit, SIGKILL (silent) at the hard one.
            if signal == Signal::XCPU.as_raw()
                || (signal == Signal::KILL.as_raw() && timeout.is_some() && stderr.is_empty()) =>
        {
            ToolError::new(
                ErrorType::TimeoutError,
                format!(
                    "tool `{name}` used up its sandbox's CPU time limit ({}, its timeout)",
                    timeout.map_or_else(String::new, crate::base::duration::format_duration)
                ),
            )
        }
        Some(Ended::Signal(signal)) => ToolError::execution(format!(
            "tool `{name}`'s sandboxed process was killed by signal {signal}{}",
            last_line(stderr)
        )),
        Some(Ended::Code(code)) => ToolError::execution(format!(
            "tool `{name}`'s sandboxed process exited with code {code} and no result{}",
            last_line(stderr)
        )),
        None => ToolError::execution(format!(
            "tool `{name}`'s sandboxed process ended with no result{}",
            last_line(stderr)
        )),
    };
    MCPToolResult::failure(error)
}

fn last_line(stderr: &str) -> String {
    stderr
        .lines()
        .rev()
        .find(|line| !line.trim().is_empty())
        .map(|line| format!(": {}", line.trim()))
        .unwrap_or_default()
}

impl Pools {
    fn take(&self, tool: &str) -> Option<Worker> {
        let mut ready = self.ready.lock().ok()?;
        ready.get_mut(tool)?.pop_front()
    }

    fn count(&self, tool: &str) -> usize {
        self.ready
            .lock()
            .map(|ready| ready.get(tool).map_or(0, VecDeque::len))
            .unwrap_or(0)
    }

    /// Kills every waiting worker (and so removes its scratch directory).
    pub(super) fn clear(&self) {
        let drained: Vec<Worker> = match self.ready.lock() {
            Ok(mut ready) => ready.drain().flat_map(|(_, workers)| workers).collect(),
            Err(_) => Vec::new(),
        };
        drop(drained);
        let left = SCRATCHES
            .lock()
            .map(|mut live| std::mem::take(&mut *live))
            .unwrap_or_default();
        for path in left {
            let _ = std::fs::remove_dir_all(path);
        }
    }

    fn put(&self, tool: &str, worker: Worker, most: usize) {
        if let Ok(mut ready) = self.ready.lock() {
            let workers = ready.entry(tool.to_owned()).or_default();
            if workers.len() < most {
                workers.push_back(worker);
            }
        }
    }
}

/// Starts workers in the background until `tool` has as many waiting as the registry
/// keeps.
fn refill(
    tool: &RegisteredTool,
    policy: &SandboxPolicy,
    sandboxing: &Sandboxing,
    timeout: Option<Duration>,
    expose_panics: bool,
) {
    let name = tool.name().to_string();
    let key = pool_key(&name, policy, timeout, expose_panics);
    let most = sandboxing.warm_workers();
    if POOLS.count(&key) >= most || tokio::runtime::Handle::try_current().is_err() {
        return;
    }
    let (policy, sandboxing) = (policy.clone(), sandboxing.clone());
    tokio::spawn(async move {
        if let Ok((worker, _)) = start(&name, &policy, &sandboxing, timeout, expose_panics).await {
            POOLS.put(&key, worker, most);
        }
    });
}

/// Starts a worker for `tool` and waits until it is isolated.
async fn start(
    tool: &str,
    policy: &SandboxPolicy,
    sandboxing: &Sandboxing,
    timeout: Option<Duration>,
    expose_panics: bool,
) -> Result<(Worker, Support), NotStarted> {
    let scratch = Scratch::new().map_err(StartError::Scratch)?;
    let config = worker_config(tool, policy, sandboxing, timeout, expose_panics, &scratch.0)
        .map_err(StartError::Path)?;
    let config = serde_json::to_string(&config).map_err(StartError::Config)?;
    let entry = super::worker_arg().ok_or(StartError::NoDispatch)?;
    let mut child = worker_command(entry, config, &scratch.0, policy)
        .spawn()
        .map_err(StartError::Spawn)?;
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(StartError::NoPipes.into());
    };
    let kept = Arc::new(Mutex::new(String::new()));
    let stderr_done = tokio::spawn(relay_stderr(stderr, Arc::clone(&kept), tool.to_owned()));
    let worker = Worker {
        child,
        stdin: Some(stdin),
        lines: BufReader::new(stdout).lines(),
        stderr: kept,
        stderr_done,
        _scratch: scratch,
    };
    ready(worker).await
}

/// What a worker for `tool` is told: its policy's paths made absolute, its limits, and
/// what this process's environment pretends missing.
fn worker_config(
    tool: &str,
    policy: &SandboxPolicy,
    sandboxing: &Sandboxing,
    timeout: Option<Duration>,
    expose_panics: bool,
    scratch: &Path,
) -> Result<Config, PathError> {
    let resolve = |paths: &[String]| -> Result<Vec<PathBuf>, PathError> {
        paths
            .iter()
            .map(|path| resolve(path, scratch, sandboxing))
            .collect()
    };
    let mut write = vec![scratch.to_path_buf()];
    write.extend(resolve(&policy.write)?);
    Ok(Config {
        tool: tool.to_owned(),
        read: resolve(&policy.read)?,
        write,
        network: policy.network,
        memory: policy.memory,
        processes: policy.processes,
        cpu_seconds: timeout.map(|limit| limit.as_secs() + u64::from(limit.subsec_nanos() > 0)),
        pretend_missing: std::env::var(UNAVAILABLE_ENV)
            .ok()
            .filter(|what| !what.is_empty()),
        expose_panics,
    })
}

/// The command that starts a worker: this program, run with `entry` and `config`, in
/// `scratch`, with no environment but the variables `policy` passes on, piped, in a process
/// group of its own.
fn worker_command(
    entry: &str,
    config: String,
    scratch: &Path,
    policy: &SandboxPolicy,
) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(program());
    command
        .arg(entry)
        .arg(config)
        .env_clear()
        .current_dir(scratch)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    for variable in &policy.env {
        if let Some(value) = std::env::var_os(variable) {
            command.env(variable, value);
        }
    }
    command
}

/// `worker` once its first line says it is isolated and ready; or that the sandbox is
/// unavailable, or that it ended without a word.
async fn ready(mut worker: Worker) -> Result<(Worker, Support), NotStarted> {
    let first = worker.lines.next_line().await.map_err(StartError::Silent)?;
    match first.as_deref().map(serde_json::from_str::<Line>) {
        Some(Ok(Line::Ready(support))) => Ok((worker, support)),
        Some(Ok(Line::Unavailable(support))) => Err(NotStarted::Unavailable(support)),
        _ => Err(StartError::EndedEarly(worker.last_words().await).into()),
    }
}

/// The program a worker runs: this one.
fn program() -> PathBuf {
    if cfg!(target_os = "linux") {
        // The binary this process runs, even if its file was replaced since.
        PathBuf::from("/proc/self/exe")
    } else {
        std::env::current_exe()
            .unwrap_or_else(|_| PathBuf::from(std::env::args_os().next().unwrap_or_default()))
    }
}

/// A policy's path made absolute: `$SCRATCH` the call's scratch directory, `$NAME` the
/// directory the registry gives it.
fn resolve(path: &str, scratch: &Path, sandboxing: &Sandboxing) -> Result<PathBuf, PathError> {
    let Some(rest) = path.strip_prefix('$') else {
        return Ok(PathBuf::from(path));
    };
    let (variable, below) = rest.split_once('/').unwrap_or((rest, ""));
    let base = if format!("${variable}") == SCRATCH {
        scratch.to_path_buf()
    } else {
        sandboxing
            .named_path(variable)
            .cloned()
            .ok_or_else(|| PathError::Unnamed(variable.to_owned()))?
    };
    Ok(if below.is_empty() {
        base
    } else {
        base.join(below)
    })
}

/// Relays a worker's standard error to the log, a line at a time, keeping its last bytes.
async fn relay_stderr(stderr: tokio::process::ChildStderr, kept: Arc<Mutex<String>>, tool: String) {
    let mut reader = BufReader::new(stderr);
    let mut line = String::new();
    loop {
        line.clear();
        match reader.read_line(&mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                let text = line.trim_end();
                tracing::warn!(target: SANDBOX_TARGET, tool = %tool, "{text}");
                if let Ok(mut kept) = kept.lock() {
                    kept.push_str(text);
                    kept.push('\n');
                    if kept.len() > STDERR_KEPT {
                        let cut = kept.len() - STDERR_KEPT;
                        let cut = (cut..kept.len())
                            .find(|at| kept.is_char_boundary(*at))
                            .unwrap_or(kept.len());
                        kept.drain(..cut);
                    }
                }
            }
        }
    }
    let _ = reader.read_to_end(&mut Vec::new()).await;
}

/// Starts a probe worker with the strict policy and reports what it could do.
pub(super) async fn probe(sandboxing: &Sandboxing) -> Support {
    if super::worker_arg().is_none() {
        return Support {
            missing: Some(NO_DISPATCH.to_owned()),
            ..Support::default()
        };
    }
    match start("", &SandboxPolicy::STRICT, sandboxing, None, false).await {
        Ok((_worker, support)) => support,
        Err(NotStarted::Unavailable(support)) => support,
        Err(NotStarted::Failed(why)) => Support {
            missing: Some(why.to_string()),
            ..Support::default()
        },
    }
}
