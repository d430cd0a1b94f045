//! [`ConcurrencyLayer`]: at most N calls of the items it wraps run at once, all of them
//! together, as `serve --tool-concurrency 'SELECTOR=N'` asks.
//!
//! tower's own `ConcurrencyLimitLayer` keeps its permits in each service it makes, and the
//! registry makes one per item: N calls of *each* tool. This layer keeps one set of
//! permits in the layer itself, shared by every item's stack it wraps: N calls of the
//! tools its selector picks, whichever they are.
//!
//! A call past the limit waits for a permit, up to its timeout ([`Request::timeout`]: the
//! tool's own, else the registry's default) or the layer's [`max_wait`]
//! (`ConcurrencyLayer::max_wait`), whichever is shorter, and then fails with
//! `ApiLimitExceeded`, naming the limit. A caller that cancels stops waiting.
//!
//! [`max_wait`]: ConcurrencyLayer::max_wait

use std::fmt;
use std::future::Future;
use std::num::NonZeroUsize;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use mcp_runtime_core::{ErrorType, ToolError};
use tower::{Layer, Service};

use crate::base::duration::format_duration;
use crate::base::slots::{Slot, Slots};
use crate::service::{
    Admission, Admit, BoxError, Deciding, Item, Request, Response, Ticket, admit_then_call,
};

/// At most `limit` calls of the items it wraps run at once, all of them together; the
/// others wait for one to end, up to [`ConcurrencyLayer::max_wait`], then fail with
/// `ApiLimitExceeded`.
///
/// ```
/// use std::num::NonZeroUsize;
/// use std::time::Duration;
/// use mcp_runtime::Registry;
/// use mcp_runtime::layers::{BoxLayer, ConcurrencyLayer};
///
/// // Four calls at once of every tool of the `weather` namespace, together.
/// let four = NonZeroUsize::new(4).expect("not zero");
/// let layer = ConcurrencyLayer::new(four).max_wait(Some(Duration::from_secs(10)));
/// let registry = Registry::builder()
///     .inventory()
///     .layer(layer)
///     .build()?;
/// # Ok::<(), mcp_runtime::RegistryError>(())
/// ```
#[derive(Clone)]
pub struct ConcurrencyLayer {
    shared: Arc<Shared>,
}

/// What every service of one layer shares: its permits, and how long a call waits.
struct Shared {
    slots: Arc<Slots>,
    limit: usize,
    max_wait: Option<Duration>,
}

impl ConcurrencyLayer {
    /// At most `limit` calls at once, the others waiting without a bound of their own
    /// until [`max_wait`](Self::max_wait) sets one.
    pub fn new(limit: NonZeroUsize) -> Self {
        let limit = limit.get();
        Self {
            shared: Arc::new(Shared {
                slots: Slots::new(limit),
                limit,
                max_wait: None,
            }),
        }
    }

    /// How long a call waits for one of the others to end before it fails; `None`: until
    /// one ends, or the caller cancels. Set it before the layer wraps anything: the layer
    /// and its services share their permits, and this makes a layer with new ones.
    #[must_use]
    pub fn max_wait(self, max_wait: Option<Duration>) -> Self {
        Self {
            shared: Arc::new(Shared {
                slots: Slots::new(self.shared.limit),
                limit: self.shared.limit,
                max_wait,
            }),
        }
    }

    /// How many calls run at once, at most.
    pub fn limit(&self) -> usize {
        self.shared.limit
    }

    /// The limit as the registry asks it directly.
    pub(crate) fn admit(&self) -> Arc<dyn Admit> {
        Arc::clone(&self.shared) as Arc<dyn Admit>
    }
}

impl fmt::Debug for ConcurrencyLayer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ConcurrencyLayer")
            .field("limit", &self.shared.limit)
            .field("running", &(self.shared.limit - self.shared.slots.free()))
            .field("max_wait", &self.shared.max_wait)
            .finish()
    }
}

impl<S> Layer<S> for ConcurrencyLayer {
    type Service = Concurrency<S>;

    fn layer(&self, inner: S) -> Concurrency<S> {
        Concurrency {
            inner,
            shared: Arc::clone(&self.shared),
        }
    }
}

/// The service of a [`ConcurrencyLayer`] around one item: takes one of the layer's permits
/// before it calls on, and holds it until the call ends.
#[derive(Clone)]
pub struct Concurrency<S> {
    inner: S,
    shared: Arc<Shared>,
}

impl<S: fmt::Debug> fmt::Debug for Concurrency<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Concurrency")
            .field("inner", &self.inner)
            .field("limit", &self.shared.limit)
            .finish_non_exhaustive()
    }
}

impl<S> Service<Request> for Concurrency<S>
where
    S: Service<Request, Response = Response> + Clone + Send + 'static,
    S::Error: Into<BoxError>,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = BoxError;
    type Future = Pin<Box<dyn Future<Output = Result<Response, BoxError>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        admit_then_call(self.shared.clone(), &mut self.inner, request)
    }
}

impl Admit for Shared {
    fn now(&self, _: &Item<'_>) -> Admission {
        match self.slots.try_take() {
            Some(slot) => Admission::Go(Ticket::Slot(slot)),
            None => Admission::Later,
        }
    }

    fn wait<'a>(&'a self, item: Item<'a>) -> Deciding<'a> {
        let wait = match (self.max_wait, item.timeout) {
            (Some(layer), Some(call)) => Some(layer.min(call)),
            (layer, call) => layer.or(call),
        };
        Box::pin(async move {
            self.acquire(item.name, wait, item.cancellation)
                .await
                .map(Ticket::Slot)
        })
    }

    /// Its permits are the layer's, shared by every item it wraps.
    fn item(self: Arc<Self>, _: &Arc<str>) -> Arc<dyn Admit> {
        self
    }
}

impl Shared {
    /// A slot for a call of `name`: at once when one is free; otherwise once a call
    /// ends, up to the layer's wait, or until the caller cancels through `cancellation`.
    async fn acquire(
        &self,
        name: &str,
        max_wait: Option<Duration>,
        cancellation: Option<&tokio_util::sync::CancellationToken>,
    ) -> Result<Slot, ToolError> {
        if let Some(slot) = self.slots.try_take() {
            return Ok(slot);
        }
        let acquire = self.slots.take();
        let waited = async {
            match max_wait {
                Some(wait) => tokio::time::timeout(wait, acquire)
                    .await
                    .map_err(|_| self.overloaded(name, wait)),
                None => Ok(acquire.await),
            }
        };
        match cancellation {
            Some(cancellation) => tokio::select! {
                biased;
                () = cancellation.cancelled() => Err(ToolError::execution(format!(
                    "the call of `{name}` was cancelled while it waited for one of its {} concurrent slots",
                    self.limit
                ))),
                outcome = waited => outcome,
            },
            None => waited.await,
        }
    }

    /// The failure of a call of `name` that waited `wait` in vain.
    fn overloaded(&self, name: &str, wait: Duration) -> ToolError {
        crate::telemetry::refused("concurrency", name);
        ToolError::new(
            ErrorType::ApiLimitExceeded,
            format!(
                "`{name}` waited {} for one of its {} concurrent slots: too many calls at once; try again shortly",
                format_duration(wait),
                self.limit
            ),
        )
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use serde_json::Map;
    use tokio::sync::Notify;
    use tokio_util::sync::CancellationToken;

    use super::*;
    use crate::context::options::CallOptions;
    use crate::layers::BoxLayer;
    use crate::service::{Innermost, Kind, Stack};

    /// Calls that count themselves in and wait until the test lets them end.
    #[derive(Default)]
    struct Held {
        inside: AtomicUsize,
        entered: Notify,
        release: Notify,
    }

    impl Held {
        /// A call of `name` through `stack` that waits to be released, or cancelled by
        /// `cancellation`.
        fn call(
            self: &Arc<Self>,
            stack: &Stack,
            name: &str,
            cancellation: Option<CancellationToken>,
        ) -> tokio::task::JoinHandle<Response> {
            let held = Arc::clone(self);
            let mut options = CallOptions::new();
            if let Some(token) = cancellation {
                options = options.with_cancellation(token);
            }
            let request = Request::new(Kind::Tool, name.into(), Map::new(), options, {
                move |_, _| {
                    Box::pin(async move {
                        held.inside.fetch_add(1, Ordering::SeqCst);
                        held.entered.notify_one();
                        held.release.notified().await;
                        held.inside.fetch_sub(1, Ordering::SeqCst);
                        Response::Tool(mcp_runtime_core::MCPToolResult::success(
                            serde_json::json!({ "done": true }),
                        ))
                    })
                }
            });
            let stack = stack.clone();
            tokio::spawn(async move { crate::service::through(&stack, request).await })
        }

        /// Waits until `n` calls are inside.
        async fn until_inside(&self, n: usize) {
            while self.inside.load(Ordering::SeqCst) < n {
                self.entered.notified().await;
            }
        }
    }

    fn stack(layer: &ConcurrencyLayer) -> Stack {
        BoxLayer::new(layer.clone()).wrap(Stack::new(Innermost))
    }

    fn refusal(response: &Response) -> &mcp_runtime_core::MCPErrorDetail {
        match response {
            Response::Tool(result) => result.error().expect("a failure"),
            other => panic!("{other:?}"),
        }
    }

    fn two() -> NonZeroUsize {
        NonZeroUsize::new(2).expect("not zero")
    }

    #[tokio::test]
    async fn n_calls_run_at_once_and_the_next_fails_after_its_max_wait() {
        let layer = ConcurrencyLayer::new(two()).max_wait(Some(Duration::from_millis(200)));
        let stack = stack(&layer);
        let held = Arc::new(Held::default());
        let first = held.call(&stack, "x.y", None);
        let second = held.call(&stack, "x.y", None);
        held.until_inside(2).await;
        let started = tokio::time::Instant::now();
        let third = held.call(&stack, "x.y", None).await.expect("joined");
        assert!(started.elapsed() >= Duration::from_millis(200));
        let refused = refusal(&third);
        assert_eq!(refused.error_type, ErrorType::ApiLimitExceeded);
        assert_eq!(
            refused.error_message,
            "`x.y` waited 200ms for one of its 2 concurrent slots: too many calls at once; try again shortly"
        );
        assert_eq!(held.inside.load(Ordering::SeqCst), 2);
        held.release.notify_waiters();
        for call in [first, second] {
            assert!(!call.await.expect("joined").is_failure());
        }
        // The slots are free again.
        let fourth = held.call(&stack, "x.y", None);
        held.until_inside(1).await;
        held.release.notify_waiters();
        assert!(!fourth.await.expect("joined").is_failure());
    }

    #[tokio::test]
    async fn a_cancelled_call_stops_waiting() {
        let layer = ConcurrencyLayer::new(NonZeroUsize::MIN);
        let stack = stack(&layer);
        let held = Arc::new(Held::default());
        let first = held.call(&stack, "x.y", None);
        held.until_inside(1).await;
        let token = CancellationToken::new();
        let waiting = held.call(&stack, "x.y", Some(token.clone()));
        tokio::task::yield_now().await;
        token.cancel();
        let refused = waiting.await.expect("joined");
        let message = &refusal(&refused).error_message;
        assert!(message.contains("cancelled while it waited"), "{message}");
        held.release.notify_waiters();
        assert!(!first.await.expect("joined").is_failure());
    }

    #[tokio::test]
    async fn the_items_a_layer_wraps_share_one_limit() {
        let layer =
            ConcurrencyLayer::new(NonZeroUsize::MIN).max_wait(Some(Duration::from_millis(100)));
        // One stack per item, as the registry builds them.
        let (a, b) = (stack(&layer), stack(&layer));
        let held = Arc::new(Held::default());
        let first = held.call(&a, "ns.a", None);
        held.until_inside(1).await;
        let other = held.call(&b, "ns.b", None).await.expect("joined");
        assert!(
            refusal(&other)
                .error_message
                .starts_with("`ns.b` waited 100ms for one of its 1 concurrent slots"),
            "{other:?}"
        );
        held.release.notify_waiters();
        assert!(!first.await.expect("joined").is_failure());
        // tower's own limit keeps permits per item: there, `ns.b` would have run.
        let stock = BoxLayer::new(tower::limit::ConcurrencyLimitLayer::new(1));
        let (a, b) = (
            stock.wrap(Stack::new(Innermost)),
            stock.wrap(Stack::new(Innermost)),
        );
        let first = held.call(&a, "ns.a", None);
        held.until_inside(1).await;
        let second = held.call(&b, "ns.b", None);
        held.until_inside(2).await;
        held.release.notify_waiters();
        for call in [first, second] {
            assert!(!call.await.expect("joined").is_failure());
        }
    }
}
