//! The metrics kept for the Prometheus text format: what `serve --http ADDR --metrics`
//! serves. Prometheus names them after the conventions' names, the dots made underscores
//! and the unit appended: `mcp.server.operation.duration` (seconds) is
//! `mcp_server_operation_duration_seconds`.

use std::borrow::Cow;

use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::{Registry, Unit};

use super::DURATION_BUCKETS;
use super::labels::{Labels, Side};

/// A metric's attributes, named as Prometheus has them.
type LabelSet = Vec<(&'static str, String)>;

/// A histogram of the conventions' bucket boundaries.
fn duration_histogram() -> Histogram {
    Histogram::new(DURATION_BUCKETS)
}

/// The metrics, and the registry that writes them out.
#[derive(Debug)]
pub(super) struct Metrics {
    registry: Registry,
    server: Family<LabelSet, Histogram, fn() -> Histogram>,
    client: Family<LabelSet, Histogram, fn() -> Histogram>,
    in_flight: Family<LabelSet, Gauge>,
    refusals: Family<LabelSet, Counter>,
}

impl Metrics {
    pub(super) fn new() -> Self {
        let mut registry = Registry::default();
        let constructor: fn() -> Histogram = duration_histogram;
        let server = Family::new_with_constructor(constructor);
        let client = Family::new_with_constructor(constructor);
        let in_flight = Family::<LabelSet, Gauge>::default();
        let refusals = Family::<LabelSet, Counter>::default();
        registry.register_with_unit(
            "mcp_server_operation_duration",
            "The duration of the MCP requests this server answered (mcp.server.operation.duration)",
            Unit::Seconds,
            server.clone(),
        );
        registry.register_with_unit(
            "mcp_client_operation_duration",
            "The duration of the MCP requests this process sent, until their answer (mcp.client.operation.duration)",
            Unit::Seconds,
            client.clone(),
        );
        registry.register(
            "mcp_server_operations_in_flight",
            "The MCP requests this server is answering now",
            in_flight.clone(),
        );
        registry.register(
            "mcp_server_refusals",
            "The calls refused by a built-in layer (rate limit, concurrency…), by layer and tool",
            refusals.clone(),
        );
        Self {
            registry,
            server,
            client,
            in_flight,
            refusals,
        }
    }

    /// An operation begins: one more in flight.
    pub(super) fn begin(&self, labels: &Labels) {
        self.in_flight.get_or_create(&label_set(labels, None)).inc();
    }

    /// An operation ended, after `seconds`.
    pub(super) fn end(
        &self,
        side: Side,
        labels: &Labels,
        error: Option<&Cow<'static, str>>,
        seconds: f64,
    ) {
        let family = match side {
            Side::Server => {
                self.in_flight.get_or_create(&label_set(labels, None)).dec();
                &self.server
            }
            Side::Client => &self.client,
        };
        family
            .get_or_create(&label_set(labels, error))
            .observe(seconds);
    }

    pub(super) fn refused(&self, layer: &'static str, tool: &str) {
        let labels = vec![
            ("mcp_layer", layer.to_owned()),
            ("gen_ai_tool_name", tool.to_owned()),
        ];
        self.refusals.get_or_create(&labels).inc();
    }

    /// Every metric, in the text format.
    pub(super) fn text(&self) -> String {
        let mut text = String::new();
        // Writing to a `String` does not fail.
        let _ = encode(&mut text, &self.registry);
        text
    }
}

/// `labels` as Prometheus names them (`mcp.method.name` is `mcp_method_name`).
fn label_set(labels: &Labels, error: Option<&Cow<'static, str>>) -> LabelSet {
    labels
        .pairs(error)
        .map(|(key, value)| (prometheus_name(key), value.to_owned()))
        .collect()
}

/// An attribute's name as a Prometheus label's.
fn prometheus_name(key: &'static str) -> &'static str {
    match key {
        "mcp.method.name" => "mcp_method_name",
        "gen_ai.tool.name" => "gen_ai_tool_name",
        "gen_ai.prompt.name" => "gen_ai_prompt_name",
        "gen_ai.operation.name" => "gen_ai_operation_name",
        "mcp.protocol.version" => "mcp_protocol_version",
        "network.transport" => "network_transport",
        "error.type" => "error_type",
        other => other,
    }
}
