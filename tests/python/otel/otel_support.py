"""What the telemetry tests share: the OTLP receiver as a fixture, the quickstart serving
with its export pointed at it, the official Python SDK's client over streamable HTTP, and
the official OpenTelemetry SDK's tracer, whose context a call carries in its `_meta`."""

import contextlib
import os
import subprocess
import threading

import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

from otlp_receiver import Receiver


@pytest.fixture
def receiver():
    """The OTLP receiver, listening."""
    with Receiver() as started:
        yield started


def otel_env(receiver=None, service=None):
    """The environment of a server: this one's, without its `OTEL_` variables, and, when
    `receiver` is given, exporting to it as the service `service`."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("OTEL_")}
    if receiver is not None:
        env.update(
            OTEL_EXPORTER_OTLP_ENDPOINT=receiver.endpoint,
            OTEL_SERVICE_NAME=service,
            # Exported within a fraction of a second, which the tests wait for.
            OTEL_BSP_SCHEDULE_DELAY="100",
            OTEL_METRIC_EXPORT_INTERVAL="500",
        )
    return env


class Served:
    """A quickstart process serving streamable HTTP: its URL, and what it wrote to its
    standard error (read all along, so that the pipe never fills)."""

    def __init__(self, process, url):
        self.process = process
        self.url = url
        self.said = []
        self.reader = threading.Thread(target=self.read, daemon=True)
        self.reader.start()

    def read(self):
        for line in self.process.stderr:
            self.said.append(line)


@pytest.fixture
def serve(quickstart):
    """A function that starts the quickstart serving streamable HTTP on a free loopback
    port, `before` its command's arguments and `after` them, exporting to `receiver` as
    the service `service` when both are given; returns the `Served` once it listens."""
    started = []

    def start(*after, before=(), receiver=None, service=None):
        env = otel_env(receiver, service)
        process = subprocess.Popen(
            [quickstart, *before, "serve", "--http", "127.0.0.1:0", *after],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        started.append(process)
        said = []
        for line in process.stderr:
            said.append(line)
            if line.startswith("listening on "):
                served = Served(process, line.split()[-1])
                served.said.extend(said)
                return served
        pytest.fail(f"the quickstart exited ({process.wait()}) before it listened; it said: {''.join(said)}")

    yield start
    # The last started first: a gateway holds its upstream's streams open until it ends.
    for process in reversed(started):
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            pytest.fail(f"{process.args} did not end within 10s of SIGTERM")


@contextlib.asynccontextmanager
async def session_with(url):
    """The official Python SDK's client session with the server at `url`, initialized,
    and its session id (`Mcp-Session-Id`)."""
    async with streamable_http_client(url) as (reader, writer, session_id):
        async with ClientSession(reader, writer) as session:
            await session.initialize()
            yield session, session_id()


def next_request_id(session):
    """The JSON-RPC id of the next request `session` sends: the SDK numbers its requests
    from 0, and keeps the next number in `_request_id`."""
    return session._request_id


@pytest.fixture
def tracer():
    """A tracer of the official OpenTelemetry SDK, and the spans it ended."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield provider.get_tracer("mcp-runtime-tests"), exporter
    provider.shutdown()


def traced_meta():
    """The `_meta` of a call made within the current span: its W3C trace context
    (`traceparent`, and `tracestate` when the span has one)."""
    carrier = {}
    TraceContextTextMapPropagator().inject(carrier)
    assert "traceparent" in carrier, carrier
    return carrier


def ids_of(span):
    """A span of the OpenTelemetry SDK's trace and span ids, in the receiver's hex form."""
    context = span.get_span_context()
    return trace.format_trace_id(context.trace_id), trace.format_span_id(context.span_id)


def spans_named(name, service=None, kind=None):
    """A finder for `Receiver.wait_for`: the spans called `name` (exported by `service`,
    of `kind`, when given)."""

    def found(received):
        return [
            span
            for span in received.spans
            if span.name == name
            and (service is None or span.service == service)
            and (kind is None or span.kind == kind)
        ]

    return found
