"""The official MCP Python SDK (1.x) authorizes itself to the quickstart, served as an OAuth
resource server, through a real authorization server (tests/oauth/issuer.mjs): discovery,
dynamic registration, the authorization code with PKCE, the token, and a step-up when a
tool needs a scope the token lacks. What each step sent is checked (see authorization.py)."""

import httpx
import pytest
from mcp import ClientSession
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientMetadata

from authorization import (
    CLIENT_NAME,
    REDIRECT_URI,
    Browser,
    Storage,
    Traffic,
    check_first_authorization,
    check_refused_for_another_resource,
    check_step_up,
    elsewhere,
)

pytestmark = pytest.mark.anyio


def oauth_client(url, method, browser, storage):
    """The SDK's OAuth client for `url`, registering for `method`; 1.x's callback handler
    answers (code, state) and cannot pass on the redirect's `iss`."""

    async def callback():
        answer = browser.answer()
        return answer["code"], answer["state"]

    metadata = OAuthClientMetadata(
        client_name=CLIENT_NAME, redirect_uris=[REDIRECT_URI], token_endpoint_auth_method=method
    )
    return OAuthClientProvider(
        server_url=url,
        client_metadata=metadata,
        storage=storage,
        redirect_handler=browser.open,
        callback_handler=callback,
    )


@pytest.mark.parametrize("method", [None, "none", "client_secret_post"])
async def test_the_sdk_gets_a_token_calls_tools_and_steps_up_for_a_scope(
    oauth_quickstart, authorization_server, tmp_path, method
):
    url = oauth_quickstart("--oauth-scope", "files:read", "--allow-dangerous", "file_utility.write_file_content")
    browser, storage, traffic = Browser(httpx), Storage(), Traffic()
    auth = oauth_client(url, method, browser, storage)
    async with (
        httpx.AsyncClient(auth=auth, event_hooks=traffic.hooks) as http,
        streamable_http_client(url, http_client=http) as (reader, writer, _),
        ClientSession(reader, writer) as session,
    ):
        await session.initialize()
        check_first_authorization(
            traffic, browser, storage, issuer=authorization_server, resource=url, scope="files:read", method=method
        )

        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        assert sorted(tools) == [
            "calculator.add",
            "file_utility.read_file_content",
            "file_utility.write_file_content",
            "text.grep",
            "text.slow_count",
            "text.summarize",
            "text.word_count",
        ]
        assert tools["file_utility.write_file_content"].meta["mcp-runtime/tool"]["scopes"] == ["files:write"]
        added = await session.call_tool("calculator.add", {"a": 40, "b": 2})
        assert added.isError is False and added.structuredContent == {"sum": 42}

        # A tool that needs `files:write`: 403, and 1.x steps up, asking for the challenged
        # scope alone, so the new token no longer carries `files:read`.
        target = tmp_path / "note.txt"
        start = len(traffic.exchanges)
        written = await session.call_tool(
            "file_utility.write_file_content", {"file_path": str(target), "content": "stepped up"}
        )
        assert written.isError is False and written.structuredContent == {"bytes_written": 10}
        assert target.read_text() == "stepped up"
        check_step_up(
            traffic,
            browser,
            storage,
            start=start,
            issuer=authorization_server,
            resource=url,
            needed="files:write",
            scope="files:write",
        )
        # The narrower token still does for a tool that needs no scope.
        counted = await session.call_tool("text.word_count", {"text": "one two three"})
        assert counted.structuredContent == {"words": 3, "chars": 13}



async def test_a_server_that_names_another_resource_is_not_authorized_for(oauth_quickstart):
    """The quickstart given as its audience another URL than the one the client uses: its
    metadata names that resource, and the client stops before anyone authorizes."""
    url = oauth_quickstart(audience=elsewhere)
    browser, storage, traffic = Browser(httpx), Storage(), Traffic()
    auth = oauth_client(url, "none", browser, storage)
    with pytest.raises(Exception) as refused:
        async with (
            httpx.AsyncClient(auth=auth, event_hooks=traffic.hooks) as http,
            streamable_http_client(url, http_client=http) as (reader, writer, _),
            ClientSession(reader, writer) as session,
        ):
            await session.initialize()
    check_refused_for_another_resource(traffic, browser, storage, refused.value, resource=url)
