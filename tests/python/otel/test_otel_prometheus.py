"""Debian's Prometheus scrapes the quickstart's `/metrics` (`serve --http … --metrics`)
while the official MCP Python SDK 1.x calls its tools, and the histogram of the calls'
durations is read back through Prometheus's HTTP API."""

import contextlib
import json
import pathlib
import shutil
import subprocess
import time
import urllib.parse
import urllib.request

import anyio
import pytest

from conftest import free_port
from otel_support import serve, session_with  # noqa: F401 (a fixture)

pytestmark = pytest.mark.anyio

PROMETHEUS = shutil.which("prometheus") or "/usr/bin/prometheus"
DURATION = "mcp_server_operation_duration_seconds"
"""`mcp.server.operation.duration`, in seconds, as Prometheus names it."""


@pytest.fixture
def prometheus(tmp_path):
    """A function that starts Prometheus scraping `target` (host:port) every second at
    `path`, its storage in a temporary directory; returns the query function of its HTTP
    API."""
    assert pathlib.Path(PROMETHEUS).is_file(), f"{PROMETHEUS} is missing: install Debian's `prometheus`"
    started = []

    def start(target, path):
        config = tmp_path / "prometheus.yml"
        config.write_text(
            json.dumps(
                {
                    "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
                    "scrape_configs": [
                        {"job_name": "quickstart", "metrics_path": path, "static_configs": [{"targets": [target]}]}
                    ],
                }
            )
        )
        api = f"http://127.0.0.1:{free_port()}"
        process = subprocess.Popen(
            [
                PROMETHEUS,
                f"--config.file={config}",
                f"--storage.tsdb.path={tmp_path / 'data'}",
                f"--web.listen-address={api.removeprefix('http://')}",
                "--log.level=warn",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        started.append(process)

        def query(expression):
            url = f"{api}/api/v1/query?{urllib.parse.urlencode({'query': expression})}"
            with urllib.request.urlopen(url, timeout=10) as answer:
                body = json.load(answer)
            assert body["status"] == "success", body
            return body["data"]["result"]

        def targets():
            with urllib.request.urlopen(f"{api}/api/v1/targets", timeout=10) as answer:
                return json.load(answer)["data"]["activeTargets"]

        return query, targets, process

    yield start
    for process in started:
        process.terminate()
        process.wait(timeout=30)


async def poll(what, check, process, timeout=60):
    """Asks `check` until it gives something true, and returns it: Prometheus scrapes and
    answers in its own time, which only asking again observes. Fails after `timeout`
    seconds, or when Prometheus exited."""
    deadline = time.monotonic() + timeout
    last = None
    while True:
        assert process.poll() is None, f"Prometheus exited ({process.returncode})"
        with contextlib.suppress(OSError):
            last = check()
            if last:
                return last
        assert time.monotonic() < deadline, f"no {what} within {timeout}s; last seen: {last}"
        await anyio.sleep(0.2)


def tool_count(query, tool):
    """The number of calls of `tool` the histogram counts, as Prometheus has it; None
    before it has a sample."""
    result = query(f'sum({DURATION}_count{{mcp_method_name="tools/call",gen_ai_tool_name="{tool}"}})')
    return float(result[0]["value"][1]) if result else None


def at_least(least, count):
    """`count`, if it is `least` or more."""
    return count if count is not None and count >= least else None


async def test_prometheus_reads_the_duration_histogram_of_the_calls(serve, prometheus):
    served = serve("--metrics")
    target = urllib.parse.urlsplit(served.url).netloc
    query, targets, process = prometheus(target, "/metrics")

    up = await poll(
        "scrape of the quickstart's /metrics",
        lambda: [t for t in targets() if t["health"] == "up" and t["scrapeUrl"] == f"http://{target}/metrics"],
        process,
    )
    assert up, targets()

    async with session_with(served.url) as (session, _):
        for a in range(3):
            result = await session.call_tool("calculator.add", {"a": a, "b": 1})
            assert result.isError is False, result
        for text in ("one two", "three"):
            result = await session.call_tool("text.word_count", {"text": text})
            assert result.isError is False, result

    # Counts only grow: the first scrape that shows every call shows no more than them.
    adds = await poll("3 calls of calculator.add", lambda: at_least(3, tool_count(query, "calculator.add")), process)
    assert adds == 3
    counts = await poll("2 calls of text.word_count", lambda: at_least(2, tool_count(query, "text.word_count")), process)
    assert counts == 2
    # In seconds: three additions take a small fraction of a second each.
    total = query(f'sum({DURATION}_sum{{gen_ai_tool_name="calculator.add"}})')
    assert total and 0 < float(total[0]["value"][1]) < 3, total
    # A histogram: buckets up to +Inf, which counts every call.
    inf = query(f'sum({DURATION}_bucket{{gen_ai_tool_name="calculator.add",le="+Inf"}})')
    assert inf and float(inf[0]["value"][1]) == 3, inf


async def test_the_metrics_path_can_be_chosen(serve, prometheus):
    served = serve("--metrics", "/telemetry/prom")
    target = urllib.parse.urlsplit(served.url).netloc
    query, _, process = prometheus(target, "/telemetry/prom")
    async with session_with(served.url) as (session, _):
        result = await session.call_tool("calculator.add", {"a": 1, "b": 1})
        assert result.isError is False, result
    count = await poll("a call of calculator.add", lambda: tool_count(query, "calculator.add"), process)
    assert count == 1
