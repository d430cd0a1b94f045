//! The per-tool concurrency limits of `serve`, and the threads synchronous tools run on.

use clap::Args;

use crate::registry::Registry;
use crate::service::{BoxLayer, Selector};

use super::CliError;

/// The per-tool concurrency limits of `serve`, and the threads synchronous tools run on.
#[derive(Args, Debug, Default, Clone)]
pub(super) struct PoolArgs {}

impl PoolArgs {
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
