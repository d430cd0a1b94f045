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
//! registry is broken, 2 for a usage error such as arguments that are not JSON.

use std::ffi::OsString;
use std::io::{self, IsTerminal, Read, Write};
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Parser, Subcommand};
use mcp_core::{MCPToolCall, ToolStatus};
use serde_json::Value;

use crate::registry::{EMPTY_REGISTRY_HINT, Registry};
use crate::server::{self, Server};
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
    },
    /// Serve the tools over MCP: on stdio until input ends, or over HTTP until stopped.
    #[command(group(clap::ArgGroup::new("transport").required(true).args(["stdio", "http"])))]
    Serve {
        /// Newline-delimited JSON-RPC on standard input and output; logs go to standard error.
        #[arg(long)]
        stdio: bool,
        /// Streamable HTTP at `http://ADDR/mcp`; `127.0.0.1:8080` when no ADDR is given (port
        /// 0 picks a free one).
        #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "127.0.0.1:8080")]
        http: Option<std::net::SocketAddr>,
        /// Require `Authorization: Bearer TOKEN` on every HTTP request.
        #[arg(long, requires = "http")]
        token: Option<String>,
        /// Allow browser requests from this origin besides loopback ones (repeatable).
        #[arg(long = "allow-origin", value_name = "ORIGIN", requires = "http")]
        allow_origins: Vec<String>,
        /// Serve tools under names valid for LLM APIs: `calculator.add` as `calculator_add`.
        #[arg(long)]
        llm_names: bool,
        /// How many tools one page of `tools/list` holds.
        #[arg(long, default_value_t = server::DEFAULT_PAGE_SIZE)]
        page_size: usize,
    },
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
    let code = match Registry::try_global() {
        Ok(registry) => execute(registry, std::env::args_os()),
        Err(err) => {
            eprintln!("error: {err}");
            FAILURE
        }
    };
    // A closed stdout is not worth a panic; the exit code still tells.
    let _ = io::stdout().flush();
    std::process::exit(i32::from(code))
}

/// Runs the command line `args` (the first being the program's name) over `registry`.
pub fn run_with<I, T>(registry: &'static Registry, args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    ExitCode::from(execute(registry, args))
}

fn execute<I, T>(registry: &'static Registry, args: I) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(err) => {
            let _ = err.print();
            return if err.use_stderr() { USAGE } else { 0 };
        }
    };
    match cli.command {
        Command::Serve {
            http: Some(address),
            token,
            allow_origins,
            llm_names,
            page_size,
            ..
        } => serve(
            registry,
            Transport::Http(address, token, allow_origins),
            llm_names,
            page_size,
        ),
        Command::Serve {
            llm_names,
            page_size,
            ..
        } => serve(registry, Transport::Stdio, llm_names, page_size),
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
        } => {
            let call = match parse_call(&name, &arguments) {
                Ok(call) => call,
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

enum Transport {
    Stdio,
    Http(std::net::SocketAddr, Option<String>, Vec<String>),
}

fn serve(
    registry: &'static Registry,
    transport: Transport,
    llm_names: bool,
    page_size: usize,
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
    let served = match transport {
        Transport::Stdio => runtime.block_on(server::serve_stdio(server)),
        Transport::Http(address, token, allowed_origins) => {
            let config = server::HttpConfig {
                token,
                allowed_origins,
                ..server::HttpConfig::default()
            };
            runtime.block_on(server::serve_http(server, address, config, |bound| {
                eprintln!("listening on http://{bound}/mcp");
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
}
