"""The quickstart app driven by the current official MCP Python SDK (2.x), which probes
`server/discover` and speaks the stateless 2026-07-28 revision; over stdio every response
is checked against that revision's official schema."""

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from conftest import validate_responses

pytestmark = pytest.mark.anyio

REVISION = "2026-07-28"


async def exercise(client):
    assert client.protocol_version == REVISION
    assert client.server_info.name == "quickstart"
    names = [tool.name for tool in (await client.list_tools()).tools]
    assert names == ["calculator.add", "file_utility.read_file_content", "text.word_count"]

    ok = await client.call_tool("calculator.add", {"a": 40, "b": 2})
    assert ok.is_error is False and ok.structured_content == {"sum": 42}
    assert ok.result_type == "complete"

    missing = await client.call_tool("file_utility.read_file_content", {"file_path": "/nonexistent/x"})
    assert missing.is_error is True
    assert missing.structured_content["error_type"] == "FileNotFoundError"

    bad = await client.call_tool("calculator.add", {"a": "SECRET", "b": 2})
    assert bad.is_error is True
    assert bad.structured_content["error_type"] == "ValidationError"
    assert "SECRET" not in str(bad.model_dump())

    with pytest.raises(MCPError) as unknown:
        await client.call_tool("calculator.nope", {})
    assert unknown.value.error.code == -32602


async def test_stdio_through_sdk_2(captured):
    command, read = captured
    async with Client(StdioServerParameters(command="sh", args=["-c", command])) as client:
        await exercise(client)
    sent, received = read()
    assert any(message.get("method") == "server/discover" for message in sent)
    assert validate_responses(REVISION, sent, received) >= 6


async def test_http_through_sdk_2(http_server):
    url, _ = http_server()
    async with Client(url) as client:
        await exercise(client)


async def changes_are_heard(client):
    """A listen stream hears the tool list change when a tool registers another while the
    server runs, and the listing follows: `test.registered_while_serving` comes, then goes."""
    names = lambda listed: [tool.name for tool in listed.tools]
    assert "test.registered_while_serving" not in names(await client.list_tools())
    async with client.listen(tools_list_changed=True) as subscription:
        assert subscription.honored.tools_list_changed is True
        for present in (True, False):
            changed = await client.call_tool("test.trigger_tool_change", {})
            assert changed.is_error is False and changed.structured_content == {"result": "tool list changed"}
            with anyio.fail_after(10):
                event = await subscription.__anext__()
            assert type(event).__name__ == "ToolsListChanged"
            assert ("test.registered_while_serving" in names(await client.list_tools())) is present


async def test_a_tool_registered_while_serving_is_announced_over_stdio(conformance_server):
    async with Client(StdioServerParameters(command=conformance_server, args=["serve", "--stdio"])) as client:
        await changes_are_heard(client)


async def test_a_tool_registered_while_serving_is_announced_over_http(conformance_http):
    url, _ = conformance_http()
    async with Client(url) as client:
        await changes_are_heard(client)
