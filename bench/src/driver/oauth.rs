//! HTTP throughput with and without OAuth access tokens: `bench-server` served once as is
//! and once taking access tokens from an authorization server in this process (the test
//! keys of `mcp-runtime/benches/fixtures`), under the same load of keep-alive clients,
//! round after round, alternating which goes first. Every request of the second server
//! carries the same token, so after the first request the server checks it against kept
//! keys, as it does for a client that holds a token.

use std::io;
use std::path::PathBuf;

use jsonwebtoken::Algorithm;
use serde_json::json;

use super::http::{self, Load};
use super::issuer::{Issuer, RESOURCE};
use super::report::{Report, Summary};
use super::rounds::{self, Row, Target};
use super::stats;

/// The tokens' signing algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Signing {
    /// RSA 2048, PKCS#1 v1.5 with SHA-256.
    Rs256,
    /// ECDSA on P-256 with SHA-256.
    Es256,
}

impl Signing {
    fn algorithm(self) -> Algorithm {
        match self {
            Self::Rs256 => Algorithm::RS256,
            Self::Es256 => Algorithm::ES256,
        }
    }

    /// `RS256` or `ES256`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Rs256 => "RS256",
            Self::Es256 => "ES256",
        }
    }
}

/// The authorization server, and the token every request with auth carries.
pub(crate) struct Tokens {
    issuer: Issuer,
    token: String,
    signing: Signing,
}

impl Tokens {
    /// Starts the authorization server and signs a token with `signing`.
    pub(crate) fn new(signing: Signing) -> io::Result<Self> {
        let issuer = Issuer::start()?;
        let token = issuer.token(signing.algorithm())?;
        Ok(Self {
            issuer,
            token,
            signing,
        })
    }

    /// How many times servers fetched the key set: once per server that took tokens.
    pub(crate) fn key_fetches(&self) -> usize {
        self.issuer.key_fetches()
    }
}

/// One round: `server` (bench-server) without auth, then with tokens, or the other way
/// round when `swap`; the reports as `[without, with]`. Each run's line is printed when
/// `say`.
pub(crate) fn round(
    round: usize,
    swap: bool,
    server: &str,
    tokens: &Tokens,
    load: Load,
    say: bool,
) -> io::Result<[Summary; 2]> {
    let run = |with_tokens: bool| {
        let mut command = vec![
            server.to_owned(),
            "serve".to_owned(),
            "--http".to_owned(),
            "127.0.0.1:0".to_owned(),
            // No line per request: the cost of tokens is measured, not of the log.
            "--quiet".to_owned(),
        ];
        if with_tokens {
            command.extend([
                "--oauth-issuer".to_owned(),
                tokens.issuer.url.clone(),
                "--oauth-audience".to_owned(),
                RESOURCE.to_owned(),
            ]);
        }
        let bearer = with_tokens.then(|| tokens.token.clone());
        let report = http::run_spawned(&command, load, bearer)?;
        let label = if with_tokens {
            format!("bench-server, {} tokens", tokens.signing.name())
        } else {
            "bench-server, no auth".to_owned()
        };
        if say {
            rounds::say(
                round,
                &format!("http C={} {label}", load.clients),
                &report.line(),
            );
        }
        Ok(report)
    };
    rounds::pair(swap, || run(false), || run(true))
}

/// The rows comparing the runs with tokens to those without, of `rounds`.
pub(crate) fn rows<R>(
    rounds: &[R],
    runs: impl Fn(&R) -> &[Summary; 2] + Copy,
    clients: u64,
) -> Vec<Row> {
    let figure =
        |report: &Summary, pick: fn(&Summary) -> Option<f64>| pick(report).unwrap_or(f64::NAN);
    vec![
        Row::new(
            format!("HTTP {clients} clients calls/s"),
            "calls/s",
            Target::None,
            rounds,
            move |r| (runs(r)[0].calls_per_s, runs(r)[1].calls_per_s),
        ),
        Row::new(
            format!("HTTP {clients} clients p50 latency"),
            "µs",
            Target::None,
            rounds,
            move |r| {
                let p50 = |report: &Summary| report.latency.map(|l| l.p50_us);
                (figure(&runs(r)[0], p50), figure(&runs(r)[1], p50))
            },
        ),
        Row::new(
            format!("HTTP {clients} clients server CPU per call"),
            "µs",
            Target::None,
            rounds,
            move |r| {
                let cpu = |report: &Summary| report.cpu.server_us;
                (figure(&runs(r)[0], cpu), figure(&runs(r)[1], cpu))
            },
        ),
    ]
}

/// What `mcp-bench oauth` does.
#[derive(Debug, Clone)]
pub(crate) struct OauthOptions {
    /// Rounds; the two servers alternate which goes first.
    pub(crate) rounds: usize,
    /// The load of each run.
    pub(crate) load: Load,
    /// The tokens' signing algorithm.
    pub(crate) signing: Signing,
    /// Where `bench-server` is; by default beside this program.
    pub(crate) bin_dir: Option<PathBuf>,
    /// One JSON object instead of the lines and the table.
    pub(crate) json: bool,
}

/// Runs the rounds and prints each run's line and the table of medians and ratios, or one
/// JSON object; the number of wrong or missing answers.
pub(crate) fn run(options: &OauthOptions) -> io::Result<u64> {
    let server = rounds::program(&rounds::bin_dir(options.bin_dir.clone())?, "bench-server")?;
    let tokens = Tokens::new(options.signing)?;
    let mut rounds = Vec::with_capacity(options.rounds);
    for number in 1..=options.rounds {
        if !options.json {
            println!("round {number} | load average {}", rounds::load_average());
        }
        rounds.push(round(
            number,
            number % 2 == 0,
            &server,
            &tokens,
            options.load,
            !options.json,
        )?);
    }
    let wrong: u64 = rounds.iter().flatten().map(Report::wrong).sum();
    let calls = |side: usize| -> Vec<f64> { rounds.iter().map(|r| r[side].calls_per_s).collect() };
    let ratios: Vec<f64> = rounds
        .iter()
        .map(|r| r[1].calls_per_s / r[0].calls_per_s)
        .collect();
    // What checking the token costs the server per call, in CPU time: with − without.
    let added: Vec<f64> = rounds
        .iter()
        .map(|r| match (r[0].cpu.server_us, r[1].cpu.server_us) {
            (Some(without), Some(with)) => with - without,
            _ => f64::NAN,
        })
        .collect();
    if options.json {
        let runs: Vec<_> = rounds
            .iter()
            .map(|r| json!({ "no_auth": r[0].json(), "oauth": r[1].json() }))
            .collect();
        println!(
            "{}",
            json!({
                "mode": "oauth",
                "algorithm": options.signing.name(),
                "rounds": runs,
                "no_auth_calls_per_s": stats::json_number(Some(stats::median(&calls(0)))),
                "oauth_calls_per_s": stats::json_number(Some(stats::median(&calls(1)))),
                "ratio": stats::json_number(Some(stats::median(&ratios))),
                "server_cpu_added_us": stats::json_number(Some(stats::median(&added))),
                "key_fetches": tokens.key_fetches(),
                "wrong": wrong,
            })
        );
        return Ok(wrong);
    }
    rounds::table(
        &format!(
            "OAuth access tokens ({}, kept keys) against no auth, bench-server, medians of {} round(s)",
            options.signing.name(),
            rounds.len()
        ),
        "no auth",
        "OAuth",
        &rows(&rounds, |r| r, options.load.clients),
    );
    let disturbances: Vec<String> = rounds
        .iter()
        .map(|r| {
            let most = r
                .iter()
                .filter_map(|report| report.cpu.others_cores)
                .fold(0.0, f64::max);
            format!("{most:.2}")
        })
        .collect();
    let per_round: Vec<String> = added.iter().map(|us| format!("{us:.1}")).collect();
    println!();
    println!(
        "Server CPU the token adds per call: {:.1} µs (median of rounds; per round {}).",
        stats::median(&added),
        per_round.join(", ")
    );
    println!(
        "Other processes' CPU during the timed runs, the most in either run, per round: {} core(s). \
         Key set fetched {} time(s) by {} server(s) taking tokens. Wrong or missing answers: {wrong}.",
        disturbances.join(", "),
        tokens.key_fetches(),
        rounds.len(),
    );
    Ok(wrong)
}
