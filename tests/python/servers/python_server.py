"""A small MCP server written with the official Python SDK (1.x or 2.x, whichever is
installed), for the gateway tests: the quickstart mounts it, over stdio or streamable HTTP,
and the official Python client calls its tools and reads its notes through the quickstart.

Usage: python_server.py stdio | python_server.py http PORT
"""

import sys

try:  # 2.x
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ResourceNotFoundError as NoSuchNote

    def make(name):
        return MCPServer(name)

    def serve_http(app, port):
        app.run("streamable-http", host="127.0.0.1", port=port)

except ImportError:  # 1.x
    from mcp.server.fastmcp import FastMCP
    from mcp.server.fastmcp.exceptions import ResourceError as NoSuchNote

    def make(name):
        return FastMCP(name)

    def serve_http(app, port):
        app.settings.host = "127.0.0.1"
        app.settings.port = port
        app.run("streamable-http")


app = make("python-notes")


@app.tool()
def shout(text: str) -> str:
    """Upper-cases a text."""
    return text.upper()


@app.tool()
def multiply(a: int, b: int) -> int:
    """Multiplies two integers."""
    return a * b


NOTES = {"1": "buy milk"}


@app.resource("notes://{number}")
def note(number: str) -> str:
    """A note, by its number; a number of no note is missing, and the SDK says so in its
    own words ("no note is numbered ...")."""
    if number not in NOTES:
        raise NoSuchNote(f"no note is numbered {number}")
    return NOTES[number]


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "http":
        serve_http(app, int(sys.argv[2]))
    else:
        app.run()
