"""The official MCP Python SDK 1.x, at 2025-11-25, through nginx to three quickstart
replicas that share their sessions through Redis, with no affinity: one session sets its
log level, subscribes, calls, reads updates and answers a tool's question, whichever
replica each request reaches; each replica is killed (SIGKILL) and started again in turn,
mid-stream, and the session goes on, every update arriving once."""

import pytest
from mcp import ClientSession, types
from mcp.client.streamable_http import streamable_http_client

from conftest import ROOT
from replicas import Heard, Session, one_session_across_the_replicas

pytestmark = pytest.mark.anyio


async def test_one_session_goes_on_across_three_replicas_while_one_is_killed(fleet):
    heard = Heard(lambda content: types.ElicitResult(action="accept", content=content))
    async with streamable_http_client(fleet.url) as (reader, writer, session_id):
        async with ClientSession(
            reader,
            writer,
            logging_callback=heard.on_log,
            elicitation_callback=heard.on_elicit,
            message_handler=heard.on_message,
        ) as session:
            init = await session.initialize()
            assert init.protocolVersion == "2025-11-25"
            assert session_id(), "the replica that answered initialize opened a session"

            async def call(tool, arguments):
                result = await session.call_tool(tool, arguments)
                return result.isError, result.structuredContent

            figures = ROOT / "target" / "replica-figures-sdk1.txt"
            sdk = Session(session.set_logging_level, session.subscribe_resource, call)
            await one_session_across_the_replicas(fleet, heard, sdk, figures)
