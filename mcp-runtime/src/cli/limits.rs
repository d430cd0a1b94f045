//! The per-tool rate limits and result cache of `serve`, and where their state lives.

use clap::Args;

use crate::registry::Registry;
use crate::service::{BoxLayer, Selector};

use super::CliError;

/// The per-tool rate limits and result cache of `serve`, and where their state lives.
#[derive(Args, Debug, Default, Clone)]
pub(super) struct LimitArgs {}

impl LimitArgs {
    /// The layers these flags put around the calls of `registry`'s tools, each with the
    /// selector of the tools it wraps.
    pub(super) fn layers(
        &self,
        registry: &Registry,
    ) -> Result<Vec<(Option<Selector>, BoxLayer)>, CliError> {
        let _ = registry;
        Ok(Vec::new())
    }
}
