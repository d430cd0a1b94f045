//! Helpers shared by the workspace-level tests.

#[cfg(doctest)]
mod guide;
pub mod issuer;
pub mod nginx;
pub mod redis;

use std::ffi::OsStr;
use std::io::BufReader;
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use serde_json::{Value, json};

/// The MCP protocol revisions whose official schemas are vendored under `spec/mcp/`.
pub const REVISIONS: [&str; 3] = ["2025-06-18", "2025-11-25", "2026-07-28"];

/// The official MCP JSON Schema of `revision`.
pub fn mcp_schema(revision: &str) -> Value {
    let path = format!(
        "{}/../spec/mcp/{revision}/schema.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text =
        std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("cannot read {path}: {err}"));
    serde_json::from_str(&text).unwrap_or_else(|err| panic!("{path} is not JSON: {err}"))
}

/// A validator for one definition of the MCP schema of `revision` (under `$defs`, or
/// `definitions` in the draft-07 revisions).
pub fn mcp_validator(revision: &str, definition: &str) -> jsonschema::Validator {
    let spec = mcp_schema(revision);
    let key = if spec.get("$defs").is_some() {
        "$defs"
    } else {
        "definitions"
    };
    assert!(
        spec[key][definition].is_object(),
        "MCP {revision} has no {key}/{definition}"
    );
    let schema = json!({
        "$schema": spec["$schema"],
        key: spec[key],
        "$ref": format!("#/{key}/{definition}"),
    });
    jsonschema::validator_for(&schema)
        .unwrap_or_else(|err| panic!("MCP {revision} $defs/{definition} does not compile: {err}"))
}

/// Every error `validator` finds in `instance`, one per line with its instance path.
pub fn schema_errors(validator: &jsonschema::Validator, instance: &Value) -> Vec<String> {
    validator
        .iter_errors(instance)
        .map(|err| format!("{}: {err}", err.instance_path()))
        .collect()
}

/// The lines a process writes on one of its outputs, read as they come by a thread of
/// their own: a test waits for a line (a tool saying it started, or how it stopped)
/// instead of sleeping and hoping.
pub struct Lines {
    receiver: std::sync::mpsc::Receiver<String>,
    /// Lines read but not yet taken by [`Lines::next_with`], in order.
    waiting: std::collections::VecDeque<String>,
    /// Every line read so far.
    read: Vec<String>,
}

impl Lines {
    /// Reads `from` line by line, until it ends.
    pub fn read(mut from: impl std::io::BufRead + Send + 'static) -> Self {
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = Vec::new();
            loop {
                line.clear();
                match from.read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let text = String::from_utf8_lossy(&line);
                        let text = text.trim_end_matches(['\n', '\r']).to_owned();
                        if sender.send(text).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        Self {
            receiver,
            waiting: std::collections::VecDeque::new(),
            read: Vec::new(),
        }
    }

    /// The first line not yet taken that contains `needle`, waiting at most `within` for
    /// it; the lines passed over stay for later calls. Panics when none comes in time,
    /// with every line read so far.
    #[track_caller]
    pub fn next_with(&mut self, needle: &str, within: std::time::Duration) -> String {
        if let Some(at) = self.waiting.iter().position(|line| line.contains(needle)) {
            return self.waiting.remove(at).unwrap_or_default();
        }
        let deadline = std::time::Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self.receiver.recv_timeout(left) {
                Ok(line) => {
                    self.read.push(line.clone());
                    if line.contains(needle) {
                        return line;
                    }
                    self.waiting.push_back(line);
                }
                Err(err) => panic!(
                    "no line with `{needle}` within {within:?} ({err}); the lines so far:\n{}",
                    self.read.join("\n")
                ),
            }
        }
    }

    /// Every line read so far, without waiting for more: what a process that may still run
    /// has said up to now.
    pub fn so_far(&mut self) -> String {
        while let Ok(line) = self.receiver.try_recv() {
            self.read.push(line.clone());
            self.waiting.push_back(line);
        }
        self.read.join("\n")
    }

    /// Every line, once the output has ended (its process has exited and closed it).
    pub fn all(&mut self) -> String {
        self.read.extend(self.receiver.iter());
        self.read.join("\n")
    }
}

/// The binary of the workspace's package `package` (named as the package): the path in the
/// environment variable `variable` when it is set, or else built with `cargo build -p
/// package` into this test's own target directory, with this test's profile.
pub fn workspace_bin(package: &str, variable: &str) -> PathBuf {
    workspace_bin_with(package, variable, &[])
}

/// [`workspace_bin`], built with the package's `features` turned on.
pub fn workspace_bin_with(package: &str, variable: &str, features: &[&str]) -> PathBuf {
    if let Some(path) = std::env::var_os(variable) {
        return PathBuf::from(path);
    }
    // A test runs from target/<profile>/deps/; the binary goes to target/<profile>/.
    let exe = std::env::current_exe().expect("the test's path");
    let profile = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>/deps/");
    let mut build = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    build
        .args(["build", "--quiet", "-p", package, "--target-dir"])
        .arg(profile.parent().expect("target/"))
        .args(["--features", &features.join(",")])
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."));
    // target/debug holds the dev and test profiles; any other directory is its profile.
    match profile.file_name().and_then(|name| name.to_str()) {
        Some("debug") | None => {}
        Some(name) => {
            build.args(["--profile", name]);
        }
    }
    let status = build.status().expect("cargo runs");
    assert!(status.success(), "cargo build -p {package} failed");
    let binary = profile.join(format!("{package}{}", std::env::consts::EXE_SUFFIX));
    assert!(
        binary.is_file(),
        "{} is missing: set {variable} to the {package} binary",
        binary.display()
    );
    binary
}

/// The quickstart binary, every feature on: `QUICKSTART_BIN`, or built next to the running
/// test's own binary, once per test binary.
pub fn quickstart_bin() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| workspace_bin_with("quickstart", "QUICKSTART_BIN", &["full"]))
}

/// How long a server may take to say where it listens.
const STARTUP: Duration = Duration::from_secs(30);

/// A server process serving MCP over streamable HTTP, killed when dropped.
pub struct HttpServer {
    /// The process.
    pub child: Child,
    /// The address it listens on; 127.0.0.1 when it listens on every address.
    pub address: SocketAddr,
    /// Its standard error, read as it comes. The `listening on` line is taken already:
    /// [`Lines::next_with`] finds only the others, [`Lines::so_far`] and [`Lines::all`]
    /// show it too.
    pub stderr: Lines,
}

impl HttpServer {
    /// Runs `binary serve --http 127.0.0.1:0 ARGS` and waits until it listens.
    #[track_caller]
    pub fn spawn(binary: impl AsRef<OsStr>, args: &[&str]) -> Self {
        Self::spawn_on(binary, "127.0.0.1:0", args)
    }

    /// Runs `binary serve --http ADDRESS ARGS` and waits until it listens.
    #[track_caller]
    pub fn spawn_on(binary: impl AsRef<OsStr>, address: &str, args: &[&str]) -> Self {
        let mut command = Command::new(binary);
        command.args(["serve", "--http", address]).args(args);
        Self::start(command)
    }

    /// Starts `command`, with nothing on its standard input and its standard output
    /// ignored, and waits until it says `listening on http://ADDRESS/mcp` on its standard
    /// error. Panics with what it said when it does not within 30 seconds.
    #[track_caller]
    pub fn start(mut command: Command) -> Self {
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|err| panic!("{command:?} does not start: {err}"));
        let stderr = Lines::read(BufReader::new(child.stderr.take().expect("stderr")));
        // Made before the address is known, so that a panic while waiting for it kills the
        // server too.
        let mut server = Self {
            child,
            address: SocketAddr::from(([0, 0, 0, 0], 0)),
            stderr,
        };
        let needle = "listening on http://";
        let line = server.stderr.next_with(needle, STARTUP);
        let (_, url) = line.split_once(needle).expect("the line names the address");
        server.address = url
            .trim_end_matches("/mcp")
            .parse()
            .unwrap_or_else(|err| panic!("no address in `{line}`: {err}"));
        if server.address.ip().is_unspecified() {
            server.address.set_ip(IpAddr::from([127, 0, 0, 1]));
        }
        server
    }

    /// The URL of its MCP endpoint: `http://ADDRESS/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.address)
    }

    /// Kills the server: every line it wrote on standard error.
    pub fn stop(mut self) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.stderr.all()
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Whether `notifications` brings one of `method` within `within`; the others are passed
/// over.
pub async fn hears(
    notifications: &mut tokio::sync::broadcast::Receiver<mcp_runtime::client::Notification>,
    method: &str,
    within: Duration,
) -> bool {
    tokio::time::timeout(within, async {
        loop {
            match notifications.recv().await {
                Ok(notification) if notification.method == method => return true,
                Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(tokio::sync::broadcast::error::RecvError::Closed) => return false,
            }
        }
    })
    .await
    .unwrap_or(false)
}

/// The README's examples, compiled as doc tests so that they stay true. Each is a crate of
/// its own (`standalone_crate`): the guide's doc tests define tools of the same names.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeExample;
