//! The command line every application gets: `list` its tools, resources and prompts, print
//! a `schema`, `check` them, write their `spec`, `call` a tool, `read` a resource, render a
//! `prompt`, `serve` them over MCP.
//!
//! ```text
//! // main.rs of an application
//! fn main() {
//!     mcp_runtime::cli::run!()
//! }
//! ```
//!
//! [`run!`] names the application after its own package: `serverInfo` in `initialize`
//! and `server/discover`, and `--version`, carry its `CARGO_PKG_NAME` and
//! `CARGO_PKG_VERSION`. [`app!`] gives the same [`App`] to run otherwise
//! ([`App::run_serving`], [`App::run_with`]).
//!
//! Exit codes: 0 when the command (or the tool) succeeded, 1 when the tool, the read or the
//! prompt failed, the resource or prompt is unknown, or the registry is broken, 2 for a
//! usage error such as arguments that are not JSON or an unknown name given to
//! `--allow-dangerous`.
//!
//! Tools marked `dangerous` are refused (a `PermissionError` result) by `call` and `serve`
//! unless named with `--allow-dangerous NAME` or all allowed with `--allow-all-dangerous`.
//!
//! Each command lives in a module of its own, with its arguments and what it runs.

use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, Parser, Subcommand};
use serde_json::Value;

use crate::policy::DangerousPolicy;
use crate::registry::{Registry, closest_names, did_you_mean};
use crate::server::{ServedRegistry, Server};
use crate::state::States;
use error::CliError;

mod call;
mod check;
mod error;
mod limits;
mod list;
mod logging;
#[cfg(feature = "oauth")]
mod oauth;
mod pool;
mod prompt;
mod read;
mod remote;
mod sandbox;
mod schema;
mod serve;
#[cfg(feature = "http")]
mod sessions;
mod spec;

/// Exit code of a failed tool or a broken registry.
const FAILURE: u8 = 1;
/// Exit code of a usage error.
const USAGE: u8 = 2;

#[derive(Parser)]
#[command(about = "Inspect and call this application's MCP tools")]
struct Cli {
    #[command(subcommand)]
    command: Command,
    #[command(flatten)]
    remote: remote::RemoteArgs,
    #[command(flatten)]
    verbosity: logging::Verbosity,
}

// One value per run, parsed once: `serve`'s many options cost nothing worth a box.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum Command {
    /// List the tools, then the resources, resource templates and prompts, each in order:
    /// a table on a terminal, names (URIs, templates) one per line otherwise.
    List(list::ListArgs),
    /// Print a tool's input (or output) schema as JSON.
    Schema(schema::SchemaArgs),
    /// Write one `MCP_TOOL_SPECIFICATION.md` per tool (the tool-specification template), one
    /// `MCP_RESOURCE_SPECIFICATION.md` per resource or template, one
    /// `MCP_PROMPT_SPECIFICATION.md` per prompt, and an index.
    Spec(spec::SpecArgs),
    /// Check the registry's health: descriptions of tools, resources and prompts, and schemas
    /// (of tools and template variables) every client can read. Exits 1 when there are
    /// errors; usable as a CI step.
    Check,
    /// Call a tool and print its result as JSON.
    Call(call::CallArgs),
    /// Read a resource and print its contents: text as it is, a blob as its MIME type and size.
    Read(read::ReadArgs),
    /// Render a prompt with its arguments and print its messages, one `[role] text` each.
    Prompt(prompt::PromptArgs),
    /// Serve the tools over MCP: on stdio until input ends, or over HTTP until stopped.
    Serve(serve::ServeArgs),
}

/// Which `dangerous` tools `call` and `serve` may run; none unless named.
#[derive(Args, Debug, Default, Clone, PartialEq, Eq)]
struct DangerousArgs {
    /// Let this tool run although it is marked `dangerous` (repeatable); an unknown name is
    /// a usage error.
    #[arg(long = "allow-dangerous", value_name = "NAME")]
    allow: Vec<String>,
    /// Let every tool marked `dangerous` run.
    #[arg(long = "allow-all-dangerous", conflicts_with = "allow")]
    allow_all: bool,
    /// Ask the client's user to confirm each call of a tool marked `dangerous` (MCP
    /// elicitation); only a confirmed call runs. For interactive clients.
    #[arg(long = "confirm-dangerous", conflicts_with_all = ["allow", "allow_all"])]
    confirm: bool,
}

/// How `call` and `serve` read a tool's arguments, and what they say of its panic.
#[derive(Args, Debug, Default, Clone, Copy, PartialEq, Eq)]
struct ArgumentsArgs {
    /// Read a string holding JSON as the object or array a tool's input schema wants where
    /// it stands, at any depth: models often send nested arguments JSON-encoded. Nothing
    /// else is relaxed (not numbers or booleans as strings), and the result's explanation
    /// says what was read. Off by default.
    #[arg(long = "lenient-arguments")]
    lenient: bool,
    /// Send a tool's panic message to the client, for development. Off by default: a panic
    /// message may hold argument values, so the client gets an incident id, and standard
    /// error the message, its place and the same id.
    #[arg(long = "expose-panics")]
    expose_panics: bool,
}

/// The application whose command line runs: the name and version that `serverInfo` and
/// `--version` give, and the states its tools take. [`app!`] makes one from the calling
/// package's `Cargo.toml`.
#[derive(Debug, Clone)]
pub struct App {
    name: String,
    version: String,
    states: States,
    /// The layers around its calls, the outermost first, each with the items it wraps.
    layers: Vec<(Option<crate::service::Selector>, crate::layers::BoxLayer)>,
}

impl App {
    /// An application named `name`, at `version`.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            version: version.into(),
            states: States::default(),
            layers: Vec::new(),
        }
    }

    /// This application, the calls of the items `selector` picks wrapped in `layer`, in
    /// every command that runs them (`serve`, `call`, `read`, `prompt`): see
    /// [`RegistryBuilder::layer_for`](crate::RegistryBuilder::layer_for). A selector that
    /// picks nothing stops every command with exit code 2, naming the closest tool.
    ///
    /// ```no_run
    /// use mcp_runtime::layers::BoxLayer;
    ///
    /// fn main() {
    ///     // At most four calls of each file tool at once.
    ///     let limit = mcp_runtime::tower::limit::ConcurrencyLimitLayer::new(4);
    ///     mcp_runtime::cli::app!()
    ///         .layer_for("file_utility.*".parse().unwrap(), BoxLayer::new(limit))
    ///         .run()
    /// }
    /// ```
    #[must_use]
    pub fn layer_for(
        mut self,
        selector: crate::service::Selector,
        layer: crate::layers::BoxLayer,
    ) -> Self {
        self.layers.push((Some(selector), layer));
        self
    }

    /// This application, every call wrapped in `layer`: [`App::layer_for`] for every item.
    #[must_use]
    pub fn layer(mut self, layer: crate::layers::BoxLayer) -> Self {
        self.layers.push((None, layer));
        self
    }

    /// This application, its tools given `value`: a tool's [`State<T>`](crate::State)
    /// parameter. [`App::run`] and [`App::run_serving`] then run the registry of every
    /// `#[mcp_tool]` with the states given here, which [`Registry::global`] then gives too
    /// (unless the program used it before). One value per type: a second of the same type
    /// replaces the first.
    ///
    /// A tool that takes a state the application does not give stops every command before
    /// it runs (`check` and `serve` among them) with exit code 1 and a message naming the
    /// tool and the type.
    ///
    /// ```no_run
    /// use std::sync::atomic::AtomicU64;
    ///
    /// /// How many greetings were sent.
    /// #[derive(Default)]
    /// struct Greetings(AtomicU64);
    ///
    /// fn main() {
    ///     mcp_runtime::cli::app!().state(Greetings::default()).run()
    /// }
    /// ```
    #[must_use]
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.states.insert(Arc::new(value));
        self
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its version.
    pub fn version(&self) -> &str {
        &self.version
    }

    /// Runs the command line of the process over the global registry and exits.
    pub fn run(self) -> ! {
        self.run_serving(|_| {})
    }

    /// [`App::run`], handing the server to `on_serve` when the command is `serve`, as
    /// [`run_serving`] does.
    pub fn run_serving(self, on_serve: impl FnOnce(&Arc<Server>)) -> ! {
        exit_with(Some(&self), on_serve)
    }

    /// Runs the command line `args` (the first being the program's name) over `registry`,
    /// as [`run_with`] does: with `registry`'s states, not those given to [`App::state`].
    pub fn run_with<I, T>(&self, registry: &'static Registry, args: I) -> ExitCode
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString> + Clone,
    {
        ExitCode::from(execute(Some(self), registry, args, Logs::Leave, |_| {}))
    }
}

/// The [`App`] of the package that calls it: its `CARGO_PKG_NAME` and `CARGO_PKG_VERSION`.
///
/// ```
/// let app = mcp_runtime::cli::app!();
/// assert_eq!(app.name(), env!("CARGO_PKG_NAME"));
/// ```
#[macro_export]
#[doc(hidden)]
macro_rules! __app {
    () => {
        $crate::cli::App::new(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"))
    };
}

/// Runs the command line of the process over the global registry and exits, named after
/// the calling package: `mcp_runtime::cli::app!().run()`.
///
/// ```no_run
/// fn main() {
///     mcp_runtime::cli::run!()
/// }
/// ```
#[macro_export]
#[doc(hidden)]
macro_rules! __run {
    () => {
        $crate::cli::app!().run()
    };
}

#[doc(inline)]
pub use crate::__app as app;
#[doc(inline)]
pub use crate::__run as run;

/// Runs the command line of the process over the global registry and exits.
///
/// The server it serves is named after the executable, with mcp-runtime's version: use
/// [`run!`] to give clients the application's own name and version.
pub fn run() -> ! {
    run_serving(|_| {})
}

/// [`run()`], handing the server to `on_serve` when the command is `serve`, before it takes
/// its first request: an application keeps it to change what it serves while it runs
/// ([`Server::change`]), and its clients are told.
///
/// ```no_run
/// use std::sync::{Arc, OnceLock};
/// use mcp_runtime::server::Server;
///
/// static SERVER: OnceLock<Arc<Server>> = OnceLock::new();
///
/// fn main() {
///     mcp_runtime::cli::run_serving(|server| {
///         let _ = SERVER.set(Arc::clone(server));
///     })
/// }
/// ```
pub fn run_serving(on_serve: impl FnOnce(&Arc<Server>)) -> ! {
    exit_with(None, on_serve)
}

fn exit_with(app: Option<&App>, on_serve: impl FnOnce(&Arc<Server>)) -> ! {
    // A sandboxed tool's worker is this program run again: it serves its call and exits
    // here, before anything starts a thread.
    crate::worker::dispatch();
    let registry = match app {
        Some(app) => Registry::global_with(&app.states),
        None => Registry::try_global().map_err(Clone::clone),
    };
    let code = match registry {
        Ok(registry) => execute(app, registry, std::env::args_os(), Logs::Install, on_serve),
        Err(err) => {
            eprintln!("error: {err}");
            FAILURE
        }
    };
    // Workers kept waiting die now, their scratch directories with them.
    crate::isolation::shutdown();
    // A closed stdout is not worth a panic; the exit code still tells.
    let _ = io::stdout().flush();
    std::process::exit(i32::from(code))
}

/// `args` read, with the checks clap cannot make: the options of `--http` refused with
/// `--stdio` (clap lets `requires` pass when the required argument is excluded by a group).
fn parse_cli<I, T>(app: Option<&App>, args: I) -> Result<Cli, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    let mut command = <Cli as clap::CommandFactory>::command();
    if let Some(app) = app {
        command = command.name(app.name.clone()).version(app.version.clone());
    }
    let matches = command.try_get_matches_from_mut(&args)?;
    let cli = <Cli as clap::FromArgMatches>::from_arg_matches(&matches)?;
    if let Command::Serve(serve) = &cli.command {
        if let Some(flag) = serve.http_only_flag_without_http() {
            if let Some(program) = args.first().map(std::path::Path::new) {
                if let Some(name) = program.file_name() {
                    command = command.bin_name(name.to_string_lossy().into_owned());
                }
            }
            command.build();
            let kind = clap::error::ErrorKind::ArgumentConflict;
            let message = format!("{flag} applies to `serve --http` only");
            return Err(match command.find_subcommand_mut("serve") {
                Some(serve) => serve.error(kind, message),
                None => command.error(kind, message),
            });
        }
    }
    Ok(cli)
}

/// Runs the command line `args` (the first being the program's name) over `registry`.
///
/// With `--allow-dangerous`, `--allow-all-dangerous`, `--lenient-arguments` or
/// `--expose-panics`, `call` and `serve` run a copy of `registry`'s enabled tools with that
/// policy, reading or exposure and the default settings (timeout, output checks); without
/// them, `registry` itself.
pub fn run_with<I, T>(registry: &'static Registry, args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    ExitCode::from(execute(None, registry, args, Logs::Leave, |_| {}))
}

/// Whether a command line sends the process's `tracing` events to standard error: the
/// process's own does; one run from code leaves logging to its caller.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Logs {
    Install,
    Leave,
}

fn execute<I, T>(
    app: Option<&App>,
    registry: &'static Registry,
    args: I,
    logs: Logs,
    on_serve: impl FnOnce(&Arc<Server>),
) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    let program = args
        .first()
        .and_then(|program| std::path::Path::new(program).file_name())
        .map_or_else(
            || "app".to_owned(),
            |name| name.to_string_lossy().into_owned(),
        );
    let cli = match parse_cli(app, args) {
        Ok(cli) => cli,
        Err(err) => {
            let _ = err.print();
            return if err.use_stderr() { USAGE } else { 0 };
        }
    };
    if logs == Logs::Install {
        logging::install(cli.verbosity, matches!(cli.command, Command::Serve(_)));
    }
    #[cfg(not(feature = "client"))]
    if let Some(flag) = cli.remote.given() {
        eprintln!("error: {flag}: {}", remote::NO_CLIENT);
        return USAGE;
    }
    #[cfg(feature = "client")]
    let (registry, mounts) = match remote::mounted(registry, &cli.remote) {
        Ok(mounted) => mounted,
        Err(err) => {
            eprintln!("error: {err}");
            return FAILURE;
        }
    };
    #[cfg(feature = "client")]
    let on_serve = move |server: &Arc<Server>| {
        if let Some(mounts) = &mounts {
            mounts.follow(server);
        }
        on_serve(server);
    };
    let registry = match with_app_layers(registry, app) {
        Ok(registry) => registry,
        Err(err) => {
            eprintln!("error: {err}");
            return USAGE;
        }
    };
    match cli.command {
        Command::Serve(args) => serve::run(registry, args, app, on_serve),
        Command::List(args) => list::run(registry, &args),
        Command::Schema(args) => schema::run(registry, &args),
        Command::Check => check::run(registry),
        Command::Spec(args) => spec::run(registry, &args, &program),
        Command::Call(args) => call::run(registry, &args),
        Command::Read(args) => read::run(registry, &args),
        Command::Prompt(args) => prompt::run(registry, &args),
    }
}

/// `registry`, its calls wrapped in the layers `app` was given. The command line runs once
/// in a process: a registry with layers lives as long, as the registry without does.
fn with_app_layers(
    registry: &'static Registry,
    app: Option<&App>,
) -> Result<&'static Registry, CliError> {
    let Some(app) = app.filter(|app| !app.layers.is_empty()) else {
        return Ok(registry);
    };
    let mut layered = registry.clone();
    for (selector, layer) in &app.layers {
        layered.add_layer(selector.clone(), layer.clone())?;
    }
    Ok(Box::leak(Box::new(layered)))
}

/// `registry` as `call` and `serve` run it: unchanged without `--allow-dangerous`,
/// `--allow-all-dangerous`, `--confirm-dangerous`, `--lenient-arguments` or
/// `--expose-panics`; otherwise its tools, with the default settings and the policy,
/// reading and exposure asked for. A name that is
/// no tool of the registry is an error; one of a tool not marked dangerous gets a warning,
/// since it runs anyway.
fn as_run(
    registry: &'static Registry,
    dangerous: &DangerousArgs,
    arguments: ArgumentsArgs,
    sandboxing: Option<crate::isolation::Sandboxing>,
    layers: Vec<(Option<crate::service::Selector>, crate::layers::BoxLayer)>,
) -> Result<ServedRegistry, CliError> {
    let blocking_threads = BLOCKING_THREADS.get().copied();
    let policy = dangerous_policy(registry, dangerous)?;
    let plain = policy.is_none() && arguments == ArgumentsArgs::default();
    if plain && sandboxing.is_none() && layers.is_empty() && blocking_threads.is_none() {
        return Ok(ServedRegistry::Static(registry));
    }
    let mut builder = Registry::builder()
        .registry(registry)
        .dangerous_policy(policy.unwrap_or_default())
        .lenient_arguments(arguments.lenient)
        .expose_panics(arguments.expose_panics);
    if let Some(sandboxing) = sandboxing {
        builder = builder.sandboxing(sandboxing);
    }
    if let Some(threads) = blocking_threads {
        builder = builder.blocking_threads(threads);
    }
    let mut served = builder.build()?;
    for (selector, layer) in layers {
        served.add_layer(selector, layer)?;
    }
    Ok(ServedRegistry::from(served))
}

/// The policy `dangerous` asks for; `None` when it asks for none.
fn dangerous_policy(
    registry: &Registry,
    dangerous: &DangerousArgs,
) -> Result<Option<DangerousPolicy>, CliError> {
    let policy = if dangerous.allow_all {
        DangerousPolicy::AllowAll
    } else if dangerous.confirm {
        DangerousPolicy::AskUser
    } else if dangerous.allow.is_empty() {
        return Ok(None);
    } else {
        let mut names = std::collections::BTreeSet::new();
        for name in &dangerous.allow {
            let tool = find_tool(registry, name).ok_or_else(|| {
                let marked: Vec<&str> = registry
                    .list()
                    .filter(|tool| tool.definition().annotations().dangerous)
                    .map(|tool| tool.name().as_str())
                    .collect();
                let known = if marked.is_empty() {
                    "no tool is marked dangerous".to_owned()
                } else {
                    format!("the tools marked dangerous are `{}`", marked.join("`, `"))
                };
                CliError::NoSuchDangerousTool {
                    name: name.clone(),
                    known,
                }
            })?;
            if !tool.definition().annotations().dangerous {
                eprintln!(
                    "warning: --allow-dangerous: `{}` is not marked dangerous; it runs anyway",
                    tool.name()
                );
            }
            names.insert(tool.name().to_string());
        }
        DangerousPolicy::Allow(names)
    };
    Ok(Some(policy))
}

/// The enabled tool named `name`, or served under that name with `--llm-names`
/// (`calculator_add` for `calculator.add`) when only one is.
fn find_tool<'a>(registry: &'a Registry, name: &str) -> Option<&'a crate::RegisteredTool> {
    if let Some(tool) = registry.get(name).filter(|tool| tool.is_enabled()) {
        return Some(tool);
    }
    let mut served_as = registry
        .list()
        .filter(|tool| tool.name().as_str().replace('.', "_") == name);
    match (served_as.next(), served_as.next()) {
        (Some(tool), None) => Some(tool),
        _ => None,
    }
}

/// The JSON value of an `ARGUMENTS` operand: the operand itself, or standard input when it
/// is `-`. The error is a usage error's message.
fn json_operand(arguments: &str) -> Result<Value, CliError> {
    let text = if arguments == "-" {
        let mut text = String::new();
        io::stdin()
            .read_to_string(&mut text)
            .map_err(CliError::ReadArguments)?;
        text
    } else {
        arguments.to_owned()
    };
    serde_json::from_str(&text).map_err(CliError::ArgumentsNotJson)
}

/// The threads of the runtime's blocking pool besides those of synchronous tools: standard
/// input's reader, standard output's writer, files, name lookups.
const BLOCKING_IO_THREADS: usize = 8;

/// The most threads the runtime's blocking pool may have, once `serve` set it; tokio's
/// own cap (512) otherwise.
static BLOCKING_CAP: std::sync::OnceLock<usize> = std::sync::OnceLock::new();

/// `--blocking-threads`, once `serve` read it: the registry it serves ([`as_run`]) runs
/// that many synchronous tools at once.
static BLOCKING_THREADS: std::sync::OnceLock<std::num::NonZeroUsize> = std::sync::OnceLock::new();

/// Runs at most `tools` synchronous tools at once (the default with `None`) in the
/// registry `serve` serves, and caps the blocking pool of the runtime, if not yet built, at
/// as many threads and [`BLOCKING_IO_THREADS`] more: the cap keeps tokio from starting a
/// thread for the next tool while the last one's thread is still on its way back to the
/// pool.
fn limit_blocking_threads(tools: Option<std::num::NonZeroUsize>) {
    if let Some(tools) = tools {
        let _ = BLOCKING_THREADS.set(tools);
    }
    let tools = tools.map_or(crate::DEFAULT_BLOCKING_THREADS, std::num::NonZeroUsize::get);
    let _ = BLOCKING_CAP.set(tools.saturating_add(BLOCKING_IO_THREADS));
}

/// The process's multi-threaded runtime, built on first use: `serve` runs on it, and the
/// clients of mounted servers, whose tasks outlive the command that mounted them, live on
/// it too, so that a call through the gateway stays on one runtime's threads.
fn runtime() -> Result<&'static tokio::runtime::Runtime, CliError> {
    static RUNTIME: std::sync::OnceLock<tokio::runtime::Runtime> = std::sync::OnceLock::new();
    if let Some(runtime) = RUNTIME.get() {
        return Ok(runtime);
    }
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    if let Some(&cap) = BLOCKING_CAP.get() {
        builder.max_blocking_threads(cap);
    }
    let runtime = builder.enable_all().build().map_err(CliError::Runtime)?;
    Ok(RUNTIME.get_or_init(|| runtime))
}

/// `future` run to its end on a runtime of this thread, with time (the registry's
/// timeouts); the error says why no runtime could start.
fn block_on<F: std::future::Future>(future: F) -> Result<F::Output, CliError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map(|runtime| runtime.block_on(future))
        .map_err(CliError::Runtime)
}

/// Says what failed; the exit status of a command that failed.
fn failed(what: impl std::fmt::Display) -> u8 {
    eprintln!("error: {what}");
    FAILURE
}

/// Says that `wanted` is not known (`err`), with the names among `candidates` closest to
/// it as hints; the exit status of a command that failed.
fn not_found<'a>(
    err: impl std::fmt::Display,
    wanted: &str,
    candidates: impl Iterator<Item = &'a str>,
) -> u8 {
    let near = closest_names(wanted, candidates);
    failed(format_args!("{err}{}", did_you_mean(&near)))
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn parse(args: &[&str]) -> Result<Command, clap::Error> {
        parse_cli(None, std::iter::once("app").chain(args.iter().copied())).map(|cli| cli.command)
    }

    #[test]
    fn dangerous_flags_repeat_and_exclude_each_other() {
        let Ok(Command::Call(call)) = parse(&[
            "call",
            "a.b",
            "--allow-dangerous",
            "a.b",
            "--allow-dangerous",
            "c.d",
        ]) else {
            panic!("call parses");
        };
        assert_eq!(call.dangerous.allow, ["a.b", "c.d"]);
        let Ok(Command::Serve(serve)) = parse(&["serve", "--stdio", "--allow-all-dangerous"])
        else {
            panic!("serve parses");
        };
        assert!(serve.dangerous.allow_all);
        assert!(
            parse(&[
                "serve",
                "--stdio",
                "--allow-all-dangerous",
                "--allow-dangerous",
                "a.b"
            ])
            .is_err()
        );
    }
    #[test]
    fn an_app_names_its_version() {
        let app = app!();
        assert_eq!(
            (app.name(), app.version()),
            ("mcp-runtime", env!("CARGO_PKG_VERSION"))
        );
        let Err(version) = parse_cli(
            Some(&App::new("weather", "2.3.4")),
            ["weather", "--version"],
        ) else {
            panic!("--version stops the parse");
        };
        assert_eq!(version.kind(), clap::error::ErrorKind::DisplayVersion);
        assert_eq!(version.to_string().trim(), "weather 2.3.4");
    }
}
