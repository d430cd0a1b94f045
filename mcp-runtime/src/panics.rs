//! A tool's panic stays inside the server. A panic's message is a bug report, and it can
//! hold the call's argument values, which no error may echo: the client gets "the tool
//! failed unexpectedly" and an incident id, and the server's log gets the message, the
//! place and the same id. [`Registry::builder`](crate::Registry::builder)'s
//! `expose_panics(true)` (`--expose-panics` on the command line) sends the message to the
//! client too, for development.
//!
//! The place of a panic is known only to the panic hook. Put in place when a registry is
//! built, a hook that wraps the one before keeps, while a tool runs on the thread, the
//! place instead of printing the panic; the report then logs it. Outside a tool, the hook
//! before runs as it did. (A hook set after it replaces it: panics are still caught and
//! kept from the client, only their place is unknown and the other hook prints them.)

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::future::Future;
use std::hash::{BuildHasher, RandomState};
use std::panic::{self, AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::Once;
use std::task::{Context, Poll};

use mcp_runtime_core::ToolError;

/// The `tracing` target of the event that logs a tool's panic.
pub const PANIC_TARGET: &str = "mcp_runtime::panic";

thread_local! {
    /// How many tools' runs on this thread catch their panics (a tool may call another).
    static RUNNING: Cell<usize> = const { Cell::new(0) };
    /// Where the last panic of a running tool on this thread happened.
    static PLACE: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Puts the hook in place, once: when a registry is built, before any of its tools runs.
pub(crate) fn install() {
    static INSTALLED: Once = Once::new();
    INSTALLED.call_once(|| {
        let before = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if RUNNING.with(Cell::get) > 0 {
                let place = info.location().map(ToString::to_string);
                PLACE.with(|kept| *kept.borrow_mut() = place);
            } else {
                before(info);
            }
        }));
    });
}

/// A tool's run on this thread, for as long as it lives (its unwinding included).
struct Running;

impl Running {
    #[inline]
    fn start() -> Self {
        RUNNING.with(|running| running.set(running.get() + 1));
        Self
    }
}

impl Drop for Running {
    #[inline]
    fn drop(&mut self) {
        RUNNING.with(|running| running.set(running.get() - 1));
    }
}

/// Runs `f`, a tool's work, catching its panic. Inlined: a call of its own would copy the
/// tool's captures in and its outcome out, on every call.
#[inline(always)]
pub(crate) fn caught<T>(f: impl FnOnce() -> T) -> std::thread::Result<T> {
    let _running = Running::start();
    catch_unwind(AssertUnwindSafe(f))
}

/// A tool's future, each poll of it a run whose panic's place is kept.
pub(crate) struct Caught<F>(pub(crate) F);

impl<F: Future + Unpin> Future for Caught<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let _running = Running::start();
        Pin::new(&mut self.0).poll(cx)
    }
}

/// The error of `what` (``tool `a.b` ``, a resource, a prompt) that panicked with
/// `payload`, logged under [`PANIC_TARGET`] (or on standard error, where no subscriber
/// takes it) with its message, its place and an incident id; the client's error has the
/// id, and the message only if `expose`.
pub(crate) fn report(what: &str, payload: &(dyn Any + Send), expose: bool) -> ToolError {
    let message = payload
        .downcast_ref::<&str>()
        .map(|message| (*message).to_owned())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic with a non-string payload".to_owned());
    let place = PLACE
        .with(|kept| kept.borrow_mut().take())
        .unwrap_or_else(|| "an unknown place".to_owned());
    let incident = format!("{:016x}", RandomState::new().hash_one(&message));
    if tracing::enabled!(target: PANIC_TARGET, tracing::Level::ERROR) {
        tracing::error!(
            target: PANIC_TARGET,
            what,
            incident = %incident,
            place = %place,
            message = %message,
            "a tool panicked",
        );
    } else {
        eprintln!("error: {what} panicked at {place}: {message} (incident {incident})");
    }
    ToolError::execution(if expose {
        format!("{what} panicked: {message} (incident {incident})")
    } else {
        format!("{what} failed unexpectedly (incident {incident}); the server's log has the cause")
    })
}
