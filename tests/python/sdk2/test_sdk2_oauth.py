"""The current official MCP Python SDK (2.x) authorizes itself to the quickstart, served as
an OAuth resource server, through a real authorization server (tests/oauth/issuer.mjs):
discovery, dynamic registration, the authorization code with PKCE and the RFC 9207 `iss`
check, the token, and a step-up when a tool needs a scope the token lacks. What each step
sent is checked (see authorization.py)."""

import httpx2
import pytest
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientMetadata

from authorization import (
    CLIENT_NAME,
    REDIRECT_URI,
    Browser,
    Storage,
    Traffic,
    check_first_authorization,
    check_refused_for_another_resource,
    check_step_up,
    claims,
    elsewhere,
    leaves,
)

pytestmark = pytest.mark.anyio

REVISION = "2026-07-28"


def oauth_client(url, method, browser, storage, **options):
    """The SDK's OAuth client for `url`, registering for `method`; its callback handler
    passes on the redirect's `iss`, which 2.x checks against the authorization server's."""

    async def callback():
        return AuthorizationCodeResult(**browser.answer())

    metadata = OAuthClientMetadata(
        client_name=CLIENT_NAME, redirect_uris=[REDIRECT_URI], token_endpoint_auth_method=method
    )
    return OAuthClientProvider(
        server_url=url,
        client_metadata=metadata,
        storage=storage,
        redirect_handler=browser.open,
        callback_handler=callback,
        **options,
    )


@pytest.mark.parametrize("method", [None, "none", "client_secret_post"])
async def test_the_sdk_gets_a_token_calls_tools_and_steps_up_for_a_scope(
    oauth_quickstart, authorization_server, tmp_path, method
):
    url = oauth_quickstart("--oauth-scope", "files:read", "--allow-dangerous", "file_utility.write_file_content")
    browser, storage, traffic = Browser(httpx2), Storage(), Traffic()
    auth = oauth_client(url, method, browser, storage)
    async with (
        httpx2.AsyncClient(auth=auth, event_hooks=traffic.hooks) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        assert client.protocol_version == REVISION
        check_first_authorization(
            traffic, browser, storage, issuer=authorization_server, resource=url, scope="files:read", method=method
        )

        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
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
        added = await client.call_tool("calculator.add", {"a": 40, "b": 2})
        assert added.is_error is False and added.structured_content == {"sum": 42}

        # A tool that needs `files:write`: 403, and 2.x steps up, asking for the scopes it
        # had and the challenged one (SEP-2350).
        target = tmp_path / "note.txt"
        start = len(traffic.exchanges)
        written = await client.call_tool(
            "file_utility.write_file_content", {"file_path": str(target), "content": "stepped up"}
        )
        assert written.is_error is False and written.structured_content == {"bytes_written": 10}
        assert target.read_text() == "stepped up"
        check_step_up(
            traffic,
            browser,
            storage,
            start=start,
            issuer=authorization_server,
            resource=url,
            needed="files:write",
            scope="files:read files:write",
        )
        counted = await client.call_tool("text.word_count", {"text": "one two three"})
        assert counted.structured_content == {"words": 3, "chars": 13}


async def connect(url, auth, traffic):
    """Connects to `url` with `auth`, recording the traffic: the error it ends with."""
    with pytest.raises(Exception) as refused:
        async with (
            httpx2.AsyncClient(auth=auth, event_hooks=traffic.hooks) as http,
            Client(streamable_http_client(url, http_client=http)),
        ):
            pass
    return refused.value


async def test_a_server_that_names_another_resource_is_not_authorized_for(oauth_quickstart):
    """The quickstart given as its audience another URL than the one the client uses: its
    metadata names that resource, and the client stops before anyone authorizes."""
    url = oauth_quickstart(audience=elsewhere)
    browser, storage, traffic = Browser(httpx2), Storage(), Traffic()
    error = await connect(url, oauth_client(url, "none", browser, storage), traffic)
    check_refused_for_another_resource(traffic, browser, storage, error, resource=url)


async def test_a_token_for_the_url_the_client_uses_is_refused_by_a_server_of_another(oauth_quickstart):
    """A client that accepts whatever resource the metadata names (2.x lets it decide) gets
    a token for the URL it uses, which the quickstart, whose audience is another, refuses:
    its own audience check, on a token the authorization server issued."""

    async def accept(server_url, resource):
        pass

    url = oauth_quickstart(audience=elsewhere)
    browser, storage, traffic = Browser(httpx2), Storage(), Traffic()
    auth = oauth_client(url, "none", browser, storage, validate_resource_url=accept)
    error = await connect(url, auth, traffic)
    # Refused on `server/discover`, the SDK tries `initialize`, and authorizes again for it.
    assert storage.tokens and len(browser.visits) == len(storage.tokens), (leaves(error), traffic.exchanges)
    assert all(claims(token.access_token)["aud"] == url for token in storage.tokens)
    presented = [exchange for exchange in traffic.exchanges if exchange.url == url and exchange.authorization]
    assert {exchange.authorization for exchange in presented} == {
        f"Bearer {token.access_token}" for token in storage.tokens
    }, traffic.exchanges
    for exchange in presented:
        assert exchange.status == 401, traffic.exchanges
        assert exchange.challenge.startswith('Bearer error="invalid_token", error_description="'), exchange.challenge
        assert "audience" in exchange.challenge, exchange.challenge
