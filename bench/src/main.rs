//! `mcp-bench`: measures MCP servers over stdio and streamable HTTP.
//!
//! ```text
//! mcp-bench stdio [--window W] [-n N] -- CMD [ARGS...]
//! mcp-bench http URL [--clients C] [-n N] [--bearer TOKEN]
//! mcp-bench tasks URL [--clients C] [-n N] [--first-reads-via URL2 [--first-reads M]] [--lifecycle K]
//! mcp-bench soak URL [--clients C] [-n N] [--bearer TOKEN] [--every S]
//! mcp-bench oauth [--rounds R] [--alg rs256|es256] [--clients C] [-n N]
//! mcp-bench startup [--runs R] [--list] -- CMD [ARGS...]
//! mcp-bench inflight [-n N] -- CMD [ARGS...]
//! mcp-bench burst [-n N] [--tool NAME] -- CMD [ARGS...]
//! mcp-bench suite [--rounds R] [--quick]
//! ```
//!
//! Every measuring subcommand prints one summary line, or with `--json` one JSON object,
//! and exits 1 when an answer was wrong or missing.

// The summary lines and tables are this program's output.
#![allow(clippy::print_stdout)]

mod driver;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};

use driver::report::Report;
use driver::{http, oauth, proto, soak, stdio, suite, tasks, through_client};

/// Measures MCP servers.
#[derive(Parser)]
#[command(name = "mcp-bench", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Spawns a stdio server, does the handshake, warms up, then times `tools/call`s.
    Stdio {
        /// Calls in flight at once: 1 times each call; more measure throughput.
        #[arg(long, default_value_t = 1)]
        window: u64,
        #[command(flatten)]
        calls: StdioCalls,
        #[command(flatten)]
        target: Target,
        #[command(flatten)]
        deadline: Deadline,
        #[command(flatten)]
        spawned: Spawned,
    },
    /// Spawns a stdio server and makes `tools/call`s through `mcp_runtime::client`, WINDOW
    /// at a time: the client's cost, against `stdio` on the same server.
    Client {
        /// Calls in flight at once.
        #[arg(long, default_value_t = 64)]
        window: u64,
        #[command(flatten)]
        calls: StdioCalls,
        /// The tool called: it must take `{a, b}` and answer `{"sum": a + b}`.
        #[arg(long, default_value = proto::DEFAULT_TOOL)]
        tool: String,
        #[command(flatten)]
        spawned: Spawned,
    },
    /// Sends `tools/call`s over C keep-alive HTTP/1.1 connections, one at a time on each.
    Http {
        #[command(flatten)]
        endpoint: Endpoint,
        #[command(flatten)]
        calls: HttpCalls,
        #[command(flatten)]
        target: Target,
        #[command(flatten)]
        threads: Threads,
        /// The server's process id, to report its CPU time per call.
        #[arg(long)]
        pid: Option<u32>,
        /// An access token to send with every request (`Authorization: Bearer TOKEN`).
        #[arg(long, value_name = "TOKEN")]
        bearer: Option<String>,
        /// Send each call in the session its connection's `initialize` opened
        /// (`Mcp-Session-Id`), as clients of the handshake's revisions do, so that the
        /// server looks the session up in its store at every call.
        #[arg(long)]
        session: bool,
        #[command(flatten)]
        output: Output,
    },
    /// Over HTTP at 2026-07-28: creates a task of `bench.task_add` and polls it until it is
    /// completed, then times `tasks/get` of it over C keep-alive connections, then
    /// `tools/call` of `bench.add` (inline, without the tasks extension) the same way.
    /// With `--first-reads-via URL2`, also the first `tasks/get` of finished tasks by a
    /// replica that has not read them.
    Tasks {
        #[command(flatten)]
        endpoint: Endpoint,
        #[command(flatten)]
        calls: HttpCalls,
        #[command(flatten)]
        threads: Threads,
        /// A second replica sharing URL's task store: before measuring, create M finished
        /// tasks (and as many as the warm-up) through URL, each polled there until
        /// completed; at the end, time one `tasks/get` of each through URL2, every one a
        /// task URL2 has not read before, so not one it remembers.
        #[arg(long, value_name = "URL2")]
        first_reads_via: Option<String>,
        /// The first reads measured through `--first-reads-via`, over all connections.
        #[arg(
            long,
            value_name = "M",
            default_value_t = 2_000,
            requires = "first_reads_via"
        )]
        first_reads: u64,
        /// Instead: run K tasks one after another, each polled every 10 ms until
        /// completed, and count the polls (to count the task store's round trips per task).
        #[arg(long, value_name = "K")]
        lifecycle: Option<u64>,
        #[command(flatten)]
        output: Output,
    },
    /// Over HTTP at 2026-07-28, N calls of a mix, each checked: half inline, a quarter
    /// reporting progress and logging (an SSE stream), a quarter run as tasks and polled
    /// until they end. Lists every failure with its kind and when its call started and
    /// ended; says on standard error how far it got every S seconds, and when half the
    /// calls have ended (`soak: halfway at=MS`).
    Soak {
        #[command(flatten)]
        endpoint: Endpoint,
        /// Calls, over all connections.
        #[arg(short, default_value_t = 1_000_000)]
        n: u64,
        /// An access token to send with every request (`Authorization: Bearer TOKEN`).
        #[arg(long, value_name = "TOKEN")]
        bearer: Option<String>,
        /// Seconds between two lines of progress on standard error.
        #[arg(long, value_name = "S", default_value_t = 10)]
        every: u64,
        #[command(flatten)]
        threads: Threads,
        #[command(flatten)]
        output: Output,
    },
    /// Serves bench-server over HTTP without auth and with OAuth access tokens from an
    /// authorization server in this process, under the same load, round after round;
    /// prints each run and a Markdown table of the medians and ratios.
    Oauth {
        /// Rounds; the two servers alternate which goes first.
        #[arg(long, default_value_t = 5)]
        rounds: usize,
        /// The tokens' signing algorithm.
        #[arg(long, value_enum, default_value_t = oauth::Signing::Rs256)]
        alg: oauth::Signing,
        /// Concurrent connections.
        #[arg(long, default_value_t = 16)]
        clients: u64,
        /// Calls measured in each run, over all connections.
        #[arg(short, default_value_t = 50_000)]
        n: u64,
        /// Calls before measuring in each run, over all connections.
        #[arg(long, default_value_t = 2_000)]
        warmup: u64,
        /// Where bench-server is; by default beside this program.
        #[arg(long)]
        bin_dir: Option<PathBuf>,
        /// Print one JSON object instead of the runs and the table.
        #[arg(long)]
        json: bool,
    },
    /// What the sandbox costs a call: `bench.add` in process against `bench.add_sandboxed`
    /// with a worker waiting (warm) and started for the call (cold), one call at a time,
    /// rounds interleaved; p50 and p99 of each, and the overheads. SERVER is the framework
    /// server's program (and arguments before `serve`).
    Sandbox {
        /// Calls timed per mode and round.
        #[arg(short, default_value_t = 200)]
        n: u64,
        /// Rounds of the three modes.
        #[arg(long, default_value_t = 3)]
        rounds: usize,
        /// The untimed pause after each call, in milliseconds, in which a warm worker is
        /// started again.
        #[arg(long, default_value_t = 20)]
        pause_ms: u64,
        #[command(flatten)]
        spawned: Spawned,
    },
    /// Times spawn → the answer to `initialize` (or to `tools/list`, with `--list`).
    Startup {
        /// How many times to start the server.
        #[arg(long, default_value_t = 20)]
        runs: usize,
        /// Time the answer to a `tools/list` sent right after `initialize`.
        #[arg(long)]
        list: bool,
        #[command(flatten)]
        spawned: Spawned,
    },
    /// Writes N calls without waiting while another thread reads the answers; reports the
    /// server's memory before and at its peak.
    Inflight {
        /// Calls written at once.
        #[arg(short, default_value_t = 10_000)]
        n: u64,
        #[command(flatten)]
        deadline: Deadline,
        #[command(flatten)]
        spawned: Spawned,
    },
    /// Writes N calls of a synchronous tool at once (`bench.add_slow`, 10 ms asleep);
    /// reports the server's threads and memory at their peak, and how many calls were
    /// answered by their result and how many refused as overloaded.
    Burst {
        /// Calls written at once.
        #[arg(short, default_value_t = 10_000)]
        n: u64,
        /// The tool called, of `{a, b}` answering `{sum}`.
        #[arg(long, default_value = driver::burst::DEFAULT_TOOL)]
        tool: String,
        #[command(flatten)]
        deadline: Deadline,
        #[command(flatten)]
        spawned: Spawned,
    },
    /// Receives OTLP exports over HTTP until stopped, answering each at once: what a
    /// server exports to while its cost is measured (`OTEL_EXPORTER_OTLP_ENDPOINT`).
    OtlpSink {
        /// Where the port it listens on (on 127.0.0.1) is written, once it listens.
        #[arg(long)]
        port_file: std::path::PathBuf,
    },
    /// Runs every measurement on the floors and the framework, round after round, and
    /// prints Markdown tables of the medians and ratios.
    Suite {
        /// Rounds; floor and framework alternate which goes first.
        #[arg(long, default_value_t = 5)]
        rounds: usize,
        /// Small counts: a smoke test of the whole suite.
        #[arg(long)]
        quick: bool,
        /// Where the servers are; by default beside this program.
        #[arg(long)]
        bin_dir: Option<PathBuf>,
    },
}

/// How many calls a stdio run makes.
#[derive(Args)]
struct StdioCalls {
    /// Calls measured.
    #[arg(short, default_value_t = 20_000)]
    n: u64,
    /// Calls before measuring.
    #[arg(long, default_value_t = 2_000)]
    warmup: u64,
}

/// How many requests an HTTP run makes, over all its connections: calls, or for `tasks`,
/// requests of each kind.
#[derive(Args)]
struct HttpCalls {
    /// Requests measured, over all connections (for `tasks`, of each kind).
    #[arg(short, default_value_t = 50_000)]
    n: u64,
    /// Requests before measuring, over all connections (for `tasks`, of each kind).
    #[arg(long, default_value_t = 2_000)]
    warmup: u64,
}

/// What is called.
#[derive(Args)]
struct Target {
    /// The tool called: it must take `{a, b}` and answer `{"sum": a + b}`. Or
    /// `resource:URI` (reads `bench://about`'s text) or `prompt:NAME` (renders `n=<n>`).
    #[arg(long, default_value = proto::DEFAULT_TOOL)]
    tool: String,
}

/// How long a spawned server may run.
#[derive(Args)]
struct Deadline {
    /// Kill the server after this many seconds.
    #[arg(long, default_value_t = 300)]
    timeout: u64,
}

impl Deadline {
    fn duration(&self) -> Duration {
        Duration::from_secs(self.timeout)
    }
}

/// The server an HTTP run sends to, and over how many connections.
#[derive(Args)]
struct Endpoint {
    /// The endpoint, e.g. `http://127.0.0.1:8080/mcp`.
    url: String,
    /// Concurrent connections.
    #[arg(long, default_value_t = 16)]
    clients: u64,
}

/// The driver's own threads.
#[derive(Args)]
struct Threads {
    /// Threads of the driver's runtime (1: a current-thread runtime).
    #[arg(long, default_value_t = 1)]
    threads: usize,
}

/// The server a stdio run spawns, and how what the run finds is printed.
#[derive(Args)]
struct Spawned {
    #[command(flatten)]
    output: Output,
    /// The server's command line.
    #[arg(last = true, required = true)]
    command: Vec<String>,
}

/// How a measuring subcommand prints what it found.
#[derive(Args)]
struct Output {
    /// Print one JSON object instead of a line.
    #[arg(long)]
    json: bool,
}

impl Output {
    /// Prints `report` (one line, or one JSON object); success when every answer was right.
    fn finish(&self, report: &impl Report) -> ExitCode {
        if self.json {
            println!("{}", report.json());
        } else {
            println!("{}", report.line());
        }
        verdict(report.wrong())
    }
}

fn verdict(wrong: u64) -> ExitCode {
    if wrong == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("mcp-bench: {err}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> std::io::Result<ExitCode> {
    Ok(match cli.command {
        Command::Stdio {
            window,
            calls,
            target,
            deadline,
            spawned,
        } => {
            let options = stdio::StdioOptions {
                n: calls.n,
                warmup: calls.warmup,
                window,
                tool: target.tool,
                deadline: deadline.duration(),
            };
            let report = stdio::run(&spawned.command, &options)?;
            spawned.output.finish(&report)
        }
        Command::Client {
            window,
            calls,
            tool,
            spawned,
        } => {
            let (n, warmup, window) = (calls.n, calls.warmup, window.max(1));
            let report = through_client::run(&spawned.command, n, warmup, window, &tool)?;
            spawned.output.finish(&report)
        }
        Command::Http {
            endpoint,
            calls: HttpCalls { n, warmup },
            target,
            threads,
            pid,
            bearer,
            session,
            output,
        } => {
            let options = http::HttpOptions {
                clients: endpoint.clients,
                n,
                warmup,
                tool: target.tool,
                threads: threads.threads,
                bearer,
                session,
            };
            output.finish(&http::run(&endpoint.url, &options, pid)?)
        }
        Command::Tasks {
            endpoint,
            lifecycle: Some(count),
            output,
            ..
        } => output.finish(&tasks::lifecycle(&endpoint.url, count)?),
        Command::Tasks {
            endpoint,
            calls: HttpCalls { n, warmup },
            threads,
            first_reads_via,
            first_reads,
            lifecycle: None,
            output,
        } => {
            let options = tasks::TasksOptions {
                clients: endpoint.clients,
                n,
                warmup,
                threads: threads.threads,
                first_reads_via,
                first_reads,
            };
            output.finish(&tasks::run(&endpoint.url, &options)?)
        }
        Command::Soak {
            endpoint,
            n,
            bearer,
            every,
            threads,
            output,
        } => {
            let options = soak::SoakOptions {
                clients: endpoint.clients,
                n,
                bearer,
                threads: threads.threads,
                every: Duration::from_secs(every),
            };
            output.finish(&soak::run(&endpoint.url, &options)?)
        }
        Command::Oauth {
            rounds,
            alg,
            clients,
            n,
            warmup,
            bin_dir,
            json,
        } => {
            let options = oauth::OauthOptions {
                rounds: rounds.max(1),
                load: http::Load { clients, n, warmup },
                signing: alg,
                bin_dir,
                json,
            };
            verdict(oauth::run(&options)?)
        }
        Command::Sandbox {
            n,
            rounds,
            pause_ms,
            spawned,
        } => {
            let options = driver::sandbox::SandboxOptions {
                calls: n,
                rounds: rounds.max(1),
                pause: std::time::Duration::from_millis(pause_ms),
            };
            let report = driver::sandbox::run(&spawned.command, &options)?;
            spawned.output.finish(&report)
        }
        Command::Startup {
            runs,
            list,
            spawned,
        } => {
            let report = stdio::startup(&spawned.command, runs, list)?;
            spawned.output.finish(&report)
        }
        Command::Inflight {
            n,
            deadline,
            spawned,
        } => {
            let report = stdio::inflight(&spawned.command, n, deadline.duration())?;
            spawned.output.finish(&report)
        }
        Command::Burst {
            n,
            tool,
            deadline,
            spawned,
        } => {
            let report = driver::burst::run(&spawned.command, &tool, n, deadline.duration())?;
            spawned.output.finish(&report)
        }
        Command::OtlpSink { port_file } => {
            driver::otlp_sink::run(&port_file)?;
            ExitCode::SUCCESS
        }
        Command::Suite {
            rounds,
            quick,
            bin_dir,
        } => verdict(suite::run(rounds.max(1), quick, bin_dir)?),
    })
}
