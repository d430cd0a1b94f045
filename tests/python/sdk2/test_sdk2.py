"""The quickstart app driven by the current official MCP Python SDK (2.x), which probes
`server/discover` and speaks the stateless 2026-07-28 revision; over stdio every response
is checked against that revision's official schema."""

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from conftest import ERROR_META, validate_responses

pytestmark = pytest.mark.anyio

REVISION = "2026-07-28"


async def exercise(client):
    assert client.protocol_version == REVISION
    assert client.server_info.name == "quickstart"
    names = [tool.name for tool in (await client.list_tools()).tools]
    assert names == [
        "calculator.add",
        "file_utility.read_file_content",
        "file_utility.write_file_content",
        "text.grep",
        "text.slow_count",
        "text.summarize",
        "text.word_count",
    ]

    ok = await client.call_tool("calculator.add", {"a": 40, "b": 2})
    assert ok.is_error is False and ok.structured_content == {"sum": 42}
    assert ok.result_type == "complete"

    missing = await client.call_tool("file_utility.read_file_content", {"file_path": "/nonexistent/x"})
    assert missing.is_error is True
    assert missing.structured_content is None and missing.meta[ERROR_META]["error_type"] == "FileNotFoundError"

    bad = await client.call_tool("calculator.add", {"a": "SECRET", "b": 2})
    assert bad.is_error is True
    assert bad.meta[ERROR_META]["error_type"] == "ValidationError"
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


async def exercise_catalog(client):
    """The quickstart's resources, template and prompt at 2026-07-28, where every list
    and read carries cache hints and a missing resource is invalid params (SEP-2164)."""
    from mcp.types import PromptReference, ResourceTemplateReference

    resources = await client.list_resources()
    assert [str(resource.uri) for resource in resources.resources] == ["quickstart://about"]
    templates = await client.list_resource_templates()
    assert [template.uri_template for template in templates.resource_templates] == [
        "quickstart://tools/{name}"
    ]
    about = await client.read_resource("quickstart://about")
    assert about.contents[0].mime_type == "text/markdown" and "quickstart" in about.contents[0].text
    spec = await client.read_resource("quickstart://tools/text.word_count")
    assert "text.word_count" in spec.contents[0].text
    with pytest.raises(MCPError) as missing:
        await client.read_resource("quickstart://tools/text.nope")
    assert missing.value.error.code == -32602
    assert missing.value.error.data == {"uri": "quickstart://tools/text.nope"}
    prompts = await client.list_prompts()
    assert [prompt.name for prompt in prompts.prompts] == ["code_review"]
    review = await client.get_prompt("code_review", {"code": "print(1)"})
    assert "print(1)" in review.messages[0].content.text
    languages = await client.complete(
        PromptReference(type="ref/prompt", name="code_review"), {"name": "language", "value": "ru"}
    )
    assert languages.completion.values == ["rust"]
    names = await client.complete(
        ResourceTemplateReference(type="ref/resource", uri="quickstart://tools/{name}"),
        {"name": "name", "value": "text"},
    )
    assert names.completion.values == [
        "text.grep",
        "text.slow_count",
        "text.summarize",
        "text.word_count",
    ]


async def test_resources_and_prompts_over_stdio_through_sdk_2(captured):
    command, read = captured
    async with Client(StdioServerParameters(command="sh", args=["-c", command])) as client:
        await exercise_catalog(client)
    sent, received = read()
    assert validate_responses(REVISION, sent, received) >= 8


async def test_resources_and_prompts_over_http_through_sdk_2(http_server):
    url, _ = http_server()
    async with Client(url) as client:
        await exercise_catalog(client)


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


async def logs_at_the_level_asked(connect, readme):
    """At 2026-07-28 each request carries the level it wants (`log_level`), and a
    `logging_callback` alone asks for nothing."""
    received = []

    async def on_log(params):
        received.append(params)

    async with connect(logging_callback=on_log) as client:
        await client.call_tool("file_utility.read_file_content", {"file_path": readme})
    assert received == []

    async with connect(logging_callback=on_log, log_level="info") as client:
        await client.call_tool("file_utility.read_file_content", {"file_path": readme})
        await client.call_tool("file_utility.read_file_content", {"file_path": "/nonexistent/x"})
    seen = [(message.level, message.logger, message.data) for message in received]
    assert seen[:2] == [
        ("info", "file_utility.read_file_content", f"reading {readme}"),
        ("info", "file_utility.read_file_content", "reading /nonexistent/x"),
    ], seen
    assert [level for level, _, _ in seen[2:]] == ["warning"], seen


def readme_path():
    from conftest import ROOT

    return str(ROOT / "README.md")


async def test_log_messages_over_stdio_through_sdk_2(captured):
    command, _ = captured
    server = StdioServerParameters(command="sh", args=["-c", command])
    await logs_at_the_level_asked(lambda **options: Client(server, **options), readme_path())


async def test_log_messages_over_http_through_sdk_2(http_server):
    url, _ = http_server()
    await logs_at_the_level_asked(lambda **options: Client(url, **options), readme_path())


async def summarizes_through_rounds(connect):
    """At 2026-07-28 the same tool answers with an input-required result; SDK 2.x calls
    its sampling callback and calls again with the answer, as one `call_tool`."""
    from mcp import types as mcp_types

    asked = []

    async def sample(context, params):
        asked.append(params)
        return mcp_types.CreateMessageResult(
            role="assistant",
            content=mcp_types.TextContent(type="text", text="A fox jumps over a dog."),
            model="test-model",
            stop_reason="endTurn",
        )

    async with connect(sampling_callback=sample) as client:
        result = await client.call_tool("text.summarize", {"text": "The quick brown fox jumps over the lazy dog."})
    assert result.is_error is False, result
    assert result.structured_content == {"summary": "A fox jumps over a dog.", "model": "test-model"}
    assert len(asked) == 1
    assert asked[0].max_tokens == 200


async def test_summarize_over_stdio_through_sdk_2(captured):
    command, read = captured
    server = StdioServerParameters(command="sh", args=["-c", command])
    await summarizes_through_rounds(lambda **options: Client(server, **options))
    sent, received = read()
    calls = [message for message in sent if message.get("method") == "tools/call"]
    assert len(calls) == 2, calls
    assert isinstance(calls[1]["params"].get("requestState"), str)
    assert "summary" in calls[1]["params"]["inputResponses"]
    assert any(
        message.get("result", {}).get("resultType") == "input_required" for message in received
    )
    assert validate_responses(REVISION, sent, received) >= 2


async def test_summarize_over_http_through_sdk_2(http_server):
    url, _ = http_server()
    await summarizes_through_rounds(lambda **options: Client(url, **options))


async def confirms_through_rounds(connect, path):
    """At 2026-07-28 the confirmation is an input-required round: SDK 2.x calls its
    elicitation callback, then calls again with the answer."""
    from mcp import types as mcp_types

    path.write_text("before")

    async def decline(context, params):
        return mcp_types.ElicitResult(action="decline")

    async with connect(elicitation_callback=decline) as client:
        refused = await client.call_tool("file_utility.write_file_content", {"file_path": str(path), "content": "after"})
    assert refused.is_error is True
    assert "its user declined" in refused.content[0].text
    assert path.read_text() == "before"

    async def accept(context, params):
        return mcp_types.ElicitResult(action="accept", content={"confirm": True})

    async with connect(elicitation_callback=accept) as client:
        written = await client.call_tool("file_utility.write_file_content", {"file_path": str(path), "content": "after"})
    assert written.is_error is False, written
    assert path.read_text() == "after"


async def test_dangerous_write_confirmed_over_stdio_through_sdk_2(quickstart, tmp_path):
    import shlex

    command = f"{shlex.quote(quickstart)} serve --stdio --confirm-dangerous"
    server = StdioServerParameters(command="sh", args=["-c", command])
    await confirms_through_rounds(lambda **options: Client(server, **options), tmp_path / "note.txt")


async def test_dangerous_write_confirmed_over_http_through_sdk_2(http_server, tmp_path):
    url, _ = http_server("--confirm-dangerous")
    await confirms_through_rounds(lambda **options: Client(url, **options), tmp_path / "note.txt")
