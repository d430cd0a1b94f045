"""A small MCP server written with the official Python SDK (1.x or 2.x, whichever is
installed), for the gateway tests: the quickstart mounts it, over stdio or streamable HTTP,
and the official Python client calls its tools through the quickstart.

Usage: python_server.py stdio | python_server.py http PORT
"""

import sys

try:  # 2.x
    from mcp.server.mcpserver import MCPServer

    def make(name):
        return MCPServer(name)

    def serve_http(app, port):
        app.run("streamable-http", host="127.0.0.1", port=port)

except ImportError:  # 1.x
    from mcp.server.fastmcp import FastMCP

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


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "http":
        serve_http(app, int(sys.argv[2]))
    else:
        app.run()
