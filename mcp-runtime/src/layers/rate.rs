//! A rate limit per caller and per tool: [`RateLimitLayer`], GCRA over a [`Quota`].
//!
//! Each caller ([`Caller`]: the OAuth subject, else the session, else
//! the client's address, else the stdio connection) gets the quota for each item the
//! layer wraps. Past it, a call fails with `ApiLimitExceeded`, naming the limit and when
//! to retry, `retry_after_ms` in the error's details. The state lives in the layer's
//! [`LimitStore`]: this process (the `governor` crate), or a Redis every replica shares.

use std::fmt;
use std::future::Future;
use std::hash::Hash;
use std::num::NonZeroU32;
use std::pin::Pin;
use std::str::FromStr;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use governor::RateLimiter;
use governor::clock::Clock;
use governor::middleware::NoOpMiddleware;
use governor::nanos::Nanos;
use governor::state::keyed::DashMapStateStore;
use mcp_runtime_core::{ErrorType, ToolError};
use rustc_hash::FxHashMap;
use tower::{Layer, Service};

use super::store::{Ask, GcraKey, LimitStore, LimitStoreError, OnFailure, Verdict};
use crate::auth::Caller;
use crate::service::{
    Admission, Admit, BoxError, Deciding, Item, Request, Response, Ticket, admit_then_call,
};

mod lease;

use lease::Leases;

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
    /// `quota` as written, after the limit's name where it has one: what names its state
    /// in a shared store.
    written: Box<str>,
    store: LimitStore,
    /// Each tool's state in this process, made with its stack, which keeps it
    /// ([`ItemLimit`]) and asks no map for it: as many as the tools the layer wraps.
    items: Mutex<FxHashMap<Arc<str>, Arc<ItemState>>>,
    /// The state of the items whose stack asks the limit as a tower layer (a resource, a
    /// prompt, a tool with another layer outside this one), by item and caller: a
    /// resource's item is the URI read, of which there is no end, and its keys are swept.
    keyed: Swept<(Arc<str>, Caller)>,
}

/// States by key in this process's memory, in a map with a hasher seeded per process
/// (cheaper than the standard one, and still no key an outsider can make collide at will),
/// the keys that no longer hold anything back dropped every [`SWEEP_EVERY`] checks.
struct Swept<K: Hash + Eq + Clone> {
    states: RateLimiter<
        K,
        DashMapStateStore<K, foldhash::fast::RandomState>,
        Monotonic,
        NoOpMiddleware<Nanos>,
    >,
    /// Checks since the stale keys were last dropped.
    checks: AtomicU32,
}

impl<K: Hash + Eq + Clone> Swept<K> {
    fn new(quota: Quota) -> Self {
        Self {
            states: RateLimiter::dashmap_with_clock_and_hasher(
                quota.governor(),
                Monotonic,
                foldhash::fast::RandomState::default(),
            ),
            checks: AtomicU32::new(0),
        }
    }

    /// The decision on a call under `key`.
    fn check(&self, key: &K) -> Verdict {
        if self.checks.fetch_add(1, Ordering::Relaxed) % SWEEP_EVERY == SWEEP_EVERY - 1 {
            self.states.retain_recent();
        }
        verdict(self.states.check_key(key))
    }
}

/// One tool's limit state in this process, by the store the limit is kept in.
enum ItemState {
    /// The whole state, in this process's memory.
    Memory(Memory),
    /// With a shared store: what this replica was granted ahead.
    Leased(Leases),
}

/// One tool's limit state in this process's memory, by caller. The two callers that are
/// no one's address or identity, a stdio connection's client and the application itself,
/// have a state of their own, found without a lookup.
struct Memory {
    callers: Swept<Caller>,
    connection: One,
    local: One,
}

/// The state of one caller.
type One = RateLimiter<
    governor::state::NotKeyed,
    governor::state::InMemoryState,
    Monotonic,
    NoOpMiddleware<Nanos>,
>;

impl Memory {
    fn new(quota: Quota) -> Self {
        let one = || RateLimiter::direct_with_clock(quota.governor(), Monotonic);
        Self {
            callers: Swept::new(quota),
            connection: one(),
            local: one(),
        }
    }

    /// The decision on a call by `caller`.
    fn check(&self, caller: &Caller) -> Verdict {
        match caller {
            Caller::Connection => verdict(self.connection.check()),
            Caller::Local => verdict(self.local.check()),
            keyed => self.callers.check(keyed),
        }
    }
}

/// governor's clock: the monotonic clock, in nanoseconds since this process first read it.
/// governor's own keeps `std::time::Instant`s, and each check subtracts two of them into a
/// `Duration` and then nanoseconds, about 80 instructions; here it is one subtraction.
#[derive(Debug, Clone, Copy, Default)]
struct Monotonic;

impl Clock for Monotonic {
    type Instant = Nanos;

    fn now(&self) -> Nanos {
        static FIRST: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
        let first = *FIRST.get_or_init(std::time::Instant::now);
        let since = first.elapsed();
        // A u64 of nanoseconds lasts 584 years.
        Nanos::from(since.as_secs() * 1_000_000_000 + u64::from(since.subsec_nanos()))
    }
}

/// What governor's check decided.
fn verdict(checked: Result<(), governor::NotUntil<Nanos>>) -> Verdict {
    match checked {
        Ok(()) => Verdict::Allowed,
        Err(not_until) => Verdict::Wait(not_until.wait_time_from(Monotonic.now())),
    }
}

/// The limit as one item's stack asks it: the layer's, with the item's own state.
struct ItemLimit {
    shared: Arc<Shared>,
    state: Arc<ItemState>,
}

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
        Self::made(quota, quota.to_string().into(), LimitStore::memory())
    }

    /// The same limit, kept in `store` (shared by every replica when it is Redis).
    #[must_use]
    pub fn store(self, store: LimitStore) -> Self {
        let shared = &self.shared;
        Self::made(shared.quota, shared.written.clone(), store)
    }

    /// The same limit, its state in a shared store named `name` as well as by its quota
    /// (`{tool}:{name}={quota}:{caller}`, where it is `{tool}:{quota}:{caller}` unnamed):
    /// two limits of one tool with the same quota count apart in Redis, as they do in
    /// memory, when their names differ. `serve` names each `--tool-rate-limit` by its
    /// selector. Every replica must name a limit alike to share it.
    #[must_use]
    pub fn named(self, name: &str) -> Self {
        let shared = &self.shared;
        let written = format!("{name}={}", shared.quota).into();
        Self::made(shared.quota, written, shared.store.clone())
    }

    fn made(quota: Quota, written: Box<str>, store: LimitStore) -> Self {
        Self {
            shared: Arc::new(Shared {
                quota,
                written,
                store,
                items: Mutex::default(),
                keyed: Swept::new(quota),
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
    /// The state in this process of the tool `name`.
    fn state_of(&self, name: &Arc<str>) -> Arc<ItemState> {
        // A panic while the lock was held leaves the map as it was: keep using it.
        let mut items = self.items.lock().unwrap_or_else(PoisonError::into_inner);
        let state = items.entry(Arc::clone(name)).or_insert_with(|| {
            Arc::new(if self.store.is_memory() {
                ItemState::Memory(Memory::new(self.quota))
            } else {
                ItemState::Leased(Leases::new(self.quota.calls.get()))
            })
        });
        Arc::clone(state)
    }

    /// The decision of this process's memory on a call of `name` by `caller`, for a stack
    /// that holds no state of the item's own.
    fn check_keyed(&self, name: &Arc<str>, caller: &Caller) -> Verdict {
        // Two reference counts, and no copy of either name, for a key the memory has.
        self.keyed.check(&(Arc::clone(name), caller.clone()))
    }

    /// The decision at once on the call of `item`, `decide` deciding it in this process's
    /// memory; none while the shared store (Redis) must be asked.
    fn now_with(&self, item: &Item<'_>, decide: impl FnOnce() -> Verdict) -> Admission {
        if !self.store.is_memory() {
            return Admission::Later;
        }
        match self.decided(item.name, decide()) {
            Ok(ticket) => Admission::Go(ticket),
            Err(refused) => Admission::Refused(refused),
        }
    }

    /// The decision of the shared store (Redis) on the call of `item`, asking ahead for
    /// the caller's next calls when `leases` keeps them.
    async fn check_store(
        &self,
        item: Item<'_>,
        leases: Option<&Leases>,
    ) -> Result<Ticket, ToolError> {
        let (name, quota) = (&**item.name, self.quota);
        let ask = match leases.map(|leases| leases.ask(item.caller)) {
            // Granted ahead while this call waited.
            Some(None) => return Ok(Ticket::Free),
            Some(Some(ask)) => ask,
            None => Ask::ONE,
        };
        let tolerance = quota.interval() * (quota.calls.get() - 1);
        let key = GcraKey {
            tool: name,
            limit: &self.written,
            caller: item.caller,
        };
        let asked = self.store.gcra(key, quota.interval(), tolerance, ask);
        let verdict = match asked.await {
            None => self.check_keyed(item.name, item.caller),
            Some(Ok(grant)) => {
                if let Some(leases) = leases {
                    leases.granted(item.caller, grant.granted);
                }
                match grant.granted {
                    0 => Verdict::Wait(grant.wait),
                    _ => Verdict::Allowed,
                }
            }
            Some(Err(error)) => return self.unreachable(name, &error).map(|()| Ticket::Free),
        };
        self.decided(name, verdict)
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

/// The limit as a stack the registry does not ask directly asks it (around a resource or
/// a prompt, or inside another layer): the state by item and caller.
impl Admit for Shared {
    fn now(&self, item: &Item<'_>) -> Admission {
        self.now_with(item, || self.check_keyed(item.name, item.caller))
    }

    fn wait<'a>(&'a self, item: Item<'a>) -> Deciding<'a> {
        Box::pin(self.check_store(item, None))
    }

    fn item(self: Arc<Self>, name: &Arc<str>) -> Arc<dyn Admit> {
        let state = self.state_of(name);
        Arc::new(ItemLimit {
            shared: self,
            state,
        })
    }
}

impl Admit for ItemLimit {
    fn now(&self, item: &Item<'_>) -> Admission {
        match &*self.state {
            ItemState::Memory(memory) => self.shared.now_with(item, || memory.check(item.caller)),
            ItemState::Leased(leases) if leases.take(item.caller) => Admission::Go(Ticket::Free),
            ItemState::Leased(_) => Admission::Later,
        }
    }

    fn wait<'a>(&'a self, item: Item<'a>) -> Deciding<'a> {
        let leases = match &*self.state {
            ItemState::Leased(leases) => Some(leases),
            ItemState::Memory(_) => None,
        };
        Box::pin(self.shared.check_store(item, leases))
    }

    fn item(self: Arc<Self>, name: &Arc<str>) -> Arc<dyn Admit> {
        Arc::clone(&self.shared).item(name)
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
    use crate::registry::{Registry, RegistryBuilder};

    #[test]
    fn the_limits_clock_counts_the_monotonic_clocks_nanoseconds() {
        // Read inside the standard clock's readings: what it counts lies within theirs.
        let started = std::time::Instant::now();
        let before = Monotonic.now();
        std::thread::sleep(Duration::from_millis(20));
        let after = Monotonic.now();
        let elapsed = started.elapsed();
        let counted = Duration::from(after.saturating_sub(before));
        assert!(
            counted >= Duration::from_millis(20) && counted <= elapsed,
            "{counted:?} counted over {elapsed:?}"
        );
    }

    /// A registry of two tools, `t.a` and `t.b`, each counting its runs in `runs`, both
    /// wrapped in `limit`.
    fn registry(limit: RateLimitLayer, runs: &Arc<AtomicUsize>) -> Registry {
        two_tools(runs)
            .layer_for("t.*".parse::<Selector>().unwrap(), BoxLayer::new(limit))
            .build()
            .unwrap()
    }

    /// A builder of the two tools of [`registry`], with no layer yet.
    fn two_tools(runs: &Arc<AtomicUsize>) -> RegistryBuilder {
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
    }

    async fn call(registry: &Registry, name: &str, caller: &str) -> MCPToolResult {
        let options = CallOptions::new().with_caller(Caller::Address(caller.into()));
        call_as(registry, name, options).await
    }

    async fn call_as(registry: &Registry, name: &str, options: CallOptions) -> MCPToolResult {
        registry
            .call_with(MCPToolCall::new(name, json!({})).unwrap(), options)
            .await
    }

    /// Asserts that a limit of 2 an hour on `registry` gives each caller of each tool its
    /// own two calls, the third refused.
    async fn assert_two_an_hour_each(registry: &Registry, runs: &AtomicUsize) {
        for (tool, caller) in [("t.a", "one"), ("t.a", "two"), ("t.b", "one")] {
            for _ in 0..2 {
                assert!(
                    call(registry, tool, caller).await.is_success(),
                    "{tool} {caller}"
                );
            }
            let refused = call(registry, tool, caller).await;
            assert!(retry_after_ms(&refused) > 29 * 60 * 1000, "{refused:?}");
        }
        assert_eq!(runs.load(Ordering::SeqCst), 6);
    }

    fn retry_after_ms(result: &MCPToolResult) -> u64 {
        let error = result.error().expect("a failure");
        assert_eq!(error.error_type, ErrorType::ApiLimitExceeded, "{result:?}");
        let details = serde_json::to_value(&error.error_details).unwrap();
        details["retry_after_ms"].as_u64().expect("retry_after_ms")
    }

    #[cfg(feature = "redis")]
    #[test]
    fn a_named_limit_keeps_its_name_and_its_store_whichever_is_given_first() {
        let quota: Quota = "3/min".parse().expect("a quota");
        let redis = || LimitStore::redis("redis://127.0.0.1:1", "ns").expect("an address");
        let named_first = RateLimitLayer::new(quota).named("weather.*").store(redis());
        let stored_first = RateLimitLayer::new(quota).store(redis()).named("weather.*");
        for limit in [named_first, stored_first] {
            assert_eq!(&*limit.shared.written, "weather.*=3/min");
            assert!(!limit.shared.store.is_memory());
            assert_eq!(limit.quota(), quota);
        }
        assert_eq!(&*RateLimitLayer::new(quota).shared.written, "3/min");
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
        assert_two_an_hour_each(&registry, &runs).await;
    }

    /// Inside another layer the limit is asked as a tower layer, which finds the state by
    /// item and caller: each still gets its own quota.
    #[tokio::test]
    async fn inside_another_layer_each_caller_and_tool_still_gets_its_own_quota() {
        let runs = Arc::new(AtomicUsize::new(0));
        let registry = two_tools(&runs)
            .layer(tower::layer::util::Identity::new())
            .layer_for(
                "t.*".parse::<Selector>().unwrap(),
                BoxLayer::new(RateLimitLayer::new("2/h".parse().unwrap())),
            )
            .build()
            .unwrap();
        assert_two_an_hour_each(&registry, &runs).await;
    }

    /// The stdio connection's client and the application have states of their own, kept
    /// apart from each other's, from the keyed callers', and per tool, as theirs are.
    #[tokio::test]
    async fn the_connection_and_the_application_each_get_their_own_quota() {
        let runs = Arc::new(AtomicUsize::new(0));
        let registry = registry(RateLimitLayer::new("2/h".parse().unwrap()), &runs);
        let as_caller = |caller: Caller| CallOptions::new().with_caller(caller);
        for tool in ["t.a", "t.b"] {
            for _ in 0..2 {
                let options = as_caller(Caller::Connection);
                assert!(call_as(&registry, tool, options).await.is_success());
                // No caller given: the application's own call.
                assert!(
                    call_as(&registry, tool, CallOptions::new())
                        .await
                        .is_success()
                );
            }
            let refused = call_as(&registry, tool, as_caller(Caller::Connection)).await;
            assert!(retry_after_ms(&refused) > 29 * 60 * 1000, "{refused:?}");
            let refused = call_as(&registry, tool, as_caller(Caller::Local)).await;
            assert!(retry_after_ms(&refused) > 29 * 60 * 1000, "{refused:?}");
        }
        assert!(call(&registry, "t.a", "one").await.is_success());
        assert_eq!(runs.load(Ordering::SeqCst), 9);
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
