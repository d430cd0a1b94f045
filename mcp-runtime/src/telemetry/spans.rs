//! The spans of operations, recorded for OTLP: each is encoded in protobuf as it begins and
//! as it ends, as the official OTLP messages (`opentelemetry-proto`) define it, and is queued
//! for the exporter ([`super::export`]) as an entry of `ScopeSpans.spans`.
//!
//! A span is written in parts, by protobuf's rule that a message's encoding followed by
//! another's reads as the two merged (their repeated fields joined): its head, the name,
//! kind and attributes that its labels fix, encoded once for each set of labels
//! ([`encode_head`]); what else is known at its start (ids, start time, the request's id);
//! then what its end adds (end time, `error.type`, status). The parts a span writes itself
//! are written field by field from the values it borrows, with `prost`'s encoding of keys,
//! lengths and numbers ([`fields`]). The head is queued by reference and joined to the rest
//! by the exporter's thread ([`Queue`]): recording a span costs a few dozen bytes written,
//! where a span of the SDK's allocates a dozen strings and is converted again for export.

use std::borrow::Cow;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use opentelemetry::Context;
use opentelemetry::trace::{
    SamplingDecision, SpanContext, SpanId, SpanKind, TraceContextExt, TraceFlags, TraceState,
};
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::trace::v1::{Span, SpanFlags, span};
use opentelemetry_sdk::trace::Config;
use prost::Message;

use super::clock::{Moment, WallClock};
use super::fields;
use super::labels::Side;
use super::{Operation, Target};

/// The field of `ScopeSpans` that holds its spans (`repeated Span spans = 2`).
pub(super) const SCOPE_SPANS_SPANS: u32 = 2;

/// A span begun: its context, which its children and the requests it sends carry, and,
/// when it is sampled, its encoding so far.
#[derive(Debug)]
pub(super) struct Begun {
    pub(super) context: SpanContext,
    /// Its own fields, after its head where that is written inline.
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
///
/// A span is queued as its own fields alone: its head, which its labels keep for as long as
/// the process runs, is queued by reference, and joined to them by the exporter's thread as
/// it makes a batch. A call's thread then writes a third of a span into memory the
/// exporter's thread reads, and copies no head.
#[derive(Debug, Default)]
pub(super) struct Queue {
    state: Mutex<Queued>,
    ready: Condvar,
    bounds: Bounds,
    /// The bytes left free at the front of each batch: room for what the exporter writes
    /// around its spans, so that a batch is sent where it was made.
    room: usize,
    /// The spans' wall clock.
    pub(super) clock: WallClock,
}

/// A span queued: its head, and where its own fields end in [`Queued::own`].
#[derive(Debug, Clone, Copy)]
struct Entry {
    head: &'static [u8],
    end: usize,
}

#[derive(Debug, Default)]
struct Queued {
    /// The spans' own fields, one after another.
    own: Vec<u8>,
    entries: Vec<Entry>,
    /// Spans dropped because the queue was full, since the last batch.
    dropped: u64,
    stopping: bool,
    /// The spans taken for the last batch, given back once joined to their heads: where
    /// the spans after it are written, rather than in memory allocated anew and grown.
    spare_spans: Option<(Vec<u8>, Vec<Entry>)>,
    /// A batch's bytes, sent and given back ([`Queue::give_back`]): where the next batch is
    /// made.
    spare: Option<Vec<u8>>,
}

/// A batch taken for export.
#[derive(Debug, Default)]
pub(super) struct Batch {
    /// The queue's room, then the spans, each an entry of `ScopeSpans.spans`.
    pub(super) encoded: Vec<u8>,
    pub(super) spans: usize,
    pub(super) dropped: u64,
    /// Whether the queue is stopping: this is its last batch.
    pub(super) last: bool,
}

impl Queue {
    /// A queue whose batches leave `room` bytes free before their spans.
    pub(super) fn with_room(bounds: Bounds, room: usize) -> Self {
        Self {
            bounds,
            room,
            ..Self::default()
        }
    }

    /// Queues a span: `head`, then its `own` fields.
    fn push(&self, head: &'static [u8], own: &[u8]) {
        let mut queued = lock(&self.state);
        if queued.entries.len() >= self.bounds.queue {
            queued.dropped += 1;
            return;
        }
        queued.own.extend_from_slice(own);
        let end = queued.own.len();
        queued.entries.push(Entry { head, end });
        if queued.entries.len() == self.bounds.batch {
            self.ready.notify_one();
        }
    }

    /// The spans queued, once a batch of them is, or `delay` has passed, or the queue stops:
    /// a batch at most, the rest left for the next. The spans' clock is set anew from the
    /// wall clock's.
    pub(super) fn next_batch(&self, delay: Duration) -> Batch {
        self.clock.set();
        let deadline = Instant::now() + delay;
        let mut guard = lock(&self.state);
        while guard.entries.len() < self.bounds.batch && !guard.stopping {
            let Some(left) = deadline.checked_duration_since(Instant::now()) else {
                break;
            };
            guard = self
                .ready
                .wait_timeout(guard, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        let queued = &mut *guard;
        let (mut own, mut entries) = queued.spare_spans.take().unwrap_or_default();
        if queued.entries.len() > self.bounds.batch {
            // A full batch, the spans after it left queued.
            let cut = queued.entries[self.bounds.batch - 1].end;
            own.extend_from_slice(&queued.own[cut..]);
            entries.extend(
                queued.entries[self.bounds.batch..]
                    .iter()
                    .map(|entry| Entry {
                        head: entry.head,
                        end: entry.end - cut,
                    }),
            );
            queued.own.truncate(cut);
            queued.entries.truncate(self.bounds.batch);
        }
        std::mem::swap(&mut own, &mut queued.own);
        std::mem::swap(&mut entries, &mut queued.entries);
        let batch = self.fresh(&mut queued.spare, &own, &entries);
        let dropped = std::mem::take(&mut queued.dropped);
        let last = queued.stopping && queued.entries.is_empty();
        // The spans are joined to their heads with the queue free for others.
        drop(guard);
        let batch = join(batch, &own, &entries);
        let spans = entries.len();
        own.clear();
        entries.clear();
        lock(&self.state).spare_spans = Some((own, entries));
        Batch {
            encoded: batch,
            spans,
            dropped,
            last,
        }
    }

    /// An empty buffer for a batch of `entries`, whose own fields are `own`, with the room
    /// left free: the spare one where it has room for it, one allocated otherwise.
    fn fresh(&self, spare: &mut Option<Vec<u8>>, own: &[u8], entries: &[Entry]) -> Vec<u8> {
        // Each span's key and length take three bytes, or fewer.
        let heads: usize = entries.iter().map(|entry| entry.head.len() + 3).sum();
        let capacity = self.room + heads + own.len();
        let mut buffer = match spare.take() {
            Some(spare) if spare.capacity() >= capacity => spare,
            _ => Vec::with_capacity(capacity),
        };
        buffer.clear();
        buffer.resize(self.room, 0);
        buffer
    }

    /// Gives back a batch's bytes once they are sent: the next batch is made there, in
    /// memory already the process's, rather than in memory allocated anew.
    pub(super) fn give_back(&self, buffer: Vec<u8>) {
        let mut queued = lock(&self.state);
        let larger = queued
            .spare
            .as_ref()
            .is_none_or(|spare| spare.capacity() < buffer.capacity());
        let unused = if larger {
            queued.spare.replace(buffer)
        } else {
            Some(buffer)
        };
        drop(queued);
        drop(unused);
    }

    /// Stops the queue: its exporter sends what is left, and ends.
    pub(super) fn stop(&self) {
        lock(&self.state).stopping = true;
        self.ready.notify_all();
    }
}

/// `batch`, the spans of `entries` after it, each an entry of `ScopeSpans.spans`: its head,
/// then its own fields, read from `own`.
fn join(mut batch: Vec<u8>, own: &[u8], entries: &[Entry]) -> Vec<u8> {
    let mut start = 0;
    for entry in entries {
        let fields = &own[start..entry.end];
        fields::open(
            SCOPE_SPANS_SPANS,
            entry.head.len() + fields.len(),
            &mut batch,
        );
        batch.extend_from_slice(entry.head);
        batch.extend_from_slice(fields);
        start = entry.end;
    }
    batch
}

/// What begins spans: the SDK's sampler and id generator (as `OTEL_TRACES_SAMPLER` sets
/// them), and the queue the spans go to.
#[derive(Debug)]
pub(super) struct Spans {
    config: Config,
    sampling: Sampling,
    queue: std::sync::Arc<Queue>,
}

/// Who decides whether a span is sampled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sampling {
    /// The SDK's default, `parentbased_always_on`, decided here as its sampler decides it,
    /// without the result it allocates: a span is sampled when its parent is, or when it
    /// has none.
    ParentOrAlways,
    /// The sampler the configuration holds.
    Configured,
}

impl Sampling {
    /// The sampling `OTEL_TRACES_SAMPLER` (read by the SDK's configuration) asks for.
    fn from_env() -> Self {
        match std::env::var("OTEL_TRACES_SAMPLER") {
            Err(std::env::VarError::NotPresent) => Self::ParentOrAlways,
            Ok(sampler) if sampler == "parentbased_always_on" => Self::ParentOrAlways,
            _ => Self::Configured,
        }
    }
}

impl Spans {
    /// Spans sampled, and their ids made, as the SDK's configuration from the environment
    /// has it.
    pub(super) fn from_env(queue: std::sync::Arc<Queue>) -> Self {
        Self {
            config: Config::default(),
            sampling: Sampling::from_env(),
            queue,
        }
    }

    /// Whether a span of `operation` whose parent `parent` holds is sampled, and the trace
    /// state it carries.
    fn sample(
        &self,
        parent: &Context,
        trace_id: opentelemetry::trace::TraceId,
        operation: &Operation<'_>,
        kind: &SpanKind,
    ) -> (bool, opentelemetry::trace::TraceState) {
        match self.sampling {
            Sampling::ParentOrAlways => {
                let span = parent.span();
                let context = span.span_context();
                let sampled = !parent.has_active_span() || context.is_sampled();
                (sampled, context.trace_state().clone())
            }
            Sampling::Configured => {
                let sampling = self.config.sampler.should_sample(
                    Some(parent),
                    trace_id,
                    operation.method,
                    kind,
                    &[],
                    &[],
                );
                (
                    sampling.decision == SamplingDecision::RecordAndSample,
                    sampling.trace_state,
                )
            }
        }
    }

    /// Begins `operation`'s span, a child of the span `parent` holds, if any, at `started`;
    /// `head` is the encoding of its name, kind and the attributes its labels fix
    /// ([`encode_head`]).
    pub(super) fn begin(
        &self,
        side: Side,
        operation: &Operation<'_>,
        parent: &Context,
        head: Head<'_>,
        started: Moment,
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
        let (sampled, trace_state) = self.sample(parent, trace_id, operation, &kind);
        let flags = if sampled {
            TraceFlags::SAMPLED
        } else {
            TraceFlags::default()
        };
        let span_id = self.config.id_generator.new_span_id();
        let context = SpanContext::new(trace_id, span_id, flags, false, trace_state);
        let start = self.queue.clock.unix_nanos_at(started);
        let encoded = sampled.then(|| {
            let parent = parent_id.map(|id| (id, parent_context.is_remote()));
            encode_start(&context, parent, (operation, start), head.inline())
        });
        Begun {
            context,
            encoded,
            start,
        }
    }

    /// Ends the span `begun`, `elapsed` after it began, failed with `error` if any, and
    /// queues it for export, after `head`: the one it began with.
    pub(super) fn end(
        &self,
        begun: &mut Begun,
        head: Head<'_>,
        error: Option<&Cow<'static, str>>,
        elapsed: Duration,
    ) {
        let Some(mut encoded) = begun.encoded.take() else {
            return;
        };
        let elapsed = u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX);
        fields::fixed64(
            fields::END_TIME,
            begun.start.saturating_add(elapsed),
            &mut encoded,
        );
        if let Some(error) = error {
            fields::string_attribute("error.type", error, &mut encoded);
            if error.parse::<i64>().is_ok() {
                fields::string_attribute("rpc.response.status_code", error, &mut encoded);
            }
            fields::error_status(error, &mut encoded);
        }
        self.queue.push(head.queued(), &encoded);
        spare::give(encoded);
    }
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

/// The encoding of what a span's labels fix ([`encode_head`]), where a span begins.
#[derive(Debug, Clone, Copy)]
pub(super) enum Head<'a> {
    /// Kept as long as the process runs: queued by reference.
    Kept(&'static [u8]),
    /// Kept while the span is: written with its own fields.
    Inline(&'a [u8]),
}

impl<'a> Head<'a> {
    /// The head queued by reference: none where it is written inline.
    fn queued(self) -> &'static [u8] {
        match self {
            Self::Kept(head) => head,
            Self::Inline(_) => &[],
        }
    }

    /// The head written with a span's own fields: none where it is queued by reference.
    fn inline(self) -> Option<&'a [u8]> {
        match self {
            Self::Kept(_) => None,
            Self::Inline(head) => Some(head),
        }
    }
}

/// The encoding of a span's own fields at its start, after its head where that is `inline`:
/// its ids (and its parent's, with whether that parent is remote), start time, and the
/// attributes of this operation alone (`mcp.session.id`, `jsonrpc.request.id`,
/// `mcp.resource.uri`).
fn encode_start(
    context: &SpanContext,
    parent: Option<(SpanId, bool)>,
    (operation, start): (&Operation<'_>, u64),
    inline: Option<&[u8]>,
) -> Vec<u8> {
    let mut encoded = spare::take(inline.map_or(0, <[u8]>::len) + 192);
    if let Some(head) = inline {
        encoded.extend_from_slice(head);
    }
    let mut flags = u32::from(context.trace_flags().to_u8());
    flags |= SpanFlags::ContextHasIsRemoteMask as u32;
    if parent.is_some_and(|(_, remote)| remote) {
        flags |= SpanFlags::ContextIsRemoteMask as u32;
    }
    fields::every_spans(
        (context.trace_id().to_bytes(), context.span_id().to_bytes()),
        flags,
        start,
        &mut encoded,
    );
    // Most traces carry no state: its header, a string made, is left unmade.
    if *context.trace_state() != TraceState::NONE {
        let trace_state = context.trace_state().header();
        if !trace_state.is_empty() {
            fields::bytes(fields::TRACE_STATE, trace_state.as_bytes(), &mut encoded);
        }
    }
    if let Some((id, _)) = parent {
        fields::bytes(fields::PARENT_SPAN_ID, &id.to_bytes(), &mut encoded);
    }
    let own = [
        ("mcp.session.id", operation.session_id),
        ("jsonrpc.request.id", operation.request_id),
    ];
    for (key, value) in own {
        if let Some(value) = value {
            fields::string_attribute(key, value, &mut encoded);
        }
    }
    if let Target::Resource(uri) = operation.target {
        fields::string_attribute("mcp.resource.uri", uri, &mut encoded);
    }
    encoded
}

/// The buffers spans are encoded in, until they are queued: those of the spans a thread
/// ended, kept for the spans it begins, so that a span costs no allocation of its own.
mod spare {
    use std::cell::RefCell;

    /// How many a thread keeps, at most: as many spans as it has in flight, for most.
    const KEPT: usize = 32;
    /// The largest kept: a span with a long URI or error is encoded in a buffer of its own.
    const LARGEST: usize = 2048;

    thread_local! {
        static SPARE: RefCell<Vec<Vec<u8>>> = const { RefCell::new(Vec::new()) };
    }

    /// An empty buffer with room for `capacity` bytes.
    pub(super) fn take(capacity: usize) -> Vec<u8> {
        let mut buffer = SPARE.with_borrow_mut(Vec::pop).unwrap_or_default();
        buffer.reserve(capacity);
        buffer
    }

    /// A buffer whose span is queued, for the next span this thread begins.
    pub(super) fn give(mut buffer: Vec<u8>) {
        if buffer.capacity() <= LARGEST {
            buffer.clear();
            SPARE.with_borrow_mut(|spare| {
                if spare.len() < KEPT {
                    spare.push(buffer);
                }
            });
        }
    }
}

/// A lock whose holder panicked still holds good spans and counts.
pub(super) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use opentelemetry::trace::{TraceId, TraceState};
    use opentelemetry_proto::tonic::trace::v1::{Status, status};

    use super::*;
    use crate::telemetry::Transport;
    use crate::telemetry::clock::{now, unix_nanos};
    use std::sync::atomic::Ordering;

    /// The span the generated types encode for the same values: what the fields written
    /// one by one must decode to.
    fn generated(
        context: &SpanContext,
        parent: Option<(SpanId, bool)>,
        (operation, start, end): (&Operation<'_>, u64, u64),
        error: Option<&str>,
    ) -> Span {
        let mut span = Span::decode(&*encode_head(Side::Server, operation)).expect("a head");
        span.trace_id = context.trace_id().to_bytes().to_vec();
        span.span_id = context.span_id().to_bytes().to_vec();
        span.trace_state = context.trace_state().header();
        span.parent_span_id = parent
            .map(|(id, _)| id.to_bytes().to_vec())
            .unwrap_or_default();
        span.flags = u32::from(context.trace_flags().to_u8())
            | SpanFlags::ContextHasIsRemoteMask as u32
            | if parent.is_some_and(|(_, remote)| remote) {
                SpanFlags::ContextIsRemoteMask as u32
            } else {
                0
            };
        span.start_time_unix_nano = start;
        span.end_time_unix_nano = end;
        for (key, value) in [
            ("mcp.session.id", operation.session_id),
            ("jsonrpc.request.id", operation.request_id),
        ] {
            if let Some(value) = value {
                span.attributes.push(string_attribute(key, value));
            }
        }
        if let Target::Resource(uri) = operation.target {
            span.attributes
                .push(string_attribute("mcp.resource.uri", uri));
        }
        if let Some(error) = error {
            span.attributes.push(string_attribute("error.type", error));
            if error.parse::<i64>().is_ok() {
                span.attributes
                    .push(string_attribute("rpc.response.status_code", error));
            }
            span.status = Some(Status {
                message: error.to_owned(),
                code: status::StatusCode::Error as i32,
            });
        }
        // Re-encoded and decoded, as the written span is: a field at its default is absent
        // from both.
        Span::decode(&*span.encode_to_vec()).expect("a span")
    }

    #[test]
    fn the_spans_clock_is_the_wall_clock_and_each_batch_sets_it_anew() {
        let near = |clock: &WallClock| {
            let (before, at, after) = (unix_nanos(), now(), unix_nanos());
            let read = clock.unix_nanos_at(at);
            before.saturating_sub(1_000_000) <= read && read <= after + 1_000_000
        };
        let queue = Queue::with_room(Bounds::default(), 0);
        assert!(near(&queue.clock), "a new clock reads the wall clock");
        // A clock an hour off, as after the wall clock was set back: the next batch sets it.
        let hour = 3_600_000_000_000;
        let at_base = queue.clock.at_base.load(Ordering::Relaxed);
        queue.clock.at_base.store(at_base + hour, Ordering::Relaxed);
        assert!(!near(&queue.clock));
        let _ = queue.next_batch(Duration::ZERO);
        assert!(
            near(&queue.clock),
            "the batch set the clock from the wall clock"
        );
    }

    #[test]
    fn the_default_sampling_decides_as_the_sdks_parent_based_always_on() {
        use opentelemetry_sdk::trace::{Sampler, ShouldSample};

        let sdk = Sampler::ParentBased(Box::new(Sampler::AlwaysOn));
        let spans = Spans {
            config: Config::default(),
            sampling: Sampling::ParentOrAlways,
            queue: std::sync::Arc::default(),
        };
        let trace = TraceId::from_hex("4bf92f3577b34da6a3ce929d0e0e4736").expect("an id");
        let parent_id = SpanId::from_hex("b7ad6b7169203331").expect("an id");
        let state = TraceState::from_key_value([("vendor", "opaque.1")]).expect("a trace state");
        let remote = |flags, state: &TraceState| {
            Context::new().with_remote_span_context(SpanContext::new(
                trace,
                parent_id,
                flags,
                true,
                state.clone(),
            ))
        };
        let parents = [
            ("no parent", Context::new()),
            ("a sampled parent", remote(TraceFlags::SAMPLED, &state)),
            (
                "a parent not sampled",
                remote(TraceFlags::default(), &state),
            ),
            (
                "an invalid parent",
                Context::new().with_remote_span_context(SpanContext::empty_context()),
            ),
        ];
        let operation = Operation::new("tools/call", Transport::Pipe);
        for (case, parent) in parents {
            let expected = sdk.should_sample(
                Some(&parent),
                trace,
                "tools/call",
                &SpanKind::Server,
                &[],
                &[],
            );
            let (sampled, trace_state) =
                spans.sample(&parent, trace, &operation, &SpanKind::Server);
            assert_eq!(
                (sampled, trace_state),
                (
                    expected.decision == SamplingDecision::RecordAndSample,
                    expected.trace_state
                ),
                "{case}"
            );
        }
    }

    #[test]
    fn the_fields_written_one_by_one_decode_as_the_generated_span_would() {
        let trace = TraceId::from_hex("4bf92f3577b34da6a3ce929d0e0e4736").expect("an id");
        let id = SpanId::from_hex("00f067aa0ba902b7").expect("an id");
        let parent_id = SpanId::from_hex("b7ad6b7169203331").expect("an id");
        let state = TraceState::from_key_value([("vendor", "opaque.1"), ("other", "2")])
            .expect("a trace state");
        let long = "é".repeat(100);
        let call = Operation::new("tools/call", Transport::Tcp)
            .with_target(Target::Tool("calculator.add"))
            .with_request_id("7")
            .with_protocol_version(Some("2025-11-25"))
            .with_session_id(Some("b1c2"));
        let read = Operation::new("resources/read", Transport::Pipe)
            .with_target(Target::Resource(&long))
            .with_request_id(&long);
        let ping = Operation::new("ping", Transport::Pipe);
        let cases = [
            (&call, None, TraceState::default(), None),
            (
                &call,
                Some((parent_id, true)),
                state.clone(),
                Some("tool_error"),
            ),
            (
                &read,
                Some((parent_id, false)),
                TraceState::default(),
                Some("-32602"),
            ),
            (&ping, None, state, Some("")),
        ];
        for (operation, parent, trace_state, error) in cases {
            let context = SpanContext::new(trace, id, TraceFlags::SAMPLED, false, trace_state);
            let (start, end) = (1_700_000_000_000_000_000, 1_700_000_000_000_250_000);
            let head = encode_head(Side::Server, operation);
            let mut written = encode_start(&context, parent, (operation, start), Some(&head));
            fields::fixed64(fields::END_TIME, end, &mut written);
            if let Some(error) = error {
                fields::string_attribute("error.type", error, &mut written);
                if error.parse::<i64>().is_ok() {
                    fields::string_attribute("rpc.response.status_code", error, &mut written);
                }
                fields::error_status(error, &mut written);
            }
            let decoded = Span::decode(&*written).expect("the written span decodes");
            let expected = generated(&context, parent, (operation, start, end), error);
            assert_eq!(decoded, expected, "{}", operation.method);
        }
    }
}
