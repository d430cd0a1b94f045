//! Log messages a server sends its client (MCP's `notifications/message`), at the levels of
//! syslog (RFC 5424).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How severe a log message is, from `Debug` to `Emergency`; a client asks for those at or
/// above a level.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LoggingLevel {
    /// Detail for debugging.
    Debug,
    /// Informational.
    Info,
    /// Normal but significant.
    Notice,
    /// A warning.
    Warning,
    /// An error.
    Error,
    /// A critical condition.
    Critical,
    /// Action must be taken at once.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LoggingLevel {
    /// Every level, from the least severe.
    pub const ALL: [Self; 8] = [
        Self::Debug,
        Self::Info,
        Self::Notice,
        Self::Warning,
        Self::Error,
        Self::Critical,
        Self::Alert,
        Self::Emergency,
    ];

    /// The level as MCP writes it: `debug`, `info`, … `emergency`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Debug => "debug",
            Self::Info => "info",
            Self::Notice => "notice",
            Self::Warning => "warning",
            Self::Error => "error",
            Self::Critical => "critical",
            Self::Alert => "alert",
            Self::Emergency => "emergency",
        }
    }
}

impl fmt::Display for LoggingLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A level that is none of MCP's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "`{0}` is not a log level: expected one of debug, info, notice, warning, error, critical, alert, emergency"
)]
pub struct UnknownLevel(pub String);

impl FromStr for LoggingLevel {
    type Err = UnknownLevel;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|level| level.as_str() == text)
            .ok_or_else(|| UnknownLevel(text.to_owned()))
    }
}

/// One log message (the params of `notifications/message`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LogMessage {
    /// How severe.
    pub level: LoggingLevel,
    /// Who logged it: the framework names the tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logger: Option<String>,
    /// What was logged: a string or any JSON value.
    pub data: Value,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_are_ordered_and_read_as_written() {
        for pair in LoggingLevel::ALL.windows(2) {
            assert!(pair[0] < pair[1], "{} < {}", pair[0], pair[1]);
        }
        for level in LoggingLevel::ALL {
            assert_eq!(level.as_str().parse(), Ok(level));
            assert_eq!(
                serde_json::to_value(level).unwrap(),
                Value::String(level.to_string())
            );
        }
        assert_eq!(
            "warn".parse::<LoggingLevel>(),
            Err(UnknownLevel("warn".to_owned()))
        );
        assert!(serde_json::from_str::<LoggingLevel>(r#""INFO""#).is_err());
    }
}
