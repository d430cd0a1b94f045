"""The quickstart's `file_utility.write_file_content` is marked dangerous: refused by
default, and under `serve --confirm-dangerous` run only when the user confirms through the
official MCP Python SDK 1.x's elicitation callback, over stdio and streamable HTTP. The
file on disk is checked after each answer."""

import shlex

import pytest
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from conftest import ERROR_META

pytestmark = pytest.mark.anyio

WRITE = "file_utility.write_file_content"


async def exercise(reader, writer, path):
    answers = []
    asked = []

    async def confirm(context, params):
        asked.append(params)
        return answers.pop(0)

    async with ClientSession(reader, writer, elicitation_callback=confirm) as session:
        await session.initialize()
        path.write_text("before")

        for answer, why in [
            (types.ElicitResult(action="decline"), "its user declined"),
            (types.ElicitResult(action="cancel"), "its user cancelled"),
            (types.ElicitResult(action="accept", content={"confirm": False}), "its user did not confirm it"),
        ]:
            answers.append(answer)
            refused = await session.call_tool(WRITE, {"file_path": str(path), "content": "after"})
            assert refused.isError is True, refused
            assert refused.meta[ERROR_META]["error_type"] == "PermissionError"
            assert why in refused.content[0].text, refused
            assert path.read_text() == "before", "the tool did not run"

        answers.append(types.ElicitResult(action="accept", content={"confirm": True}))
        written = await session.call_tool(WRITE, {"file_path": str(path), "content": "after"})
        assert written.isError is False, written
        assert written.structuredContent == {"bytes_written": 5}
        assert path.read_text() == "after"

    assert len(asked) == 4
    assert WRITE in asked[0].message and str(path) in asked[0].message
    assert asked[0].requestedSchema["properties"]["confirm"]["type"] == "boolean"


async def test_confirmed_over_stdio(quickstart, tmp_path):
    command = f"{shlex.quote(quickstart)} serve --stdio --confirm-dangerous"
    params = StdioServerParameters(command="sh", args=["-c", command])
    async with stdio_client(params) as (reader, writer):
        await exercise(reader, writer, tmp_path / "note.txt")


async def test_confirmed_over_http(http_server, tmp_path):
    url, _ = http_server("--confirm-dangerous")
    async with streamable_http_client(url) as (reader, writer, _):
        await exercise(reader, writer, tmp_path / "note.txt")


async def test_refused_by_default_and_without_a_client_that_can_confirm(http_server, tmp_path):
    path = tmp_path / "note.txt"
    path.write_text("before")
    for extra in [(), ("--confirm-dangerous",)]:
        url, _ = http_server(*extra)
        async with streamable_http_client(url) as (reader, writer, _):
            # No elicitation callback: the client declares no elicitation.
            async with ClientSession(reader, writer) as session:
                await session.initialize()
                refused = await session.call_tool(WRITE, {"file_path": str(path), "content": "after"})
                assert refused.isError is True
                assert refused.meta[ERROR_META]["error_type"] == "PermissionError"
    assert path.read_text() == "before"
