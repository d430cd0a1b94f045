"""What the gateway tests of both SDK majors share: the quickstart serving, over stdio,
its own tools beside those of a server written with the official Python SDK (mounted once
over stdio, once over streamable HTTP) and of the official reference server
(`@modelcontextprotocol/server-everything`, from npm)."""

import contextlib
import socket
import subprocess
import sys
import time

import anyio

from conftest import ERROR_META, ROOT, free_port

PYTHON_SERVER = ROOT / "tests" / "python" / "servers" / "python_server.py"
EVERYTHING = "npx -y @modelcontextprotocol/server-everything@2026.8.31"


class PythonHttpServer:
    """The Python SDK server over streamable HTTP on a loopback port, which can be killed
    and started again on the same port."""

    def __init__(self):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        self.process = None

    def start(self):
        self.process = subprocess.Popen(
            [sys.executable, str(PYTHON_SERVER), "http", str(self.port)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", self.port), timeout=1):
                return
            assert self.process.poll() is None, "the Python SDK server exited"
            assert time.monotonic() < deadline, "the Python SDK server did not listen"
            time.sleep(0.1)

    def stop(self):
        self.process.kill()
        self.process.wait()


@contextlib.contextmanager
def python_server_over_http():
    """The Python SDK server on a free loopback port, started."""
    server = PythonHttpServer()
    server.start()
    try:
        yield server
    finally:
        server.stop()


def gateway_args(url):
    """The quickstart's arguments: serve on stdio, three servers mounted."""
    return [
        "--mount", f"py_stdio={sys.executable} {PYTHON_SERVER} stdio",
        "--mount", f"py_http={url}",
        "--mount", f"everything={EVERYTHING}",
        "serve", "--stdio",
    ]


def text_of(result):
    return " ".join(block.text for block in result.content if block.type == "text")


def is_error(result):
    """`isError` (1.x) or `is_error` (2.x)."""
    return getattr(result, "is_error", getattr(result, "isError", None))


def structured(result):
    """`structuredContent` (1.x) or `structured_content` (2.x)."""
    return getattr(result, "structured_content", getattr(result, "structuredContent", None))


async def calls_through_the_gateway(session):
    """Lists and calls the tools of every mounted server, and a local one."""
    names = {tool.name for tool in (await session.list_tools()).tools}
    for expected in ("calculator.add", "py_stdio.shout", "py_http.multiply", "everything.echo", "everything.get_sum"):
        assert expected in names, (expected, sorted(names))

    shout = await session.call_tool("py_stdio.shout", {"text": "through"})
    assert is_error(shout) is False, shout
    assert "THROUGH" in text_of(shout), shout

    product = await session.call_tool("py_http.multiply", {"a": 6, "b": 7})
    assert is_error(product) is False, product
    assert "42" in text_of(product), product

    echo = await session.call_tool("everything.echo", {"message": "hello"})
    assert is_error(echo) is False, echo
    assert "hello" in text_of(echo), echo

    local = await session.call_tool("calculator.add", {"a": 1, "b": 2})
    assert structured(local) == {"sum": 3}

    # The upstream's schema is the gateway's: a wrong argument is refused before it leaves.
    wrong = await session.call_tool("py_http.multiply", {"a": "six", "b": 7})
    assert is_error(wrong) is True
    assert structured(wrong) is None and wrong.meta[ERROR_META]["error_type"] == "ValidationError"


async def survives_a_restart_of(session, upstream):
    """The HTTP upstream killed mid-run: its calls fail at once with a clear error while the
    others keep answering; started again on its port (a new process, which knows none of
    the old sessions), it is used again."""
    upstream.stop()
    started = time.monotonic()
    down = await session.call_tool("py_http.multiply", {"a": 6, "b": 7})
    assert time.monotonic() - started < 5, "a dead upstream fails fast"
    assert is_error(down) is True, down
    assert "could not be called" in text_of(down), down

    local = await session.call_tool("calculator.add", {"a": 1, "b": 2})
    assert structured(local) == {"sum": 3}
    other = await session.call_tool("py_stdio.shout", {"text": "still here"})
    assert "STILL HERE" in text_of(other), other

    upstream.start()
    deadline = time.monotonic() + 30
    while True:
        again = await session.call_tool("py_http.multiply", {"a": 6, "b": 7})
        if is_error(again) is False and "42" in text_of(again):
            break
        assert time.monotonic() < deadline, f"the restarted upstream is not used again: {again}"
        await anyio.sleep(0.2)
