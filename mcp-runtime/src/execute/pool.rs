//! How many synchronous tools run at once: each runs on a thread of tokio's blocking pool,
//! and a registry lets at most [`BlockingSlots::size`] of them hold one. The others wait
//! for a slot, up to their timeout, or until their caller cancels, and then fail as
//! overloaded: a burst of calls grows the pool by at most that many threads, and every
//! call is answered.
//!
//! A tool that outlives its timeout keeps its slot until its thread returns: the bound is
//! on threads busy with tools, not on calls still awaited.

use std::num::NonZeroUsize;
use std::sync::Arc;
use std::time::Duration;

use mcp_runtime_core::{ErrorType, ToolDefinition, ToolError};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio_util::sync::CancellationToken;

use crate::base::duration::format_duration;

/// How many synchronous tools a registry runs at once unless built with another number
/// ([`RegistryBuilder::blocking_threads`](crate::RegistryBuilder::blocking_threads)).
///
/// 64, measured with `mcp-bench burst` (10,000 calls at once of a synchronous tool that
/// sleeps 10 ms, over stdio, on two cores): the server grows from 5 to 75 threads and from
/// 10.6 to 15.3 MiB resident, and answers in 1.6 s, about 6,200 calls/s against the 6,400
/// that 64 threads of 10 ms allow. Without a bound it grew to 267 threads and 18.2 MiB
/// (0.5 s); with 4, to 12 threads and 14.1 MiB (26 s). A tool that computes gains nothing
/// from more threads than cores; one that waits on I/O gets 64 waits at once, as many as
/// most services it waits on accept from one client.
pub const DEFAULT_BLOCKING_THREADS: usize = 64;

/// The slots of the synchronous tools that run at once, shared by a registry's clones.
#[derive(Debug, Clone)]
pub(crate) struct BlockingSlots {
    semaphore: Arc<Semaphore>,
    size: usize,
}

impl Default for BlockingSlots {
    fn default() -> Self {
        Self::new(NonZeroUsize::new(DEFAULT_BLOCKING_THREADS).unwrap_or(NonZeroUsize::MIN))
    }
}

impl BlockingSlots {
    /// `size` slots.
    pub(crate) fn new(size: NonZeroUsize) -> Self {
        let size = size.get().min(Semaphore::MAX_PERMITS);
        Self {
            semaphore: Arc::new(Semaphore::new(size)),
            size,
        }
    }

    /// A slot for a call of the tool `definition` describes, once one is free: at once when
    /// one is; otherwise after waiting up to `wait` (no limit with `None`) or until `parent`
    /// is cancelled, each of which fails the call.
    pub(crate) async fn acquire(
        &self,
        definition: &ToolDefinition,
        wait: Option<Duration>,
        parent: Option<&CancellationToken>,
    ) -> Result<OwnedSemaphorePermit, ToolError> {
        if let Ok(permit) = Arc::clone(&self.semaphore).try_acquire_owned() {
            return Ok(permit);
        }
        let acquire = Arc::clone(&self.semaphore).acquire_owned();
        let waited = async {
            match wait {
                Some(wait) => tokio::time::timeout(wait, acquire)
                    .await
                    .map_err(|_| self.overloaded(definition, wait)),
                None => Ok(acquire.await),
            }
        };
        let outcome = match parent {
            Some(parent) => tokio::select! {
                biased;
                () = parent.cancelled() => Err(ToolError::execution(format!(
                    "the call of tool `{}` was cancelled while it waited for a thread",
                    definition.name()
                ))),
                outcome = waited => outcome,
            },
            None => waited.await,
        };
        // The semaphore is never closed: its error cannot happen.
        outcome?.map_err(|closed| ToolError::execution(closed.to_string()))
    }

    /// The failure of a call that waited `wait` for a slot in vain.
    pub(super) fn overloaded(&self, definition: &ToolDefinition, wait: Duration) -> ToolError {
        crate::telemetry::refused("blocking_threads", definition.name().as_str());
        ToolError::new(
            ErrorType::ApiLimitExceeded,
            format!(
                "tool `{}` waited {} for one of the {} threads of synchronous tools: too many synchronous calls at once; try again shortly",
                definition.name(),
                format_duration(wait),
                self.size
            ),
        )
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Condvar, Mutex, PoisonError};

    use serde_json::json;

    use super::*;
    use crate::{ErrorDetails, MCPToolCall, Registry};

    /// How many calls of a tool are inside it now, and the most there were at once.
    struct Gauge {
        inside: AtomicUsize,
        peak: AtomicUsize,
    }

    impl Gauge {
        const fn new() -> Self {
            Self {
                inside: AtomicUsize::new(0),
                peak: AtomicUsize::new(0),
            }
        }

        fn enter(&self) {
            let now = self.inside.fetch_add(1, Ordering::SeqCst) + 1;
            self.peak.fetch_max(now, Ordering::SeqCst);
        }

        fn leave(&self) {
            self.inside.fetch_sub(1, Ordering::SeqCst);
        }
    }

    static GATED: Gauge = Gauge::new();
    /// Shut until the test opens it.
    static GATE: (Mutex<bool>, Condvar) = (Mutex::new(false), Condvar::new());

    /// Opens the gate when dropped: at the end of the test, passed or failed, so that no
    /// thread stays at it.
    struct Opens;

    impl Drop for Opens {
        fn drop(&mut self) {
            let (open, opened) = &GATE;
            *open.lock().unwrap_or_else(PoisonError::into_inner) = true;
            opened.notify_all();
        }
    }

    /// Waits at the gate.
    #[crate::mcp_tool(crate = crate, namespace = "pool")]
    fn gated() -> bool {
        GATED.enter();
        let (open, opened) = &GATE;
        let guard = open.lock().unwrap_or_else(PoisonError::into_inner);
        drop(
            opened
                .wait_while(guard, |open| !*open)
                .unwrap_or_else(PoisonError::into_inner),
        );
        GATED.leave();
        true
    }

    static BURST: Gauge = Gauge::new();

    /// Counts itself in, yields its thread a moment, counts itself out.
    #[crate::mcp_tool(crate = crate, namespace = "pool")]
    fn counted(n: u64) -> u64 {
        BURST.enter();
        std::thread::yield_now();
        std::thread::sleep(Duration::from_micros(200));
        BURST.leave();
        n
    }

    /// Sleeps `ms` milliseconds.
    #[crate::mcp_tool(crate = crate, namespace = "pool")]
    fn slept(ms: u64) -> u64 {
        std::thread::sleep(Duration::from_millis(ms));
        ms
    }

    fn registry(tool: &str, threads: usize, timeout: Duration) -> Registry {
        Registry::builder()
            .inventory()
            .names([tool])
            .default_timeout(Some(timeout))
            .blocking_threads(NonZeroUsize::new(threads).expect("not zero"))
            .build()
            .expect("built")
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn calls_past_the_threads_wait_their_timeout_then_fail_as_overloaded() {
        let _opens = Opens;
        let registry = Arc::new(registry("pool.gated", 3, Duration::from_millis(400)));
        let calls: Vec<_> = (0..9)
            .map(|_| {
                let registry = Arc::clone(&registry);
                tokio::spawn(async move {
                    let call = MCPToolCall::new("pool.gated", json!({})).expect("call");
                    registry.call(call).await
                })
            })
            .collect();
        let mut overloaded = 0;
        let mut timed_out = 0;
        for call in calls {
            let result = call.await.expect("joined");
            let error = result.error().expect("no call ends while the gate is shut");
            match &error.error_type {
                ErrorType::ApiLimitExceeded => {
                    assert!(
                        error.error_message.contains("one of the 3 threads"),
                        "{}",
                        error.error_message
                    );
                    overloaded += 1;
                }
                ErrorType::TimeoutError => timed_out += 1,
                other => panic!("{other:?}: {}", error.error_message),
            }
        }
        // Three ran (and stay at the gate past their timeout), six waited in vain.
        assert_eq!((timed_out, overloaded), (3, 6));
        assert_eq!(GATED.peak.load(Ordering::SeqCst), 3);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_burst_of_synchronous_calls_runs_on_at_most_n_threads_and_each_is_answered() {
        let registry = Arc::new(registry("pool.counted", 4, Duration::from_secs(60)));
        let calls: Vec<_> = (0..2_000_u64)
            .map(|n| {
                let registry = Arc::clone(&registry);
                tokio::spawn(async move {
                    let call = MCPToolCall::new("pool.counted", json!({ "n": n })).expect("call");
                    (n, registry.call(call).await)
                })
            })
            .collect();
        for call in calls {
            let (n, result) = call.await.expect("joined");
            assert_eq!(
                result.data(),
                json!({ "result": n }).as_object(),
                "{result:?}"
            );
        }
        let peak = BURST.peak.load(Ordering::SeqCst);
        assert!((1..=4).contains(&peak), "{peak} ran at once");
    }

    /// A call that waited for the thread and then ran past its timeout is told its whole
    /// timeout and how much of it went on the wait, not the remainder alone; one that did
    /// not wait, its timeout.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_call_past_its_timeout_after_waiting_for_a_thread_is_told_both() {
        let shared = Arc::new(registry("pool.slept", 1, Duration::from_secs(1)));
        let call = |ms: u64| {
            let registry = Arc::clone(&shared);
            tokio::spawn(async move {
                let call = MCPToolCall::new("pool.slept", json!({ "ms": ms })).expect("call");
                registry.call(call).await
            })
        };
        let first = call(400);
        tokio::time::sleep(Duration::from_millis(50)).await;
        let second = call(1_500).await.expect("joined");
        let error = second.error().expect("past its timeout");
        assert_eq!(error.error_type, ErrorType::TimeoutError, "{error:?}");
        let message = &error.error_message;
        assert!(
            message.starts_with("tool `pool.slept` did not finish within its 1s timeout, ")
                && message.ends_with("ms of which it waited for a thread of synchronous tools"),
            "{message}"
        );
        let waited_ms = match &error.error_details {
            Some(ErrorDetails::Object(details)) => details["waited_ms"].as_u64(),
            _ => None,
        };
        assert!(
            waited_ms.is_some_and(|ms| (100..1_000).contains(&ms)),
            "{:?}",
            error.error_details
        );
        let first = first.await.expect("joined");
        assert_eq!(
            first.data(),
            json!({ "result": 400 }).as_object(),
            "{first:?}"
        );
        // Another registry: the first's thread is still held by the tool that timed out.
        let alone = registry("pool.slept", 1, Duration::from_secs(1))
            .call(MCPToolCall::new("pool.slept", json!({ "ms": 1_500 })).expect("call"))
            .await;
        let error = alone.error().expect("past its timeout");
        assert_eq!(
            error.error_message,
            "tool `pool.slept` did not finish within 1s"
        );
    }

    #[tokio::test]
    async fn a_cancelled_call_stops_waiting_for_a_slot() {
        let slots = BlockingSlots::new(NonZeroUsize::MIN);
        let tool = Registry::global().get("pool.counted").expect("registered");
        let definition = &tool.built().definition;
        let _held = slots.acquire(definition, None, None).await.expect("free");
        let token = CancellationToken::new();
        let waiting = slots.acquire(definition, None, Some(&token));
        token.cancel();
        let refused = waiting.await.expect_err("cancelled");
        assert!(refused.to_string().contains("cancelled"), "{refused:?}");
    }
}
