//! The command line every application gets: `list` its tools, print a `schema`, `check`
//! them, `call` one, `serve` them over MCP.
//!
//! ```text
//! // main.rs of an application
//! fn main() {
//!     mcp_runtime::cli::run()
//! }
//! ```
//!
//! Exit codes: 0 when the command (or the tool) succeeded, 1 when the tool failed or the
//! registry is broken, 2 for a usage error such as arguments that are not JSON or an
//! unknown name given to `--allow-dangerous`.
//!
//! Tools marked `dangerous` are refused (a `PermissionError` result) by `call` and `serve`
//! unless named with `--allow-dangerous NAME` or all allowed with `--allow-all-dangerous`.

use std::ffi::OsString;
use std::io::{self, IsTerminal, Read, Write};
use std::net::SocketAddr;
use std::num::NonZeroU32;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, Parser, Subcommand};
use mcp_core::{MCPToolCall, ToolStatus};
use serde_json::Value;

use crate::policy::DangerousPolicy;
use crate::registry::{EMPTY_REGISTRY_HINT, Registry};
use crate::server::{self, HttpConfig, RateLimitConfig, ServedRegistry, Server};
use crate::{listing, spec};

/// Exit code of a failed tool or a broken registry.
const FAILURE: u8 = 1;
/// Exit code of a usage error.
const USAGE: u8 = 2;

#[derive(Parser)]
#[command(about = "Inspect and call this application's MCP tools")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the tools in name order: a table on a terminal, names one per line otherwise.
    List {
        /// `table`, `json` (the stable manifest), `markdown`, or `names`.
        #[arg(long, value_enum)]
        format: Option<ListFormat>,
        /// Only the tools of this category.
        #[arg(long)]
        category: Option<String>,
        /// Only the tools with this tag.
        #[arg(long)]
        tag: Option<String>,
    },
    /// Print a tool's input (or output) schema as JSON.
    Schema {
        /// The tool's invocation name.
        name: String,
        /// The input schema (the default).
        #[arg(long, conflicts_with = "output")]
        input: bool,
        /// The output schema.
        #[arg(long)]
        output: bool,
        /// Inline every `$ref`, for clients that cannot resolve references.
        #[arg(long)]
        portable: bool,
    },
    /// Write one `MCP_TOOL_SPECIFICATION.md` per tool (seed 002 §4.1), and an index.
    Spec {
        /// The directory to write into: `DIR/README.md` and `DIR/<tool>/MCP_TOOL_SPECIFICATION.md`.
        #[arg(long, value_name = "DIR", default_value = "tool-specs")]
        out: std::path::PathBuf,
    },
    /// Check the registry's health: descriptions, and schemas every client can read. Exits
    /// 1 when there are errors; usable as a CI step.
    Check,
    /// Call a tool and print its result as JSON.
    Call {
        /// The tool's invocation name, e.g. `calculator.add`.
        name: String,
        /// The arguments as a JSON object, or `-` to read them from standard input.
        #[arg(default_value = "{}")]
        arguments: String,
        /// Print the text a model reads (`[OK] …` / `[FAIL] …`) instead of JSON.
        #[arg(long)]
        text: bool,
        #[command(flatten)]
        dangerous: DangerousArgs,
    },
    /// Serve the tools over MCP: on stdio until input ends, or over HTTP until stopped.
    #[command(group(clap::ArgGroup::new("transport").required(true).args(["stdio", "http"])))]
    Serve {
        /// Newline-delimited JSON-RPC on standard input and output; logs go to standard error.
        #[arg(long)]
        stdio: bool,
        /// Streamable HTTP at `http://ADDR/mcp`; `127.0.0.1:8080` when no ADDR is given (port
        /// 0 picks a free one). An address other machines can reach without `--token` gets
        /// a warning.
        #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = DEFAULT_HTTP_ADDRESS)]
        http: Option<SocketAddr>,
        /// Require `Authorization: Bearer TOKEN` on every HTTP request.
        #[arg(long, requires = "http")]
        token: Option<String>,
        /// Allow browser requests from this origin besides loopback ones (repeatable).
        #[arg(long = "allow-origin", value_name = "ORIGIN", requires = "http")]
        allow_origins: Vec<String>,
        /// Limit each client (an IP address; an IPv6 /64) to N requests per second (`N` or
        /// `N/s`) or per minute (`N/min`); past it, 429 with `Retry-After`. Off by default:
        /// behind a proxy, every client has the proxy's address.
        #[arg(long, value_name = "N[/s|/min]", requires = "http")]
        rate_limit: Option<RateLimitConfig>,
        /// How many requests a client may make at once before `--rate-limit` paces it; N by
        /// default.
        #[arg(long, value_name = "B", requires = "rate_limit")]
        rate_burst: Option<NonZeroU32>,
        #[command(flatten)]
        dangerous: DangerousArgs,
        /// Serve tools under names valid for LLM APIs: `calculator.add` as `calculator_add`.
        #[arg(long)]
        llm_names: bool,
        /// How many tools one page of `tools/list` holds.
        #[arg(long, default_value_t = server::DEFAULT_PAGE_SIZE)]
        page_size: usize,
    },
}

/// The address `serve --http` binds when given none: loopback only.
const DEFAULT_HTTP_ADDRESS: &str = "127.0.0.1:8080";

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
}

/// The forms of `list`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum ListFormat {
    /// An aligned table.
    Table,
    /// The manifest: every field of every tool, schemas included.
    Json,
    /// A Markdown table.
    Markdown,
    /// Names, one per line.
    Names,
}

/// Runs the command line of the process over the global registry and exits.
pub fn run() -> ! {
    run_serving(|_| {})
}

/// [`run`], handing the server to `on_serve` when the command is `serve`, before it takes
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
    let code = match Registry::try_global() {
        Ok(registry) => execute(registry, std::env::args_os(), on_serve),
        Err(err) => {
            eprintln!("error: {err}");
            FAILURE
        }
    };
    // A closed stdout is not worth a panic; the exit code still tells.
    let _ = io::stdout().flush();
    std::process::exit(i32::from(code))
}

/// `args` read, with the checks clap cannot make: the options of `--http` refused with
/// `--stdio` (clap lets `requires` pass when the required argument is excluded by a group).
fn parse_cli<I, T>(args: I) -> Result<Cli, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args: Vec<OsString> = args.into_iter().map(Into::into).collect();
    let cli = Cli::try_parse_from(&args)?;
    if let Command::Serve {
        http: None,
        token,
        allow_origins,
        rate_limit,
        ..
    } = &cli.command
    {
        let given = [
            ("--token", token.is_some()),
            ("--allow-origin", !allow_origins.is_empty()),
            ("--rate-limit", rate_limit.is_some()),
        ];
        if let Some((flag, _)) = given.iter().find(|(_, given)| *given) {
            let mut command = <Cli as clap::CommandFactory>::command();
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
/// With `--allow-dangerous` or `--allow-all-dangerous`, `call` and `serve` run a copy of
/// `registry`'s enabled tools with that policy and the default settings (timeout, output
/// checks); without them, `registry` itself.
pub fn run_with<I, T>(registry: &'static Registry, args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    ExitCode::from(execute(registry, args, |_| {}))
}

fn execute<I, T>(registry: &'static Registry, args: I, on_serve: impl FnOnce(&Arc<Server>)) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match parse_cli(args) {
        Ok(cli) => cli,
        Err(err) => {
            let _ = err.print();
            return if err.use_stderr() { USAGE } else { 0 };
        }
    };
    match cli.command {
        Command::Serve {
            http,
            token,
            allow_origins,
            rate_limit,
            rate_burst,
            llm_names,
            page_size,
            dangerous,
            ..
        } => {
            let served = match with_dangerous_policy(registry, &dangerous) {
                Ok(served) => served,
                Err(message) => {
                    eprintln!("error: {message}");
                    return USAGE;
                }
            };
            let transport = match http {
                None => Transport::Stdio,
                Some(address) => {
                    let rate_limit = rate_limit.map(|limit| match rate_burst {
                        Some(burst) => limit.with_burst(burst),
                        None => limit,
                    });
                    Transport::Http(
                        address,
                        HttpConfig {
                            token,
                            allowed_origins: allow_origins,
                            rate_limit,
                            ..HttpConfig::default()
                        },
                    )
                }
            };
            serve(served, transport, llm_names, page_size, on_serve)
        }
        Command::List {
            format,
            category,
            tag,
        } => {
            let tools: Vec<_> = registry
                .list()
                .filter(|tool| {
                    let definition = tool.definition();
                    category
                        .as_deref()
                        .is_none_or(|category| definition.category() == Some(category))
                        && tag
                            .as_deref()
                            .is_none_or(|tag| definition.tags().iter().any(|t| t == tag))
                })
                .collect();
            if registry.is_empty() {
                eprintln!("warning: {EMPTY_REGISTRY_HINT}");
            }
            let format = format.unwrap_or(if io::stdout().is_terminal() {
                ListFormat::Table
            } else {
                ListFormat::Names
            });
            let text = match format {
                ListFormat::Table => listing::table(tools),
                ListFormat::Markdown => listing::markdown(tools),
                ListFormat::Json => {
                    let manifest = listing::manifest(tools);
                    format!(
                        "{}\n",
                        serde_json::to_string_pretty(&manifest).unwrap_or_default()
                    )
                }
                ListFormat::Names => tools
                    .iter()
                    .map(|tool| format!("{}\n", tool.name()))
                    .collect(),
            };
            let _ = io::stdout().lock().write_all(text.as_bytes());
            0
        }
        Command::Schema {
            name,
            output,
            portable,
            ..
        } => {
            let Some(tool) = registry.get(&name) else {
                eprintln!("error: no tool is named `{name}`");
                return USAGE;
            };
            let definition = tool.definition();
            let schema = if output {
                match definition.output_schema() {
                    Some(schema) => schema.as_value().clone(),
                    None => {
                        eprintln!("error: tool `{name}` declares no output schema");
                        return FAILURE;
                    }
                }
            } else {
                definition.input_schema().as_value().clone()
            };
            let schema = if portable {
                match listing::portable(&schema) {
                    Ok(schema) => schema,
                    Err(err) => {
                        eprintln!("error: the schema of `{name}` cannot be made portable: {err}");
                        return FAILURE;
                    }
                }
            } else {
                schema
            };
            let text = serde_json::to_string_pretty(&schema).unwrap_or_default();
            let _ = writeln!(io::stdout().lock(), "{text}");
            0
        }
        Command::Check => check(registry),
        Command::Spec { out } => write_specs(registry, &out),
        Command::Call {
            name,
            arguments,
            text,
            dangerous,
        } => {
            let call = match parse_call(&name, &arguments) {
                Ok(call) => call,
                Err(message) => {
                    eprintln!("error: {message}");
                    return USAGE;
                }
            };
            let registry = match with_dangerous_policy(registry, &dangerous) {
                Ok(registry) => registry,
                Err(message) => {
                    eprintln!("error: {message}");
                    return USAGE;
                }
            };
            let result = registry.call_blocking(call);
            let mut out = io::stdout().lock();
            let _ = if text {
                writeln!(out, "{result}")
            } else {
                // A result is plain JSON data: serializing it cannot fail.
                let json = serde_json::to_string_pretty(&result).unwrap_or_default();
                writeln!(out, "{json}")
            };
            if result.status() == ToolStatus::Failure {
                FAILURE
            } else {
                0
            }
        }
    }
}

/// `spec`: the specifications and their index under `out`.
fn write_specs(registry: &Registry, out: &std::path::Path) -> u8 {
    let write = |path: std::path::PathBuf, text: String| {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, text)
    };
    let progress = progress_bar(registry.len(), io::stderr().is_terminal());
    for tool in registry.list() {
        progress.set_message(tool.name().to_string());
        let path = out.join(tool.name().as_str()).join(spec::SPEC_FILE);
        let definition = tool.definition();
        let hints = definition.annotations();
        let runnable = hints.read_only == Some(true) && !hints.dangerous;
        let run = |arguments: &serde_json::Map<String, serde_json::Value>| {
            let call = MCPToolCall {
                tool_name: definition.name().clone(),
                arguments: arguments.clone(),
            };
            runnable.then(|| registry.call_blocking(call))
        };
        if let Err(err) = write(path.clone(), spec::specification(tool, run)) {
            progress.abandon();
            eprintln!("error: cannot write {}: {err}", path.display());
            return FAILURE;
        }
        progress.inc(1);
    }
    progress.finish_and_clear();
    let index = out.join("README.md");
    if let Err(err) = write(index.clone(), spec::index(registry.list())) {
        eprintln!("error: cannot write {}: {err}", index.display());
        return FAILURE;
    }
    eprintln!(
        "wrote {} specification(s) and {}",
        registry.len(),
        index.display()
    );
    0
}

/// From this many tools on, `spec` shows a progress bar on a terminal.
const PROGRESS_BAR_FROM: usize = 20;

/// A progress bar of `len` steps, shown only on a terminal and when there are many steps;
/// hidden otherwise, so logs and pipes get no control characters.
fn progress_bar(len: usize, terminal: bool) -> indicatif::ProgressBar {
    if !terminal || len < PROGRESS_BAR_FROM {
        return indicatif::ProgressBar::hidden();
    }
    let bar = indicatif::ProgressBar::new(len as u64);
    if let Ok(style) = indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}") {
        bar.set_style(style);
    }
    bar
}

/// `check`: one line per problem, errors failing the run.
fn check(registry: &Registry) -> u8 {
    let mut errors = 0;
    let mut warnings = 0;
    if registry.is_empty() {
        eprintln!("warning: {EMPTY_REGISTRY_HINT}");
        warnings += 1;
    }
    for tool in registry.list() {
        let definition = tool.definition();
        let name = definition.name();
        if let Some(error) = tool.definition_error() {
            eprintln!("error: `{name}` ({}): {error}", tool.location());
            errors += 1;
        }
        if definition.description().is_none_or(|d| d.trim().is_empty()) {
            eprintln!("error: `{name}` ({}) has no description", tool.location());
            errors += 1;
        }
        for (number, example) in definition.examples().iter().enumerate() {
            let arguments = serde_json::Value::Object(example.clone());
            let valid = jsonschema::validator_for(definition.input_schema().as_value())
                .is_ok_and(|validator| validator.is_valid(&arguments));
            if !valid {
                eprintln!(
                    "error: `{name}`: example {} does not match the input schema",
                    number + 1
                );
                errors += 1;
            }
        }
        let schemas = [
            ("input", Some(definition.input_schema())),
            ("output", definition.output_schema()),
        ];
        for (which, schema) in schemas {
            let Some(schema) = schema else { continue };
            if schema.get("type").and_then(serde_json::Value::as_str) != Some("object") {
                eprintln!("error: `{name}`: the {which} schema's root is not an object");
                errors += 1;
            }
            match listing::portable(schema.as_value()) {
                Ok(_) => {}
                Err(err @ listing::PortableError::Unresolved(_)) => {
                    eprintln!("error: `{name}`: the {which} schema: {err}");
                    errors += 1;
                }
                Err(err @ listing::PortableError::Recursive(_)) => {
                    eprintln!(
                        "warning: `{name}`: the {which} schema: {err}; clients that cannot resolve `$ref` cannot read it"
                    );
                    warnings += 1;
                }
            }
        }
    }
    eprintln!(
        "checked {} tool(s): {errors} error(s), {warnings} warning(s)",
        registry.len()
    );
    if errors == 0 { 0 } else { FAILURE }
}

/// `registry` as `call` and `serve` run it: unchanged without `--allow-dangerous` or
/// `--allow-all-dangerous`; otherwise its tools, with the default settings and the policy
/// asked for. A name that is no tool of the registry is an error; one of a tool not marked
/// dangerous gets a warning, since it runs anyway.
fn with_dangerous_policy(
    registry: &'static Registry,
    dangerous: &DangerousArgs,
) -> Result<ServedRegistry, String> {
    let policy = if dangerous.allow_all {
        DangerousPolicy::AllowAll
    } else if dangerous.allow.is_empty() {
        return Ok(ServedRegistry::Static(registry));
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
                format!("--allow-dangerous: no tool is named `{name}`; {known}")
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
    Registry::builder()
        .registry(registry)
        .dangerous_policy(policy)
        .build()
        .map(ServedRegistry::from)
        .map_err(|err| err.to_string())
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

/// Why serving on `address` may be unwise: other machines can reach it, and no token is
/// asked for.
fn exposure_warning(address: SocketAddr, has_token: bool) -> Option<String> {
    (!address.ip().is_loopback() && !has_token).then(|| {
        format!(
            "serving on {address}, which other machines may reach, without --token: anyone \
             who can connect can list and call the tools; pass --token, or bind 127.0.0.1"
        )
    })
}

enum Transport {
    Stdio,
    Http(SocketAddr, HttpConfig),
}

fn serve(
    registry: ServedRegistry,
    transport: Transport,
    llm_names: bool,
    page_size: usize,
    on_serve: impl FnOnce(&Arc<Server>),
) -> u8 {
    if registry.is_empty() {
        eprintln!("warning: {EMPTY_REGISTRY_HINT}");
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("error: cannot start the runtime: {err}");
            return FAILURE;
        }
    };
    let server = Server::new(registry).with_page_size(page_size);
    let server = match llm_names {
        false => server,
        true => match server.with_llm_names() {
            Ok(server) => server,
            Err(err) => {
                eprintln!("error: {err}");
                return FAILURE;
            }
        },
    };
    let server = Arc::new(server);
    on_serve(&server);
    let served = match transport {
        Transport::Stdio => runtime.block_on(server::serve_stdio(server)),
        Transport::Http(address, config) => {
            let warning = exposure_warning(address, config.token.is_some());
            let limit = config.rate_limit;
            runtime.block_on(server::serve_http(server, address, config, |bound| {
                // The first line, which scripts wait for: then the notes.
                eprintln!("listening on http://{bound}/mcp");
                if let Some(warning) = warning {
                    eprintln!("warning: {warning}");
                }
                if let Some(limit) = limit {
                    eprintln!("rate limit: {limit}, per client");
                }
            }))
        }
    };
    // A read of standard input blocks a thread that cannot be interrupted: do not wait for it.
    runtime.shutdown_background();
    match served {
        Ok(()) => 0,
        Err(err) => {
            eprintln!("error: serving failed: {err}");
            FAILURE
        }
    }
}

fn parse_call(name: &str, arguments: &str) -> Result<MCPToolCall, String> {
    let text = if arguments == "-" {
        let mut text = String::new();
        io::stdin()
            .read_to_string(&mut text)
            .map_err(|err| format!("cannot read the arguments from standard input: {err}"))?;
        text
    } else {
        arguments.to_owned()
    };
    let value: Value = serde_json::from_str(&text)
        .map_err(|err| format!("the arguments are not valid JSON: {err}"))?;
    MCPToolCall::new(name, value).map_err(|err| err.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_progress_bar_shows_only_on_a_terminal_with_many_tools() {
        assert!(progress_bar(100, false).is_hidden());
        assert!(progress_bar(PROGRESS_BAR_FROM - 1, true).is_hidden());
        let shown = progress_bar(PROGRESS_BAR_FROM, true);
        assert_eq!(shown.length(), Some(PROGRESS_BAR_FROM as u64));
    }

    fn parse(args: &[&str]) -> Result<Command, clap::Error> {
        parse_cli(std::iter::once("app").chain(args.iter().copied())).map(|cli| cli.command)
    }

    #[test]
    fn serve_http_binds_loopback_unless_told_otherwise() {
        let Ok(Command::Serve { http, .. }) = parse(&["serve", "--http"]) else {
            panic!("serve --http parses");
        };
        let address = http.expect("an address");
        assert_eq!(address, "127.0.0.1:8080".parse().unwrap());
        assert!(address.ip().is_loopback());
    }

    #[test]
    fn an_address_others_can_reach_without_a_token_gets_a_warning() {
        for quiet in ["127.0.0.1:8080", "127.0.0.2:0", "[::1]:8080"] {
            assert_eq!(
                exposure_warning(quiet.parse().unwrap(), false),
                None,
                "{quiet}"
            );
        }
        for exposed in ["0.0.0.0:8080", "[::]:8080", "192.0.2.10:80"] {
            let warning = exposure_warning(exposed.parse().unwrap(), false).expect(exposed);
            assert!(warning.contains("--token"), "{warning}");
            assert_eq!(exposure_warning(exposed.parse().unwrap(), true), None);
        }
    }

    #[test]
    fn rate_limit_flags_are_read_and_need_http() {
        let Ok(Command::Serve {
            rate_limit,
            rate_burst,
            ..
        }) = parse(&[
            "serve",
            "--http",
            "--rate-limit",
            "120/min",
            "--rate-burst",
            "10",
        ])
        else {
            panic!("the rate limit flags parse");
        };
        assert_eq!(
            rate_limit,
            Some(RateLimitConfig::per_minute(NonZeroU32::new(120).unwrap()))
        );
        assert_eq!(rate_burst, NonZeroU32::new(10));
        for wrong in [
            &["serve", "--stdio", "--rate-limit", "5"][..],
            &["serve", "--http", "--rate-burst", "5"],
            &["serve", "--http", "--rate-limit", "5/hour"],
            &["serve", "--http", "--rate-limit", "0"],
            &["serve", "--http", "--rate-limit", "5", "--rate-burst", "0"],
        ] {
            assert!(parse(wrong).is_err(), "{wrong:?}");
        }
    }

    #[test]
    fn dangerous_flags_repeat_and_exclude_each_other() {
        let Ok(Command::Call { dangerous, .. }) = parse(&[
            "call",
            "a.b",
            "--allow-dangerous",
            "a.b",
            "--allow-dangerous",
            "c.d",
        ]) else {
            panic!("call parses");
        };
        assert_eq!(dangerous.allow, ["a.b", "c.d"]);
        let Ok(Command::Serve { dangerous, .. }) =
            parse(&["serve", "--stdio", "--allow-all-dangerous"])
        else {
            panic!("serve parses");
        };
        assert!(dangerous.allow_all);
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

    /// Off a terminal, indicatif hides every bar, so `is_hidden` cannot tell the bar of
    /// `len` steps from the hidden one: the length does (the hidden bar has none).
    #[test]
    fn the_progress_bar_has_steps_only_on_a_terminal_with_many_tools() {
        assert_eq!(progress_bar(100, false).length(), None);
        assert_eq!(progress_bar(PROGRESS_BAR_FROM, false).length(), None);
        assert_eq!(progress_bar(PROGRESS_BAR_FROM - 1, true).length(), None);
        assert_eq!(progress_bar(0, true).length(), None);
        assert_eq!(
            progress_bar(PROGRESS_BAR_FROM, true).length(),
            Some(PROGRESS_BAR_FROM as u64)
        );
        assert_eq!(progress_bar(100, true).length(), Some(100));
    }
}
