//! `serve`: the tools over MCP, on stdio or streamable HTTP.
//!
//! Telemetry: `--metrics` keeps the metrics for the Prometheus text format; with the `otel`
//! feature, `OTEL_EXPORTER_OTLP_ENDPOINT` (and `OTEL_SERVICE_NAME`) exports spans and metrics
//! over OTLP, said in one line at start, and flushed when serving ends.

use std::net::SocketAddr;
#[cfg(feature = "http")]
use std::num::NonZeroU32;
use std::num::NonZeroUsize;
use std::sync::Arc;

use clap::Args;

use super::error::CliError;
use super::sandbox::SandboxArgs;
use super::{ArgumentsArgs, DangerousArgs, FAILURE, USAGE, as_run};
use crate::registry::{EMPTY_REGISTRY_HINT, Registry};
use crate::server::{self, ServedRegistry, Server};
#[cfg(feature = "http")]
use crate::server::{HttpConfig, RateLimitConfig};
use crate::talk::{STATE_KEY_ENV, StateKey};

/// The address `serve --http` binds when given none: loopback only.
const DEFAULT_HTTP_ADDRESS: &str = "127.0.0.1:8080";

// The arguments of `serve`.
#[derive(Args)]
#[command(group(clap::ArgGroup::new("transport").required(true).args(["stdio", "http"])))]
pub(super) struct ServeArgs {
    /// Newline-delimited JSON-RPC on standard input and output; logs go to standard error.
    #[arg(long)]
    stdio: bool,
    /// Streamable HTTP at `http://ADDR/mcp`; `127.0.0.1:8080` when no ADDR is given (port
    /// 0 picks a free one). Once bound, the first line on standard error (not standard
    /// output) is `listening on http://ADDR/mcp`, with the port chosen: wait for it. An
    /// address other machines can reach without `--token` gets a warning. Needs
    /// mcp-runtime's `http` feature.
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = DEFAULT_HTTP_ADDRESS)]
    http: Option<SocketAddr>,
    /// Require `Authorization: Bearer TOKEN` on every HTTP request. Otherwise the
    /// environment variable `MCP_TOKEN`, which keeps it out of the process list.
    #[cfg(feature = "http")]
    #[arg(long, requires = "http")]
    token: Option<String>,
    /// The OAuth resource server's flags.
    #[cfg(feature = "oauth")]
    #[command(flatten)]
    pub(super) oauth: Box<super::oauth::OAuthArgs>,
    /// `--oauth-issuer` in a program built without OAuth: accepted by the parser, so that
    /// it is refused naming the feature, not as an unknown argument.
    #[cfg(not(feature = "oauth"))]
    #[arg(long = "oauth-issuer", value_name = "URL", hide = true)]
    oauth_issuer: Option<String>,
    /// Allow browser requests from this origin besides loopback ones (repeatable).
    #[cfg(feature = "http")]
    #[arg(long = "allow-origin", value_name = "ORIGIN", requires = "http")]
    allow_origins: Vec<String>,
    /// Limit each client (an IP address; an IPv6 /64) to N requests per second (`N` or
    /// `N/s`) or per minute (`N/min`); past it, 429 with `Retry-After`. Off by default:
    /// behind a proxy, every client has the proxy's address.
    #[cfg(feature = "http")]
    #[arg(long, value_name = "N[/s|/min]", requires = "http")]
    rate_limit: Option<RateLimitConfig>,
    /// How many requests a client may make at once before `--rate-limit` paces it; N by
    /// default.
    #[cfg(feature = "http")]
    #[arg(long, value_name = "B", requires = "rate_limit")]
    rate_burst: Option<NonZeroU32>,
    /// Serve the metrics in the Prometheus text format at PATH (`/metrics` when no PATH is
    /// given): `mcp_server_operation_duration_seconds` (a histogram by `mcp_method_name`,
    /// `gen_ai_tool_name`, `error_type`…), `mcp_server_operations_in_flight` and
    /// `mcp_server_refusals_total`. Behind the same guards as `/mcp`.
    #[cfg(feature = "http")]
    #[arg(long, value_name = "PATH", num_args = 0..=1, default_missing_value = "/metrics",
          value_parser = metrics_path, requires = "http")]
    metrics: Option<String>,
    #[command(flatten)]
    pub(super) dangerous: DangerousArgs,
    #[command(flatten)]
    pub(super) arguments_reading: ArgumentsArgs,
    #[command(flatten)]
    pub(super) sandbox: SandboxArgs,
    #[command(flatten)]
    pub(super) limits: super::limits::LimitArgs,
    #[cfg(feature = "http")]
    #[command(flatten)]
    pub(super) sessions: super::sessions::SessionArgs,
    #[command(flatten)]
    pub(super) pool: super::pool::PoolArgs,
    /// How many workers of each sandboxed tool to keep started and isolated, waiting for
    /// a call (each serves one call): a call then pays no process start.
    #[arg(long = "sandbox-warm", value_name = "N", default_value_t = 1)]
    pub(super) sandbox_warm: usize,
    /// Serve tools under names valid for LLM APIs: `calculator.add` as `calculator_add`.
    #[arg(long)]
    llm_names: bool,
    /// Serve each tool's schemas in the portable form `schema --portable` prints: every
    /// `$ref` inlined, for clients that do not resolve references (VS Code's and GitHub's
    /// Copilot, Cursor, opencode), and type arrays written as `anyOf`, for Gemini's
    /// function declarations; `check` names the tools that need it. Either form leaves out
    /// the `format`s JSON Schema does not define (`uint`, `int64`), which say nothing the
    /// Rust type does not guarantee, and which the TypeScript SDK warns of.
    #[arg(long)]
    portable: bool,
    /// With `--llm-names`, serve the tools of NAMESPACE under their names alone:
    /// `app.greet` as `greet`.
    #[arg(long, value_name = "NAMESPACE", requires = "llm_names")]
    llm_names_bare: Option<String>,
    /// Where the state of tools run as tasks lives: `memory` (this process, the default)
    /// or a Redis URL (`redis://127.0.0.1:6379`), shared by every replica behind a load
    /// balancer so that any of them answers for any task. Redis needs the `redis` feature.
    #[arg(
        long,
        value_name = "memory|redis://HOST:PORT",
        default_value = "memory"
    )]
    task_store: String,
    /// The prefix of the Redis task store's keys, so that several apps share one Redis.
    #[arg(long, value_name = "NAMESPACE", default_value = "mcp-runtime")]
    task_namespace: String,
    /// How long a task is kept after its creation, its result included (`ttlMs`).
    #[arg(long, value_name = "DURATION", default_value = "1h", value_parser = humantime::parse_duration)]
    task_ttl: std::time::Duration,
    /// How long a replica's hold on a running task lasts without renewal (renewed every
    /// third of it): a task whose replica stopped is reported failed within this time.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = humantime::parse_duration)]
    task_lease: std::time::Duration,
    /// How many tools one page of `tools/list` holds.
    #[arg(long, default_value_t = server::DEFAULT_PAGE_SIZE)]
    page_size: usize,
    /// The most requests in flight at once, from all clients, running tasks among them;
    /// one more is refused at once (HTTP 503 with `Retry-After`), never queued.
    #[arg(long, value_name = "N", default_value_t = NonZeroUsize::MIN.saturating_add(server::DEFAULT_MAX_IN_FLIGHT - 1))]
    max_in_flight: NonZeroUsize,
    /// The most requests in flight at once from one stdio connection; one more is refused
    /// at once while the connection's other messages are still read.
    #[arg(long, value_name = "N", default_value_t = NonZeroUsize::MIN.saturating_add(server::DEFAULT_MAX_IN_FLIGHT_PER_CONNECTION - 1))]
    max_in_flight_per_connection: NonZeroUsize,
    /// The key that seals the `requestState` of 2026-07-28 calls that ask the client: the
    /// contents of FILE, at least 32 bytes (e.g. `openssl rand -hex 32`). Every replica
    /// behind a load balancer needs the same one. Otherwise the environment variable
    /// `MCP_STATE_KEY`; otherwise a key made for this process alone.
    #[arg(long, value_name = "FILE")]
    state_key_file: Option<std::path::PathBuf>,
    /// Serve the skills of DIR (the skills extension): every folder under it that holds a
    /// `SKILL.md`, its files read through `resources/read` under `skill://NAME/PATH`
    /// (repeatable). A skill that cannot be served stops the start, naming it. DIR is
    /// watched: a change is served from the next request on, and clients are told
    /// (`notifications/resources/list_changed`).
    #[arg(long = "skills", value_name = "DIR")]
    skills: Vec<std::path::PathBuf>,
    /// How often `--skills` folders are looked at for changes.
    #[arg(long, value_name = "DURATION", default_value = "1s", value_parser = humantime::parse_duration)]
    skills_interval: std::time::Duration,
}

impl ServeArgs {
    /// The first option of `--http` given without it (clap lets `requires` pass when the
    /// required argument is excluded by a group).
    pub(super) fn http_only_flag_without_http(&self) -> Option<&'static str> {
        if self.http.is_some() {
            return None;
        }
        let given = [
            #[cfg(feature = "http")]
            ("--token", self.token.is_some()),
            #[cfg(feature = "oauth")]
            ("--oauth-issuer", self.oauth.issuer.is_some()),
            #[cfg(feature = "http")]
            ("--allow-origin", !self.allow_origins.is_empty()),
            #[cfg(feature = "http")]
            ("--rate-limit", self.rate_limit.is_some()),
            #[cfg(feature = "http")]
            ("--metrics", self.metrics.is_some()),
            #[cfg(feature = "http")]
            ("--session-store", self.sessions.given()),
        ];
        given
            .iter()
            .find(|(_, given)| *given)
            .map(|(flag, _)| *flag)
    }

    /// The HTTP server's settings of `--token` (or its environment variable),
    /// `--allow-origin`, `--rate-limit` and `--rate-burst`.
    #[cfg(feature = "http")]
    fn http_config(&self) -> HttpConfig {
        let rate_limit = self.rate_limit.map(|limit| match self.rate_burst {
            Some(burst) => limit.with_burst(burst),
            None => limit,
        });
        HttpConfig {
            token: self.token.clone().or_else(token_from_env),
            allowed_origins: self.allow_origins.clone(),
            rate_limit,
            metrics_path: self.metrics.clone(),
            ..HttpConfig::default()
        }
    }
}

/// `--metrics`' PATH, checked as the router takes it.
#[cfg(feature = "http")]
fn metrics_path(path: &str) -> Result<String, server::MetricsPathError> {
    server::check_metrics_path(path).map(|()| path.to_owned())
}

pub(super) fn run(
    registry: &'static Registry,
    args: ServeArgs,
    app: Option<&super::App>,
    on_serve: impl FnOnce(&Arc<Server>),
) -> u8 {
    #[cfg(not(feature = "oauth"))]
    if args.oauth_issuer.is_some() {
        eprintln!("error: {NO_OAUTH}");
        return USAGE;
    }
    #[cfg(feature = "http")]
    #[allow(unused_mut)]
    let mut http_config = args.http_config();
    #[cfg(feature = "oauth")]
    match args.oauth.config(|name| std::env::var(name).ok()) {
        Ok(oauth) => http_config.oauth = oauth,
        Err(message) => {
            eprintln!("error: {message}");
            return USAGE;
        }
    }
    let ServeArgs {
        http,
        llm_names,
        llm_names_bare,
        portable,
        task_store,
        task_namespace,
        page_size,
        max_in_flight,
        max_in_flight_per_connection,
        dangerous,
        arguments_reading,
        sandbox,
        sandbox_warm,
        state_key_file,
        limits,
        pool,
        ..
    } = args;
    let Some(state_key) = reported(state_key_of(state_key_file)) else {
        return USAGE;
    };
    let running = Running {
        dangerous,
        arguments_reading,
        sandbox,
        sandbox_warm,
        limits,
        pool,
        skills: args.skills,
    };
    let Some(served) = reported(running.served(registry)) else {
        return USAGE;
    };
    let transport = match http {
        None => Transport::Stdio,
        #[cfg(not(feature = "http"))]
        Some(_) => {
            eprintln!("error: {NO_HTTP}");
            return USAGE;
        }
        #[cfg(feature = "http")]
        Some(address) => Transport::Http(address, Box::new(http_config), args.sessions),
    };
    let options = Options {
        task_store: (task_store, task_namespace),
        task_settings: task_settings(args.task_ttl, args.task_lease),
        llm_names,
        llm_names_bare,
        portable,
        page_size,
        in_flight: (max_in_flight.get(), max_in_flight_per_connection.get()),
        state_key,
        app: app.cloned(),
        skills_interval: args.skills_interval,
    };
    serve(served, transport, options, on_serve)
}

/// `served` with the skills of each folder of `--skills`.
fn with_skills(
    served: ServedRegistry,
    folders: &[std::path::PathBuf],
) -> Result<ServedRegistry, crate::registry::RegistryError> {
    if folders.is_empty() {
        return Ok(served);
    }
    let mut registry = Registry::clone(&served);
    for folder in folders {
        registry.serve_skills_dir(folder)?;
    }
    Ok(ServedRegistry::from(registry))
}

/// The value of `result`; its error said on standard error, and `None`.
fn reported<T, E: std::fmt::Display>(result: Result<T, E>) -> Option<T> {
    result.map_err(|err| eprintln!("error: {err}")).ok()
}

/// How `serve` runs the registry's tools: the policy of dangerous tools, how arguments are
/// read, the sandbox, and the layers of the limit and pool flags.
struct Running {
    dangerous: DangerousArgs,
    arguments_reading: ArgumentsArgs,
    sandbox: SandboxArgs,
    sandbox_warm: usize,
    limits: super::limits::LimitArgs,
    pool: super::pool::PoolArgs,
    /// `--skills`.
    skills: Vec<std::path::PathBuf>,
}

impl Running {
    /// `registry` as these flags have it served.
    fn served(self, registry: &'static Registry) -> Result<ServedRegistry, super::CliError> {
        let mut layers = self.limits.layers(registry)?;
        layers.extend(self.pool.layers()?);
        let sandboxing = self.sandbox.sandboxing(registry, self.sandbox_warm)?;
        let served = as_run(
            registry,
            &self.dangerous,
            self.arguments_reading,
            sandboxing,
            layers,
        )?;
        Ok(with_skills(served, &self.skills)?)
    }
}

/// The key that seals the state of multi-round requests: `--state-key-file`'s, or
/// `MCP_STATE_KEY`'s, or `None` for a key made for this process alone.
fn state_key_of(
    state_key_file: Option<std::path::PathBuf>,
) -> Result<Option<StateKey>, crate::talk::StateKeyError> {
    match state_key_file {
        Some(path) => StateKey::from_file(path).map(Some),
        None => StateKey::from_env(STATE_KEY_ENV),
    }
}

/// The settings of tasks: `--task-ttl`, and `--task-lease` of at least 300 ms.
fn task_settings(
    ttl: std::time::Duration,
    lease: std::time::Duration,
) -> crate::tasks::TaskSettings {
    crate::tasks::TaskSettings {
        ttl,
        lease: lease.max(std::time::Duration::from_millis(300)),
        ..crate::tasks::TaskSettings::default()
    }
}

/// How the server serves, besides its transport.
struct Options {
    /// `--task-store` and `--task-namespace`.
    task_store: (String, String),
    /// `--task-ttl` and `--task-lease`.
    task_settings: crate::tasks::TaskSettings,
    llm_names: bool,
    llm_names_bare: Option<String>,
    /// `--portable`.
    portable: bool,
    page_size: usize,
    /// `--max-in-flight` and `--max-in-flight-per-connection`.
    in_flight: (usize, usize),
    state_key: Option<StateKey>,
    /// The name and version `serverInfo` gives, when the application said.
    app: Option<super::App>,
    /// `--skills-interval`.
    skills_interval: std::time::Duration,
}

/// Why `serve --http` fails in a program built without HTTP.
#[cfg(not(feature = "http"))]
const NO_HTTP: &str = "this program was built without HTTP: enable mcp-runtime's `http` \
                       feature (features = [\"http\"] in its Cargo.toml)";

/// Why `serve --oauth-issuer` fails in a program built without OAuth.
#[cfg(not(feature = "oauth"))]
const NO_OAUTH: &str = "this program was built without OAuth: enable mcp-runtime's `oauth` \
                        feature (features = [\"oauth\"] in its Cargo.toml)";

/// The environment variable `serve --http` reads its bearer token from when `--token` is
/// not given.
#[cfg(feature = "http")]
const TOKEN_ENV: &str = "MCP_TOKEN";

/// The token in [`TOKEN_ENV`], if it holds one.
#[cfg(feature = "http")]
fn token_from_env() -> Option<String> {
    std::env::var(TOKEN_ENV)
        .ok()
        .map(|token| token.trim().to_owned())
        .filter(|token| !token.is_empty())
}

/// Why serving on `address` may be unwise: other machines can reach it, and no token is
/// asked for.
#[cfg(feature = "http")]
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
    #[cfg(feature = "http")]
    Http(SocketAddr, Box<HttpConfig>, super::sessions::SessionArgs),
}

fn serve(
    registry: ServedRegistry,
    transport: Transport,
    Options {
        task_store,
        task_settings,
        llm_names,
        llm_names_bare,
        portable,
        page_size,
        in_flight: (max_in_flight, per_connection),
        state_key,
        app,
        skills_interval,
    }: Options,
    on_serve: impl FnOnce(&Arc<Server>),
) -> u8 {
    if registry.is_empty() && !registry.skills().serves() {
        eprintln!("warning: {EMPTY_REGISTRY_HINT}");
    }
    let runtime = match super::runtime() {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("error: {err}");
            return FAILURE;
        }
    };
    let tools = registry.len();
    let mut server = Server::new(registry)
        .with_page_size(page_size)
        .with_max_in_flight(max_in_flight)
        .with_max_in_flight_per_connection(per_connection);
    if portable {
        server = server.with_portable_schemas();
    }
    if let Some(app) = app {
        server = server.with_info(app.name, app.version);
    }
    match runtime.block_on(task_store_of(&task_store.0, &task_store.1)) {
        Ok(Some(store)) => server = server.with_task_store(store, task_settings),
        Ok(None) => {
            let store = Arc::new(crate::tasks::MemoryStore::new());
            server = server.with_task_store(store, task_settings);
        }
        Err(err) => {
            eprintln!("error: --task-store {}: {err}", task_store.0);
            return FAILURE;
        }
    }
    if let Some(key) = state_key {
        server = server.with_state_key(key);
    }
    let server = match (llm_names, llm_names_bare) {
        (false, _) => Ok(server),
        (true, None) => server.with_llm_names(),
        (true, Some(namespace)) => server.with_llm_names_bare(&namespace),
    };
    let server = match server {
        Ok(server) => server,
        Err(err) => {
            eprintln!("error: {err}");
            return FAILURE;
        }
    };
    let server = Arc::new(server);
    // Kept for as long as the server serves.
    let _watches = match server.watch_skills(skills_interval) {
        Ok(watches) => watches,
        Err(err) => {
            eprintln!("error: cannot watch the skills folders: {err}");
            return FAILURE;
        }
    };
    let telemetry = match install_telemetry(&transport) {
        Ok(telemetry) => telemetry,
        Err(err) => {
            eprintln!("error: {err}");
            return FAILURE;
        }
    };
    let exporting = telemetry
        .otlp_endpoint()
        .map(|endpoint| format!("telemetry: spans and metrics exported over OTLP to {endpoint}"));
    on_serve(&server);
    let served = match transport {
        Transport::Stdio => {
            tracing::info!(tools, "serving on standard input and output");
            if let Some(exporting) = exporting {
                tracing::info!("{exporting}");
            }
            runtime.block_on(server::serve_stdio(server))
        }
        #[cfg(feature = "http")]
        Transport::Http(address, mut config, sessions) => {
            config.sessions = match runtime.block_on(sessions.store()) {
                Ok(store) => store,
                Err(err) => {
                    eprintln!("error: {err}");
                    return FAILURE;
                }
            };
            let warning = exposure_warning(address, config.requires_credentials());
            let limit = config.rate_limit;
            runtime.block_on(server::serve_http(server, address, *config, |bound| {
                // The first line, which scripts wait for: then the notes.
                eprintln!("listening on http://{bound}/mcp");
                if let Some(warning) = warning {
                    eprintln!("warning: {warning}");
                }
                if let Some(limit) = limit {
                    eprintln!("rate limit: {limit}, per client");
                }
                if let Some(exporting) = exporting {
                    eprintln!("{exporting}");
                }
            }))
        }
    };
    // The spans and metrics not yet exported go out before the process ends.
    telemetry.shutdown();
    // The runtime is not shut down, so nothing waits on a read of standard input, which
    // blocks a thread that cannot be interrupted: the process ends with what is left.
    match served {
        Ok(()) => 0,
        Err(err) => {
            eprintln!("error: serving failed: {err}");
            FAILURE
        }
    }
}

/// Turns telemetry on as `serve` asks: the metrics kept for `--metrics`, and OTLP export
/// where `OTEL_EXPORTER_OTLP_ENDPOINT` is set (with the `otel` feature).
fn install_telemetry(
    transport: &Transport,
) -> Result<crate::telemetry::Installed, crate::telemetry::TelemetryError> {
    let prometheus = match transport {
        Transport::Stdio => false,
        #[cfg(feature = "http")]
        Transport::Http(_, config, _) => config.metrics_path.is_some(),
    };
    let config = crate::telemetry::Config::new()
        .with_prometheus(prometheus)
        .with_otlp_from_env(true);
    match crate::telemetry::install(&config) {
        // Served before in this process (a test's): what was turned on then stays on.
        Err(crate::telemetry::TelemetryError::AlreadyInstalled) => {
            Ok(crate::telemetry::Installed::default())
        }
        installed => installed,
    }
}

/// The task store `--task-store` names: `None` for `memory`, the default.
async fn task_store_of(
    store: &str,
    namespace: &str,
) -> Result<Option<Arc<dyn crate::tasks::TaskStore>>, CliError> {
    if store == "memory" {
        return Ok(None);
    }
    let redis = ["redis://", "rediss://", "unix://"]
        .iter()
        .any(|scheme| store.starts_with(scheme));
    if !redis {
        return Err(CliError::TaskStoreUrl);
    }
    #[cfg(feature = "redis")]
    {
        let store = crate::tasks::RedisStore::connect_with_namespace(store, namespace).await?;
        Ok(Some(Arc::new(store)))
    }
    #[cfg(not(feature = "redis"))]
    {
        let _ = namespace;
        Err(CliError::NoRedis)
    }
}

#[cfg(test)]
mod tests {
    use super::super::Command;
    use super::super::tests::parse;
    use super::*;

    #[test]
    fn serve_http_binds_loopback_unless_told_otherwise() {
        let Ok(Command::Serve(ServeArgs { http, .. })) = parse(&["serve", "--http"]) else {
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
        let Ok(Command::Serve(ServeArgs {
            rate_limit,
            rate_burst,
            ..
        })) = parse(&[
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
}
