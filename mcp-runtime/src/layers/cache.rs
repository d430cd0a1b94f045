//! A cache of tool results: [`CacheLayer`].
//!
//! It keeps the successful results of the tools it wraps for a time to live, keyed by the
//! tool's name and its canonical arguments (the JSON of the arguments, every object's
//! keys sorted: the order a client writes them in does not matter), and by the caller too
//! for the tools that need OAuth scopes, whose answers may depend on who asks. A cached
//! answer says so in its `_meta`, under [`CACHE_META`]. Only results of tools marked both
//! `read_only` and `idempotent` may be cached ([`cacheable`]); resource reads and prompts
//! pass through it.
//!
//! In a Redis [`LimitStore`], every replica shares the cache. A cache is never a reason
//! to refuse a call: while the store cannot be reached the failure is logged and the tool
//! runs, whatever [`OnFailure`](super::OnFailure) says, for a tool that reads only may
//! always run again.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use mcp_runtime_core::{MCPToolResult, ToolDefinition};
use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};
use tower::{Layer, Service};

use super::store::{LimitStore, now_ms};
use crate::service::{BoxError, Kind, Request, Response};

/// The key of a cached answer's note in its `_meta`: `{"hit": true, "age_ms": N}`.
pub const CACHE_META: &str = "io.github.mcp-runtime/cache";

/// How many results the memory keeps at most per layer; past it, expired ones are
/// dropped, and new ones are not kept until there is room.
const MEMORY_ENTRIES: usize = 10_000;

/// Whether the tool `definition` describes may have its results cached: it is marked both
/// `read_only` and `idempotent`.
pub fn cacheable(definition: &ToolDefinition) -> bool {
    let annotations = definition.annotations();
    annotations.read_only == Some(true) && annotations.idempotent == Some(true)
}

/// Caches the successful results of the tools it wraps for `ttl`. Its cache is shared by
/// every item and every clone. Put it only around tools marked `read_only` and
/// `idempotent` ([`cacheable`]); the command line's `--tool-cache` refuses others.
///
/// ```
/// use std::time::Duration;
/// use mcp_runtime::layers::{BoxLayer, CacheLayer, Selector};
/// use mcp_runtime::Registry;
///
/// let cache = CacheLayer::new(Duration::from_secs(30));
/// let registry = Registry::builder()
///     .inventory()
///     .layer_for("calculator.*".parse::<Selector>()?, BoxLayer::new(cache))
///     .build();
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone)]
pub struct CacheLayer {
    shared: Arc<Shared>,
}

struct Shared {
    ttl: Duration,
    store: LimitStore,
    /// The tools whose answers are kept per caller.
    per_caller: FxHashSet<String>,
    memory: Mutex<FxHashMap<String, Entry>>,
}

/// A result in the memory, and when it was kept.
struct Entry {
    kept: Instant,
    result: MCPToolResult,
}

impl fmt::Debug for CacheLayer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CacheLayer")
            .field("ttl", &self.shared.ttl)
            .field("store", &self.shared.store)
            .field("per_caller", &self.shared.per_caller)
            .finish_non_exhaustive()
    }
}

impl CacheLayer {
    /// A cache keeping results for `ttl`, in this process's memory.
    pub fn new(ttl: Duration) -> Self {
        Self::of(ttl, LimitStore::memory(), FxHashSet::default())
    }

    /// The same cache, kept in `store` (shared by every replica when it is Redis).
    #[must_use]
    pub fn store(self, store: LimitStore) -> Self {
        Self::of(self.shared.ttl, store, self.shared.per_caller.clone())
    }

    /// The same cache, keeping the answers of the tools named `tools` per caller: those
    /// that need OAuth scopes, whose answers may differ by who asks.
    #[must_use]
    pub fn per_caller<I, S>(self, tools: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut per_caller = self.shared.per_caller.clone();
        per_caller.extend(tools.into_iter().map(Into::into));
        Self::of(self.shared.ttl, self.shared.store.clone(), per_caller)
    }

    fn of(ttl: Duration, store: LimitStore, per_caller: FxHashSet<String>) -> Self {
        Self {
            shared: Arc::new(Shared {
                ttl,
                store,
                per_caller,
                memory: Mutex::default(),
            }),
        }
    }

    /// How long a result is kept.
    pub fn ttl(&self) -> Duration {
        self.shared.ttl
    }
}

impl<S> Layer<S> for CacheLayer {
    type Service = Cache<S>;

    fn layer(&self, inner: S) -> Cache<S> {
        Cache {
            inner,
            shared: Arc::clone(&self.shared),
        }
    }
}

/// The service of [`CacheLayer`].
#[derive(Clone)]
pub struct Cache<S> {
    inner: S,
    shared: Arc<Shared>,
}

impl<S> fmt::Debug for Cache<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cache")
            .field("ttl", &self.shared.ttl)
            .finish_non_exhaustive()
    }
}

/// `value` as JSON with every object's keys sorted, into `out`.
fn canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => canonical_object(map, out),
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                canonical(item, out);
            }
            out.push(']');
        }
        // A scalar's JSON has one form.
        scalar => out.push_str(&scalar.to_string()),
    }
}

fn canonical_object(map: &Map<String, Value>, out: &mut String) {
    let mut entries: Vec<(&String, &Value)> = map.iter().collect();
    entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
    out.push('{');
    for (index, (key, value)) in entries.into_iter().enumerate() {
        if index > 0 {
            out.push(',');
        }
        out.push_str(&Value::from(key.as_str()).to_string());
        out.push(':');
        canonical(value, out);
    }
    out.push('}');
}

impl Shared {
    /// The key of `request`'s answer: the tool, its canonical arguments, and the caller
    /// when the tool's answers are kept per caller.
    fn key(&self, request: &Request) -> String {
        let mut key = String::with_capacity(64);
        key.push_str(request.name());
        key.push('\n');
        canonical_object(request.arguments(), &mut key);
        if self.per_caller.contains(request.name()) {
            key.push('\n');
            key.push_str(&request.caller().key());
        }
        key
    }

    /// The answer kept under `key`, marked as cached; `None` when there is none.
    async fn lookup(&self, key: &str) -> Option<MCPToolResult> {
        let shared = match self.store.cache_get(&shared_key(key)).await {
            None => return self.lookup_memory(key),
            Some(Ok(found)) => found?,
            Some(Err(error)) => {
                self.store.warn(&error);
                return None;
            }
        };
        let mut kept: Value = serde_json::from_str(&shared).ok()?;
        let age = now_ms().saturating_sub(kept["at"].as_u64()?);
        let result: MCPToolResult = serde_json::from_value(kept["result"].take()).ok()?;
        Some(hit(result, Duration::from_millis(age)))
    }

    fn lookup_memory(&self, key: &str) -> Option<MCPToolResult> {
        let mut memory = self.memory.lock().unwrap_or_else(PoisonError::into_inner);
        let entry = memory.get(key)?;
        let age = entry.kept.elapsed();
        if age >= self.ttl {
            memory.remove(key);
            return None;
        }
        Some(hit(entry.result.clone(), age))
    }

    /// Keeps `result` under `key`.
    async fn keep(&self, key: String, result: &MCPToolResult) {
        if !self.store.is_memory() {
            let kept = json!({ "at": now_ms(), "result": result }).to_string();
            if let Err(error) = self
                .store
                .cache_set(&shared_key(&key), kept, self.ttl)
                .await
            {
                self.store.warn(&error);
            }
            return;
        }
        let mut memory = self.memory.lock().unwrap_or_else(PoisonError::into_inner);
        if memory.len() >= MEMORY_ENTRIES {
            let ttl = self.ttl;
            memory.retain(|_, entry| entry.kept.elapsed() < ttl);
        }
        if memory.len() < MEMORY_ENTRIES {
            let entry = Entry {
                kept: Instant::now(),
                result: result.clone(),
            };
            memory.insert(key, entry);
        }
    }
}

/// A key of the shared store: the tool's name, and a digest of the rest, so that large
/// arguments make no large key.
fn shared_key(key: &str) -> String {
    let (name, rest) = key.split_once('\n').unwrap_or((key, ""));
    let digest = Sha256::digest(rest.as_bytes());
    let hex: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
    format!("{name}:{hex}")
}

/// `result`, as a cached answer `age` old.
fn hit(result: MCPToolResult, age: Duration) -> MCPToolResult {
    result.with_meta(
        CACHE_META,
        json!({ "hit": true, "age_ms": age.as_millis() as u64 }),
    )
}

impl<S> Service<Request> for Cache<S>
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
        // The service made ready is the one to call; a clone stays for the next call.
        let fresh = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, fresh);
        if request.kind() != Kind::Tool {
            return Box::pin(async move { inner.call(request).await.map_err(Into::into) });
        }
        let shared = Arc::clone(&self.shared);
        let key = shared.key(&request);
        Box::pin(async move {
            if let Some(cached) = shared.lookup(&key).await {
                return Ok(Response::Tool(cached));
            }
            let response = inner.call(request).await.map_err(Into::into)?;
            if let Response::Tool(result) = &response {
                if result.is_success() {
                    shared.keep(key, result).await;
                }
            }
            Ok(response)
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use mcp_runtime_core::{MCPToolCall, ToolError};

    use super::*;
    use crate::auth::Caller;
    use crate::context::options::CallOptions;
    use crate::layers::{BoxLayer, Selector};
    use crate::registry::Registry;

    /// A registry of `t.echo`, which answers with its arguments and its run's number (and
    /// fails when asked to), wrapped in `cache`.
    fn registry(cache: CacheLayer, runs: &Arc<AtomicUsize>) -> Registry {
        let runs = Arc::clone(runs);
        let definition = mcp_runtime_core::ToolDefinition::new(
            "t.echo",
            schemars::json_schema!({ "type": "object" }),
        )
        .unwrap();
        Registry::builder()
            .tool(definition, move |arguments, _| {
                let run = runs.fetch_add(1, Ordering::SeqCst) + 1;
                let answer = match arguments.get("fail") {
                    Some(Value::Bool(true)) => Err(ToolError::execution("asked to fail")),
                    _ => Ok(json!({ "run": run, "arguments": arguments })),
                };
                std::future::ready(answer)
            })
            .layer_for("t.echo".parse::<Selector>().unwrap(), BoxLayer::new(cache))
            .build()
            .unwrap()
    }

    async fn call(registry: &Registry, arguments: Value, caller: &str) -> MCPToolResult {
        let options = CallOptions::new().with_caller(Caller::Address(caller.into()));
        registry
            .call_with(MCPToolCall::new("t.echo", arguments).unwrap(), options)
            .await
    }

    fn cached_age(result: &MCPToolResult) -> Option<u64> {
        let note = result.meta()?.get(CACHE_META)?;
        assert_eq!(note["hit"], true);
        note["age_ms"].as_u64()
    }

    #[tokio::test]
    async fn a_second_call_is_answered_from_the_cache_whatever_its_keys_order() {
        let runs = Arc::new(AtomicUsize::new(0));
        let registry = registry(CacheLayer::new(Duration::from_secs(60)), &runs);
        let first = call(&registry, json!({ "a": 1, "b": { "y": 2, "x": 1 } }), "one").await;
        assert_eq!(cached_age(&first), None, "a miss is no cached answer");
        let second = call(&registry, json!({ "b": { "x": 1, "y": 2 }, "a": 1 }), "two").await;
        assert!(cached_age(&second).is_some(), "{second:?}");
        assert_eq!(second.data(), first.data());
        assert_eq!(runs.load(Ordering::SeqCst), 1);
        let other = call(&registry, json!({ "a": 2 }), "one").await;
        assert_eq!(cached_age(&other), None, "other arguments are another key");
        assert_eq!(runs.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn failures_are_not_cached() {
        let runs = Arc::new(AtomicUsize::new(0));
        let registry = registry(CacheLayer::new(Duration::from_secs(60)), &runs);
        for _ in 0..2 {
            let failed = call(&registry, json!({ "fail": true }), "one").await;
            assert!(!failed.is_success());
        }
        assert_eq!(runs.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn a_result_expires_after_its_ttl() {
        let runs = Arc::new(AtomicUsize::new(0));
        let registry = registry(CacheLayer::new(Duration::from_millis(200)), &runs);
        call(&registry, json!({}), "one").await;
        let cached = call(&registry, json!({}), "one").await;
        assert!(
            cached_age(&cached).is_some_and(|age| age < 200),
            "{cached:?}"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
        let fresh = call(&registry, json!({}), "one").await;
        assert_eq!(cached_age(&fresh), None, "{fresh:?}");
        assert_eq!(runs.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn a_scoped_tool_is_cached_per_caller() {
        let runs = Arc::new(AtomicUsize::new(0));
        let cache = CacheLayer::new(Duration::from_secs(60)).per_caller(["t.echo"]);
        let registry = registry(cache, &runs);
        call(&registry, json!({}), "one").await;
        let other = call(&registry, json!({}), "two").await;
        assert_eq!(cached_age(&other), None, "another caller misses");
        let again = call(&registry, json!({}), "one").await;
        assert!(cached_age(&again).is_some(), "the same caller hits");
        assert_eq!(runs.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn only_read_only_idempotent_tools_are_cacheable() {
        let schema = || schemars::json_schema!({ "type": "object" });
        let plain = ToolDefinition::new("t.x", schema()).unwrap();
        assert!(!cacheable(&plain));
        let annotations = mcp_runtime_core::ToolAnnotations {
            read_only: Some(true),
            idempotent: Some(true),
            ..Default::default()
        };
        assert!(cacheable(&plain.clone().with_annotations(annotations)));
    }
}
