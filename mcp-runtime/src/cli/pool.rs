//! The per-tool concurrency limits of `serve`, and the threads synchronous tools run on.

use std::num::NonZeroUsize;

use clap::Args;

use crate::layers::BoxLayer;
use crate::layers::ConcurrencyLayer;
use crate::service::{Selector, SelectorError};

use super::CliError;

/// The per-tool concurrency limits of `serve`, and the threads synchronous tools run on.
#[derive(Args, Debug, Default, Clone)]
pub(super) struct PoolArgs {
    /// At most N calls at once of the tools SELECTOR picks (a tool's name, `namespace.*`,
    /// `tag:NAME` or `category:NAME`), all of them together (repeatable). The others wait
    /// for one to end, up to their own timeout (a tool's `timeout`, else 60 s), then fail with
    /// `ApiLimitExceeded`.
    #[arg(long = "tool-concurrency", value_name = "SELECTOR=N", value_parser = ToolConcurrency::parse)]
    tool_concurrency: Vec<ToolConcurrency>,
    /// Run synchronous tools (neither `async` nor `inline`) on at most N threads at once;
    /// a call past them waits, up to its timeout, then fails with `ApiLimitExceeded`.
    /// 64 by default.
    #[arg(long = "blocking-threads", value_name = "N", value_parser = parse_threads)]
    blocking_threads: Option<NonZeroUsize>,
}

impl PoolArgs {
    /// The layers these flags put around the calls of the served tools, each with the
    /// selector of the tools it wraps: one [`ConcurrencyLayer`] per `--tool-concurrency`,
    /// whose calls wait at most their own timeout. Sets the threads of
    /// synchronous tools of the registry `serve` serves and of its runtime's blocking
    /// pool, at `--blocking-threads` (the default without it).
    pub(super) fn layers(&self) -> Result<Vec<(Option<Selector>, BoxLayer)>, CliError> {
        super::limit_blocking_threads(self.blocking_threads);
        Ok(self
            .tool_concurrency
            .iter()
            .map(|limit| {
                let layer = ConcurrencyLayer::new(limit.limit);
                (Some(limit.selector.clone()), BoxLayer::new(layer))
            })
            .collect())
    }
}

/// One `--tool-concurrency SELECTOR=N`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ToolConcurrency {
    selector: Selector,
    limit: NonZeroUsize,
}

/// A `--tool-concurrency` or `--blocking-threads` value that is none.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum PoolFlagError {
    /// No `=` between the selector and the number.
    #[error(
        "`{0}` is not SELECTOR=N (e.g. `weather.*=4`: a tool's name, `namespace.*`, `tag:NAME` or `category:NAME`, `=`, then how many calls at once, at least 1)"
    )]
    NoEquals(String),
    /// The selector names nothing.
    #[error("{0} (SELECTOR=N, e.g. `weather.*=4`)")]
    Selector(#[from] SelectorError),
    /// A number of calls that is not a whole number above 0.
    #[error("`{0}` is not a number above 0 (SELECTOR=N, e.g. `weather.*=4`)")]
    Limit(String),
    /// A number of threads that is not a whole number above 0.
    #[error("`{0}` is not a number above 0 (a number of threads, e.g. `--blocking-threads 16`)")]
    Threads(String),
}

impl ToolConcurrency {
    /// `SELECTOR=N`, N above 0; the last `=` splits them.
    fn parse(text: &str) -> Result<Self, PoolFlagError> {
        let (selector, limit) = text
            .rsplit_once('=')
            .ok_or_else(|| PoolFlagError::NoEquals(text.to_owned()))?;
        Ok(Self {
            selector: selector.trim().parse()?,
            limit: count(limit).ok_or_else(|| PoolFlagError::Limit(limit.to_owned()))?,
        })
    }
}

/// `--blocking-threads N`, N above 0.
fn parse_threads(text: &str) -> Result<NonZeroUsize, PoolFlagError> {
    count(text).ok_or_else(|| PoolFlagError::Threads(text.to_owned()))
}

/// A whole number above 0, if `text` is one.
fn count(text: &str) -> Option<NonZeroUsize> {
    text.trim().parse::<NonZeroUsize>().ok()
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;

    #[derive(Parser, Debug)]
    struct Cli {
        #[command(flatten)]
        pool: PoolArgs,
    }

    fn parse(args: &[&str]) -> Result<PoolArgs, clap::Error> {
        Cli::try_parse_from(std::iter::once("serve").chain(args.iter().copied()))
            .map(|cli| cli.pool)
    }

    #[test]
    fn tool_concurrency_takes_a_selector_and_a_count_and_repeats() {
        let pool = parse(&[
            "--tool-concurrency",
            "weather.*=4",
            "--tool-concurrency",
            "tag:io=1",
            "--blocking-threads",
            "8",
        ])
        .expect("parsed");
        assert_eq!(
            pool.tool_concurrency,
            [
                ToolConcurrency {
                    selector: Selector::Namespace("weather".into()),
                    limit: NonZeroUsize::new(4).expect("not zero"),
                },
                ToolConcurrency {
                    selector: Selector::Tag("io".into()),
                    limit: NonZeroUsize::MIN,
                },
            ]
        );
        assert_eq!(pool.blocking_threads, NonZeroUsize::new(8));
        assert_eq!(parse(&[]).expect("parsed").blocking_threads, None);
    }

    #[test]
    fn malformed_values_are_usage_errors_that_show_the_form() {
        for (flag, value, says) in [
            ("--tool-concurrency", "x.y=0", "`0` is not a number above 0"),
            (
                "--tool-concurrency",
                "x.y=abc",
                "`abc` is not a number above 0",
            ),
            ("--tool-concurrency", "x.y", "`x.y` is not SELECTOR=N"),
            ("--tool-concurrency", "a*=2", "`a*` is not a selector"),
            ("--blocking-threads", "0", "`0` is not a number above 0"),
            ("--blocking-threads", "-3", "`-3` is not a number above 0"),
        ] {
            let form = if flag == "--blocking-threads" {
                "e.g. `--blocking-threads 16`"
            } else {
                "e.g. `weather.*=4`"
            };
            let refused = parse(&[&format!("{flag}={value}")]).expect_err(value);
            assert_eq!(refused.kind(), clap::error::ErrorKind::ValueValidation);
            let message = refused.to_string();
            assert!(message.contains(says), "{value}: {message}");
            assert!(message.contains(form), "{value}: {message}");
            assert_eq!(refused.exit_code(), 2);
        }
    }
}
