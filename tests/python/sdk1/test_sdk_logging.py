"""Log messages from the quickstart's `file_utility.read_file_content` reach the official MCP
Python SDK 1.x's logging callback, over stdio and streamable HTTP, at or above the level the
client set with `logging/setLevel`, and not before it set one."""

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

pytestmark = pytest.mark.anyio


async def exercise(reader, writer, readme):
    received = []

    async def on_log(params):
        received.append(params)

    async with ClientSession(reader, writer, logging_callback=on_log) as session:
        init = await session.initialize()
        assert init.capabilities.logging is not None

        # No level set: the server sends nothing.
        ok = await session.call_tool("file_utility.read_file_content", {"file_path": readme})
        assert ok.isError is False
        assert received == []

        await session.set_logging_level("info")
        await session.call_tool("file_utility.read_file_content", {"file_path": readme})
        await session.call_tool("file_utility.read_file_content", {"file_path": "/nonexistent/x"})
        seen = [(message.level, message.logger, message.data) for message in received]
        assert seen == [
            ("info", "file_utility.read_file_content", f"reading {readme}"),
            ("info", "file_utility.read_file_content", "reading /nonexistent/x"),
            ("warning", "file_utility.read_file_content", seen[2][2]),
        ], seen
        assert seen[2][2].startswith("cannot read /nonexistent/x: "), seen

        # Lower: the debug message too, with what was read.
        received.clear()
        await session.set_logging_level("debug")
        await session.call_tool("file_utility.read_file_content", {"file_path": readme, "max_chars": 5})
        assert [message.level for message in received] == ["info", "debug"], received
        assert received[1].data["max_chars"] == 5 and received[1].data["bytes"] > 5

        # Higher: nothing for a read that works.
        received.clear()
        await session.set_logging_level("warning")
        await session.call_tool("file_utility.read_file_content", {"file_path": readme})
        assert received == []


@pytest.fixture
def readme():
    from conftest import ROOT

    return str(ROOT / "README.md")


async def test_log_messages_over_stdio(captured, readme):
    command, _ = captured
    params = StdioServerParameters(command="sh", args=["-c", command])
    async with stdio_client(params) as (reader, writer):
        await exercise(reader, writer, readme)


async def test_log_messages_over_http(http_server, readme):
    url, _ = http_server()
    async with streamable_http_client(url) as (reader, writer, _):
        await exercise(reader, writer, readme)
