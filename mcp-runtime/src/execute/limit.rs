//! A call's limits in time: its timeout, what waiting for a thread of synchronous tools
//! took of it, and its caller's cancellation.

use std::future::Future;
use std::time::Duration;

use mcp_runtime_core::{ErrorType, ToolDefinition, ToolError};
use tokio_util::sync::CancellationToken;

use crate::base::duration::format_duration;
use crate::registration::{Failure, Outcome};

/// The failure of a call its caller cancelled.
pub(super) fn cancelled(definition: &ToolDefinition) -> ToolError {
    ToolError::execution(format!(
        "the call of tool `{}` was cancelled",
        definition.name()
    ))
}

/// How long a tool may still run: what is left of its timeout, if it has one, after the
/// call `waited` for a thread of synchronous tools.
#[derive(Debug, Clone, Copy)]
pub(super) struct Limit {
    pub(super) timeout: Option<Duration>,
    pub(super) waited: Duration,
}

impl Limit {
    /// The failure of a call past it, `left` after it started: the whole timeout, and the
    /// part of it spent waiting for a thread when there was one worth saying, also in the
    /// details (`timeout_ms`, `waited_ms`): a call that timed out for want of a thread.
    fn passed(self, definition: &ToolDefinition, left: Duration) -> ToolError {
        let name = definition.name();
        let whole = left + self.waited;
        if self.waited < Duration::from_millis(1) {
            let message = format!(
                "tool `{name}` did not finish within {}",
                format_duration(whole)
            );
            return ToolError::new(ErrorType::TimeoutError, message);
        }
        let message = format!(
            "tool `{name}` did not finish within its {} timeout, {} of which it waited for a thread of synchronous tools",
            format_duration(whole),
            format_duration(self.waited)
        );
        ToolError::new(ErrorType::TimeoutError, message).with_details(serde_json::json!({
            "timeout_ms": whole.as_millis() as u64,
            "waited_ms": self.waited.as_millis() as u64,
        }))
    }
}

/// Runs `work` until it finishes, the timeout passes, or the caller cancels.
pub(super) async fn limited(
    definition: &ToolDefinition,
    limit: Limit,
    parent: Option<&CancellationToken>,
    token: &CancellationToken,
    work: impl Future<Output = Outcome>,
) -> Outcome {
    let cancellable = async {
        match parent {
            // Cancellation first: a tool that ends because it saw the cancellation has not
            // answered the call.
            Some(parent) => tokio::select! {
                biased;
                () = parent.cancelled() => Err(Failure::from(cancelled(definition))),
                outcome = work => outcome,
            },
            None => work.await,
        }
    };
    match limit.timeout {
        Some(left) => match tokio::time::timeout(left, cancellable).await {
            Ok(outcome) => outcome,
            Err(_) => {
                token.cancel();
                Err(Failure::from(limit.passed(definition, left)))
            }
        },
        None => cancellable.await,
    }
}
