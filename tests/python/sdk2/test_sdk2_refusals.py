"""The quickstart as a gateway, driven by the official Python client 2.x (at 2026-07-28),
in front of a Python SDK 2.x server over stdio: the server's missing note is a missing
resource for the client, told by its code and `data.uri` although its message ("no note is
numbered 7") does not say "not found"; and not some failure of the server behind."""

import sys

import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError

from gateway import PYTHON_SERVER

pytestmark = pytest.mark.anyio


async def test_an_upstream_missing_resource_in_its_own_words_stays_missing(quickstart):
    args = ["--mount", f"py={sys.executable} {PYTHON_SERVER} stdio", "serve", "--stdio"]
    async with Client(StdioServerParameters(command=quickstart, args=args)) as client:
        assert client.protocol_version == "2026-07-28"
        note = await client.read_resource("notes://py/1")
        assert note.contents[0].text == "buy milk"
        with pytest.raises(MCPError) as missing:
            await client.read_resource("notes://py/7")
        error = missing.value.error
        assert error.code == -32602, error
        # The gateway's own missing resource, naming the URI its client asked for.
        assert error.data == {"uri": "notes://py/7"}, error
