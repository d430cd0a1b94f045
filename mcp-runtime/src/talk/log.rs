//! `tracing` events of a running tool sent to the client as log messages, for applications
//! that opt in by adding [`ClientLogLayer`] to their subscriber.
//!
//! While a tool runs for a client that asked for log messages, the call's log sink is this
//! thread's current one: around an inline or blocking tool's body, and around each poll of
//! an async tool's future. An event the layer sees then goes to that sink. Work the tool
//! hands to a task of its own (`tokio::spawn`) runs outside the call and is not sent.

use std::cell::{Cell, RefCell};
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use mcp_runtime_core::{LogMessage, LoggingLevel};
use serde_json::{Map, Value};
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::layer;

/// Where a call's log messages go, e.g. a transport sending them to the client as
/// `notifications/message`.
pub type LogSink = std::sync::Arc<dyn Fn(LogMessage) + Send + Sync>;

/// The log sink of the call this thread is running, with its least level.
type Current = Option<(LoggingLevel, LogSink)>;

thread_local! {
    static CURRENT: RefCell<Current> = const { RefCell::new(None) };
    /// Set while an event is being sent, so that an event the sink itself emits is not.
    static SENDING: Cell<bool> = const { Cell::new(false) };
}

/// Runs `body` with `log` as this thread's current sink, restoring the one before after.
pub(crate) fn scoped<R>(log: Option<&(LoggingLevel, LogSink)>, body: impl FnOnce() -> R) -> R {
    let Some(log) = log else {
        return body();
    };
    let previous = CURRENT.with(|current| current.replace(Some(log.clone())));
    // Restored even when `body` panics.
    struct Restore(Current);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            CURRENT.with(|current| *current.borrow_mut() = previous);
        }
    }
    let _restore = Restore(previous);
    body()
}

/// A tool's future, polled with the call's sink as this thread's current one.
pub(crate) struct Scoped<F: ?Sized> {
    inner: Pin<Box<F>>,
    log: (LoggingLevel, LogSink),
}

impl<F: Future + ?Sized> Scoped<F> {
    pub(crate) fn new(inner: Pin<Box<F>>, log: (LoggingLevel, LogSink)) -> Self {
        Self { inner, log }
    }
}

impl<F: Future + ?Sized> Future for Scoped<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = &mut *self;
        let log = this.log.clone();
        scoped(Some(&log), || this.inner.as_mut().poll(cx))
    }
}

/// A [`tracing_subscriber::Layer`] that sends the `tracing` events of a running tool to
/// the client as log messages, when the client asked for log messages at the event's level
/// or below. The event's target is the message's `logger`; its message and fields are the
/// `data` (the message alone, as a string, when it has no other field). Levels map
/// `ERROR` → error, `WARN` → warning, `INFO` → info, `DEBUG` and `TRACE` → debug.
///
/// The subscriber's own filters apply first: an event they leave out never reaches it.
///
/// ```
/// use tracing_subscriber::layer::SubscriberExt;
///
/// let subscriber = tracing_subscriber::registry().with(mcp_runtime::talk::ClientLogLayer::new());
/// let _ = tracing::subscriber::set_global_default(subscriber);
/// ```
#[derive(Debug, Default, Clone, Copy)]
pub struct ClientLogLayer {
    _private: (),
}

impl ClientLogLayer {
    /// The layer.
    pub fn new() -> Self {
        Self::default()
    }
}

impl<S: Subscriber> tracing_subscriber::Layer<S> for ClientLogLayer {
    fn on_event(&self, event: &Event<'_>, _: layer::Context<'_, S>) {
        let Some((least, sink)) = CURRENT.with(|current| current.borrow().clone()) else {
            return;
        };
        let level = match *event.metadata().level() {
            Level::ERROR => LoggingLevel::Error,
            Level::WARN => LoggingLevel::Warning,
            Level::INFO => LoggingLevel::Info,
            _ => LoggingLevel::Debug,
        };
        if level < least || SENDING.with(Cell::get) {
            return;
        }
        let mut fields = Fields(Map::new());
        event.record(&mut fields);
        let mut fields = fields.0;
        let data = match (fields.len(), fields.remove("message")) {
            (1, Some(message)) => message,
            (_, Some(message)) => {
                let mut data = Map::with_capacity(fields.len() + 1);
                data.insert("message".to_owned(), message);
                data.extend(fields);
                Value::Object(data)
            }
            (_, None) => Value::Object(fields),
        };
        SENDING.with(|sending| sending.set(true));
        sink(LogMessage {
            level,
            logger: Some(event.metadata().target().to_owned()),
            data,
        });
        SENDING.with(|sending| sending.set(false));
    }
}

/// An event's fields as JSON.
struct Fields(Map<String, Value>);

impl Visit for Fields {
    fn record_f64(&mut self, field: &Field, value: f64) {
        self.0.insert(field.name().to_owned(), Value::from(value));
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.0.insert(field.name().to_owned(), Value::from(value));
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.0.insert(field.name().to_owned(), Value::from(value));
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.0.insert(field.name().to_owned(), Value::from(value));
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), Value::from(value));
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.0
            .insert(field.name().to_owned(), Value::from(format!("{value:?}")));
    }
}
