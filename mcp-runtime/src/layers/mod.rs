//! Layers around calls: any [`tower::Layer`] around every tool call, resource read and
//! prompt get, around those a [`Selector`] picks, or around one tool.
//!
//! - [`RegistryBuilder::layer`](crate::RegistryBuilder::layer) wraps every call;
//! - [`RegistryBuilder::layer_for`](crate::RegistryBuilder::layer_for) wraps the items a
//!   selector picks: a name, a `namespace.*` pattern, `tag:NAME` or `category:NAME`;
//! - `#[mcp_tool(layer = path::to::function)]` wraps one tool, in the layer the function
//!   returns.
//!
//! A layer's service answers a [`Request`] (the item, its arguments, who calls, its
//! cancellation) with a [`Response`]. It may answer without calling on (a cache), change
//! the arguments, or map the result. Its errors become failures the client reads
//! ([`failure`]): never a dropped request, never a panic. The same stack serves every
//! transport and [`Registry::call`](crate::Registry::call) alike.
//!
//! ```
//! use std::task::{Context, Poll};
//! use mcp_runtime::layers::{BoxError, Request, Response};
//! use mcp_runtime::{Registry, ToolError};
//!
//! /// Refuses every caller but the application itself.
//! #[derive(Clone)]
//! struct LocalOnly<S>(S);
//!
//! impl<S> tower::Service<Request> for LocalOnly<S>
//! where
//!     S: tower::Service<Request, Response = Response, Error = BoxError>,
//!     S::Future: Send + 'static,
//! {
//!     type Response = Response;
//!     type Error = BoxError;
//!     type Future = std::pin::Pin<Box<dyn Future<Output = Result<Response, BoxError>> + Send>>;
//!
//!     fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
//!         self.0.poll_ready(cx)
//!     }
//!
//!     fn call(&mut self, request: Request) -> Self::Future {
//!         if request.caller() != mcp_runtime::layers::Caller::Local {
//!             let refused = ToolError::permission_denied(format!("`{}` is for local use", request.name()));
//!             return Box::pin(async move { Err(refused.into()) });
//!         }
//!         Box::pin(self.0.call(request))
//!     }
//! }
//!
//! let registry = Registry::builder()
//!     .inventory()
//!     .layer(tower::layer::layer_fn(LocalOnly))
//!     .build()?;
//! # Ok::<(), mcp_runtime::RegistryError>(())
//! ```

mod boxed;
pub mod concurrency;

pub use crate::auth::Caller;
pub use crate::service::{
    BoxError, Innermost, Kind, Request, Response, Running, Selector, SelectorError, Stack, failure,
};
pub use boxed::BoxLayer;
pub use concurrency::{Concurrency, ConcurrencyLayer};

pub mod cache;
pub mod rate;
pub mod store;

pub use cache::{CACHE_META, Cache, CacheLayer, cacheable};
pub use rate::{Period, Quota, QuotaError, RateLimit, RateLimitLayer};
pub use store::{LimitStore, LimitStoreError, OnFailure, OnFailureError};
