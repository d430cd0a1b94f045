"""The quickstart app served over streamable HTTP: driven by the official MCP Python SDK,
and by raw requests whose every response is checked against the official schema. No
quickstart tool reports progress, so progress reports are followed through the SDK with the
conformance server's `test.tool_with_progress`."""

import json

import httpx
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import McpError

from conftest import ERROR_META, RESULT_DEFINITIONS, spec_validator

pytestmark = pytest.mark.anyio

REVISION = "2025-11-25"


def recording_client():
    """An HTTP client for the SDK that records, for each `tools/call` it posts, whether the
    call carried a progress token and the content type of the response."""
    calls = []

    async def record(response):
        body = json.loads(response.request.content or b"null")
        if isinstance(body, dict) and body.get("method") == "tools/call":
            token = "progressToken" in (body["params"].get("_meta") or {})
            calls.append((token, response.headers.get("content-type", "")))

    return httpx.AsyncClient(event_hooks={"response": [record]}), calls


async def test_list_call_and_refuse_through_the_sdk(http_server):
    url, _ = http_server()
    client, calls = recording_client()
    async with client, streamable_http_client(url, http_client=client) as (reader, writer, _):
        async with ClientSession(reader, writer) as session:
            init = await session.initialize()
            assert init.protocolVersion == REVISION
            names = [tool.name for tool in (await session.list_tools()).tools]
            assert names == [
                "calculator.add",
                "file_utility.read_file_content",
                "file_utility.write_file_content",
                "text.grep",
                "text.slow_count",
                "text.summarize",
                "text.word_count",
            ]
            ok = await session.call_tool("text.word_count", {"text": "one two three"})
            assert ok.isError is False and ok.structuredContent == {"words": 3, "chars": 13}
            missing = await session.call_tool("file_utility.read_file_content", {"file_path": "/nope/x"})
            assert missing.isError is True
            assert missing.structuredContent is None and missing.meta[ERROR_META]["error_type"] == "FileNotFoundError"
            bad = await session.call_tool("calculator.add", {"a": 1})
            assert bad.isError is True and bad.meta[ERROR_META]["error_type"] == "ValidationError"
            with pytest.raises(McpError) as unknown:
                await session.call_tool("calculator.nope", {})
            assert unknown.value.error.code == -32602
            # A progress callback makes the SDK send a progressToken: the answer comes on SSE.
            # `calculator.add` reports no progress, and the server sends a progress
            # notification only for a report the tool makes, so the stream holds the answer
            # alone and the callback never runs.
            reports = []

            async def on_progress(progress, total, message):
                reports.append((progress, total, message))

            calls.clear()
            streamed = await session.call_tool("calculator.add", {"a": 2, "b": 2}, progress_callback=on_progress)
            assert streamed.structuredContent == {"sum": 4}
            assert calls == [(True, "text/event-stream")]
            assert reports == []


async def test_progress_reports_reach_the_sdk_callback(conformance_http):
    url, _ = conformance_http()
    client, calls = recording_client()
    async with client, streamable_http_client(url, http_client=client) as (reader, writer, _):
        async with ClientSession(reader, writer) as session:
            await session.initialize()
            reports = []

            async def on_progress(progress, total, message):
                reports.append((progress, total, message))

            done = await session.call_tool("test.tool_with_progress", {}, progress_callback=on_progress)
            assert done.isError is False
            assert done.structuredContent == {"result": "Progress test completed"}
            # Every report the tool made, in order, before the answer.
            assert reports == [(0, 100, None), (50, 100, None), (100, 100, None)]
            assert calls == [(True, "text/event-stream")]

            # Without a callback the SDK sends no token: a plain JSON answer, no reports.
            calls.clear()
            plain = await session.call_tool("test.tool_with_progress", {})
            assert plain.structuredContent == done.structuredContent
            assert calls == [(False, "application/json")]


async def test_a_bearer_token_is_required_when_configured(http_server):
    url, _ = http_server("--token", "s3cret")
    async with httpx.AsyncClient() as client:
        ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        assert (await client.post(url, json=ping)).status_code == 401
        wrong = await client.post(url, json=ping, headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401 and wrong.headers["www-authenticate"] == "Bearer"
        right = await client.post(url, json=ping, headers={"Authorization": "Bearer s3cret"})
        assert right.status_code == 200 and right.json()["result"] == {}
    authorized = httpx.AsyncClient(headers={"Authorization": "Bearer s3cret"})
    async with authorized, streamable_http_client(url, http_client=authorized) as (reader, writer, _):
        async with ClientSession(reader, writer) as session:
            await session.initialize()
            assert (await session.call_tool("calculator.add", {"a": 1, "b": 1})).structuredContent == {"sum": 2}


async def test_raw_responses_follow_the_official_schema_and_the_guards_hold(http_server):
    url, _ = http_server()
    requests = [
        ("initialize", {"protocolVersion": REVISION, "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}),
        ("ping", {}),
        ("tools/list", {}),
        ("tools/call", {"name": "calculator.add", "arguments": {"a": 1, "b": 2}}),
        ("tools/call", {"name": "calculator.add", "arguments": {"a": "x", "b": 2}}),
        ("tools/call", {"name": "file_utility.read_file_content", "arguments": {"file_path": "/nope"}}),
        ("tools/call", {"name": "calculator.nope", "arguments": {}}),
        ("resources/list", {}),
    ]
    headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": REVISION}
    async with httpx.AsyncClient(headers=headers) as client:
        for number, (method, params) in enumerate(requests, start=1):
            response = await client.post(url, json={"jsonrpc": "2.0", "id": number, "method": method, "params": params})
            assert response.status_code == 200, (method, response.text)
            answer = response.json()
            if "error" in answer:
                spec_validator(REVISION, "JSONRPCErrorResponse").validate(answer)
            else:
                spec_validator(REVISION, "JSONRPCResultResponse").validate(answer)
                spec_validator(REVISION, RESULT_DEFINITIONS[method]).validate(answer["result"])

        # A call with a progress token, answered as an SSE stream.
        call = {"jsonrpc": "2.0", "id": 99, "method": "tools/call",
                "params": {"name": "calculator.add", "arguments": {"a": 5, "b": 5}, "_meta": {"progressToken": 1}}}
        streamed = await client.post(url, json=call)
        assert streamed.headers["content-type"].startswith("text/event-stream")
        events = [json.loads(line[len("data:"):]) for line in streamed.text.splitlines() if line.startswith("data:")]
        # `calculator.add` reports no progress: the answer is the only event.
        assert len(events) == 1, events
        assert events[0]["id"] == 99 and events[0]["result"]["structuredContent"] == {"sum": 10}
        spec_validator(REVISION, "JSONRPCResultResponse").validate(events[0])

        notification = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        assert (await client.post(url, json=notification)).status_code == 202
        assert (await client.post(url, content=b"{not json")).status_code == 400
        assert (await client.post(url, json=call, headers={"Origin": "http://evil.example"})).status_code == 403
        assert (await client.post(url, json=call, headers={"Origin": "http://localhost:6274"})).status_code == 200
        assert (await client.post(url, json=call, headers={"MCP-Protocol-Version": "1999-01-01"})).status_code == 400
        assert (await client.get(url)).status_code == 405
    # On its own connection: the server answers 413 without reading the body, then closes it.
    async with httpx.AsyncClient() as client:
        assert (await client.post(url, content=b"x" * (5 * 1024 * 1024))).status_code == 413


async def test_the_stateless_revision_checks_its_headers(http_server):
    url, _ = http_server()
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "calculator.add", "arguments": {"a": 1, "b": 2}, "_meta": meta}}
    headers = {"MCP-Protocol-Version": "2026-07-28", "Accept": "application/json, text/event-stream"}
    async with httpx.AsyncClient(headers=headers) as client:
        missing = await client.post(url, json=call)
        assert missing.status_code == 400 and missing.json()["error"]["code"] == -32020
        wrong = await client.post(url, json=call, headers={"Mcp-Method": "tools/call", "Mcp-Name": "text.word_count"})
        assert wrong.status_code == 400 and wrong.json()["error"]["code"] == -32020
        right = await client.post(url, json=call, headers={"Mcp-Method": "tools/call", "Mcp-Name": "calculator.add"})
        assert right.status_code == 200
        answer = right.json()
        spec_validator("2026-07-28", "JSONRPCResultResponse").validate(answer)
        spec_validator("2026-07-28", "CallToolResult").validate(answer["result"])
        assert answer["result"]["resultType"] == "complete"

        discover = {"jsonrpc": "2.0", "id": 2, "method": "server/discover", "params": {"_meta": meta}}
        found = await client.post(url, json=discover, headers={"Mcp-Method": "server/discover"})
        spec_validator("2026-07-28", "DiscoverResult").validate(found.json()["result"])

        meta_unsupported = dict(meta, **{"io.modelcontextprotocol/protocolVersion": "2099-01-01"})
        unsupported = {"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"_meta": meta_unsupported}}
        # The version header must say what _meta says, which is checked before the version.
        mismatch = await client.post(url, json=unsupported, headers={"MCP-Protocol-Version": "2025-11-25"})
        assert mismatch.status_code == 400 and mismatch.json()["error"]["code"] == -32020
        spec_validator("2026-07-28", "HeaderMismatchError").validate(mismatch.json())
        refused = await client.post(
            url, json=unsupported, headers={"MCP-Protocol-Version": "2099-01-01", "Mcp-Method": "tools/list"})
        assert refused.status_code == 400 and refused.json()["error"]["code"] == -32022
        assert refused.json()["id"] == 3
        spec_validator("2026-07-28", "UnsupportedProtocolVersionError").validate(refused.json())
