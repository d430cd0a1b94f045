"""The quickstart's `text.summarize` asks the client's model for a summary: with the
official MCP Python SDK 1.x, a `sampling/createMessage` request on the call's stream, over
stdio and streamable HTTP, answered by the SDK's sampling callback."""

import pytest
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

pytestmark = pytest.mark.anyio

TEXT = "The quick brown fox jumps over the lazy dog. " * 3


async def exercise(reader, writer):
    asked = []

    async def sample(context, params):
        asked.append(params)
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text="A fox jumps over a dog."),
            model="test-model",
            stopReason="endTurn",
        )

    async with ClientSession(reader, writer, sampling_callback=sample) as session:
        await session.initialize()
        result = await session.call_tool("text.summarize", {"text": TEXT})
        assert result.isError is False, result
        assert result.structuredContent == {"summary": "A fox jumps over a dog.", "model": "test-model"}

    [params] = asked
    assert params.maxTokens == 200
    assert params.systemPrompt == "You write short, faithful summaries."
    assert params.messages[0].role == "user"
    assert TEXT in params.messages[0].content.text


async def refused_without_sampling(reader, writer):
    async with ClientSession(reader, writer) as session:
        await session.initialize()
        result = await session.call_tool("text.summarize", {"text": TEXT})
        assert result.isError is True
        assert "sampling" in result.content[0].text, result


async def test_summarize_over_stdio(captured):
    command, _ = captured
    params = StdioServerParameters(command="sh", args=["-c", command])
    async with stdio_client(params) as (reader, writer):
        await exercise(reader, writer)


async def test_summarize_over_http(http_server):
    url, _ = http_server()
    async with streamable_http_client(url) as (reader, writer, _):
        await exercise(reader, writer)


async def test_a_client_without_sampling_gets_a_failure_at_once(http_server):
    url, _ = http_server()
    async with streamable_http_client(url) as (reader, writer, _):
        await refused_without_sampling(reader, writer)
