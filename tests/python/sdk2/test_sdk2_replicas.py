"""The current official MCP Python SDK (2.x), held to the initialize handshake
(`mode="legacy"`, 2025-11-25), through nginx to three quickstart replicas that share their
sessions through Redis, with no affinity: one session sets its log level, calls, and
answers a tool's question, whichever replica each request reaches; a replica is killed
(SIGKILL) and started again in the middle, and the session goes on."""

import pytest
from mcp import Client
from mcp import types as mcp_types

from conftest import ROOT
from replicas import Fleet

pytestmark = pytest.mark.anyio

CALLS = 30
"""Calls of the logging tool; a replica is killed after a third of them, started again after two."""


@pytest.fixture
def fleet(quickstart):
    fleet = Fleet(quickstart)
    yield fleet
    fleet.stop()


async def test_one_session_goes_on_across_three_replicas_while_one_is_killed(fleet):
    readme = str(ROOT / "README.md")
    logs = []
    asked = []

    async def on_log(params):
        logs.append(params)

    async def on_elicit(context, params):
        asked.append(params.message)
        return mcp_types.ElicitResult(action="accept", content={"go": True})

    client = Client(fleet.url, mode="legacy", logging_callback=on_log, elicitation_callback=on_elicit)
    async with client:
        assert client.protocol_version == "2025-11-25"
        await client.set_logging_level("info")
        for call in range(CALLS):
            if call == CALLS // 3:
                fleet.kill(0)
            if call == 2 * CALLS // 3:
                fleet.start(0)
            result = await client.call_tool("file_utility.read_file_content", {"file_path": readme, "max_chars": 5})
            assert result.is_error is False, (call, result)
            # Its log message came with it, whichever replica ran it: the level is the
            # session's, kept in Redis.
            assert len(logs) == call + 1, (call, logs)
            assert logs[-1].data == f"reading {readme}", logs[-1]
        counted = await client.call_tool("text.slow_count", {"text": "one two three", "delay_ms": 10, "confirm": True})
        assert counted.is_error is False, counted
        assert asked == ["Count this text?"], asked
        assert counted.structured_content["words"] == 3, counted
    answered = fleet.answered_by()
    replicas = [f"127.0.0.1:{port}" for port in fleet.ports]
    assert all(answered.get(replica, 0) > 0 for replica in replicas), answered
