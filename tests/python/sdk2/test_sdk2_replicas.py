"""The current official MCP Python SDK (2.x), held to the initialize handshake
(`mode="legacy"`, 2025-11-25), through nginx to three quickstart replicas that share their
sessions through Redis, with no affinity: one session sets its log level, calls, and
subscribes, reads updates and answers a tool's question, whichever replica each request
reaches; each replica is killed (SIGKILL) and started again in turn, mid-stream, and the
session goes on, every update arriving once."""

import pytest
from mcp import Client
from mcp import types as mcp_types

from conftest import ROOT
from replicas import Heard, Session, one_session_across_the_replicas

pytestmark = pytest.mark.anyio


async def test_one_session_goes_on_across_three_replicas_while_one_is_killed(fleet):
    heard = Heard(lambda content: mcp_types.ElicitResult(action="accept", content=content))
    client = Client(
        fleet.url,
        mode="legacy",
        logging_callback=heard.on_log,
        elicitation_callback=heard.on_elicit,
        message_handler=heard.on_message,
    )
    async with client:
        assert client.protocol_version == "2025-11-25"

        async def call(tool, arguments):
            result = await client.call_tool(tool, arguments)
            return result.is_error, result.structured_content

        figures = ROOT / "target" / "replica-figures-sdk2.txt"
        sdk = Session(client.set_logging_level, client.subscribe_resource, call)
        await one_session_across_the_replicas(fleet, heard, sdk, figures)
