//! The suite: every measurement on the floors and on the framework, round after round,
//! alternating which goes first, then Markdown tables of the medians and ratios.

use std::io;
use std::path::PathBuf;
use std::time::Duration;

use super::http;
use super::oauth::{self, Signing, Tokens};
use super::proto;
use super::report::{Report, Summary};
use super::rounds::{Row, Target, bin_dir, load_average, pair, program, say, table};
use super::stats;
use super::stdio::{self, InflightReport, StartupReport};

/// The programs measured.
struct Programs {
    floor_stdio: String,
    floor_http: String,
    server: String,
    server_1000: String,
}

impl Programs {
    fn find(dir: Option<PathBuf>) -> io::Result<Self> {
        let dir = bin_dir(dir)?;
        Ok(Self {
            floor_stdio: program(&dir, "floor-stdio")?,
            floor_http: program(&dir, "floor-http")?,
            server: program(&dir, "bench-server")?,
            server_1000: program(&dir, "bench-server-1000")?,
        })
    }
}

/// How much each measurement does.
struct Sizes {
    warmup: u64,
    latency_n: u64,
    window: u64,
    throughput_n: u64,
    clients: u64,
    http_n: u64,
    http_warmup: u64,
    startup_runs: usize,
    inflight_n: u64,
}

impl Sizes {
    fn new(quick: bool) -> Self {
        if quick {
            Self {
                warmup: 200,
                latency_n: 1_000,
                window: 64,
                throughput_n: 10_000,
                clients: 16,
                http_n: 2_000,
                http_warmup: 320,
                startup_runs: 3,
                inflight_n: 2_000,
            }
        } else {
            Self {
                warmup: 2_000,
                latency_n: 20_000,
                window: 64,
                throughput_n: 200_000,
                clients: 16,
                http_n: 50_000,
                http_warmup: 2_000,
                startup_runs: 20,
                inflight_n: 10_000,
            }
        }
    }
}

/// One round's figures.
struct Round {
    latency: [Summary; 2],
    throughput: [Summary; 2],
    http: [Summary; 2],
    /// bench-server over HTTP without auth and with OAuth access tokens (RS256).
    oauth: [Summary; 2],
    /// `initialize`: bench-server, bench-server-1000.
    startup: [StartupReport; 2],
    /// `tools/list`: bench-server, bench-server-1000.
    list: [StartupReport; 2],
    inflight: InflightReport,
    /// bench-server at the throughput window: `tools/call` of the inline tool,
    /// `resources/read` of a fixed text resource, `prompts/get` of a one-message prompt.
    catalog: [Summary; 3],
}

impl Round {
    /// The most CPU other processes used during one of the round's timed runs, in cores.
    fn disturbance(&self) -> f64 {
        self.runs()
            .filter_map(|r| r.cpu.others_cores)
            .fold(0.0, f64::max)
    }

    /// Every run of the round over stdio or HTTP.
    fn runs(&self) -> impl Iterator<Item = &Summary> {
        self.latency
            .iter()
            .chain(&self.throughput)
            .chain(&self.catalog)
            .chain(&self.http)
            .chain(&self.oauth)
    }

    /// Wrong or missing answers in the round.
    fn wrong(&self) -> u64 {
        let startup: u64 = self
            .startup
            .iter()
            .chain(&self.list)
            .map(Report::wrong)
            .sum();
        self.runs().map(Report::wrong).sum::<u64>() + startup + self.inflight.wrong()
    }
}

fn one_round(
    round: usize,
    programs: &Programs,
    sizes: &Sizes,
    tokens: &Tokens,
) -> io::Result<Round> {
    let swap = round % 2 == 0;
    let deadline = Duration::from_secs(600);
    let stdio_command = |program: &str| -> Vec<String> {
        if program == programs.floor_stdio {
            vec![program.to_owned()]
        } else {
            vec![program.to_owned(), "serve".to_owned(), "--stdio".to_owned()]
        }
    };
    let target_run = |program: &str, label: &str, window: u64, n: u64, target: &str| {
        let options = stdio::StdioOptions {
            n,
            warmup: sizes.warmup,
            window,
            tool: target.to_owned(),
            deadline,
        };
        let report = stdio::run(&stdio_command(program), &options)?;
        say(round, &format!("stdio W={window} {label}"), &report.line());
        Ok(report)
    };
    let stdio_run = |program: &str, label: &str, window: u64, n: u64| {
        target_run(program, label, window, n, proto::DEFAULT_TOOL)
    };
    let latency = pair(
        swap,
        || stdio_run(&programs.floor_stdio, "floor-stdio", 1, sizes.latency_n),
        || stdio_run(&programs.server, "bench-server", 1, sizes.latency_n),
    )?;
    let throughput = pair(
        swap,
        || {
            stdio_run(
                &programs.floor_stdio,
                "floor-stdio",
                sizes.window,
                sizes.throughput_n,
            )
        },
        || {
            stdio_run(
                &programs.server,
                "bench-server",
                sizes.window,
                sizes.throughput_n,
            )
        },
    )?;
    let load = http::Load {
        clients: sizes.clients,
        n: sizes.http_n,
        warmup: sizes.http_warmup,
    };
    let http_run = |command: Vec<String>, label: &str| {
        let report = http::run_spawned(&command, load, None)?;
        say(
            round,
            &format!("http C={} {label}", load.clients),
            &report.line(),
        );
        Ok(report)
    };
    let http = pair(
        swap,
        || {
            let command = vec![
                programs.floor_http.clone(),
                "--addr".to_owned(),
                "127.0.0.1:0".to_owned(),
            ];
            http_run(command, "floor-http")
        },
        || {
            let command = vec![
                programs.server.clone(),
                "serve".to_owned(),
                "--http".to_owned(),
                "127.0.0.1:0".to_owned(),
                // No line per request, as the floor writes none.
                "--quiet".to_owned(),
            ];
            http_run(command, "bench-server")
        },
    )?;
    let oauth = oauth::round(round, swap, &programs.server, tokens, load, true)?;
    let startup_run = |program: &str, label: &str, list: bool| {
        let report = stdio::startup(&stdio_command(program), sizes.startup_runs, list)?;
        say(round, &format!("startup {label}"), &report.line());
        Ok(report)
    };
    let startup = pair(
        swap,
        || startup_run(&programs.server, "bench-server", false),
        || startup_run(&programs.server_1000, "bench-server-1000", false),
    )?;
    let list = pair(
        swap,
        || startup_run(&programs.server, "bench-server", true),
        || startup_run(&programs.server_1000, "bench-server-1000", true),
    )?;
    let inflight = stdio::inflight(&stdio_command(&programs.server), sizes.inflight_n, deadline)?;
    say(round, "inflight bench-server", &inflight.line());
    // The three kinds of request, in an order that turns from round to round.
    let targets = [
        ("tools/call", proto::DEFAULT_TOOL.to_owned()),
        (
            "resources/read",
            format!("{}bench://about", proto::RESOURCE_PREFIX),
        ),
        (
            "prompts/get",
            format!("{}bench_greeting", proto::PROMPT_PREFIX),
        ),
    ];
    let mut catalog: [Option<Summary>; 3] = [None, None, None];
    for step in 0..3 {
        let index = (step + round) % 3;
        let (label, target) = &targets[index];
        catalog[index] = Some(target_run(
            &programs.server,
            &format!("bench-server {label}"),
            sizes.window,
            sizes.throughput_n,
            target,
        )?);
    }
    let catalog = catalog.map(|report| report.expect("each kind ran"));
    Ok(Round {
        latency,
        throughput,
        http,
        oauth,
        startup,
        list,
        inflight,
        catalog,
    })
}

fn nan(value: Option<f64>) -> f64 {
    value.unwrap_or(f64::NAN)
}

fn mib(kib: Option<u64>) -> f64 {
    kib.map_or(f64::NAN, |kib| kib as f64 / 1024.0)
}

/// Runs the suite; the number of wrong or missing answers seen.
pub(crate) fn run(rounds: usize, quick: bool, bin_dir: Option<PathBuf>) -> io::Result<u64> {
    let programs = Programs::find(bin_dir)?;
    let sizes = Sizes::new(quick);
    let tokens = Tokens::new(Signing::Rs256)?;
    println!(
        "# mcp-bench suite: {rounds} round(s){}, {} core(s)",
        if quick { ", quick" } else { "" },
        std::thread::available_parallelism().map_or(0, usize::from)
    );
    println!();
    let mut all = Vec::with_capacity(rounds);
    for round in 1..=rounds {
        println!("round {round} | load average {}", load_average());
        all.push(one_round(round, &programs, &sizes, &tokens)?);
    }
    let rounds = &all;
    let w = sizes.window;
    let c = sizes.clients;
    let mut met = table(
        &format!(
            "Floor against framework, medians of {} round(s)",
            rounds.len()
        ),
        "floor",
        "framework",
        &[
            Row::new(
                "stdio W=1 p50 latency",
                "µs",
                Target::AtMost(1.2),
                rounds,
                |r| {
                    (
                        nan(r.latency[0].latency.map(|l| l.p50_us)),
                        nan(r.latency[1].latency.map(|l| l.p50_us)),
                    )
                },
            ),
            Row::new("stdio W=1 p99 latency", "µs", Target::None, rounds, |r| {
                (
                    nan(r.latency[0].latency.map(|l| l.p99_us)),
                    nan(r.latency[1].latency.map(|l| l.p99_us)),
                )
            }),
            Row::new("stdio W=1 calls/s", "calls/s", Target::None, rounds, |r| {
                (r.latency[0].calls_per_s, r.latency[1].calls_per_s)
            }),
            Row::new(
                format!("stdio W={w} calls/s"),
                "calls/s",
                Target::AtLeast(0.5),
                rounds,
                |r| (r.throughput[0].calls_per_s, r.throughput[1].calls_per_s),
            ),
            Row::new(
                format!("stdio W={w} server CPU per call"),
                "µs",
                Target::None,
                rounds,
                |r| {
                    (
                        nan(r.throughput[0].cpu.server_us),
                        nan(r.throughput[1].cpu.server_us),
                    )
                },
            ),
            Row::new(
                format!("HTTP {c} clients calls/s"),
                "calls/s",
                Target::AtLeast(0.6),
                rounds,
                |r| (r.http[0].calls_per_s, r.http[1].calls_per_s),
            ),
            Row::new(
                format!("HTTP {c} clients p50 latency"),
                "µs",
                Target::None,
                rounds,
                |r| {
                    (
                        nan(r.http[0].latency.map(|l| l.p50_us)),
                        nan(r.http[1].latency.map(|l| l.p50_us)),
                    )
                },
            ),
            Row::new(
                format!("HTTP {c} clients server CPU per call"),
                "µs",
                Target::None,
                rounds,
                |r| (nan(r.http[0].cpu.server_us), nan(r.http[1].cpu.server_us)),
            ),
        ],
    );
    met.extend(table(
        "bench-server with OAuth access tokens (RS256, kept keys) against without auth",
        "no auth",
        "OAuth",
        &oauth::rows(rounds, |r| &r.oauth, c),
    ));
    met.extend(table(
        "Start-up: 3 tools against 1,000",
        "bench-server",
        "bench-server-1000",
        &[
            Row::new(
                "spawn → initialize answer, median",
                "ms",
                Target::AtMost(2.0),
                rounds,
                |r| (r.startup[0].median_ms(), r.startup[1].median_ms()),
            ),
            Row::new(
                "spawn → initialize answer, p90",
                "ms",
                Target::None,
                rounds,
                |r| (r.startup[0].p90_ms(), r.startup[1].p90_ms()),
            ),
            Row::new(
                "spawn → tools/list answer, median",
                "ms",
                Target::None,
                rounds,
                |r| (r.list[0].median_ms(), r.list[1].median_ms()),
            ),
            Row::new(
                "input closed → exit, median",
                "ms",
                Target::None,
                rounds,
                |r| {
                    (
                        stats::median(&r.startup[0].exit_ms),
                        stats::median(&r.startup[1].exit_ms),
                    )
                },
            ),
        ],
    ));
    for (index, what) in [
        (1, "resources/read of a fixed text resource"),
        (2, "prompts/get of a one-message prompt"),
    ] {
        met.extend(table(
            &format!("{what} against tools/call of an inline tool, bench-server"),
            "tools/call",
            what.split(' ').next().unwrap_or(what),
            &[Row::new(
                format!("stdio W={w} calls/s"),
                "calls/s",
                Target::AtLeast(0.8),
                rounds,
                |r| (r.catalog[0].calls_per_s, r.catalog[index].calls_per_s),
            )],
        ));
    }
    println!();
    println!(
        "### bench-server, {} calls written at once (inflight)",
        sizes.inflight_n
    );
    println!();
    println!(
        "| round | RSS before | peak RSS (VmHWM) | RSS after | calls/s | answered | errors | lost |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    for (i, r) in rounds.iter().enumerate() {
        let f = &r.inflight;
        println!(
            "| {} | {:.1} MiB | {:.1} MiB | {:.1} MiB | {:.0} | {} | {} | {} |",
            i + 1,
            mib(f.rss_before_kib),
            mib(f.peak_kib),
            mib(f.rss_after_kib),
            stats::rate(f.answered, f.elapsed),
            f.answered,
            f.errors,
            f.lost,
        );
    }
    let peaks: Vec<f64> = rounds.iter().map(|r| mib(r.inflight.peak_kib)).collect();
    let before: Vec<f64> = rounds
        .iter()
        .map(|r| mib(r.inflight.rss_before_kib))
        .collect();
    println!(
        "| median | {:.1} MiB | {:.1} MiB | | | | | |",
        stats::median(&before),
        stats::median(&peaks)
    );
    let disturbances: Vec<String> = rounds
        .iter()
        .map(|r| format!("{:.2}", r.disturbance()))
        .collect();
    println!();
    println!(
        "Other processes' CPU during the timed runs, the most in any one run, per round: {} core(s) \
         (above about 0.1, the round was disturbed).",
        disturbances.join(", ")
    );
    let wrong: u64 = rounds.iter().map(Round::wrong).sum();
    let targets = met.iter().flatten().count();
    let missed = met.iter().flatten().filter(|met| !**met).count();
    println!("Load average at the end: {}.", load_average());
    println!(
        "Targets met: {}/{targets}. Wrong or missing answers over the suite: {wrong}.",
        targets - missed
    );
    Ok(wrong)
}
