"""The quickstart app served over stdio, driven by the official MCP Python SDK, every
response checked against the official schema of the negotiated protocol revision."""

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import McpError

from conftest import ERROR_META, validate_responses

pytestmark = pytest.mark.anyio


async def test_list_call_and_refuse_through_the_sdk(captured):
    command, read = captured
    params = StdioServerParameters(command="sh", args=["-c", command])
    async with stdio_client(params) as (reader, writer):
        async with ClientSession(reader, writer) as session:
            init = await session.initialize()
            assert init.protocolVersion in ("2025-11-25", "2025-06-18")
            assert init.serverInfo.name == "quickstart"
            assert init.capabilities.tools is not None

            listed = await session.list_tools()
            names = [tool.name for tool in listed.tools]
            assert names == [
                "calculator.add",
                "file_utility.read_file_content",
                "file_utility.write_file_content",
                "text.grep",
                "text.slow_count",
                "text.summarize",
                "text.word_count",
            ]
            add = next(tool for tool in listed.tools if tool.name == "calculator.add")
            assert add.inputSchema["required"] == ["a", "b"]
            assert add.outputSchema["required"] == ["sum"]
            assert add.annotations.readOnlyHint is True

            # A call that succeeds: structured content checked by the SDK against the output schema.
            ok = await session.call_tool("calculator.add", {"a": 40, "b": 2})
            assert ok.isError is False
            assert ok.structuredContent == {"sum": 42}
            assert ok.content[0].type == "text" and ok.content[0].text == '{"sum":42}'

            # A call that fails: a result with isError, so a model can read what went wrong; no
            # structured content (the output schema describes a success's), the detail in _meta.
            missing = await session.call_tool(
                "file_utility.read_file_content", {"file_path": "/nonexistent/quickstart.txt"}
            )
            assert missing.isError is True
            assert missing.structuredContent is None
            assert missing.meta[ERROR_META]["error_type"] == "FileNotFoundError"
            assert missing.content[0].text.startswith("[FAIL] Tool execution failed:\nError: FileNotFoundError: ")

            # A badly-argued call: a ValidationError result naming the argument, without its value.
            bad = await session.call_tool("calculator.add", {"a": "SECRET", "b": 2})
            assert bad.isError is True
            assert bad.meta[ERROR_META]["error_type"] == "ValidationError"
            assert bad.meta[ERROR_META]["error_details"]["errors"][0]["path"] == "/a"
            assert "SECRET" not in str(bad.model_dump())

            # An unknown tool: a JSON-RPC error, invalid params.
            with pytest.raises(McpError) as unknown:
                await session.call_tool("calculator.subtract", {"a": 1, "b": 1})
            assert unknown.value.error.code == -32602

            assert (await session.send_ping()) is not None
            revision = init.protocolVersion

    sent, received = read()
    assert validate_responses(revision, sent, received) >= 7
