//! The per-tool rate limits and result cache of `serve`, and where their state lives.

use std::time::Duration;

use clap::Args;

use crate::layers::BoxLayer;
use crate::layers::{
    CacheLayer, LimitStore, OnFailure, Quota, RateLimitLayer, SelectorError, cacheable,
};
use crate::registry::Registry;
use crate::service::Selector;

use super::CliError;

/// The per-tool rate limits and result cache of `serve`, and where their state lives.
#[derive(Args, Debug, Default, Clone)]
pub(super) struct LimitArgs {
    /// Limits each caller to N calls per PERIOD (`s`, `min` or `h`) of each tool SELECTOR
    /// picks (a name, `namespace.*`, `tag:NAME` or `category:NAME`). The caller is the
    /// OAuth subject, else the session, else the client's address, else the stdio
    /// connection. Past the limit a call fails with `ApiLimitExceeded` and
    /// `retry_after_ms`. Repeatable.
    #[arg(long = "tool-rate-limit", value_name = "SELECTOR=N/PERIOD", value_parser = rate_spec)]
    tool_rate_limit: Vec<RateSpec>,
    /// Keeps the successful results of the tools SELECTOR picks for TTL (`30s`, `5m`),
    /// keyed by their arguments (and by caller for tools that need OAuth scopes). Only
    /// tools marked both read_only and idempotent may be cached. Repeatable.
    #[arg(long = "tool-cache", value_name = "SELECTOR=TTL", value_parser = cache_spec)]
    tool_cache: Vec<CacheSpec>,
    /// Where the rate limits and the cache keep their state: `memory` (this process, the
    /// default) or a Redis URL shared by every replica, so that N per minute means N
    /// across them. Redis needs the `redis` feature.
    #[arg(
        long,
        value_name = "memory|redis://HOST:PORT",
        default_value = "memory",
        value_parser = store_spec
    )]
    limit_store: StoreSpec,
    /// What a rate-limited call does while the limit store cannot be reached: `closed`
    /// (the default) refuses it, `open` lets it through unlimited. A cache always lets it
    /// through.
    #[arg(long, value_name = "open|closed", default_value = "closed")]
    limit_store_fail: OnFailure,
    /// The prefix of the Redis limit store's keys, so that several apps share one Redis.
    #[arg(long, value_name = "NAMESPACE", default_value = "mcp-runtime")]
    limit_namespace: String,
}

/// One `--tool-rate-limit`.
#[derive(Debug, Clone)]
pub(super) struct RateSpec {
    selector: Selector,
    quota: Quota,
}

/// One `--tool-cache`.
#[derive(Debug, Clone)]
pub(super) struct CacheSpec {
    selector: Selector,
    ttl: Duration,
}

/// `--limit-store`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) enum StoreSpec {
    /// This process's memory.
    #[default]
    Memory,
    /// A Redis, by its URL.
    Redis(String),
}

/// A limit flag's value that cannot be followed, as clap shows it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(super) enum LimitFlagError {
    /// `--tool-rate-limit` not written `SELECTOR=N/PERIOD`.
    #[error(
        "`{0}` is not SELECTOR=N/PERIOD: N a whole number above 0, PERIOD `s`, `min` or `h` (e.g. `weather.*=5/min`)"
    )]
    Rate(String),
    /// `--tool-cache` not written `SELECTOR=TTL`.
    #[error(
        "`{0}` is not SELECTOR=TTL: TTL a duration above 0 such as `30s` or `5m` (e.g. `calculator.add=30s`)"
    )]
    Cache(String),
    /// A selector that is none.
    #[error(transparent)]
    Selector(#[from] SelectorError),
    /// `--limit-store` neither `memory` nor a Redis URL.
    #[error("`{0}` is no limit store: write `memory` or a Redis URL (redis://HOST:PORT)")]
    Store(String),
}

/// `SELECTOR=VALUE`, the selector parsed.
fn selector_and(text: &str, wrong: LimitFlagError) -> Result<(Selector, &str), LimitFlagError> {
    let (selector, value) = text.rsplit_once('=').ok_or(wrong)?;
    Ok((selector.trim().parse()?, value.trim()))
}

fn rate_spec(text: &str) -> Result<RateSpec, LimitFlagError> {
    let wrong = || LimitFlagError::Rate(text.to_owned());
    let (selector, quota) = selector_and(text, wrong())?;
    let quota = quota.parse().map_err(|_| wrong())?;
    Ok(RateSpec { selector, quota })
}

fn cache_spec(text: &str) -> Result<CacheSpec, LimitFlagError> {
    let wrong = || LimitFlagError::Cache(text.to_owned());
    let (selector, ttl) = selector_and(text, wrong())?;
    let ttl = humantime::parse_duration(ttl).map_err(|_| wrong())?;
    if ttl.is_zero() {
        return Err(wrong());
    }
    Ok(CacheSpec { selector, ttl })
}

fn store_spec(text: &str) -> Result<StoreSpec, LimitFlagError> {
    if text == "memory" {
        return Ok(StoreSpec::Memory);
    }
    let redis = ["redis://", "rediss://", "unix://"]
        .iter()
        .any(|scheme| text.starts_with(scheme));
    if redis {
        Ok(StoreSpec::Redis(text.to_owned()))
    } else {
        Err(LimitFlagError::Store(text.to_owned()))
    }
}

impl LimitArgs {
    /// The layers these flags put around the calls of `registry`'s tools, each with the
    /// selector of the tools it wraps: the caches outermost (a cached answer spends no
    /// call of a rate limit), then the rate limits.
    pub(super) fn layers(
        &self,
        registry: &Registry,
    ) -> Result<Vec<(Option<Selector>, BoxLayer)>, CliError> {
        if self.tool_rate_limit.is_empty() && self.tool_cache.is_empty() {
            return Ok(Vec::new());
        }
        let store = self.store()?;
        let mut layers = Vec::new();
        for CacheSpec { selector, ttl } in &self.tool_cache {
            let picked: Vec<_> = registry
                .list()
                .map(|tool| tool.definition())
                .filter(|definition| selector.matches_tool(definition))
                .collect();
            if let Some(refused) = picked.iter().find(|definition| !cacheable(definition)) {
                return Err(CliError::NotCacheable {
                    selector: selector.to_string(),
                    tool: refused.name().to_string(),
                });
            }
            let scoped = picked
                .iter()
                .filter(|definition| !definition.scopes().is_empty())
                .map(|definition| definition.name().to_string());
            let cache = CacheLayer::new(*ttl)
                .store(store.clone())
                .per_caller(scoped);
            layers.push((Some(selector.clone()), BoxLayer::new(cache)));
        }
        for RateSpec { selector, quota } in &self.tool_rate_limit {
            // Named by its selector: two limits of one tool with the same quota count
            // apart in a shared store too.
            let limit = RateLimitLayer::new(*quota)
                .named(&selector.to_string())
                .store(store.clone());
            layers.push((Some(selector.clone()), BoxLayer::new(limit)));
        }
        Ok(layers)
    }

    /// The store `--limit-store` names, following `--limit-store-fail`.
    fn store(&self) -> Result<LimitStore, CliError> {
        let store = match &self.limit_store {
            StoreSpec::Memory => LimitStore::memory(),
            #[cfg(feature = "redis")]
            StoreSpec::Redis(url) => LimitStore::redis(url, &self.limit_namespace)?,
            #[cfg(not(feature = "redis"))]
            StoreSpec::Redis(url) => return Err(CliError::LimitStoreNoRedis(url.clone())),
        };
        Ok(store.with_on_failure(self.limit_store_fail))
    }
}

#[cfg(test)]
mod tests {
    use super::super::Command;
    use super::super::tests::parse;
    use super::*;

    fn limits(args: &[&str]) -> Result<LimitArgs, String> {
        let mut line = vec!["serve", "--stdio"];
        line.extend_from_slice(args);
        match parse(&line) {
            Ok(Command::Serve(serve)) => Ok(serve.limits),
            Ok(_) => Err("not serve".to_owned()),
            Err(err) => Err(err.to_string()),
        }
    }

    #[test]
    fn limit_flags_parse_and_repeat() {
        let parsed = limits(&[
            "--tool-rate-limit",
            "weather.*=5/min",
            "--tool-rate-limit",
            "tag:net=2/s",
            "--tool-cache",
            "calculator.add=30s",
            "--limit-store-fail",
            "open",
        ])
        .unwrap();
        assert_eq!(parsed.tool_rate_limit.len(), 2);
        assert_eq!(parsed.tool_rate_limit[0].selector.to_string(), "weather.*");
        assert_eq!(parsed.tool_rate_limit[1].quota.to_string(), "2/s");
        assert_eq!(parsed.tool_cache[0].ttl, Duration::from_secs(30));
        assert_eq!(parsed.limit_store, StoreSpec::Memory);
        assert_eq!(parsed.limit_store_fail, OnFailure::Open);
        let defaults = limits(&[]).unwrap();
        assert_eq!(defaults.limit_store_fail, OnFailure::Closed);
        assert_eq!(defaults.limit_namespace, "mcp-runtime");
    }

    #[test]
    fn malformed_limits_are_refused_showing_the_accepted_form() {
        for wrong in ["a.b=3/fortnight", "a.b=0/min", "a.b=x/min", "a.b"] {
            let refused = limits(&["--tool-rate-limit", wrong]).unwrap_err();
            assert!(refused.contains("SELECTOR=N/PERIOD"), "{wrong}: {refused}");
        }
        for wrong in ["a.b=forever", "a.b=0s", "a.b"] {
            let refused = limits(&["--tool-cache", wrong]).unwrap_err();
            assert!(refused.contains("SELECTOR=TTL"), "{wrong}: {refused}");
        }
        let refused = limits(&["--tool-rate-limit", "a*=3/min"]).unwrap_err();
        assert!(refused.contains("namespace.*"), "{refused}");
        let refused = limits(&["--limit-store", "mysql://x"]).unwrap_err();
        assert!(refused.contains("redis://HOST:PORT"), "{refused}");
        let refused = limits(&["--limit-store-fail", "ajar"]).unwrap_err();
        assert!(refused.contains("`open` or `closed`"), "{refused}");
    }
}
