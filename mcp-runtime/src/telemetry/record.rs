//! The recorder behind the public face: where an operation's span and duration go, by
//! what was turned on.

use std::future::Future;

use serde_json::{Map, Value};

#[cfg(feature = "http")]
use super::labels::Labels;
use super::labels::Side;
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
    if !telemetry.is_on() {
        return Ok((None, installed));
    }
    // Calibrated now, at start-up, rather than by the first operation, which would wait for
    // it.
    super::clock::calibrate();
    Ok((Some(telemetry), installed))
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
        // The labels Prometheus keeps its metrics by; OTLP's find theirs without them.
        #[cfg(feature = "http")]
        let labels = self.prometheus.as_ref().map(|metrics| {
            let labels = Labels::of(operation);
            if side == Side::Server {
                metrics.begin(&labels);
            }
            Box::new(labels)
        });
        let started = super::clock::now();
        #[cfg(feature = "otel")]
        let span = self
            .otel
            .as_ref()
            .map(|otel| otel.begin(side, operation, meta, started));
        #[cfg(not(feature = "otel"))]
        let _ = (side, operation, meta);
        Recorded {
            telemetry: self,
            #[cfg(feature = "http")]
            side,
            #[cfg(feature = "http")]
            labels,
            started,
            ended: false,
            #[cfg(feature = "otel")]
            span,
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
    /// The side Prometheus's metrics are kept by (OTLP's are kept by side already).
    #[cfg(feature = "http")]
    side: Side,
    /// The labels of Prometheus's metrics, where it keeps them: boxed, so that a record
    /// without them, moved from the call's start to its end, is half the size.
    #[cfg(feature = "http")]
    labels: Option<Box<Labels>>,
    started: super::clock::Moment,
    ended: bool,
    /// The operation's span and metrics, where they are exported.
    #[cfg(feature = "otel")]
    span: Option<super::trace::Began>,
}

impl Recorded {
    pub(super) fn end(&mut self, outcome: Outcome) {
        if std::mem::replace(&mut self.ended, true) {
            return;
        }
        let elapsed = self.started.elapsed();
        let error = outcome.error_type();
        #[cfg(feature = "http")]
        if let (Some(metrics), Some(labels)) = (&self.telemetry.prometheus, &self.labels) {
            metrics.end(self.side, labels, error.as_ref(), elapsed.as_secs_f64());
        }
        #[cfg(feature = "otel")]
        if let (Some(otel), Some(span)) = (&self.telemetry.otel, &mut self.span) {
            otel.end(span, error.as_ref(), elapsed);
        }
        let _ = (elapsed, error);
    }

    pub(super) fn scope<F: Future>(&self, future: F) -> Scoped<F> {
        #[cfg(feature = "otel")]
        {
            use opentelemetry::context::FutureExt;
            let context = self
                .span
                .as_ref()
                .map(|began| super::trace::context_of(&began.span.context))
                .unwrap_or_default();
            future.with_context(context)
        }
        #[cfg(not(feature = "otel"))]
        {
            future
        }
    }

    pub(super) fn inject(&self, meta: &mut Map<String, Value>) {
        #[cfg(feature = "otel")]
        if let Some(began) = &self.span {
            super::trace::inject(&began.span.context, meta);
        }
        let _ = meta;
    }
}

impl Drop for Recorded {
    fn drop(&mut self) {
        self.end(Outcome::Cancelled);
    }
}
