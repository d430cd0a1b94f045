"""The official MCP Python SDK 1.x, at 2025-11-25, through nginx to three quickstart
replicas that share their sessions through Redis, with no affinity: one session sets its
log level, calls, and answers a tool's question, whichever replica each request reaches;
a replica is killed (SIGKILL) and started again in the middle, and the session goes on."""

import pytest
from mcp import ClientSession, types
from mcp.client.streamable_http import streamable_http_client

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
        return types.ElicitResult(action="accept", content={"go": True})

    async with streamable_http_client(fleet.url) as (reader, writer, session_id):
        async with ClientSession(reader, writer, logging_callback=on_log, elicitation_callback=on_elicit) as session:
            init = await session.initialize()
            assert init.protocolVersion == "2025-11-25"
            assert session_id(), "the replica that answered initialize opened a session"
            await session.set_logging_level("info")
            for call in range(CALLS):
                if call == CALLS // 3:
                    fleet.kill(0)
                if call == 2 * CALLS // 3:
                    fleet.start(0)
                result = await session.call_tool("file_utility.read_file_content", {"file_path": readme, "max_chars": 5})
                assert result.isError is False, (call, result)
                # Its log message came with it, whichever replica ran it: the level is the
                # session's, kept in Redis.
                assert len(logs) == call + 1, (call, logs)
                assert logs[-1].data == f"reading {readme}", logs[-1]
            # A question the tool asks is answered, though the answer may reach another replica.
            counted = await session.call_tool("text.slow_count", {"text": "one two three", "delay_ms": 10, "confirm": True})
            assert counted.isError is False, counted
            assert asked == ["Count this text?"], asked
            assert counted.structuredContent["words"] == 3, counted
    answered = fleet.answered_by()
    replicas = [f"127.0.0.1:{port}" for port in fleet.ports]
    assert all(answered.get(replica, 0) > 0 for replica in replicas), answered
