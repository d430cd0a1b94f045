//! OTLP export over HTTP/protobuf, set by the standard variables: spans and metrics go to
//! `OTEL_EXPORTER_OTLP_ENDPOINT` (`/v1/traces`, `/v1/metrics`), as the service that
//! `OTEL_SERVICE_NAME` names (the SDK's resource detectors read it, with
//! `OTEL_RESOURCE_ATTRIBUTES`).

use opentelemetry::metrics::MeterProvider;
use opentelemetry::trace::TracerProvider;
use opentelemetry_otlp::{MetricExporter, SpanExporter};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::trace::SdkTracerProvider;

use super::TelemetryError;
use super::trace::Otel;

/// The variable that turns OTLP export on, naming where it goes.
pub(super) const ENDPOINT_VARIABLE: &str = "OTEL_EXPORTER_OTLP_ENDPOINT";

/// The name spans and metrics are recorded under.
const SCOPE: &str = "mcp-runtime";

/// The providers that batch spans and metrics and export them.
#[derive(Debug)]
pub(super) struct Exporters {
    endpoint: String,
    tracers: SdkTracerProvider,
    meters: SdkMeterProvider,
}

impl Exporters {
    /// The exporters the environment asks for: `None` unless `OTEL_EXPORTER_OTLP_ENDPOINT`
    /// is set (and not empty).
    pub(super) fn from_env() -> Result<Option<Self>, TelemetryError> {
        let Some(endpoint) = std::env::var(ENDPOINT_VARIABLE)
            .ok()
            .filter(|endpoint| !endpoint.trim().is_empty())
        else {
            return Ok(None);
        };
        let failed = |source| TelemetryError::Otlp {
            endpoint: endpoint.clone(),
            source,
        };
        let spans = SpanExporter::builder()
            .with_http()
            .build()
            .map_err(failed)?;
        let metrics = MetricExporter::builder()
            .with_http()
            .build()
            .map_err(failed)?;
        let resource = Resource::builder().build();
        let tracers = SdkTracerProvider::builder()
            .with_batch_exporter(spans)
            .with_resource(resource.clone())
            .build();
        let meters = SdkMeterProvider::builder()
            .with_periodic_exporter(metrics)
            .with_resource(resource)
            .build();
        Ok(Some(Self {
            endpoint,
            tracers,
            meters,
        }))
    }

    /// Where spans and metrics go.
    pub(super) fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// The tracer and the instruments that record into these exporters.
    pub(super) fn instruments(&self) -> Otel {
        Otel::new(self.tracers.tracer(SCOPE), &self.meters.meter(SCOPE))
    }

    /// Exports what is left, then stops. A failure is logged: the process is ending.
    pub(super) fn shutdown(self) {
        if let Err(error) = self.tracers.shutdown() {
            tracing::warn!(%error, "the last spans could not be exported over OTLP");
        }
        if let Err(error) = self.meters.shutdown() {
            tracing::warn!(%error, "the last metrics could not be exported over OTLP");
        }
    }
}
