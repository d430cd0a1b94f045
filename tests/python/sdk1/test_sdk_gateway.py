"""The quickstart as a gateway, driven by the official Python client 1.x: its own tools
and those of a Python SDK 1.x server (over stdio and over HTTP) and of the official
reference server, served as one over stdio."""

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from gateway import calls_through_the_gateway, gateway_args, python_server_over_http, survives_a_restart_of

pytestmark = pytest.mark.anyio


async def test_remote_servers_are_served_as_one_through_the_quickstart(quickstart):
    with python_server_over_http() as upstream:
        params = StdioServerParameters(command=quickstart, args=gateway_args(upstream.url))
        async with stdio_client(params) as (reader, writer):
            async with ClientSession(reader, writer) as session:
                await session.initialize()
                await calls_through_the_gateway(session)
                await survives_a_restart_of(session, upstream)
