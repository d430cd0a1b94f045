//! The metrics exported over OTLP, kept by the crate for each set of labels and written as
//! the official OTLP messages (`opentelemetry-proto`) at each export: the duration
//! histograms `mcp.server.operation.duration` and `mcp.client.operation.duration` (in
//! seconds, the conventions' buckets, by labels and `error.type`), the operations in flight
//! (`mcp.server.operations.in_flight`) and the built-in layers' refusals
//! (`mcp.server.refusals`), all cumulative since telemetry was installed.
//!
//! An operation finds what its labels keep once, as it begins, and holds it: its end
//! records its duration there without another lookup. What a set of labels keeps also
//! holds its spans' head ([`super::spans::encode_head`]), encoded once. It is made once,
//! and kept as long as the process runs (at most [`KEPT`] sets a side): an operation holds
//! it by reference, with no count of its holders to keep.

use std::borrow::Cow;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, InstrumentationScope, KeyValue, any_value};
use opentelemetry_proto::tonic::metrics::v1::{
    AggregationTemporality, Histogram, HistogramDataPoint, Metric, NumberDataPoint,
    ResourceMetrics, ScopeMetrics, Sum, metric, number_data_point,
};
use opentelemetry_proto::tonic::resource::v1::Resource;
use rustc_hash::FxHashMap;

use super::clock::unix_nanos;
use super::labels::{Labels, Side};
use super::spans::{lock, string_attribute};
use super::{DURATION_BUCKETS, Operation};

/// How many sets of labels each side keeps apart, at most: those past it are counted
/// together, under `otel.metric.overflow`, as the SDK counts them.
const KEPT: usize = 2000;

/// What one set of labels keeps: its spans' head, and its counts.
#[derive(Debug)]
pub(super) struct Kept {
    labels: Labels,
    pub(super) head: Vec<u8>,
    counts: Arc<Counts>,
}

impl Kept {
    /// An operation of these labels began.
    pub(super) fn began(&self, side: Side) {
        if side == Side::Server {
            self.counts.began.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// An operation of these labels ended, failed with `error` if any, after `seconds`: its
    /// duration counted, which also counts it out of those in flight ([`Counts::in_flight`]).
    pub(super) fn ended(&self, error: Option<&Cow<'static, str>>, seconds: f64) {
        let mut durations = lock(&self.counts.durations);
        let index = match durations.iter().position(|(of, _)| of.as_ref() == error) {
            Some(index) => index,
            None => {
                durations.push((error.cloned(), Durations::default()));
                durations.len() - 1
            }
        };
        durations[index].1.record(seconds);
    }
}

/// The counts of a set of labels (or of those past [`KEPT`]).
#[derive(Debug, Default)]
struct Counts {
    /// The server's operations begun.
    began: AtomicU64,
    /// The durations, by `error.type`: an operation has few.
    durations: Mutex<Vec<(Option<Cow<'static, str>>, Durations)>>,
}

impl Counts {
    /// The server's operations in flight: those begun, less those whose duration is
    /// counted. The durations are read first: an operation counted there began before,
    /// and its beginning is counted in what is read after.
    fn in_flight(&self) -> i64 {
        let ended: u64 = lock(&self.durations)
            .iter()
            .map(|(_, durations)| durations.count)
            .sum();
        let began = self.began.load(Ordering::Relaxed);
        i64::try_from(began.saturating_sub(ended)).unwrap_or(i64::MAX)
    }
}

/// A histogram of durations, in seconds.
#[derive(Debug, Clone)]
struct Durations {
    count: u64,
    sum: f64,
    min: f64,
    max: f64,
    /// By bucket: those of [`DURATION_BUCKETS`], then one past the last.
    buckets: [u64; DURATION_BUCKETS.len() + 1],
}

impl Default for Durations {
    fn default() -> Self {
        Self {
            count: 0,
            sum: 0.0,
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
            buckets: [0; DURATION_BUCKETS.len() + 1],
        }
    }
}

impl Durations {
    fn record(&mut self, seconds: f64) {
        self.count += 1;
        self.sum += seconds;
        self.min = self.min.min(seconds);
        self.max = self.max.max(seconds);
        // A bucket holds the values up to its bound, that bound included.
        let bucket = DURATION_BUCKETS.partition_point(|bound| *bound < seconds);
        self.buckets[bucket] += 1;
    }
}

/// The sets of labels of one side, by the hash of their labels ([`Labels::hash_of`]): an
/// operation finds its own without making them.
#[derive(Debug, Default)]
struct LabelSets {
    kept: Mutex<FxHashMap<u64, Vec<&'static Kept>>>,
    /// How many sets are kept apart.
    count: std::sync::atomic::AtomicUsize,
    overflow: Arc<Counts>,
}

/// Everything the metrics keep.
#[derive(Debug)]
pub(super) struct Metrics {
    /// Tells these metrics apart from others in [`LAST_KEPT`].
    id: u64,
    server: LabelSets,
    client: LabelSets,
    refusals: Mutex<FxHashMap<(&'static str, String), u64>>,
    /// When counting began, in nanoseconds since the Unix epoch: the start of every
    /// cumulative point.
    since: u64,
}

impl Default for Metrics {
    fn default() -> Self {
        static IDS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        Self {
            id: IDS.fetch_add(1, Ordering::Relaxed),
            server: LabelSets::default(),
            client: LabelSets::default(),
            refusals: Mutex::default(),
            since: unix_nanos(),
        }
    }
}

thread_local! {
    /// The set of labels this thread found last, with the metrics and the side it is of: a
    /// thread that serves one operation over and over finds its labels without a lock.
    static LAST_KEPT: std::cell::Cell<Option<(u64, Side, &'static Kept)>> =
        const { std::cell::Cell::new(None) };
}

/// What an operation holds of what its labels keep, until it ends.
#[derive(Debug)]
pub(super) enum Held {
    /// A set of labels kept apart, for as long as the process runs.
    Kept(&'static Kept),
    /// A set past [`KEPT`], counted with the others past it: made for this operation.
    Overflow(Arc<Kept>),
}

impl std::ops::Deref for Held {
    type Target = Kept;

    fn deref(&self) -> &Kept {
        match self {
            Self::Kept(kept) => kept,
            Self::Overflow(kept) => kept,
        }
    }
}

impl Metrics {
    /// What the labels of `operation` keep on `side`, made the first time.
    pub(super) fn kept(&self, side: Side, operation: &Operation<'_>) -> Held {
        if let Some((id, of, kept)) = LAST_KEPT.get() {
            if id == self.id && of == side && kept.labels.are_of(operation) {
                return Held::Kept(kept);
            }
        }
        let held = self.find_or_make(side, operation);
        if let Held::Kept(kept) = held {
            LAST_KEPT.set(Some((self.id, side, kept)));
        }
        held
    }

    fn find_or_make(&self, side: Side, operation: &Operation<'_>) -> Held {
        let of = self.side(side);
        let hash = Labels::hash_of(operation);
        let mut kept = lock(&of.kept);
        let found = kept
            .get(&hash)
            .and_then(|alike| alike.iter().find(|kept| kept.labels.are_of(operation)));
        if let Some(found) = found {
            return Held::Kept(found);
        }
        let labels = Labels::of(operation);
        let head = super::spans::encode_head(side, operation);
        if of.count.load(Ordering::Relaxed) >= KEPT {
            return Held::Overflow(Arc::new(Kept {
                labels,
                head,
                counts: Arc::clone(&of.overflow),
            }));
        }
        of.count.fetch_add(1, Ordering::Relaxed);
        let made: &'static Kept = Box::leak(Box::new(Kept {
            labels,
            head,
            counts: Arc::default(),
        }));
        kept.entry(hash).or_default().push(made);
        Held::Kept(made)
    }

    pub(super) fn refused(&self, layer: &'static str, tool: &str) {
        let mut refusals = lock(&self.refusals);
        match refusals.get_mut(&(layer, tool.to_owned())) {
            Some(count) => *count += 1,
            None => {
                refusals.insert((layer, tool.to_owned()), 1);
            }
        }
    }

    fn side(&self, side: Side) -> &LabelSets {
        match side {
            Side::Server => &self.server,
            Side::Client => &self.client,
        }
    }

    /// The export of every metric that has a point now, from `resource`, as `scope`.
    pub(super) fn request(
        &self,
        resource: &Resource,
        scope: &InstrumentationScope,
    ) -> ExportMetricsServiceRequest {
        let now = unix_nanos();
        let mut metrics = Vec::new();
        for (side, name, description) in [
            (
                Side::Server,
                "mcp.server.operation.duration",
                "The duration of the MCP requests this server answered",
            ),
            (
                Side::Client,
                "mcp.client.operation.duration",
                "The duration of the MCP requests this process sent, until their answer",
            ),
        ] {
            let points = self.duration_points(side, now);
            if !points.is_empty() {
                metrics.push(metric(name, description, "s", histogram(points)));
            }
        }
        let in_flight = self.in_flight_points(now);
        if !in_flight.is_empty() {
            metrics.push(metric(
                "mcp.server.operations.in_flight",
                "The MCP requests this server is answering now",
                "",
                sum(in_flight, false),
            ));
        }
        let refusals = self.refusal_points(now);
        if !refusals.is_empty() {
            metrics.push(metric(
                "mcp.server.refusals",
                "The calls refused by a built-in layer, by layer and tool",
                "",
                sum(refusals, true),
            ));
        }
        ExportMetricsServiceRequest {
            resource_metrics: vec![ResourceMetrics {
                resource: Some(resource.clone()),
                scope_metrics: vec![ScopeMetrics {
                    scope: Some(scope.clone()),
                    metrics,
                    schema_url: String::new(),
                }],
                schema_url: String::new(),
            }],
        }
    }

    fn duration_points(&self, side: Side, now: u64) -> Vec<HistogramDataPoint> {
        let of = self.side(side);
        let kept = lock(&of.kept);
        let overflow = [(None, &of.overflow)];
        let sets = kept
            .values()
            .flatten()
            .map(|kept| (Some(&kept.labels), &kept.counts))
            .chain(overflow);
        let mut points = Vec::new();
        for (labels, counts) in sets {
            for (error, durations) in lock(&counts.durations).iter() {
                let attributes = match labels {
                    Some(labels) => labels
                        .pairs(error.as_ref())
                        .map(|(key, value)| string_attribute(key, value))
                        .collect(),
                    None => vec![overflowed()],
                };
                points.push(HistogramDataPoint {
                    attributes,
                    start_time_unix_nano: self.since,
                    time_unix_nano: now,
                    count: durations.count,
                    sum: Some(durations.sum),
                    bucket_counts: durations.buckets.to_vec(),
                    explicit_bounds: DURATION_BUCKETS.to_vec(),
                    min: Some(durations.min),
                    max: Some(durations.max),
                    ..HistogramDataPoint::default()
                });
            }
        }
        points
    }

    /// The operations in flight, by the attributes of their duration but `error.type` (not
    /// known yet) and `mcp.protocol.version`.
    fn in_flight_points(&self, now: u64) -> Vec<NumberDataPoint> {
        let kept = lock(&self.server.kept);
        let mut by_attributes: FxHashMap<(&str, Option<&str>, &'static str), i64> =
            FxHashMap::default();
        for kept in kept.values().flatten() {
            let labels = &kept.labels;
            let key = (
                labels.method.as_str(),
                labels.tool.as_deref(),
                labels.transport,
            );
            *by_attributes.entry(key).or_default() += kept.counts.in_flight();
        }
        let mut points: Vec<_> = by_attributes
            .into_iter()
            .map(|((method, tool, transport), count)| {
                let mut attributes = vec![string_attribute("mcp.method.name", method)];
                if let Some(tool) = tool {
                    attributes.push(string_attribute("gen_ai.tool.name", tool));
                }
                attributes.push(string_attribute("network.transport", transport));
                number(attributes, self.since, now, count)
            })
            .collect();
        if self.server.count.load(Ordering::Relaxed) >= KEPT {
            let count = self.server.overflow.in_flight();
            points.push(number(vec![overflowed()], self.since, now, count));
        }
        points
    }

    fn refusal_points(&self, now: u64) -> Vec<NumberDataPoint> {
        lock(&self.refusals)
            .iter()
            .map(|((layer, tool), count)| {
                let attributes = vec![
                    string_attribute("mcp.layer", layer),
                    string_attribute("gen_ai.tool.name", tool),
                ];
                number(
                    attributes,
                    self.since,
                    now,
                    i64::try_from(*count).unwrap_or(i64::MAX),
                )
            })
            .collect()
    }
}

fn metric(name: &str, description: &str, unit: &str, data: metric::Data) -> Metric {
    Metric {
        name: name.to_owned(),
        description: description.to_owned(),
        unit: unit.to_owned(),
        data: Some(data),
        ..Metric::default()
    }
}

fn histogram(data_points: Vec<HistogramDataPoint>) -> metric::Data {
    metric::Data::Histogram(Histogram {
        data_points,
        aggregation_temporality: AggregationTemporality::Cumulative as i32,
    })
}

fn sum(data_points: Vec<NumberDataPoint>, is_monotonic: bool) -> metric::Data {
    metric::Data::Sum(Sum {
        data_points,
        aggregation_temporality: AggregationTemporality::Cumulative as i32,
        is_monotonic,
    })
}

fn number(attributes: Vec<KeyValue>, since: u64, now: u64, value: i64) -> NumberDataPoint {
    NumberDataPoint {
        attributes,
        start_time_unix_nano: since,
        time_unix_nano: now,
        value: Some(number_data_point::Value::AsInt(value)),
        ..NumberDataPoint::default()
    }
}

/// The attribute of the points past [`KEPT`] sets of labels.
fn overflowed() -> KeyValue {
    KeyValue {
        key: "otel.metric.overflow".to_owned(),
        value: Some(AnyValue {
            value: Some(any_value::Value::BoolValue(true)),
        }),
    }
}
