//! How long a connection has waited for a request's headers, known from outside hyper.
//!
//! A connection waits for headers when none of its requests is being answered: from when it
//! opens, and from when the last answer's body ends (hyper reads no request while it writes
//! an answer, a stream of notifications included). Each request is counted from when hyper
//! hands it over until its answer's body is dropped, which hyper does once it has written
//! the body or gives up on it.
//!
//! hyper's own header timeout makes, registers and takes out a timer for every request
//! (about 1,400 instructions a request, 5%); here a request costs two counts and a clock
//! read, and a connection keeps one timer, set again when it rings early.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use hyper::body::{Body, Frame, SizeHint};
use tokio::time::Instant;

/// One connection's requests being answered, and since when none has been.
#[derive(Debug)]
pub(super) struct Idle {
    /// How long it may wait for a request's headers.
    timeout: Duration,
    /// When the connection was served: the counts below are from it.
    opened: Instant,
    /// Requests handed over whose answers' bodies have not been dropped.
    answering: AtomicUsize,
    /// When the last of those ended, in nanoseconds since `opened`.
    since: AtomicU64,
}

/// What [`Idle::waited`] found.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Waited {
    /// The connection has waited for headers its timeout or longer.
    Over,
    /// Not yet: ask again at this instant.
    AskAt(Instant),
}

impl Idle {
    /// A connection opened now, which may wait `timeout` for each request's headers.
    pub(super) fn new(timeout: Duration) -> Arc<Self> {
        Arc::new(Self {
            timeout,
            opened: Instant::now(),
            answering: AtomicUsize::new(0),
            since: AtomicU64::new(0),
        })
    }

    /// When to ask first whether the connection has waited its timeout for headers.
    pub(super) fn first_ask(&self) -> Instant {
        self.opened + self.timeout
    }

    /// Whether, at `now`, the connection has waited its timeout or longer for headers.
    pub(super) fn waited(&self, now: Instant) -> Waited {
        if self.answering.load(Ordering::Relaxed) > 0 {
            return Waited::AskAt(now + self.timeout);
        }
        let since = self.opened + Duration::from_nanos(self.since.load(Ordering::Relaxed));
        let due = since + self.timeout;
        if now >= due {
            Waited::Over
        } else {
            Waited::AskAt(due)
        }
    }

    /// A request handed over: counted until the returned guard is dropped.
    pub(super) fn answering(self: &Arc<Self>) -> Answering {
        self.answering.fetch_add(1, Ordering::Relaxed);
        Answering(Arc::clone(self))
    }
}

/// One request being answered; when the last such is dropped, the connection waits again.
#[derive(Debug)]
pub(super) struct Answering(Arc<Idle>);

impl Drop for Answering {
    fn drop(&mut self) {
        let idle = &self.0;
        if idle.answering.fetch_sub(1, Ordering::Relaxed) == 1 {
            let since = Instant::now().saturating_duration_since(idle.opened);
            let nanos = u64::try_from(since.as_nanos()).unwrap_or(u64::MAX);
            idle.since.store(nanos, Ordering::Relaxed);
        }
    }
}

/// An answer's body, which holds its request's [`Answering`] until hyper drops it.
#[derive(Debug)]
pub(super) struct Tracked<B> {
    body: B,
    _answering: Answering,
}

impl<B> Tracked<B> {
    pub(super) fn new(body: B, answering: Answering) -> Self {
        Self {
            body,
            _answering: answering,
        }
    }
}

impl<B: Body + Unpin> Body for Tracked<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TIMEOUT: Duration = Duration::from_secs(30);

    #[tokio::test(start_paused = true)]
    async fn a_connection_waits_from_its_opening_and_from_its_last_answers_end() {
        let idle = Idle::new(TIMEOUT);
        let opened = Instant::now();
        assert_eq!(idle.first_ask(), opened + TIMEOUT);
        tokio::time::advance(Duration::from_secs(10)).await;
        assert_eq!(idle.waited(Instant::now()), Waited::AskAt(opened + TIMEOUT));

        // Two requests answered at once: the connection waits once both have ended.
        let first = idle.answering();
        let second = idle.answering();
        tokio::time::advance(TIMEOUT * 2).await;
        let now = Instant::now();
        assert_eq!(idle.waited(now), Waited::AskAt(now + TIMEOUT));
        drop(first);
        tokio::time::advance(Duration::from_secs(5)).await;
        let now = Instant::now();
        assert_eq!(idle.waited(now), Waited::AskAt(now + TIMEOUT));
        drop(second);
        let ended = Instant::now();
        tokio::time::advance(TIMEOUT - Duration::from_secs(1)).await;
        assert_eq!(idle.waited(Instant::now()), Waited::AskAt(ended + TIMEOUT));
        tokio::time::advance(Duration::from_secs(1)).await;
        assert_eq!(idle.waited(Instant::now()), Waited::Over);
    }

    #[tokio::test]
    async fn a_tracked_body_is_its_body_and_ends_its_answer_when_dropped() {
        use http_body_util::BodyExt;
        let idle = Idle::new(TIMEOUT);
        let body = Tracked::new(axum::body::Body::from("answer"), idle.answering());
        assert_eq!(body.size_hint().exact(), Some(6));
        assert_eq!(idle.answering.load(Ordering::Relaxed), 1);
        let read = body.collect().await.unwrap().to_bytes();
        assert_eq!(&read[..], b"answer");
        assert_eq!(idle.answering.load(Ordering::Relaxed), 0);
    }
}
