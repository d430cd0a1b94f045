"""The quickstart's metrics, exported over OTLP/HTTP to a receiver that decodes them with the
official OTLP definitions, as the official MCP Python SDK 1.x calls its tools: the duration
histogram by tool and `error.type`, in seconds, and the calls in flight."""

import pytest

from otel_support import (
    receiver,  # noqa: F401 (a fixture)
    serve,  # noqa: F401 (a fixture)
    session_with,
)

pytestmark = pytest.mark.anyio


def points_named(metric, service, **attributes):
    """A finder of the points of `metric` from `service` whose attributes hold `attributes`,
    the latest last."""

    def found(received):
        return [
            point
            for point in received.points
            if point.metric == metric
            and point.service == service
            and all(point.attributes.get(key) == value for key, value in attributes.items())
        ]

    return found


async def test_the_duration_histogram_counts_calls_by_tool_and_error(receiver, serve):
    service = "quickstart-metrics"
    served = serve(receiver=receiver, service=service)
    async with session_with(served.url) as (session, _):
        for a in (1, 2):
            result = await session.call_tool("calculator.add", {"a": a, "b": 40})
            assert result.isError is False, result
        result = await session.call_tool("calculator.add", {"a": "two", "b": 40})
        assert result.isError is True, result

    def counted(count, **attributes):
        find = points_named("mcp.server.operation.duration", service, **attributes)
        return lambda received: [point for point in find(received) if point.count >= count]

    succeeded = receiver.wait_for(
        "two calls of calculator.add in the duration histogram",
        counted(2, **{"gen_ai.tool.name": "calculator.add", "mcp.method.name": "tools/call"}),
    )
    point = succeeded[-1]
    assert point.unit == "s", point
    assert "error.type" not in point.attributes, point.attributes
    assert point.attributes["network.transport"] == "tcp", point.attributes
    assert 0 < point.sum < 10, point

    failed = receiver.wait_for(
        "the failed call in the duration histogram",
        counted(1, **{"gen_ai.tool.name": "calculator.add", "error.type": "tool_error"}),
    )
    assert failed[-1].count == 1, failed[-1]

    in_flight = receiver.wait_for(
        "the calls in flight",
        points_named(
            "mcp.server.operations.in_flight", service, **{"gen_ai.tool.name": "calculator.add"}
        ),
    )
    assert in_flight[-1].value == 0, in_flight[-1]
