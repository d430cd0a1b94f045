//! A rate limit per caller and per tool: [`RateLimitLayer`], GCRA over a [`Quota`].
//!
//! Each caller ([`Caller`]: the OAuth subject, else the session, else
//! the client's address, else the stdio connection) gets the quota for each item the
//! layer wraps. Past it, a call fails with `ApiLimitExceeded`, naming the limit and when
//! to retry, `retry_after_ms` in the error's details. The state lives in the layer's
//! [`LimitStore`]: this process (the `governor` crate), or a Redis every replica shares.

use std::fmt;
use std::future::Future;
use std::num::NonZeroU32;
use std::pin::Pin;
use std::str::FromStr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use governor::RateLimiter;
use governor::clock::{Clock, DefaultClock};
use governor::middleware::NoOpMiddleware;
use governor::state::keyed::DashMapStateStore;
use mcp_runtime_core::{ErrorType, ToolError};
use tower::{Layer, Service};

use super::store::{LimitStore, LimitStoreError, OnFailure, Verdict};
use crate::auth::Caller;
use crate::service::{
    Admission, Admit, BoxError, Deciding, Item, Request, Response, Ticket, admit_then_call,
};

/// The period of a [`Quota`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Period {
    /// A second: `s`.
    Second,
    /// A minute: `min`.
    Minute,
    /// An hour: `h`.
    Hour,
}

impl Period {
    /// How long it lasts.
    pub fn duration(self) -> Duration {
        Duration::from_secs(match self {
            Self::Second => 1,
            Self::Minute => 60,
            Self::Hour => 3600,
        })
    }

    /// Its name in a sentence: `second`, `minute`, `hour`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Second => "second",
            Self::Minute => "minute",
            Self::Hour => "hour",
        }
    }

    /// How a limit writes it: `s`, `min`, `h`.
    pub fn unit(self) -> &'static str {
        match self {
            Self::Second => "s",
            Self::Minute => "min",
            Self::Hour => "h",
        }
    }
}

/// How many calls a caller may make per period: `5/min`. The calls may come at once (a
/// burst of N); after that, one each period / N.
///
/// ```
/// use mcp_runtime::layers::{Period, Quota};
///
/// let quota: Quota = "5/min".parse()?;
/// assert_eq!(quota, Quota::new(5.try_into()?, Period::Minute));
/// assert_eq!(quota.to_string(), "5/min");
/// assert!("3/fortnight".parse::<Quota>().is_err());
/// assert!("0/min".parse::<Quota>().is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Quota {
    calls: NonZeroU32,
    period: Period,
}

/// A limit not written `N/PERIOD`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{0}` is not a rate limit: write N/PERIOD, N a whole number above 0 and PERIOD `s`, `min` or `h` (e.g. `5/min`)"
)]
pub struct QuotaError(pub String);

impl Quota {
    /// `calls` calls per `period`.
    pub fn new(calls: NonZeroU32, period: Period) -> Self {
        Self { calls, period }
    }

    /// `calls` calls a second.
    pub fn per_second(calls: NonZeroU32) -> Self {
        Self::new(calls, Period::Second)
    }

    /// `calls` calls a minute.
    pub fn per_minute(calls: NonZeroU32) -> Self {
        Self::new(calls, Period::Minute)
    }

    /// `calls` calls an hour.
    pub fn per_hour(calls: NonZeroU32) -> Self {
        Self::new(calls, Period::Hour)
    }

    /// How many calls per period.
    pub fn calls(&self) -> NonZeroU32 {
        self.calls
    }

    /// The period.
    pub fn period(&self) -> Period {
        self.period
    }

    /// The time between two calls once the burst is spent.
    fn interval(&self) -> Duration {
        self.period.duration() / self.calls.get()
    }

    fn governor(&self) -> governor::Quota {
        match self.period {
            Period::Second => governor::Quota::per_second(self.calls),
            Period::Minute => governor::Quota::per_minute(self.calls),
            Period::Hour => governor::Quota::per_hour(self.calls),
        }
    }
}

impl FromStr for Quota {
    type Err = QuotaError;

    fn from_str(text: &str) -> Result<Self, QuotaError> {
        let wrong = || QuotaError(text.to_owned());
        let (calls, period) = text.trim().split_once('/').ok_or_else(wrong)?;
        let calls: NonZeroU32 = calls.trim().parse().map_err(|_| wrong())?;
        let period = match period.trim() {
            "s" => Period::Second,
            "min" => Period::Minute,
            "h" => Period::Hour,
            _ => return Err(wrong()),
        };
        Ok(Self::new(calls, period))
    }
}

impl fmt::Display for Quota {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.calls, self.period.unit())
    }
}

/// Limits each caller to a [`Quota`] of calls of each item it wraps. Its state is shared
/// by every item and every clone: put it around several tools with one
/// [`layer_for`](crate::RegistryBuilder::layer_for), and each caller still gets the quota
/// for each tool.
///
/// ```
/// use mcp_runtime::layers::RateLimitLayer;
/// use mcp_runtime::Registry;
///
/// let limit = RateLimitLayer::new("5/min".parse()?);
/// let registry = Registry::builder()
///     .inventory()
///     .layer(limit)
///     .build()?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct RateLimitLayer {
    shared: Arc<Shared>,
}

struct Shared {
    quota: Quota,
    store: LimitStore,
    /// The memory's state: by item and caller.
    memory: Memory,
    /// Checks since the memory's stale keys were last dropped.
    checks: AtomicU32,
}

/// A limit's state in this process's memory, by item and caller, in a map with a hasher
/// seeded per process: cheaper than the standard one, and still no key an outsider can
/// make collide at will.
type Memory = RateLimiter<
    (Arc<str>, Caller),
    DashMapStateStore<(Arc<str>, Caller), foldhash::fast::RandomState>,
    DefaultClock,
    NoOpMiddleware<<DefaultClock as Clock>::Instant>,
>;

/// How many checks between two sweeps of the keys whose limit no longer holds anything.
const SWEEP_EVERY: u32 = 4096;

impl fmt::Debug for RateLimitLayer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RateLimitLayer")
            .field("quota", &self.shared.quota)
            .field("store", &self.shared.store)
            .finish()
    }
}

impl RateLimitLayer {
    /// A limit of `quota` per caller and item, kept in this process's memory.
    pub fn new(quota: Quota) -> Self {
        Self::with_store(quota, LimitStore::memory())
    }

    /// The same limit, kept in `store` (shared by every replica when it is Redis).
    #[must_use]
    pub fn store(self, store: LimitStore) -> Self {
        Self::with_store(self.shared.quota, store)
    }

    fn with_store(quota: Quota, store: LimitStore) -> Self {
        Self {
            shared: Arc::new(Shared {
                quota,
                store,
                memory: RateLimiter::dashmap_with_clock_and_hasher(
                    quota.governor(),
                    DefaultClock::default(),
                    foldhash::fast::RandomState::default(),
                ),
                checks: AtomicU32::new(0),
            }),
        }
    }

    /// Its quota.
    pub fn quota(&self) -> Quota {
        self.shared.quota
    }

    /// The limit as the registry asks it directly.
    pub(crate) fn admit(&self) -> Arc<dyn Admit> {
        Arc::clone(&self.shared) as Arc<dyn Admit>
    }
}

impl<S> Layer<S> for RateLimitLayer {
    type Service = RateLimit<S>;

    fn layer(&self, inner: S) -> RateLimit<S> {
        RateLimit {
            inner,
            shared: Arc::clone(&self.shared),
        }
    }
}

/// The service of [`RateLimitLayer`].
#[derive(Clone)]
pub struct RateLimit<S> {
    inner: S,
    shared: Arc<Shared>,
}

impl<S> fmt::Debug for RateLimit<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RateLimit")
            .field("quota", &self.shared.quota)
            .finish_non_exhaustive()
    }
}

impl Shared {
    /// The decision of the shared store (Redis) on the call of `item`.
    async fn check_store(&self, item: Item<'_>) -> Result<Ticket, ToolError> {
        let (name, quota) = (&**item.name, self.quota);
        let tolerance = quota.interval() * (quota.calls.get() - 1);
        let asked = self
            .store
            .gcra((name, item.caller), quota.interval(), tolerance);
        let verdict = match asked.await {
            None => self.check_memory(item.name, item.caller),
            Some(Ok(verdict)) => verdict,
            Some(Err(error)) => return self.unreachable(name, &error).map(|()| Ticket::Free),
        };
        self.decided(name, verdict)
    }

    /// The decision of this process's memory on a call of `name` by `caller`.
    fn check_memory(&self, name: &Arc<str>, caller: &Caller) -> Verdict {
        if self.checks.fetch_add(1, Ordering::Relaxed) % SWEEP_EVERY == SWEEP_EVERY - 1 {
            self.memory.retain_recent();
        }
        // Two reference counts, and no copy of either name, for a key the memory has.
        match self.memory.check_key(&(Arc::clone(name), caller.clone())) {
            Ok(()) => Verdict::Allowed,
            Err(not_until) => {
                Verdict::Wait(not_until.wait_time_from(DefaultClock::default().now()))
            }
        }
    }

    /// A call of `name` on `verdict`: admitted, or refused saying when to retry.
    fn decided(&self, name: &str, verdict: Verdict) -> Result<Ticket, ToolError> {
        match verdict {
            Verdict::Allowed => Ok(Ticket::Free),
            Verdict::Wait(wait) => {
                crate::telemetry::refused("rate_limit", name);
                Err(refusal(name, self.quota, wait))
            }
        }
    }

    fn unreachable(&self, name: &str, error: &LimitStoreError) -> Result<(), ToolError> {
        self.store.warn(error);
        match self.store.on_failure() {
            OnFailure::Open => Ok(()),
            OnFailure::Closed => {
                crate::telemetry::refused("rate_limit", name);
                Err(ToolError::new(
                    ErrorType::ApiLimitExceeded,
                    format!(
                        "`{name}` is rate limited, and its limit store cannot be reached, so the call is refused: {error}"
                    ),
                ))
            }
        }
    }
}

impl Admit for Shared {
    fn now(&self, item: &Item<'_>) -> Admission {
        if !self.store.is_memory() {
            return Admission::Later;
        }
        let verdict = self.check_memory(item.name, item.caller);
        match self.decided(item.name, verdict) {
            Ok(ticket) => Admission::Go(ticket),
            Err(refused) => Admission::Refused(refused),
        }
    }

    fn wait<'a>(&'a self, item: Item<'a>) -> Deciding<'a> {
        Box::pin(self.check_store(item))
    }
}

/// The failure of a call of `name` past `quota`, which may be retried after `wait`.
fn refusal(name: &str, quota: Quota, wait: Duration) -> ToolError {
    let retry_after_ms = wait.as_millis().max(1) as u64;
    let calls = quota.calls.get();
    ToolError::new(
        ErrorType::ApiLimitExceeded,
        format!(
            "`{name}` allows {calls} call{} per {} per caller; retry in {} s",
            if calls == 1 { "" } else { "s" },
            quota.period.name(),
            retry_after_ms.div_ceil(1000),
        ),
    )
    .with_details(serde_json::json!({
        "retry_after_ms": retry_after_ms,
        "limit": quota.to_string(),
    }))
}

impl<S> Service<Request> for RateLimit<S>
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

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicUsize;

    use mcp_runtime_core::{MCPToolCall, MCPToolResult};
    use serde_json::{Value, json};

    use super::*;
    use crate::auth::Caller;
    use crate::context::options::CallOptions;
    use crate::layers::{BoxLayer, Selector};
    use crate::registry::Registry;

    /// A registry of two tools, `t.a` and `t.b`, each counting its runs in `runs`, both
    /// wrapped in `limit`.
    fn registry(limit: RateLimitLayer, runs: &Arc<AtomicUsize>) -> Registry {
        let mut builder = Registry::builder();
        for name in ["t.a", "t.b"] {
            let runs = Arc::clone(runs);
            let definition = mcp_runtime_core::ToolDefinition::new(
                name,
                schemars::json_schema!({ "type": "object" }),
            )
            .unwrap();
            builder = builder.tool(definition, move |_, _| {
                runs.fetch_add(1, Ordering::SeqCst);
                std::future::ready(Ok::<_, ToolError>(json!({ "ok": true })))
            });
        }
        builder
            .layer_for("t.*".parse::<Selector>().unwrap(), BoxLayer::new(limit))
            .build()
            .unwrap()
    }

    async fn call(registry: &Registry, name: &str, caller: &str) -> MCPToolResult {
        let options = CallOptions::new().with_caller(Caller::Address(caller.into()));
        registry
            .call_with(MCPToolCall::new(name, json!({})).unwrap(), options)
            .await
    }

    fn retry_after_ms(result: &MCPToolResult) -> u64 {
        let error = result.error().expect("a failure");
        assert_eq!(error.error_type, ErrorType::ApiLimitExceeded, "{result:?}");
        let details = serde_json::to_value(&error.error_details).unwrap();
        details["retry_after_ms"].as_u64().expect("retry_after_ms")
    }

    #[test]
    fn quotas_parse_the_three_periods_and_refuse_the_rest() {
        let three = NonZeroU32::new(3).unwrap();
        assert_eq!("3/s".parse(), Ok(Quota::per_second(three)));
        assert_eq!("3/min".parse(), Ok(Quota::per_minute(three)));
        assert_eq!("3/h".parse(), Ok(Quota::per_hour(three)));
        for wrong in ["3/fortnight", "0/min", "x/min", "3", "-1/s", "/min", "3/"] {
            let refused = wrong.parse::<Quota>().unwrap_err();
            assert!(
                refused.to_string().contains("N/PERIOD"),
                "{wrong}: {refused}"
            );
        }
    }

    #[tokio::test]
    async fn the_call_past_the_quota_is_refused_naming_the_limit_and_when_to_retry() {
        let runs = Arc::new(AtomicUsize::new(0));
        let registry = registry(RateLimitLayer::new("3/min".parse().unwrap()), &runs);
        for _ in 0..3 {
            assert!(call(&registry, "t.a", "one").await.is_success());
        }
        let refused = call(&registry, "t.a", "one").await;
        let retry = retry_after_ms(&refused);
        // 3 a minute: one more each 20 s, the first of them 20 s after the burst.
        assert!((19_000..=20_000).contains(&retry), "retry_after_ms {retry}");
        let message = &refused.error().unwrap().error_message;
        assert_eq!(
            message,
            "`t.a` allows 3 calls per minute per caller; retry in 20 s"
        );
        assert_eq!(
            runs.load(Ordering::SeqCst),
            3,
            "the refused call did not run"
        );
    }

    #[tokio::test]
    async fn each_caller_and_each_tool_gets_its_own_quota() {
        let runs = Arc::new(AtomicUsize::new(0));
        let registry = registry(RateLimitLayer::new("2/h".parse().unwrap()), &runs);
        for (tool, caller) in [("t.a", "one"), ("t.a", "two"), ("t.b", "one")] {
            for _ in 0..2 {
                assert!(
                    call(&registry, tool, caller).await.is_success(),
                    "{tool} {caller}"
                );
            }
            let refused = call(&registry, tool, caller).await;
            assert!(retry_after_ms(&refused) > 29 * 60 * 1000, "{refused:?}");
        }
        assert_eq!(runs.load(Ordering::SeqCst), 6);
    }

    #[tokio::test]
    async fn the_quota_comes_back_after_its_interval() {
        let runs = Arc::new(AtomicUsize::new(0));
        let registry = registry(RateLimitLayer::new("20/s".parse().unwrap()), &runs);
        let mut refused = None;
        for _ in 0..21 {
            let result = call(&registry, "t.a", "one").await;
            if !result.is_success() {
                refused = Some(result);
            }
        }
        let retry = retry_after_ms(&refused.expect("the 21st call is refused"));
        assert!(retry <= 50, "retry_after_ms {retry}");
        tokio::time::sleep(Duration::from_millis(retry + 5)).await;
        assert!(call(&registry, "t.a", "one").await.is_success());
    }

    #[test]
    fn a_refusal_has_its_details() {
        let refused = refusal(
            "w.f",
            Quota::per_second(NonZeroU32::MIN),
            Duration::from_micros(1),
        );
        assert_eq!(
            refused.message(),
            "`w.f` allows 1 call per second per caller; retry in 1 s"
        );
        let details = serde_json::to_value(refused.details()).unwrap();
        assert_eq!(details, json!({ "retry_after_ms": 1, "limit": "1/s" }));
        let _: Value = details;
    }
}
