"""One trace across three processes: the official MCP Python SDK 1.x, with the official
OpenTelemetry SDK's tracer, calls a tool of the quickstart serving as a gateway, which calls
it on a second quickstart it mounts over streamable HTTP. Both quickstarts export their
spans to one OTLP receiver."""

import contextlib

import pytest
from opentelemetry import trace
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags

from otel_support import (
    ids_of,
    receiver,  # noqa: F401 (a fixture)
    serve,  # noqa: F401 (a fixture)
    session_with,
    spans_named,
    traced_meta,
    tracer,  # noqa: F401 (a fixture)
)
from otlp_receiver import CLIENT, SERVER

pytestmark = pytest.mark.anyio


async def one_trace_through_the_gateway(receiver, serve, tracer, within):
    """Calls `up.calculator.add` on a gateway to an upstream, in a span of `tracer` begun
    within the context `within` makes, and checks the trace: Python's span, the gateway's
    server span, its client span, the upstream's server span, each the parent of the next."""
    tracer, _ = tracer
    upstream = serve(receiver=receiver, service="upstream")
    gateway = serve(before=["--mount", f"up={upstream.url}"], receiver=receiver, service="gateway")
    async with session_with(gateway.url) as (session, _):
        with within(), tracer.start_as_current_span("ask through the gateway", kind=trace.SpanKind.CLIENT) as caller:
            meta = traced_meta()
            result = await session.call_tool("up.calculator.add", {"a": 2, "b": 40}, meta=meta)
        assert result.isError is False, result
        assert result.structuredContent == {"sum": 42}, result
    trace_id, caller_id = ids_of(caller)

    [served] = receiver.wait_for(
        "the gateway's server span", spans_named("tools/call up.calculator.add", "gateway", SERVER)
    )
    [relayed] = receiver.wait_for(
        "the gateway's client span", spans_named("tools/call calculator.add", "gateway", CLIENT)
    )
    [answered] = receiver.wait_for(
        "the upstream's server span", spans_named("tools/call calculator.add", "upstream", SERVER)
    )
    # From the upstream up, so that a broken link says which.
    assert answered.parent_span_id == relayed.span_id
    assert relayed.parent_span_id == served.span_id
    assert answered.trace_id == relayed.trace_id == served.trace_id
    assert (served.trace_id, served.parent_span_id) == (trace_id, caller_id), meta
    assert relayed.attributes["mcp.method.name"] == "tools/call"
    assert relayed.attributes["network.transport"] == "tcp"
    # The request the gateway sent is the one the upstream answered.
    assert relayed.attributes["jsonrpc.request.id"] == answered.attributes["jsonrpc.request.id"]
    assert relayed.attributes["gen_ai.tool.name"] == "calculator.add"
    assert answered.attributes["gen_ai.tool.name"] == "calculator.add"
    assert served.attributes["gen_ai.tool.name"] == "up.calculator.add"


async def test_a_call_through_the_gateway_is_one_trace(receiver, serve, tracer):
    # A caller whose own trace came from further up (sampled: `01`).
    further_up = SpanContext(
        trace_id=0x4BF92F3577B34DA6A3CE929D0E0E4736,
        span_id=0x00F067AA0BA902B7,
        is_remote=True,
        trace_flags=TraceFlags(TraceFlags.SAMPLED),
    )
    await one_trace_through_the_gateway(
        receiver, serve, tracer, lambda: trace.use_span(NonRecordingSpan(further_up))
    )


async def test_a_trace_the_sdk_began_goes_through_the_gateway(receiver, serve, tracer):
    await one_trace_through_the_gateway(receiver, serve, tracer, contextlib.nullcontext)
