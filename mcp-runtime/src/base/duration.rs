//! A duration as messages write it.

use std::time::Duration;

/// `duration` in whole seconds (`5s`), or in milliseconds when it has a fraction of a
/// second (`1500ms`).
pub(crate) fn format_duration(duration: Duration) -> String {
    if duration.subsec_nanos() == 0 {
        format!("{}s", duration.as_secs())
    } else {
        format!("{}ms", duration.as_millis())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_seconds_are_written_in_seconds_and_the_rest_in_milliseconds() {
        assert_eq!(format_duration(Duration::from_secs(5)), "5s");
        assert_eq!(format_duration(Duration::from_millis(1500)), "1500ms");
        assert_eq!(format_duration(Duration::ZERO), "0s");
    }
}
