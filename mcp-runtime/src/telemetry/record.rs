//! The recorder behind the public face: where an operation's span and duration go, by
//! what was turned on.

use std::future::Future;
use std::time::Instant;

use serde_json::{Map, Value};

use super::labels::{Labels, Side};
use super::{Config, Installed, Operation, Outcome, Scoped, TelemetryError};

/// Telemetry, turned on: the sinks an operation's record goes to.
#[derive(Debug)]
pub(super) struct Telemetry {
    #[cfg(feature = "http")]
    pub(super) prometheus: Option<super::prometheus::Metrics>,
    #[cfg(feature = "otel")]
    pub(super) otel: Option<super::trace::Otel>,
}

/// Builds what `config` turns on: `None` when it turns on nothing this build has.
pub(super) fn build(config: &Config) -> Result<(Option<Telemetry>, Installed), TelemetryError> {
    #[cfg(feature = "http")]
    let prometheus = config.prometheus.then(super::prometheus::Metrics::new);
    #[cfg(feature = "otel")]
    let export = if config.otlp_from_env {
        super::export::Exporters::from_env()?
    } else {
        None
    };
    #[cfg(feature = "otel")]
    let otel = export.as_ref().map(super::export::Exporters::instruments);
    let telemetry = Telemetry {
        #[cfg(feature = "http")]
        prometheus,
        #[cfg(feature = "otel")]
        otel,
    };
    let installed = Installed {
        #[cfg(feature = "otel")]
        export,
    };
    let _ = config;
    Ok((telemetry.is_on().then_some(telemetry), installed))
}

impl Telemetry {
    /// Whether anything records.
    fn is_on(&self) -> bool {
        let on = false;
        #[cfg(feature = "http")]
        let on = on || self.prometheus.is_some();
        #[cfg(feature = "otel")]
        let on = on || self.otel.is_some();
        on
    }

    pub(super) fn server_operation(
        &'static self,
        operation: &Operation<'_>,
        meta: Option<&Map<String, Value>>,
    ) -> super::ServerOperation {
        super::ServerOperation {
            inner: self.begin(Side::Server, operation, meta),
        }
    }

    pub(super) fn client_operation(
        &'static self,
        operation: &Operation<'_>,
    ) -> super::ClientOperation {
        super::ClientOperation {
            inner: self.begin(Side::Client, operation, None),
        }
    }

    fn begin(
        &'static self,
        side: Side,
        operation: &Operation<'_>,
        meta: Option<&Map<String, Value>>,
    ) -> Recorded {
        let labels = Labels::of(operation);
        #[cfg(feature = "http")]
        if let (Some(metrics), Side::Server) = (&self.prometheus, side) {
            metrics.begin(&labels);
        }
        #[cfg(feature = "otel")]
        let context = self
            .otel
            .as_ref()
            .map(|otel| otel.begin(side, operation, &labels, meta));
        #[cfg(not(feature = "otel"))]
        let _ = meta;
        Recorded {
            telemetry: self,
            side,
            labels,
            started: super::now(),
            ended: false,
            #[cfg(feature = "otel")]
            context,
        }
    }

    pub(super) fn refused(&self, layer: &'static str, tool: &str) {
        #[cfg(feature = "http")]
        if let Some(metrics) = &self.prometheus {
            metrics.refused(layer, tool);
        }
        #[cfg(feature = "otel")]
        if let Some(otel) = &self.otel {
            otel.refused(layer, tool);
        }
        let _ = (layer, tool);
    }

    #[cfg(feature = "http")]
    pub(super) fn prometheus_text(&self) -> Option<String> {
        self.prometheus
            .as_ref()
            .map(super::prometheus::Metrics::text)
    }
}

/// One operation being recorded.
#[derive(Debug)]
#[cfg_attr(not(any(feature = "http", feature = "otel")), allow(dead_code))]
pub(super) struct Recorded {
    telemetry: &'static Telemetry,
    side: Side,
    labels: Labels,
    started: Instant,
    ended: bool,
    /// The context holding the operation's span, where spans are exported.
    #[cfg(feature = "otel")]
    context: Option<opentelemetry::Context>,
}

impl Recorded {
    pub(super) fn end(&mut self, outcome: Outcome) {
        if std::mem::replace(&mut self.ended, true) {
            return;
        }
        let seconds = self.started.elapsed().as_secs_f64();
        let error = outcome.error_type();
        #[cfg(feature = "http")]
        if let Some(metrics) = &self.telemetry.prometheus {
            metrics.end(self.side, &self.labels, error.as_ref(), seconds);
        }
        #[cfg(feature = "otel")]
        {
            if let Some(context) = &self.context {
                super::trace::end_span(context, error.as_ref());
            }
            if let Some(otel) = &self.telemetry.otel {
                otel.end(self.side, &self.labels, error.as_ref(), seconds);
            }
        }
        let _ = (seconds, error);
    }

    pub(super) fn scope<F: Future>(&self, future: F) -> Scoped<F> {
        #[cfg(feature = "otel")]
        {
            use opentelemetry::context::FutureExt;
            let context = self.context.clone().unwrap_or_default();
            future.with_context(context)
        }
        #[cfg(not(feature = "otel"))]
        {
            future
        }
    }

    pub(super) fn inject(&self, meta: &mut Map<String, Value>) {
        #[cfg(feature = "otel")]
        if let Some(context) = &self.context {
            super::trace::inject(context, meta);
        }
        let _ = meta;
    }
}

impl Drop for Recorded {
    fn drop(&mut self) {
        self.end(Outcome::Cancelled);
    }
}
