//! nginx, as the tests that put servers behind it run it: Debian's binary, in the
//! foreground, from a temporary directory of its own, on a free loopback port.

use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

/// nginx: on PATH, or where Debian's package puts it.
pub fn binary() -> PathBuf {
    system_binary("nginx", &["/usr/sbin", "/usr/local/sbin"])
}

/// What `start` starts on a free loopback port. A free port can be taken between looking
/// and binding: it tries again, on another, twice; then panics with what each attempt said.
#[track_caller]
pub fn on_a_free_port<T>(what: &str, mut start: impl FnMut(u16) -> Result<T, String>) -> T {
    let mut attempts = Vec::new();
    for _ in 0..3 {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|listener| listener.local_addr())
            .expect("a free port")
            .port();
        match start(port) {
            Ok(started) => return started,
            Err(failure) => attempts.push(failure),
        }
    }
    panic!("{what} did not start:\n{}", attempts.join("\n\n"));
}

/// The program `name` of a Debian package: on PATH, or in one of `dirs`. Panics, saying
/// that `scripts/test.sh` installs it, when it is nowhere: a test that needs it fails
/// rather than skips.
pub fn system_binary(name: &str, dirs: &[&str]) -> PathBuf {
    let on_path = std::env::var_os("PATH")
        .map(|path| std::env::split_paths(&path).collect::<Vec<_>>())
        .unwrap_or_default();
    on_path
        .into_iter()
        .chain(dirs.iter().map(PathBuf::from))
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file())
        .unwrap_or_else(|| {
            panic!(
                "{name} is not installed (looked on PATH and in {}): scripts/test.sh installs it, \
                 or run `apt-get install {name}`",
                dirs.join(", ")
            )
        })
}

/// Waits up to 10 seconds until `ready`. `exited` says, when the process ended, how; then,
/// or when time is up, the error says so with `log()`.
///
/// # Errors
///
/// What went wrong, with the process's log.
pub fn wait_until(
    what: &str,
    mut exited: impl FnMut() -> Option<String>,
    mut ready: impl FnMut() -> bool,
    log: impl Fn() -> String,
) -> Result<(), String> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(status) = exited() {
            return Err(format!("{what} exited ({status}):\n{}", log()));
        }
        if ready() {
            return Ok(());
        }
        if Instant::now() > deadline {
            return Err(format!("{what} is not ready after 10 s:\n{}", log()));
        }
        thread::sleep(Duration::from_millis(20));
    }
}

/// nginx in the foreground, with everything it writes in a temporary directory; stopped,
/// and the directory removed, when dropped.
pub struct Nginx {
    binary: PathBuf,
    child: Child,
    prefix: PathBuf,
    conf: PathBuf,
    /// Where it listens: `127.0.0.1:PORT`.
    pub address: String,
}

impl Nginx {
    /// Starts nginx with the configuration `config` gives for the address it is to listen
    /// on, and waits until it listens. A free port can be taken between looking and
    /// binding: it tries again, on another, twice.
    #[track_caller]
    pub fn start(config: impl Fn(&str) -> String) -> Self {
        let binary = binary();
        on_a_free_port("nginx", |port| {
            let address = format!("127.0.0.1:{port}");
            let prefix = temp_dir("nginx");
            let conf = prefix.join("nginx.conf");
            std::fs::write(&conf, config(&address)).expect("the config is written");
            let child = Command::new(&binary)
                .arg("-p")
                .arg(&prefix)
                .arg("-c")
                .arg(&conf)
                // The error log before the config is read; stderr by Debian's default.
                .arg("-e")
                .arg(prefix.join("error.log"))
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap_or_else(|err| panic!("{} does not start: {err}", binary.display()));
            let mut nginx = Self {
                binary: binary.clone(),
                child,
                prefix,
                conf,
                address,
            };
            nginx.wait_until_listening().map(|()| nginx)
        })
    }

    fn wait_until_listening(&mut self) -> Result<(), String> {
        let error_log = self.prefix.join("error.log");
        let (child, address) = (&mut self.child, &self.address);
        let exited = || {
            child
                .try_wait()
                .expect("status")
                .map(|status| status.to_string())
        };
        let listening = || TcpStream::connect(address).is_ok();
        let log = || std::fs::read_to_string(&error_log).unwrap_or_default();
        wait_until(&format!("nginx on {address}"), exited, listening, log)
    }

    /// What it wrote to its error log.
    pub fn error_log(&self) -> String {
        std::fs::read_to_string(self.prefix.join("error.log")).unwrap_or_default()
    }

    /// The access log, once it has `count` lines (nginx writes a line after answering).
    pub fn log_lines(&self, count: usize) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let log = std::fs::read_to_string(self.prefix.join("access.log")).unwrap_or_default();
            let lines: Vec<String> = log.lines().map(str::to_owned).collect();
            if lines.len() >= count || Instant::now() > deadline {
                assert_eq!(lines.len(), count, "access.log:\n{log}");
                return lines;
            }
            thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        // The master stops its worker on `-s stop` (SIGTERM); a SIGKILL would orphan it.
        let _ = Command::new(&self.binary)
            .arg("-p")
            .arg(&self.prefix)
            .arg("-c")
            .arg(&self.conf)
            .arg("-e")
            .arg(self.prefix.join("error.log"))
            .args(["-s", "stop"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let deadline = Instant::now() + Duration::from_secs(5);
        while matches!(self.child.try_wait(), Ok(None)) && Instant::now() < deadline {
            thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.prefix);
    }
}

/// A new, empty directory under the system's temporary directory, its name starting with
/// `label`.
pub fn temp_dir(label: &str) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.subsec_nanos());
    let dir = std::env::temp_dir().join(format!(
        "mcp-{label}-{}-{nanos}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir(&dir).unwrap_or_else(|err| panic!("{}: {err}", dir.display()));
    dir
}

/// `examples/http/nginx.conf`, the documented configuration, listening on `address` and
/// passing to `first` and `second`.
pub fn example(address: &str, first: &str, second: &str) -> String {
    let example =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/http/nginx.conf");
    let template = std::fs::read_to_string(&example)
        .unwrap_or_else(|err| panic!("{}: {err}", example.display()));
    // The addresses appear in the comment at the top too: change them below it.
    let (comment, body) = template.split_at(template.find("\ndaemon").expect("daemon"));
    let mut body = body.to_owned();
    for (from, to) in [
        ("127.0.0.1:8081", first),
        ("127.0.0.1:8082", second),
        ("127.0.0.1:8080", address),
    ] {
        assert_eq!(
            body.matches(from).count(),
            1,
            "{} names {from} once in its config",
            example.display()
        );
        body = body.replace(from, to);
    }
    format!("{comment}{body}")
}
