//! The clock that times operations: the processor's counter where it ticks at a constant
//! rate, as `quanta` reads and scales it (a few nanoseconds a read, where the system's
//! monotonic clock takes several times that), the monotonic clock where it does not.
//! Every operation reads it twice, as it begins and as it ends.

use std::sync::OnceLock;
#[cfg(feature = "otel")]
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// A moment, as the clock read it: comparable only with the clock's other moments.
#[derive(Debug, Clone, Copy)]
pub(super) struct Moment(u64);

/// The clock, calibrated the first time it is read (well under a millisecond, where the
/// counter ticks steadily).
fn clock() -> &'static quanta::Clock {
    static CLOCK: OnceLock<quanta::Clock> = OnceLock::new();
    CLOCK.get_or_init(quanta::Clock::new)
}

/// Calibrates the clock, where it is not yet: its first read would otherwise.
pub(super) fn calibrate() {
    let _ = clock();
}

/// Now.
pub(super) fn now() -> Moment {
    Moment(clock().raw())
}

impl Moment {
    /// The nanoseconds from this moment to `later`: none where `later` is not later.
    pub(super) fn nanos_until(self, later: Moment) -> u64 {
        clock().delta_as_nanos(self.0, later.0)
    }

    /// The time since this moment.
    pub(super) fn elapsed(self) -> Duration {
        Duration::from_nanos(self.nanos_until(now()))
    }
}

/// The spans' wall clock, read from the clock that times their operations: a span's start
/// is the wall-clock time its operation began at, with no clock read of its own. The
/// exporter sets it from the wall clock at each batch, so that the wall clock's changes show
/// within a batch's delay.
#[cfg(feature = "otel")]
#[derive(Debug)]
pub(super) struct WallClock {
    base: Moment,
    /// The wall-clock time at `base`, in nanoseconds since the Unix epoch, as last set.
    pub(super) at_base: AtomicU64,
}

#[cfg(feature = "otel")]
impl Default for WallClock {
    fn default() -> Self {
        let clock = Self {
            base: now(),
            at_base: AtomicU64::new(0),
        };
        clock.set();
        clock
    }
}

#[cfg(feature = "otel")]
impl WallClock {
    /// Reads the wall clock.
    pub(super) fn set(&self) {
        let since = self.base.nanos_until(now());
        self.at_base
            .store(unix_nanos().saturating_sub(since), Ordering::Relaxed);
    }

    /// The wall-clock time of `at`, in nanoseconds since the Unix epoch.
    pub(super) fn unix_nanos_at(&self, at: Moment) -> u64 {
        self.at_base
            .load(Ordering::Relaxed)
            .saturating_add(self.base.nanos_until(at))
    }
}

/// Now, in nanoseconds since the Unix epoch.
#[cfg(feature = "otel")]
pub(super) fn unix_nanos() -> u64 {
    use std::time::{SystemTime, UNIX_EPOCH};
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| {
            u64::try_from(since.as_nanos()).unwrap_or(u64::MAX)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_measures_what_the_monotonic_clock_measures() {
        let (start, std_start) = (now(), std::time::Instant::now());
        std::thread::sleep(Duration::from_millis(20));
        let (elapsed, std_elapsed) = (start.elapsed(), std_start.elapsed());
        let (elapsed, std_elapsed) = (elapsed.as_secs_f64(), std_elapsed.as_secs_f64());
        assert!(elapsed >= 0.019, "{elapsed}");
        assert!(
            (elapsed - std_elapsed).abs() < 0.002 + std_elapsed * 0.01,
            "{elapsed} against {std_elapsed}"
        );
        let later = now();
        assert_eq!(
            later.nanos_until(start),
            0,
            "an earlier moment is none later"
        );
    }
}
