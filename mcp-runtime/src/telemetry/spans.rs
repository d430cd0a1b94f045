//! The spans of operations, recorded for OTLP: each is encoded in protobuf as it begins and
//! as it ends, with the official OTLP messages (`opentelemetry-proto`) and `prost`, and is
//! queued for the exporter ([`super::export`]) as an entry of `ScopeSpans.spans`.
//!
//! A span is written in parts, by protobuf's rule that a message's encoding followed by
//! another's reads as the two merged (their repeated fields joined): its head, the name,
//! kind and attributes that its labels fix, encoded once for each set of labels
//! ([`encode_head`]); what else is known at its start (ids, start time, the request's id);
//! then what its end adds (end time, `error.type`, status). The parts are built in
//! messages each thread keeps, whose strings and vectors are reused: recording a span
//! costs a copy of its head, two small encodings and one allocation, where a span of the
//! SDK's allocates a dozen strings and is converted again for export.

use std::borrow::Cow;
use std::cell::RefCell;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use opentelemetry::Context;
use opentelemetry::trace::{
    SamplingDecision, SpanContext, SpanId, SpanKind, TraceContextExt, TraceFlags,
};
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::trace::v1::{Span, SpanFlags, Status, span, status};
use opentelemetry_sdk::trace::Config;
use prost::Message;

use super::labels::Side;
use super::{Operation, Target};

/// The field of `ScopeSpans` that holds its spans (`repeated Span spans = 2`).
pub(super) const SCOPE_SPANS_SPANS: u32 = 2;

/// A span begun: its context, which its children and the requests it sends carry, and,
/// when it is sampled, its encoding so far.
#[derive(Debug)]
pub(super) struct Begun {
    pub(super) context: SpanContext,
    encoded: Option<Vec<u8>>,
    /// When it began, in nanoseconds since the Unix epoch.
    start: u64,
}

/// How many spans wait for export, at most, and how many make a batch, sent as soon as it is
/// full, and never more: `OTEL_BSP_MAX_QUEUE_SIZE` and `OTEL_BSP_MAX_EXPORT_BATCH_SIZE`, as
/// the SDK's batch processor reads them.
#[derive(Debug, Clone, Copy)]
pub(super) struct Bounds {
    pub(super) queue: usize,
    pub(super) batch: usize,
}

impl Default for Bounds {
    fn default() -> Self {
        Self {
            queue: 2048,
            batch: 512,
        }
    }
}

/// The spans ended and not yet exported.
#[derive(Debug, Default)]
pub(super) struct Queue {
    state: Mutex<Queued>,
    ready: Condvar,
    bounds: Bounds,
}

#[derive(Debug, Default)]
struct Queued {
    /// The spans, each an entry of `ScopeSpans.spans`.
    encoded: Vec<u8>,
    spans: usize,
    /// Where each span's entry ends in `encoded`: where a batch is cut.
    ends: Vec<usize>,
    /// Spans dropped because the queue was full, since the last batch.
    dropped: u64,
    stopping: bool,
}

/// A batch taken for export.
#[derive(Debug, Default)]
pub(super) struct Batch {
    /// The spans, each an entry of `ScopeSpans.spans`.
    pub(super) encoded: Vec<u8>,
    pub(super) spans: usize,
    pub(super) dropped: u64,
    /// Whether the queue is stopping: this is its last batch.
    pub(super) last: bool,
}

impl Queue {
    pub(super) fn new(bounds: Bounds) -> Self {
        Self {
            bounds,
            ..Self::default()
        }
    }

    fn push(&self, span: Vec<u8>) {
        let mut queued = lock(&self.state);
        if queued.spans >= self.bounds.queue {
            queued.dropped += 1;
            return;
        }
        prost::encoding::bytes::encode(SCOPE_SPANS_SPANS, &span, &mut queued.encoded);
        let end = queued.encoded.len();
        queued.ends.push(end);
        queued.spans += 1;
        if queued.spans == self.bounds.batch {
            self.ready.notify_one();
        }
    }

    /// The spans queued, once a batch of them is, or `delay` has passed, or the queue stops:
    /// a batch at most, the rest left for the next.
    pub(super) fn next_batch(&self, delay: Duration) -> Batch {
        let deadline = Instant::now() + delay;
        let mut queued = lock(&self.state);
        while queued.spans < self.bounds.batch && !queued.stopping {
            let Some(left) = deadline.checked_duration_since(Instant::now()) else {
                break;
            };
            queued = self
                .ready
                .wait_timeout(queued, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        let queued = &mut *queued;
        let (encoded, spans) = if queued.spans > self.bounds.batch {
            // A full batch, the spans after it left queued.
            let cut = queued.ends[self.bounds.batch - 1];
            let rest = queued.encoded.split_off(cut);
            queued.ends.drain(..self.bounds.batch);
            for end in &mut queued.ends {
                *end -= cut;
            }
            queued.spans -= self.bounds.batch;
            (
                std::mem::replace(&mut queued.encoded, rest),
                self.bounds.batch,
            )
        } else {
            // The next batch is likely as large: room for it now, rather than grown span
            // by span.
            let room = Vec::with_capacity(queued.encoded.len());
            queued.ends.clear();
            let spans = std::mem::take(&mut queued.spans);
            (std::mem::replace(&mut queued.encoded, room), spans)
        };
        Batch {
            encoded,
            spans,
            dropped: std::mem::take(&mut queued.dropped),
            last: queued.stopping && queued.spans == 0,
        }
    }

    /// Stops the queue: its exporter sends what is left, and ends.
    pub(super) fn stop(&self) {
        lock(&self.state).stopping = true;
        self.ready.notify_all();
    }
}

/// What begins spans: the SDK's sampler and id generator (as `OTEL_TRACES_SAMPLER` sets
/// them), and the queue the spans go to.
#[derive(Debug)]
pub(super) struct Spans {
    config: Config,
    queue: std::sync::Arc<Queue>,
}

impl Spans {
    pub(super) fn new(config: Config, queue: std::sync::Arc<Queue>) -> Self {
        Self { config, queue }
    }

    /// Begins `operation`'s span, a child of the span `parent` holds, if any; `head` is the
    /// encoding of its name, kind and the attributes its labels fix ([`encode_head`]).
    pub(super) fn begin(
        &self,
        side: Side,
        operation: &Operation<'_>,
        parent: &Context,
        head: &[u8],
    ) -> Begun {
        let parent_span = parent.span();
        let parent_context = parent_span.span_context();
        let (trace_id, parent_id) = if parent_context.is_valid() {
            (parent_context.trace_id(), Some(parent_context.span_id()))
        } else {
            (self.config.id_generator.new_trace_id(), None)
        };
        let kind = match side {
            Side::Server => SpanKind::Server,
            Side::Client => SpanKind::Client,
        };
        let sampling = self.config.sampler.should_sample(
            Some(parent),
            trace_id,
            operation.method,
            &kind,
            &[],
            &[],
        );
        let sampled = sampling.decision == SamplingDecision::RecordAndSample;
        let flags = if sampled {
            TraceFlags::SAMPLED
        } else {
            TraceFlags::default()
        };
        let span_id = self.config.id_generator.new_span_id();
        let context = SpanContext::new(trace_id, span_id, flags, false, sampling.trace_state);
        let start = unix_nanos();
        let encoded = sampled.then(|| {
            let parent = parent_id.map(|id| (id, parent_context.is_remote()));
            encode_start(&context, parent, (operation, start), head)
        });
        Begun {
            context,
            encoded,
            start,
        }
    }

    /// Ends the span `begun`, `elapsed` after it began, failed with `error` if any, and
    /// queues it for export.
    pub(super) fn end(
        &self,
        begun: &mut Begun,
        error: Option<&Cow<'static, str>>,
        elapsed: Duration,
    ) {
        let Some(mut encoded) = begun.encoded.take() else {
            return;
        };
        let elapsed = u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX);
        SCRATCH.with_borrow_mut(|scratch| {
            let end = &mut scratch.end;
            end.end_time_unix_nano = begun.start.saturating_add(elapsed);
            let mut attributes = Attributes::new(&mut end.attributes, &mut scratch.spare);
            end.status = None;
            if let Some(error) = error {
                attributes.put("error.type", error);
                if error.parse::<i64>().is_ok() {
                    attributes.put("rpc.response.status_code", error);
                }
                end.status = Some(Status {
                    message: error.to_string(),
                    code: status::StatusCode::Error as i32,
                });
            }
            attributes.finish();
            end.encode(&mut encoded)
                .expect("a vector takes an encoding of any length");
        });
        self.queue.push(encoded);
    }
}

/// A thread's messages, reused from span to span.
#[derive(Default)]
struct Scratch {
    /// What a span's start writes.
    start: Span,
    /// What its end adds.
    end: Span,
    /// Attributes left over from a span that had more, for the next that has more.
    spare: Vec<KeyValue>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::default();
}

/// The encoding of what a span's labels fix: its name, kind, and the attributes the
/// conventions for MCP give it but its ids and URI (`mcp.method.name`,
/// `network.transport`, `mcp.protocol.version`, `gen_ai.tool.name`,
/// `gen_ai.operation.name`, `gen_ai.prompt.name`).
pub(super) fn encode_head(side: Side, operation: &Operation<'_>) -> Vec<u8> {
    let mut attributes = vec![
        string_attribute("mcp.method.name", operation.method),
        string_attribute("network.transport", operation.transport.as_str()),
    ];
    if let Some(version) = operation.protocol_version {
        attributes.push(string_attribute("mcp.protocol.version", version));
    }
    match operation.target {
        Target::None | Target::Resource(_) => {}
        Target::Tool(name) => {
            attributes.push(string_attribute("gen_ai.tool.name", name));
            attributes.push(string_attribute("gen_ai.operation.name", "execute_tool"));
        }
        Target::Prompt(name) => attributes.push(string_attribute("gen_ai.prompt.name", name)),
    }
    let kind = match side {
        Side::Server => span::SpanKind::Server,
        Side::Client => span::SpanKind::Client,
    };
    Span {
        name: operation.span_name(),
        kind: kind as i32,
        attributes,
        ..Span::default()
    }
    .encode_to_vec()
}

/// The attribute `key`, a string.
pub(super) fn string_attribute(key: &str, value: &str) -> KeyValue {
    KeyValue {
        key: key.to_owned(),
        value: Some(AnyValue {
            value: Some(any_value::Value::StringValue(value.to_owned())),
        }),
    }
}

/// The encoding of a span at its start: its `head`, then its ids (and its parent's, with
/// whether that parent is remote), start time, and the attributes of this operation
/// alone (`mcp.session.id`, `jsonrpc.request.id`, `mcp.resource.uri`).
fn encode_start(
    context: &SpanContext,
    parent: Option<(SpanId, bool)>,
    (operation, start): (&Operation<'_>, u64),
    head: &[u8],
) -> Vec<u8> {
    SCRATCH.with_borrow_mut(|scratch| {
        let span = &mut scratch.start;
        put_bytes(&mut span.trace_id, &context.trace_id().to_bytes());
        put_bytes(&mut span.span_id, &context.span_id().to_bytes());
        match parent {
            Some((id, _)) => put_bytes(&mut span.parent_span_id, &id.to_bytes()),
            None => span.parent_span_id.clear(),
        }
        span.trace_state = context.trace_state().header();
        let mut flags = u32::from(context.trace_flags().to_u8());
        flags |= SpanFlags::ContextHasIsRemoteMask as u32;
        if parent.is_some_and(|(_, remote)| remote) {
            flags |= SpanFlags::ContextIsRemoteMask as u32;
        }
        span.flags = flags;
        span.start_time_unix_nano = start;
        let mut attributes = Attributes::new(&mut span.attributes, &mut scratch.spare);
        let own = [
            ("mcp.session.id", operation.session_id),
            ("jsonrpc.request.id", operation.request_id),
        ];
        for (key, value) in own {
            if let Some(value) = value {
                attributes.put(key, value);
            }
        }
        if let Target::Resource(uri) = operation.target {
            attributes.put("mcp.resource.uri", uri);
        }
        attributes.finish();
        let mut encoded = Vec::with_capacity(head.len() + 192);
        encoded.extend_from_slice(head);
        span.encode(&mut encoded)
            .expect("a vector takes an encoding of any length");
        encoded
    })
}

/// The attributes of a scratch message, written over those of the last span: their
/// strings are reused, and those it has more than this one go to the spare ones.
struct Attributes<'a> {
    list: &'a mut Vec<KeyValue>,
    spare: &'a mut Vec<KeyValue>,
    written: usize,
}

impl<'a> Attributes<'a> {
    fn new(list: &'a mut Vec<KeyValue>, spare: &'a mut Vec<KeyValue>) -> Self {
        Self {
            list,
            spare,
            written: 0,
        }
    }

    /// Writes the string attribute `key`.
    fn put(&mut self, key: &str, value: &str) {
        if self.written == self.list.len() {
            let slot = self.spare.pop().unwrap_or_default();
            self.list.push(slot);
        }
        let slot = &mut self.list[self.written];
        self.written += 1;
        slot.key.clear();
        slot.key.push_str(key);
        match &mut slot.value {
            Some(AnyValue {
                value: Some(any_value::Value::StringValue(text)),
            }) => {
                text.clear();
                text.push_str(value);
            }
            other => {
                *other = Some(AnyValue {
                    value: Some(any_value::Value::StringValue(value.to_owned())),
                });
            }
        }
    }

    /// Leaves the attributes written, no others.
    fn finish(self) {
        self.spare.extend(self.list.drain(self.written..));
    }
}

/// Writes `bytes` over `to`, reusing its allocation.
fn put_bytes(to: &mut Vec<u8>, bytes: &[u8]) {
    to.clear();
    to.extend_from_slice(bytes);
}

/// Now, in nanoseconds since the Unix epoch.
pub(super) fn unix_nanos() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| {
            u64::try_from(since.as_nanos()).unwrap_or(u64::MAX)
        })
}

/// A lock whose holder panicked still holds good spans and counts.
pub(super) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
