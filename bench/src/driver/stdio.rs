//! Servers spoken to over standard input and output: one call at a time, a window of calls
//! in flight, start-up, and a burst of calls without waiting.

use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde_json::json;

use super::proto::{self, CallTemplate, Tally};
use super::report::{Answers, ClientRun, Mode, Report, Stopwatch, Summary};
use super::stats;

/// A server process spawned by the driver, killed if it outlives its deadline.
pub(crate) struct ServerProcess {
    child: Arc<Mutex<Child>>,
    pid: u32,
    stdin: Option<BufWriter<ChildStdin>>,
    stdout: BufReader<ChildStdout>,
    line: Vec<u8>,
    next_id: u64,
    _watchdog: mpsc::Sender<()>,
}

impl ServerProcess {
    /// Spawns `command` (program and arguments) with piped standard input and output,
    /// to be killed after `deadline`.
    pub(crate) fn spawn(command: &[String], deadline: Duration) -> io::Result<Self> {
        let (program, args) = command
            .split_first()
            .ok_or_else(|| io::Error::other("no command to run"))?;
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|err| io::Error::new(err.kind(), format!("cannot run `{program}`: {err}")))?;
        let pid = child.id();
        let stdin = child
            .stdin
            .take()
            .map(|s| BufWriter::with_capacity(64 * 1024, s));
        let stdout = child
            .stdout
            .take()
            .map(|s| BufReader::with_capacity(64 * 1024, s))
            .ok_or_else(|| io::Error::other("no standard output"))?;
        let child = Arc::new(Mutex::new(child));
        let (watchdog, cancelled) = mpsc::channel::<()>();
        let watched = Arc::clone(&child);
        std::thread::spawn(move || {
            if cancelled.recv_timeout(deadline) == Err(RecvTimeoutError::Timeout) {
                eprintln!("mcp-bench: the server took longer than {deadline:?}: killing it");
                let _ = lock(&watched).kill();
            }
        });
        Ok(Self {
            child,
            pid,
            stdin,
            stdout,
            line: Vec::with_capacity(1024),
            next_id: 1,
            _watchdog: watchdog,
        })
    }

    /// The server's process id.
    pub(crate) fn pid(&self) -> u32 {
        self.pid
    }

    fn stdin(&mut self) -> io::Result<&mut BufWriter<ChildStdin>> {
        self.stdin
            .as_mut()
            .ok_or_else(|| io::Error::other("standard input already closed"))
    }

    /// Sends one message and its newline (not flushed).
    pub(crate) fn send(&mut self, message: &str) -> io::Result<()> {
        let stdin = self.stdin()?;
        stdin.write_all(message.as_bytes())?;
        stdin.write_all(b"\n")
    }

    /// Flushes what was sent.
    pub(crate) fn flush(&mut self) -> io::Result<()> {
        self.stdin()?.flush()
    }

    /// Reads lines until the answer with id `id`; its success, and the lines read.
    pub(crate) fn await_answer(&mut self, id: u64) -> io::Result<bool> {
        loop {
            self.line.clear();
            if self.stdout.read_until(b'\n', &mut self.line)? == 0 {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    format!("the server closed its output before answering request {id}"),
                ));
            }
            if let Some((answered, success)) = proto::answer_id(&self.line) {
                if answered == id {
                    return Ok(success);
                }
            }
        }
    }

    /// `initialize`, its answer, then `notifications/initialized`.
    pub(crate) fn handshake(&mut self) -> io::Result<()> {
        let id = self.take_ids(1);
        self.send(&proto::initialize(id))?;
        self.flush()?;
        if !self.await_answer(id)? {
            return Err(io::Error::other(format!(
                "initialize failed: {}",
                String::from_utf8_lossy(&self.line).trim_end()
            )));
        }
        self.send(proto::INITIALIZED)?;
        self.flush()
    }

    /// Reserves `n` request ids; the first.
    pub(crate) fn take_ids(&mut self, n: u64) -> u64 {
        let first = self.next_id;
        self.next_id += n;
        first
    }

    /// `n` calls, one at a time: each sent, flushed and answered before the next; the
    /// latency of each in nanoseconds, and the tally.
    pub(crate) fn calls_one_at_a_time(
        &mut self,
        template: &CallTemplate,
        n: u64,
    ) -> io::Result<(Vec<u64>, Tally)> {
        let first = self.take_ids(n);
        let mut tally = Tally::new(first, n);
        let mut latencies = Vec::with_capacity(usize::try_from(n).unwrap_or(0));
        let mut request = Vec::with_capacity(256);
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| io::Error::other("standard input already closed"))?;
        for id in first..first + n {
            request.clear();
            template.push(id, &mut request);
            let start = Instant::now();
            stdin.write_all(&request)?;
            stdin.flush()?;
            self.line.clear();
            let read = self.stdout.read_until(b'\n', &mut self.line)?;
            let elapsed = start.elapsed();
            if read == 0 {
                break;
            }
            latencies.push(u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX));
            tally.count(&self.line);
        }
        Ok((latencies, tally))
    }

    /// `n` calls with at most `window` in flight: one thread writes, flushing whenever
    /// the window is full, while this one reads and checks the answers.
    pub(crate) fn calls_pipelined(
        &mut self,
        template: &CallTemplate,
        n: u64,
        window: u64,
    ) -> io::Result<Tally> {
        let first = self.take_ids(n);
        let mut tally = Tally::new(first, n);
        let shared = Window::default();
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| io::Error::other("standard input already closed"))?;
        let stdout = &mut self.stdout;
        let line = &mut self.line;
        let written = std::thread::scope(|scope| {
            let writer = scope.spawn(|| write_calls(stdin, template, first, n, window, &shared));
            let read = read_answers(stdout, line, n, &mut tally, &shared);
            shared.finish();
            let written = writer
                .join()
                .unwrap_or_else(|_| Err(io::Error::other("writer panicked")));
            read.and(written)
        });
        written.map(|()| tally)
    }

    /// Closes standard input and waits (up to `grace`) for the server to exit; it is
    /// killed after that.
    pub(crate) fn close(mut self, grace: Duration) -> io::Result<()> {
        if let Some(mut stdin) = self.stdin.take() {
            let _ = stdin.flush();
        }
        let deadline = Instant::now() + grace;
        loop {
            if lock(&self.child).try_wait()?.is_some() {
                return Ok(());
            }
            if Instant::now() >= deadline {
                let _ = lock(&self.child).kill();
                let _ = lock(&self.child).wait();
                return Err(io::Error::other(format!(
                    "the server did not exit within {grace:?} of its input closing"
                )));
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        let mut child = lock(&self.child);
        if matches!(child.try_wait(), Ok(None)) {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// How the writer knows the reader has made room.
#[derive(Default)]
struct Window {
    answered: AtomicU64,
    reader_done: AtomicBool,
    lock: Mutex<()>,
    room: Condvar,
}

impl Window {
    fn publish(&self, answered: u64) {
        self.answered.store(answered, Ordering::Release);
        let _guard = lock(&self.lock);
        self.room.notify_one();
    }

    fn finish(&self) {
        self.reader_done.store(true, Ordering::Release);
        let _guard = lock(&self.lock);
        self.room.notify_one();
    }
}

fn write_calls(
    stdin: &mut BufWriter<ChildStdin>,
    template: &CallTemplate,
    first: u64,
    n: u64,
    window: u64,
    shared: &Window,
) -> io::Result<()> {
    let mut batch = Vec::with_capacity(64 * 1024);
    let mut sent = 0;
    while sent < n {
        let answered = shared.answered.load(Ordering::Acquire);
        let room = answered
            .saturating_add(window)
            .saturating_sub(sent)
            .min(n - sent);
        if room == 0 {
            let mut guard = lock(&shared.lock);
            while shared
                .answered
                .load(Ordering::Acquire)
                .saturating_add(window)
                <= sent
                && !shared.reader_done.load(Ordering::Acquire)
            {
                guard = shared
                    .room
                    .wait(guard)
                    .unwrap_or_else(PoisonError::into_inner);
            }
            drop(guard);
            if shared.reader_done.load(Ordering::Acquire) {
                break;
            }
            continue;
        }
        // One batch: the room there is, formatted, written and flushed at once.
        let mut left = room;
        while left > 0 {
            batch.clear();
            while left > 0 && batch.len() < 60 * 1024 {
                template.push(first + sent, &mut batch);
                sent += 1;
                left -= 1;
            }
            stdin.write_all(&batch)?;
        }
        stdin.flush()?;
    }
    Ok(())
}

fn read_answers(
    stdout: &mut BufReader<ChildStdout>,
    line: &mut Vec<u8>,
    n: u64,
    tally: &mut Tally,
    shared: &Window,
) -> io::Result<()> {
    while tally.answers < n {
        line.clear();
        if stdout.read_until(b'\n', line)? == 0 {
            break;
        }
        tally.count(line);
        if stdout.buffer().is_empty() {
            shared.publish(tally.answers);
        } else {
            shared.answered.store(tally.answers, Ordering::Release);
        }
    }
    Ok(())
}

/// The options of a run over stdio.
#[derive(Debug, Clone)]
pub(crate) struct StdioOptions {
    /// Calls measured.
    pub(crate) n: u64,
    /// Calls before measuring.
    pub(crate) warmup: u64,
    /// Calls in flight at once.
    pub(crate) window: u64,
    /// The tool called.
    pub(crate) tool: String,
    /// Killed after this long.
    pub(crate) deadline: Duration,
}

/// Handshake, warm-up, then `n` calls, one at a time or `window` in flight.
pub(crate) fn run(command: &[String], options: &StdioOptions) -> io::Result<Summary> {
    let mut server = ServerProcess::spawn(command, options.deadline)?;
    server.handshake()?;
    let template = CallTemplate::new(&options.tool);
    let window = options.window.max(1);
    let warmup = if window == 1 {
        server.calls_one_at_a_time(&template, options.warmup)?.1
    } else {
        server.calls_pipelined(&template, options.warmup, window)?
    };
    if warmup.ok != options.warmup {
        return Err(io::Error::other(format!(
            "warm-up: {} of {} calls answered right, {} errors",
            warmup.ok, options.warmup, warmup.errors
        )));
    }
    let watch = Stopwatch::start(Some(server.pid()));
    let (latencies, tally) = if window == 1 {
        server.calls_one_at_a_time(&template, options.n)?
    } else {
        (
            Vec::new(),
            server.calls_pipelined(&template, options.n, window)?,
        )
    };
    let timed = watch.stop(options.n);
    let _ = server.close(Duration::from_secs(5));
    let run = ClientRun {
        latencies,
        answers: Answers::from(&tally),
    };
    Ok(Summary::new(Mode::Stdio { window }, options.n, timed, run))
}

/// What `startup` measured.
#[derive(Debug, Clone)]
pub(crate) struct StartupReport {
    pub(crate) runs: usize,
    pub(crate) list: bool,
    /// Spawn to the answer, per run, in milliseconds.
    pub(crate) answer_ms: Vec<f64>,
    /// Input closed to exit, per run, in milliseconds.
    pub(crate) exit_ms: Vec<f64>,
    pub(crate) failures: usize,
}

impl StartupReport {
    pub(crate) fn median_ms(&self) -> f64 {
        stats::median(&self.answer_ms)
    }

    pub(crate) fn p90_ms(&self) -> f64 {
        stats::quantile(&self.answer_ms, 0.9)
    }
}

impl Report for StartupReport {
    fn line(&self) -> String {
        format!(
            "startup answer={} runs={} median={:.2}ms p90={:.2}ms exit_median={:.2}ms errors={}",
            if self.list {
                "tools/list"
            } else {
                "initialize"
            },
            self.runs,
            self.median_ms(),
            self.p90_ms(),
            stats::median(&self.exit_ms),
            self.failures,
        )
    }

    fn json(&self) -> serde_json::Value {
        json!({
            "mode": "startup",
            "answer": if self.list { "tools/list" } else { "initialize" },
            "runs": self.runs,
            "median_ms": stats::json_number(Some(self.median_ms())),
            "p90_ms": stats::json_number(Some(self.p90_ms())),
            "exit_median_ms": stats::json_number(Some(stats::median(&self.exit_ms))),
            "errors": self.failures,
        })
    }

    fn wrong(&self) -> u64 {
        self.failures as u64
    }
}

/// `runs` times: spawn, `initialize` (and, with `list`, `tools/list` right after it), the
/// time to the answer, then input closed and the exit awaited.
pub(crate) fn startup(command: &[String], runs: usize, list: bool) -> io::Result<StartupReport> {
    let mut report = StartupReport {
        runs,
        list,
        answer_ms: Vec::with_capacity(runs),
        exit_ms: Vec::with_capacity(runs),
        failures: 0,
    };
    for _ in 0..runs {
        let start = Instant::now();
        let mut server = ServerProcess::spawn(command, Duration::from_secs(60))?;
        let init = server.take_ids(1);
        server.send(&proto::initialize(init))?;
        let awaited = if list {
            let id = server.take_ids(1);
            server.send(proto::INITIALIZED)?;
            server.send(&proto::tools_list(id))?;
            id
        } else {
            init
        };
        server.flush()?;
        let success = server.await_answer(awaited)?;
        report.answer_ms.push(start.elapsed().as_secs_f64() * 1e3);
        let closing = Instant::now();
        let closed = server.close(Duration::from_secs(10));
        report.exit_ms.push(closing.elapsed().as_secs_f64() * 1e3);
        if !success || closed.is_err() {
            report.failures += 1;
        }
    }
    Ok(report)
}

/// What `inflight` measured.
#[derive(Debug, Clone)]
pub(crate) struct InflightReport {
    pub(crate) n: u64,
    pub(crate) elapsed: Duration,
    pub(crate) answered: u64,
    pub(crate) errors: u64,
    pub(crate) lost: u64,
    pub(crate) rss_before_kib: Option<u64>,
    pub(crate) peak_kib: Option<u64>,
    pub(crate) rss_after_kib: Option<u64>,
}

impl Report for InflightReport {
    fn line(&self) -> String {
        let kib = |value: Option<u64>| value.map_or_else(|| "-".to_owned(), |v| format!("{v}KiB"));
        format!(
            "inflight n={} calls/s={:.0} answered={} errors={} lost={} rss_before={} peak_rss={} rss_after={}",
            self.n,
            stats::rate(self.answered, self.elapsed),
            self.answered,
            self.errors,
            self.lost,
            kib(self.rss_before_kib),
            kib(self.peak_kib),
            kib(self.rss_after_kib),
        )
    }

    fn json(&self) -> serde_json::Value {
        json!({
            "mode": "inflight",
            "n": self.n,
            "elapsed_s": stats::json_number(Some(self.elapsed.as_secs_f64())),
            "calls_per_s": stats::json_number(Some(stats::rate(self.answered, self.elapsed))),
            "answered": self.answered,
            "errors": self.errors,
            "lost": self.lost,
            "rss_before_kib": self.rss_before_kib,
            "peak_rss_kib": self.peak_kib,
            "rss_after_kib": self.rss_after_kib,
        })
    }

    fn wrong(&self) -> u64 {
        self.errors + self.lost
    }
}

/// Handshake, then `n` calls written without waiting while another thread reads the
/// answers; the server's resident memory before, and its peak after.
pub(crate) fn inflight(
    command: &[String],
    n: u64,
    deadline: Duration,
) -> io::Result<InflightReport> {
    let mut server = ServerProcess::spawn(command, deadline)?;
    server.handshake()?;
    let rss_before_kib = stats::proc_status_kib(server.pid(), "VmRSS");
    let template = CallTemplate::new(proto::DEFAULT_TOOL);
    let start = Instant::now();
    let tally = server.calls_pipelined(&template, n, u64::MAX)?;
    let elapsed = start.elapsed();
    let peak_kib = stats::proc_status_kib(server.pid(), "VmHWM");
    let rss_after_kib = stats::proc_status_kib(server.pid(), "VmRSS");
    let _ = server.close(Duration::from_secs(5));
    Ok(InflightReport {
        n,
        elapsed,
        answered: tally.ok,
        errors: tally.errors,
        lost: tally.lost(),
        rss_before_kib,
        peak_kib,
        rss_after_kib,
    })
}
