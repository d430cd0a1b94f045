//! [`BoxLayer`]: a layer of any type, kept to be applied to each item it wraps. The
//! crate's own limits keep their plain form beside it, which the registry asks directly
//! ([`Admit`]).

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use tower::util::BoxCloneSyncService;
use tower::{Layer, Service};

use super::{ConcurrencyLayer, RateLimitLayer};
use crate::service::{Admit, BoxError, Request, Response, Stack};

/// A layer, boxed: any `tower::Layer` whose service answers a [`Request`] with a
/// [`Response`], kept to be applied to each item it wraps.
///
/// The crate's limits ([`RateLimitLayer`], [`ConcurrencyLayer`]) cost a call little more
/// than their check: where no other kind of layer sits outside them, the registry asks
/// them before the call, with no service and no future, and a call they admit at once
/// runs as it would with no layer.
#[derive(Clone)]
pub struct BoxLayer {
    wrap: Arc<dyn Fn(Stack) -> Stack + Send + Sync>,
    admit: Option<Arc<dyn Admit>>,
}

impl BoxLayer {
    /// Boxes `layer`: any layer of tower's, or one of this crate's
    /// ([`crate::layers`]), or an application's own.
    pub fn new<L>(layer: L) -> Self
    where
        L: Layer<Stack> + Send + Sync + 'static,
        L::Service: Service<Request, Response = Response> + Clone + Send + Sync + 'static,
        <L::Service as Service<Request>>::Error: Into<BoxError>,
        <L::Service as Service<Request>>::Future: Send + 'static,
    {
        let admit = admit_of(&layer);
        Self {
            wrap: Arc::new(move |inner: Stack| {
                let service = layer.layer(inner);
                BoxCloneSyncService::new(tower::ServiceExt::map_err(service, Into::into))
            }),
            admit,
        }
    }

    /// `inner`, wrapped in this layer.
    pub fn wrap(&self, inner: Stack) -> Stack {
        (self.wrap)(inner)
    }

    /// The layer as the registry asks it directly, when it only admits or refuses calls.
    pub(crate) fn admit(&self) -> Option<&Arc<dyn Admit>> {
        self.admit.as_ref()
    }
}

/// The plain form of `layer`, when it is one of the crate's limits.
fn admit_of<L: Any>(layer: &L) -> Option<Arc<dyn Admit>> {
    let layer: &dyn Any = layer;
    if let Some(limit) = layer.downcast_ref::<RateLimitLayer>() {
        return Some(limit.admit());
    }
    if let Some(limit) = layer.downcast_ref::<ConcurrencyLayer>() {
        return Some(limit.admit());
    }
    None
}

impl fmt::Debug for BoxLayer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BoxLayer")
            .field("admits", &self.admit.is_some())
            .finish_non_exhaustive()
    }
}
