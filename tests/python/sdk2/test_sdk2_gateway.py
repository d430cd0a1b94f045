"""The quickstart as a gateway, driven by the official Python client 2.x (at 2026-07-28):
its own tools and those of a Python SDK 2.x server (over stdio and over HTTP) and of the
official reference server, served as one over stdio."""

import pytest
from mcp import Client, StdioServerParameters

from gateway import calls_through_the_gateway, gateway_args, python_server_over_http, survives_a_restart_of

pytestmark = pytest.mark.anyio


async def test_remote_servers_are_served_as_one_through_the_quickstart(quickstart):
    with python_server_over_http() as upstream:
        params = StdioServerParameters(command=quickstart, args=gateway_args(upstream.url))
        async with Client(params) as client:
            assert client.protocol_version == "2026-07-28"
            await calls_through_the_gateway(client)
            await survives_a_restart_of(client, upstream)
