"""The quickstart's spans, exported over OTLP/HTTP to a receiver that decodes them with the
official OTLP definitions, as the official MCP Python SDK 1.x calls its tools: their names,
kinds and attributes, as the OpenTelemetry semantic conventions for MCP have them, and the
trace a caller passes in the call's `_meta` continued."""

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.types import LATEST_PROTOCOL_VERSION
from opentelemetry import trace
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags, TraceState

from otel_support import (
    ids_of,
    next_request_id,
    otel_env,
    receiver,  # noqa: F401 (a fixture)
    serve,  # noqa: F401 (a fixture)
    session_with,
    spans_named,
    traced_meta,
    tracer,  # noqa: F401 (a fixture)
)
from otlp_receiver import SERVER

pytestmark = pytest.mark.anyio



async def test_a_tool_call_is_a_server_span_with_the_conventions_attributes(receiver, serve):
    served = serve(receiver=receiver, service="quickstart-spans")
    async with session_with(served.url) as (session, session_id):
        request_id = next_request_id(session)
        result = await session.call_tool("calculator.add", {"a": 2, "b": 40})
        assert result.isError is False, result

    [span] = receiver.wait_for(
        "span `tools/call calculator.add`", spans_named("tools/call calculator.add", "quickstart-spans")
    )
    assert span.kind == SERVER
    assert span.attributes["mcp.method.name"] == "tools/call"
    assert span.attributes["gen_ai.tool.name"] == "calculator.add"
    assert span.attributes["jsonrpc.request.id"] == str(request_id)
    assert span.attributes["network.transport"] == "tcp"
    assert span.attributes["mcp.protocol.version"] == LATEST_PROTOCOL_VERSION
    assert session_id, "the quickstart gave the session no id"
    assert span.attributes["mcp.session.id"] == session_id
    assert "error.type" not in span.attributes, span.attributes
    # Nothing was passed: a trace of its own.
    assert span.parent_span_id == "", span
    assert len(span.trace_id) == 32 and span.trace_id != "0" * 32


async def span_over_stdio(receiver, quickstart, service):
    """A call of `calculator.add` over stdio: its id, and the span the quickstart exported."""
    env = otel_env(receiver, service)
    params = StdioServerParameters(command=quickstart, args=["serve", "--stdio"], env=env)
    async with stdio_client(params) as (reader, writer):
        async with ClientSession(reader, writer) as session:
            await session.initialize()
            request_id = next_request_id(session)
            result = await session.call_tool("calculator.add", {"a": 2, "b": 40})
            assert result.isError is False, result

    [span] = receiver.wait_for(
        "span `tools/call calculator.add`", spans_named("tools/call calculator.add", service)
    )
    return request_id, span


async def test_over_stdio_the_transport_is_a_pipe(receiver, quickstart):
    request_id, span = await span_over_stdio(receiver, quickstart, "quickstart-stdio")
    assert span.kind == SERVER
    assert span.attributes["network.transport"] == "pipe"
    assert span.attributes["jsonrpc.request.id"] == str(request_id)


async def test_over_stdio_the_span_says_the_revision_negotiated(receiver, quickstart):
    _, span = await span_over_stdio(receiver, quickstart, "quickstart-stdio-version")
    assert span.attributes.get("mcp.protocol.version") == LATEST_PROTOCOL_VERSION, span.attributes


async def test_a_failed_call_says_its_error_type(receiver, serve):
    served = serve(receiver=receiver, service="quickstart-failure")
    async with session_with(served.url) as (session, _):
        result = await session.call_tool("calculator.add", {"a": "two", "b": 40})
        assert result.isError is True, result

    [span] = receiver.wait_for(
        "span `tools/call calculator.add`", spans_named("tools/call calculator.add", "quickstart-failure")
    )
    assert span.attributes["gen_ai.tool.name"] == "calculator.add"
    assert span.attributes.get("error.type"), span.attributes


async def test_the_server_span_is_the_child_of_a_trace_the_sdk_began(receiver, serve, tracer):
    """A trace the OpenTelemetry SDK begins: its `traceparent` has the flags W3C Trace
    Context level 2 gives a new trace (sampled, and `random`: `03`)."""
    tracer, _ = tracer
    served = serve(receiver=receiver, service="quickstart-root")
    async with session_with(served.url) as (session, _):
        with tracer.start_as_current_span("ask the calculator", kind=trace.SpanKind.CLIENT) as caller:
            meta = traced_meta()
            result = await session.call_tool("calculator.add", {"a": 2, "b": 40}, meta=meta)
        assert result.isError is False, result
    trace_id, span_id = ids_of(caller)

    [span] = receiver.wait_for(
        "span `tools/call calculator.add`", spans_named("tools/call calculator.add", "quickstart-root")
    )
    assert (span.trace_id, span.parent_span_id) == (trace_id, span_id), meta


async def test_the_server_span_is_the_child_of_the_callers_span(receiver, serve, tracer):
    tracer, ended = tracer
    served = serve(receiver=receiver, service="quickstart-child")
    # A caller whose trace came with a `tracestate`, which goes on with it.
    upstream = SpanContext(
        trace_id=0x4BF92F3577B34DA6A3CE929D0E0E4736,
        span_id=0x00F067AA0BA902B7,
        is_remote=True,
        trace_flags=TraceFlags(TraceFlags.SAMPLED),
        trace_state=TraceState([("vendor", "opaque")]),
    )
    async with session_with(served.url) as (session, _):
        with trace.use_span(NonRecordingSpan(upstream)):
            with tracer.start_as_current_span("ask the calculator", kind=trace.SpanKind.CLIENT) as caller:
                meta = traced_meta()
                result = await session.call_tool("calculator.add", {"a": 2, "b": 40}, meta=meta)
        assert result.isError is False, result
    assert meta["tracestate"] == "vendor=opaque", meta
    [ended_span] = ended.get_finished_spans()
    assert ended_span.name == "ask the calculator"
    trace_id, span_id = ids_of(caller)

    [span] = receiver.wait_for(
        "span `tools/call calculator.add`", spans_named("tools/call calculator.add", "quickstart-child")
    )
    assert span.kind == SERVER
    assert span.trace_id == trace_id
    assert span.parent_span_id == span_id
    assert span.trace_state == "vendor=opaque"


@pytest.mark.parametrize(
    "traceparent",
    [
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",  # too short
        "00-00000000000000000000000000000000-00f067aa0ba902b7-01",  # an all-zero trace id
        "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",  # an all-zero span id
        "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",  # version ff
    ],
)
async def test_a_hostile_traceparent_starts_a_fresh_trace(receiver, serve, traceparent):
    served = serve(receiver=receiver, service="quickstart-hostile")
    async with session_with(served.url) as (session, _):
        result = await session.call_tool("calculator.add", {"a": 2, "b": 40}, meta={"traceparent": traceparent})
        assert result.isError is False, result
        assert result.structuredContent == {"sum": 42}, result

    [span] = receiver.wait_for(
        "span `tools/call calculator.add`", spans_named("tools/call calculator.add", "quickstart-hostile")
    )
    assert span.parent_span_id == "", span
    assert span.trace_id not in traceparent, span
    assert span.trace_id != "0" * 32

