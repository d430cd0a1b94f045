//! Rate limits per client: a client is an IP address (an IPv6 one its /64 network), each
//! allowed so many requests per period, a burst at once; past it, 429 with `Retry-After`.

use std::fmt;
use std::net::{IpAddr, Ipv6Addr};
use std::num::NonZeroU32;
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use governor::clock::Clock;
use governor::{DefaultKeyedRateLimiter, Quota};
use serde_json::json;

use super::reply::json_response;
use crate::server::fault::Fault;
use crate::server::jsonrpc::Id;

/// A per-client rate limit: each client may make `requests` requests per `period` on
/// average, and up to `burst` at once after a quiet spell (the GCRA of the `governor`
/// crate, a token bucket refilled one request at a time).
///
/// A client is an IP address; an IPv6 client is its /64 network, the block one host
/// usually has to itself. A request past the limit gets 429, a `Retry-After` header in
/// whole seconds, and a JSON-RPC error [`RATE_LIMITED`] that names the limit.
///
/// ```
/// use std::num::NonZeroU32;
/// use mcp_runtime::server::RateLimitConfig;
///
/// let limit: RateLimitConfig = "600/min".parse()?;
/// assert_eq!(limit, RateLimitConfig::per_minute(NonZeroU32::new(600).unwrap()));
/// let limit = limit.with_burst(NonZeroU32::new(20).unwrap());
/// assert_eq!(limit.to_string(), "600 requests per minute, at most 20 at once");
/// # Ok::<(), mcp_runtime::server::ParseRateLimitError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimitConfig {
    /// How many requests a client may make per `period`, sustained: one more is allowed
    /// every `period / requests`.
    pub requests: NonZeroU32,
    /// The period `requests` is counted over, such as one second or one minute. A zero
    /// period is taken as one nanosecond.
    pub period: Duration,
    /// How many requests a client may make at once, its allowance when it has made none
    /// for `burst × period / requests`. The constructors set it to `requests`.
    pub burst: NonZeroU32,
}

impl RateLimitConfig {
    /// `requests` per second, as many at once.
    pub const fn per_second(requests: NonZeroU32) -> Self {
        Self {
            requests,
            period: Duration::from_secs(1),
            burst: requests,
        }
    }

    /// `requests` per minute, as many at once.
    pub const fn per_minute(requests: NonZeroU32) -> Self {
        Self {
            requests,
            period: Duration::from_secs(60),
            burst: requests,
        }
    }

    /// The same rate, with `burst` requests allowed at once.
    #[must_use]
    pub const fn with_burst(mut self, burst: NonZeroU32) -> Self {
        self.burst = burst;
        self
    }

    /// The time in which one more request is allowed.
    fn interval(&self) -> Duration {
        (self.period / self.requests.get()).max(Duration::from_nanos(1))
    }

    fn quota(&self) -> Quota {
        Quota::with_period(self.interval())
            .expect("the interval is never zero")
            .allow_burst(self.burst)
    }
}

impl fmt::Display for RateLimitConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let requests = self.requests.get();
        let noun = if requests == 1 { "request" } else { "requests" };
        write!(f, "{requests} {noun} per ")?;
        match self.period.as_millis() {
            1_000 => f.write_str("second")?,
            60_000 => f.write_str("minute")?,
            3_600_000 => f.write_str("hour")?,
            ms if ms % 1_000 == 0 => write!(f, "{} s", ms / 1_000)?,
            ms => write!(f, "{ms} ms")?,
        }
        write!(f, ", at most {} at once", self.burst)
    }
}

/// `N`, `N/s` or `N/min`: `N` requests per second or per minute, as many at once.
impl FromStr for RateLimitConfig {
    type Err = ParseRateLimitError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let error = || ParseRateLimitError {
            text: text.to_owned(),
        };
        let (count, per) = text.trim().split_once('/').unwrap_or((text.trim(), "s"));
        let requests = count.trim().parse::<NonZeroU32>().map_err(|_| error())?;
        match per.trim() {
            "s" | "sec" | "second" => Ok(Self::per_second(requests)),
            "min" | "minute" => Ok(Self::per_minute(requests)),
            _ => Err(error()),
        }
    }
}

/// A rate limit that is not `N`, `N/s` or `N/min` with `N` a positive integer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseRateLimitError {
    text: String,
}

impl fmt::Display for ParseRateLimitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}` is not a rate limit: write N, N/s or N/min, N a positive integer",
            self.text
        )
    }
}

impl std::error::Error for ParseRateLimitError {}

pub use mcp_runtime_core::wire::RATE_LIMITED;

/// After this many checks, the limiter forgets the clients whose allowance is full again,
/// so that its memory follows the clients active lately, not every client ever seen.
const SWEEP_EVERY: u64 = 1024;

/// The rate limiter of an HTTP endpoint: one allowance per client.
pub(super) struct ClientLimiter {
    pub(super) config: RateLimitConfig,
    limiter: DefaultKeyedRateLimiter<IpAddr>,
    checks: AtomicU64,
}

impl ClientLimiter {
    pub(super) fn new(config: RateLimitConfig) -> Self {
        Self {
            config,
            limiter: DefaultKeyedRateLimiter::keyed(config.quota()),
            checks: AtomicU64::new(0),
        }
    }

    /// Counts a request of `client`: `Err` with the time to wait when it is past its limit.
    pub(super) fn check(&self, client: IpAddr) -> Result<(), Duration> {
        if self.checks.fetch_add(1, Ordering::Relaxed) % SWEEP_EVERY == SWEEP_EVERY - 1 {
            self.sweep();
        }
        self.limiter
            .check_key(&client_key(client))
            .map_err(|not_until| not_until.wait_time_from(self.limiter.clock().now()))
    }

    /// Forgets the clients whose allowance is full: they would start afresh anyway.
    fn sweep(&self) {
        self.limiter.retain_recent();
        self.limiter.shrink_to_fit();
    }
}

/// Who a rate limit counts a request against: an IPv4 address (an IPv4-mapped IPv6 one
/// too), or the /64 network of an IPv6 one.
fn client_key(address: IpAddr) -> IpAddr {
    match address.to_canonical() {
        IpAddr::V6(v6) => {
            let network = u128::from(v6) & !u128::from(u64::MAX);
            IpAddr::V6(Ipv6Addr::from(network))
        }
        v4 => v4,
    }
}

/// 429 for a client past `limit`, told to come back in `wait`, rounded up to whole seconds
/// (at least one). The body is not read, so the error carries no id, as for a message that
/// could not be read: reading it is the work the limit saves.
pub(super) fn rate_limited(limit: &RateLimitConfig, wait: Duration) -> Response {
    let seconds = (wait.as_secs() + u64::from(wait.subsec_nanos() > 0)).max(1);
    let fault = Fault::new(
        RATE_LIMITED,
        format!("too many requests: this server allows each client {limit}; retry in {seconds} s"),
    )
    .with_data(json!({
        "limit": {
            "requests": limit.requests.get(),
            "periodMs": u64::try_from(limit.period.as_millis()).unwrap_or(u64::MAX),
            "burst": limit.burst.get(),
        },
        "retryAfterSeconds": seconds,
    }));
    let mut response = json_response(
        StatusCode::TOO_MANY_REQUESTS,
        crate::server::fault_response(&Id::NONE, fault),
    );
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
    response
}

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;

    use super::*;

    fn n(value: u32) -> NonZeroU32 {
        NonZeroU32::new(value).unwrap()
    }

    #[test]
    fn rate_limits_are_read_per_second_or_per_minute() {
        assert_eq!("5".parse(), Ok(RateLimitConfig::per_second(n(5))));
        assert_eq!("5/s".parse(), Ok(RateLimitConfig::per_second(n(5))));
        assert_eq!(" 90/min ".parse(), Ok(RateLimitConfig::per_minute(n(90))));
        for wrong in ["", "0", "0/s", "-1/s", "5/h", "five/s", "5/", "/s", "1.5/s"] {
            let err = wrong.parse::<RateLimitConfig>().expect_err(wrong);
            assert!(err.to_string().contains("N/min"), "{err}");
        }
        assert_eq!(
            RateLimitConfig::per_second(n(1)).to_string(),
            "1 request per second, at most 1 at once"
        );
        let odd = RateLimitConfig {
            requests: n(3),
            period: Duration::from_secs(10),
            burst: n(6),
        };
        assert_eq!(odd.to_string(), "3 requests per 10 s, at most 6 at once");
    }

    #[test]
    fn a_client_is_an_ipv4_address_or_an_ipv6_network() {
        let v4: IpAddr = "192.0.2.7".parse().unwrap();
        assert_eq!(client_key(v4), v4);
        let mapped: IpAddr = "::ffff:192.0.2.7".parse().unwrap();
        assert_eq!(
            client_key(mapped),
            v4,
            "an IPv4 client on a dual-stack socket"
        );
        let one: IpAddr = "2001:db8:1:2:aaaa::1".parse().unwrap();
        let other: IpAddr = "2001:db8:1:2:bbbb::9".parse().unwrap();
        let elsewhere: IpAddr = "2001:db8:1:3::1".parse().unwrap();
        assert_eq!(client_key(one), "2001:db8:1:2::".parse::<IpAddr>().unwrap());
        assert_eq!(client_key(one), client_key(other));
        assert_ne!(client_key(one), client_key(elsewhere));
    }

    #[test]
    fn the_limiter_refuses_past_the_burst_and_says_how_long_to_wait() {
        let limiter = ClientLimiter::new(RateLimitConfig::per_minute(n(2)));
        let client: IpAddr = "192.0.2.1".parse().unwrap();
        assert_eq!(limiter.check(client), Ok(()));
        assert_eq!(limiter.check(client), Ok(()));
        let wait = limiter.check(client).expect_err("past the burst");
        assert!(
            wait > Duration::from_secs(25) && wait <= Duration::from_secs(30),
            "{wait:?}"
        );
        assert_eq!(limiter.check("192.0.2.2".parse().unwrap()), Ok(()));
    }

    #[test]
    fn the_limiter_forgets_clients_whose_allowance_is_full() {
        let limiter = ClientLimiter::new(RateLimitConfig::per_second(n(100)));
        for last in 0..=255u8 {
            limiter
                .check(IpAddr::V4(Ipv4Addr::new(198, 51, 100, last)))
                .unwrap();
        }
        assert_eq!(limiter.limiter.len(), 256);
        // Past `burst × period / requests` (10 ms), every allowance is full again.
        std::thread::sleep(Duration::from_millis(50));
        limiter.sweep();
        assert_eq!(limiter.limiter.len(), 0);

        // The sweep also comes by itself, every SWEEP_EVERY checks.
        let busy = ClientLimiter::new(RateLimitConfig::per_minute(n(1)));
        let quiet = ClientLimiter::new(RateLimitConfig::per_second(n(1000)));
        for i in 0..SWEEP_EVERY - 1 {
            let client = IpAddr::V4(Ipv4Addr::from(u32::try_from(i).unwrap()));
            busy.check(client).unwrap();
            quiet.check(client).unwrap();
        }
        std::thread::sleep(Duration::from_millis(50));
        let last = IpAddr::V4(Ipv4Addr::new(203, 0, 113, 1));
        busy.check(last).unwrap();
        quiet.check(last).unwrap();
        assert_eq!(
            busy.limiter.len(),
            usize::try_from(SWEEP_EVERY).unwrap(),
            "a client refilling for a minute is remembered"
        );
        assert_eq!(quiet.limiter.len(), 1, "only the client of the last check");
    }
}
