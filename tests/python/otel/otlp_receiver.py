"""An OTLP/HTTP receiver: takes the protobuf exports of traces and metrics that servers
POST to `/v1/traces` and `/v1/metrics`, decodes them with the official OTLP definitions
(PyPI `opentelemetry-proto`), and keeps what they hold for the tests to read, waking
whoever waits for something to arrive."""

import gzip
import http.server
import threading
import time
from dataclasses import dataclass, field

from opentelemetry.proto.collector.metrics.v1 import metrics_service_pb2
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
from opentelemetry.proto.trace.v1 import trace_pb2

SERVER = trace_pb2.Span.SpanKind.SPAN_KIND_SERVER
CLIENT = trace_pb2.Span.SpanKind.SPAN_KIND_CLIENT


def value_of(any_value):
    """An OTLP `AnyValue` as a Python value."""
    kind = any_value.WhichOneof("value")
    if kind is None:
        return None
    if kind == "array_value":
        return [value_of(item) for item in any_value.array_value.values]
    if kind == "kvlist_value":
        return attributes_of(any_value.kvlist_value.values)
    return getattr(any_value, kind)


def attributes_of(key_values):
    """OTLP `KeyValue`s as a dict."""
    return {pair.key: value_of(pair.value) for pair in key_values}


@dataclass
class Span:
    """One span received, with the service that exported it."""

    service: str
    name: str
    kind: int
    trace_id: str
    span_id: str
    parent_span_id: str
    trace_state: str
    attributes: dict
    status_code: int


@dataclass
class Point:
    """One data point of a metric received: a histogram's count and sum, or a sum's or
    gauge's value."""

    service: str
    metric: str
    unit: str
    attributes: dict
    count: int = 0
    sum: float = 0.0
    value: float = 0.0


@dataclass
class Received:
    """What the receiver was sent, and the requests it refused."""

    spans: list = field(default_factory=list)
    points: list = field(default_factory=list)
    refused: list = field(default_factory=list)


def spans_of(request):
    """The spans of an `ExportTraceServiceRequest`."""
    spans = []
    for resource_spans in request.resource_spans:
        service = attributes_of(resource_spans.resource.attributes).get("service.name", "")
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                spans.append(
                    Span(
                        service=service,
                        name=span.name,
                        kind=span.kind,
                        trace_id=span.trace_id.hex(),
                        span_id=span.span_id.hex(),
                        parent_span_id=span.parent_span_id.hex(),
                        trace_state=span.trace_state,
                        attributes=attributes_of(span.attributes),
                        status_code=span.status.code,
                    )
                )
    return spans


def points_of(request):
    """The data points of an `ExportMetricsServiceRequest`."""
    points = []
    for resource_metrics in request.resource_metrics:
        service = attributes_of(resource_metrics.resource.attributes).get("service.name", "")
        for scope_metrics in resource_metrics.scope_metrics:
            for metric in scope_metrics.metrics:
                kind = metric.WhichOneof("data")
                for point in getattr(metric, kind).data_points:
                    common = dict(
                        service=service,
                        metric=metric.name,
                        unit=metric.unit,
                        attributes=attributes_of(point.attributes),
                    )
                    if kind in ("histogram", "exponential_histogram"):
                        points.append(Point(**common, count=point.count, sum=point.sum))
                    elif kind in ("sum", "gauge"):
                        value = point.as_double if point.HasField("as_double") else point.as_int
                        points.append(Point(**common, value=value))
    return points


ROUTES = {
    "/v1/traces": (trace_service_pb2.ExportTraceServiceRequest, trace_service_pb2.ExportTraceServiceResponse, spans_of, "spans"),
    "/v1/metrics": (
        metrics_service_pb2.ExportMetricsServiceRequest,
        metrics_service_pb2.ExportMetricsServiceResponse,
        points_of,
        "points",
    ),
}


class Receiver:
    """The receiver, listening on a free loopback port once started: `endpoint` is what
    `OTEL_EXPORTER_OTLP_ENDPOINT` takes."""

    def __init__(self):
        self.received = Received()
        self.changed = threading.Condition()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                receiver.take(self)

            def log_message(self, *_):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *_):
        self.server.shutdown()
        self.server.server_close()

    def take(self, handler):
        """Decodes one export and answers it as OTLP/HTTP does: 200 and an empty response
        message, or 400 for what is not an OTLP protobuf export."""
        route = ROUTES.get(handler.path)
        body = handler.rfile.read(int(handler.headers.get("Content-Length", 0)))
        content_type = handler.headers.get("Content-Type", "")
        try:
            if route is None:
                raise ValueError(f"no OTLP route {handler.path}")
            if content_type != "application/x-protobuf":
                raise ValueError(f"{handler.path} sent as {content_type!r}, not application/x-protobuf")
            if handler.headers.get("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
            request_type, response_type, decode, kept = route
            request = request_type()
            request.ParseFromString(body)
            decoded = decode(request)
        except Exception as err:  # the refusal is kept for the test to report
            with self.changed:
                self.received.refused.append(str(err))
                self.changed.notify_all()
            handler.send_response(400)
            handler.send_header("Content-Length", "0")
            handler.end_headers()
            return
        with self.changed:
            getattr(self.received, kept).extend(decoded)
            self.changed.notify_all()
        answer = response_type().SerializeToString()
        handler.send_response(200)
        handler.send_header("Content-Type", "application/x-protobuf")
        handler.send_header("Content-Length", str(len(answer)))
        handler.end_headers()
        handler.wfile.write(answer)

    def wait_for(self, what, found, timeout=60):
        """Waits until `found(received)` gives something true, and returns it; fails after
        `timeout` seconds, saying `what` was awaited and what came instead."""
        deadline = time.monotonic() + timeout
        with self.changed:
            while True:
                assert not self.received.refused, f"the receiver refused exports: {self.received.refused}"
                result = found(self.received)
                if result:
                    return result
                left = deadline - time.monotonic()
                assert left > 0, (
                    f"no {what} within {timeout}s; received spans "
                    f"{[(span.service, span.name) for span in self.received.spans]}, "
                    f"metrics {sorted({point.metric for point in self.received.points})}"
                )
                self.changed.wait(left)
