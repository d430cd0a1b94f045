//! redis-server, as the task store's tests run it: Debian's binary, in the foreground,
//! without persistence, from a temporary directory of its own, on a free loopback port.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::nginx::{on_a_free_port, system_binary, temp_dir, wait_until};

/// redis-server: on PATH, or where Debian's package puts it.
pub fn binary() -> PathBuf {
    system_binary("redis-server", &["/usr/bin", "/usr/local/bin"])
}

/// A redis-server of its own; killed, and its directory removed, when dropped.
pub struct Redis {
    /// Where it listens: `redis://127.0.0.1:PORT`.
    pub url: String,
    /// Its port.
    pub port: u16,
    child: Option<Child>,
    dir: PathBuf,
}

impl Redis {
    /// Starts redis-server on a free loopback port and waits until it answers `PING`. A
    /// free port can be taken between looking and binding: it tries again, on another,
    /// twice.
    #[track_caller]
    pub fn start() -> Self {
        on_a_free_port("redis-server", Self::start_on)
    }

    /// Starts redis-server on `port` (one a killed instance had, say) and waits until it
    /// answers `PING`.
    ///
    /// # Errors
    ///
    /// What it logged, when it exits or does not answer within 10 seconds.
    pub fn start_on(port: u16) -> Result<Self, String> {
        let binary = binary();
        let dir = temp_dir("redis");
        let log = dir.join("redis.log");
        let child = Command::new(&binary)
            .args(["--save", "", "--appendonly", "no", "--bind", "127.0.0.1"])
            .arg("--port")
            .arg(port.to_string())
            .arg("--dir")
            .arg(&dir)
            .arg("--logfile")
            .arg(&log)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|err| panic!("{} does not start: {err}", binary.display()));
        let mut redis = Self {
            url: format!("redis://127.0.0.1:{port}"),
            port,
            child: Some(child),
            dir,
        };
        redis.wait_until_answering()?;
        Ok(redis)
    }

    fn wait_until_answering(&mut self) -> Result<(), String> {
        let (port, log) = (self.port, self.dir.join("redis.log"));
        let exited = || {
            let child = self.child.as_mut()?;
            child
                .try_wait()
                .expect("status")
                .map(|status| status.to_string())
        };
        let answers = || pong(port);
        let log = || std::fs::read_to_string(&log).unwrap_or_default();
        wait_until(
            &format!("redis-server on port {port}"),
            exited,
            answers,
            log,
        )
    }

    /// Whether it answers `PING` with `PONG`.
    pub fn ping(&self) -> bool {
        pong(self.port)
    }

    /// Sends one command, on a connection of its own, and returns the first line of the
    /// answer (`+PONG`, `$12`, `:3`), or `None` when the server cannot be reached. Enough
    /// for `PING` and for counting: the task store's own client is what the tests test.
    pub fn command(&self, args: &[&str]) -> Option<String> {
        command_on(self.port, args)
    }

    /// The `INFO` of `section` (`stats`, `commandstats`, ...): its `name:value` lines.
    pub fn info(&self, section: &str) -> Vec<(String, String)> {
        let mut stream =
            TcpStream::connect(("127.0.0.1", self.port)).expect("redis-server is reachable");
        stream
            .write_all(
                format!("*2\r\n$4\r\nINFO\r\n${}\r\n{section}\r\n", section.len()).as_bytes(),
            )
            .expect("INFO is sent");
        stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .expect("a timeout");
        // `$LENGTH\r\n`, then LENGTH bytes and `\r\n`.
        let mut head = Vec::new();
        let mut byte = [0u8; 1];
        while !head.ends_with(b"\r\n") {
            stream.read_exact(&mut byte).expect("the INFO answer");
            head.push(byte[0]);
        }
        let length: usize = std::str::from_utf8(&head[1..head.len() - 2])
            .ok()
            .and_then(|length| length.parse().ok())
            .unwrap_or_else(|| panic!("INFO answered {}", String::from_utf8_lossy(&head)));
        let mut body = vec![0u8; length];
        stream.read_exact(&mut body).expect("the INFO answer");
        String::from_utf8_lossy(&body)
            .lines()
            .filter_map(|line| line.split_once(':'))
            .map(|(name, value)| (name.to_owned(), value.to_owned()))
            .collect()
    }

    /// Kills it at once (SIGKILL), as a crash or a lost host would: its clients' connections
    /// drop. Its directory stays until it is dropped.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// What it logged.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("redis.log")).unwrap_or_default()
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        self.kill();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Whether the redis-server on `port` answers `PING` with `PONG`.
fn pong(port: u16) -> bool {
    command_on(port, &["PING"]).is_some_and(|answer| answer == "+PONG")
}

/// [`Redis::command`] to the redis-server on `port`.
fn command_on(port: u16, args: &[&str]) -> Option<String> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    let mut request = format!("*{}\r\n", args.len());
    for arg in args {
        request.push_str(&format!("${}\r\n{arg}\r\n", arg.len()));
    }
    stream.write_all(request.as_bytes()).ok()?;
    let mut answer = Vec::new();
    let mut byte = [0u8; 1];
    while !answer.ends_with(b"\r\n") {
        if stream.read(&mut byte).ok()? == 0 {
            return None;
        }
        answer.push(byte[0]);
    }
    answer.truncate(answer.len() - 2);
    String::from_utf8(answer).ok()
}
