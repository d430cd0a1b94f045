//! The log of the process's own command line: `tracing`'s events, as text on standard
//! error, at the level `RUST_LOG` asks for, or else `-v`/`-q`.

use std::io::IsTerminal;

use clap::Args;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::layer::SubscriberExt;

/// How much the command logs to standard error.
#[derive(Args, Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct Verbosity {
    /// Log more: debug events (`-v`), then trace events (`-vv`). `RUST_LOG`, when set,
    /// decides instead, with `tracing-subscriber`'s `EnvFilter` syntax
    /// (`RUST_LOG=info,my_app=debug`).
    #[arg(short, long, action = clap::ArgAction::Count, global = true, conflicts_with = "quiet")]
    verbose: u8,
    /// Log less: errors only (`-q`), then nothing (`-qq`).
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    quiet: u8,
}

/// The levels, quietest first.
const LEVELS: [&str; 6] = ["off", "error", "warn", "info", "debug", "trace"];

impl Verbosity {
    /// The filter with no `RUST_LOG`: `info` for `serve` (its start and one line per HTTP
    /// request), `warn` for the commands whose output is their answer; each `-v` one level
    /// more, each `-q` one less. The audit event of each tool call comes from `-v` on:
    /// below it, a server over stdio would write a line per call.
    fn default_directive(self, serving: bool) -> String {
        let base: usize = if serving { 3 } else { 2 };
        let level = if self.quiet > 0 {
            base.saturating_sub(usize::from(self.quiet) + usize::from(serving))
        } else {
            base + usize::from(self.verbose)
        };
        let level = LEVELS[level.min(LEVELS.len() - 1)];
        if self.verbose == 0 && level != "off" {
            format!("{level},{}=warn", crate::AUDIT_TARGET)
        } else {
            level.to_owned()
        }
    }
}

/// Sends the process's `tracing` events to standard error, unless the application set a
/// subscriber of its own first (which then keeps them). `RUST_LOG` set and not empty
/// decides the levels; one that does not read is said, and the default used.
pub(super) fn install(verbosity: Verbosity, serving: bool) {
    if tracing::dispatcher::has_been_set() {
        return;
    }
    let filter = match std::env::var("RUST_LOG") {
        Ok(directives) if !directives.trim().is_empty() => match EnvFilter::try_new(&directives) {
            Ok(filter) => filter,
            Err(err) => {
                eprintln!("warning: RUST_LOG={directives:?} is ignored: {err}");
                EnvFilter::new(verbosity.default_directive(serving))
            }
        },
        _ => EnvFilter::new(verbosity.default_directive(serving)),
    };
    let stderr = std::io::stderr();
    let ansi = stderr.is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let layer = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(ansi);
    let subscriber = tracing_subscriber::registry().with(filter).with(layer);
    // Set by someone else meanwhile: theirs stands.
    let _ = tracing::subscriber::set_global_default(subscriber);
}

#[cfg(test)]
mod tests {
    use super::Verbosity;

    /// The level of the filter, with the audit's own directive, if any, apart.
    fn directive(verbose: u8, quiet: u8, serving: bool) -> String {
        let directive = Verbosity { verbose, quiet }.default_directive(serving);
        match directive.split_once(',') {
            Some((level, audit)) => {
                assert_eq!(audit, format!("{}=warn", crate::AUDIT_TARGET));
                level.to_owned()
            }
            None => directive,
        }
    }

    #[test]
    fn serve_logs_at_info_and_other_commands_at_warn() {
        assert_eq!(directive(0, 0, true), "info");
        assert_eq!(directive(0, 0, false), "warn");
    }

    #[test]
    fn the_audit_of_each_call_is_logged_from_one_v_on() {
        let audit = format!("{}=warn", crate::AUDIT_TARGET);
        assert!(
            Verbosity::default()
                .default_directive(true)
                .ends_with(&audit)
        );
        let verbose = Verbosity {
            verbose: 1,
            quiet: 0,
        };
        assert_eq!(verbose.default_directive(true), "debug");
        assert_eq!(verbose.default_directive(false), "info");
    }

    #[test]
    fn each_flag_moves_one_level() {
        assert_eq!(directive(1, 0, true), "debug");
        assert_eq!(directive(2, 0, true), "trace");
        assert_eq!(directive(9, 0, true), "trace");
        assert_eq!(directive(1, 0, false), "info");
        assert_eq!(directive(0, 1, true), "error");
        assert_eq!(directive(0, 2, true), "off");
        assert_eq!(directive(0, 1, false), "error");
        assert_eq!(directive(0, 2, false), "off");
        assert_eq!(directive(0, 9, false), "off");
    }
}
