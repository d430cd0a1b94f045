"""The quickstart's resources, resource template and prompt, listed, read, completed and
rendered through the official MCP Python SDK 1.x, over stdio and over HTTP."""

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import McpError
from mcp.types import PromptReference, ResourceTemplateReference

from conftest import validate_responses

pytestmark = pytest.mark.anyio

TEMPLATE = "quickstart://tools/{name}"


async def exercise(session):
    init = await session.initialize()
    assert init.capabilities.resources is not None and init.capabilities.resources.subscribe
    assert init.capabilities.prompts is not None
    assert init.capabilities.completions is not None

    resources = (await session.list_resources()).resources
    assert [str(resource.uri) for resource in resources] == ["quickstart://about"]
    assert resources[0].mimeType == "text/markdown"
    templates = (await session.list_resource_templates()).resourceTemplates
    assert [template.uriTemplate for template in templates] == [TEMPLATE]

    about = (await session.read_resource("quickstart://about")).contents
    assert about[0].mimeType == "text/markdown" and "quickstart" in about[0].text

    # The template renders a tool's generated specification.
    spec = (await session.read_resource("quickstart://tools/calculator.add")).contents
    assert str(spec[0].uri) == "quickstart://tools/calculator.add"
    assert "calculator.add" in spec[0].text and "Input" in spec[0].text

    # An unknown tool is a missing resource: the 2025-11-25 code, the URI in `data`.
    with pytest.raises(McpError) as missing:
        await session.read_resource("quickstart://tools/calculator.subtract")
    assert missing.value.error.code == -32002
    assert missing.value.error.data == {"uri": "quickstart://tools/calculator.subtract"}

    prompts = (await session.list_prompts()).prompts
    assert [prompt.name for prompt in prompts] == ["code_review"]
    arguments = {argument.name: argument.required for argument in prompts[0].arguments}
    assert arguments == {"code": True, "language": False}

    review = await session.get_prompt("code_review", {"code": "fn main() {}", "language": "rust"})
    text = review.messages[0].content.text
    assert review.messages[0].role == "user"
    assert "fn main() {}" in text and "rust" in text.lower()

    with pytest.raises(McpError) as no_code:
        await session.get_prompt("code_review", {"language": "rust"})
    assert no_code.value.error.code == -32602 and "code" in no_code.value.error.message

    languages = await session.complete(
        PromptReference(type="ref/prompt", name="code_review"), {"name": "language", "value": "py"}
    )
    assert languages.completion.values == ["python"]
    tools = await session.complete(
        ResourceTemplateReference(type="ref/resource", uri=TEMPLATE), {"name": "name", "value": "calc"}
    )
    assert tools.completion.values == ["calculator.add"]
    return init.protocolVersion


async def test_resources_and_prompts_over_stdio(captured):
    command, read = captured
    params = StdioServerParameters(command="sh", args=["-c", command])
    async with stdio_client(params) as (reader, writer):
        async with ClientSession(reader, writer) as session:
            revision = await exercise(session)
    sent, received = read()
    assert validate_responses(revision, sent, received) >= 9


async def test_resources_and_prompts_over_http(http_server):
    url, _ = http_server()
    async with streamable_http_client(url) as (reader, writer, _):
        async with ClientSession(reader, writer) as session:
            await exercise(session)
