"""Shared setup of the tests that drive the quickstart server with the official MCP SDK."""

import json
import os
import pathlib
import shlex
import shutil
import socket
import subprocess

import jsonschema
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
"""The repository."""
SPEC = ROOT / "spec" / "mcp"
OAUTH = ROOT / "tests" / "oauth"
"""The OAuth tests' authorization server: issuer.mjs, with oauth2-mock-server from npm."""
ERROR_META = "io.github.mcp-runtime/error"
"""The key of a result's `_meta` that holds a failed call's MCPErrorDetail (`mcp_runtime::ERROR_META`)."""


def free_port():
    """A free port on loopback, for a server that must know its own URL before it listens."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.fixture
def quickstart():
    """The quickstart binary, built by the test command."""
    path = os.environ.get("QUICKSTART_BIN", str(ROOT / "target" / "debug" / "quickstart"))
    assert pathlib.Path(path).is_file(), f"{path} is missing: build it with `cargo build -p quickstart --features full`"
    return path


@pytest.fixture
def captured(tmp_path, quickstart):
    """A shell command serving the quickstart on stdio that also records every message each
    way, and a reader of the records."""
    sent, received = tmp_path / "sent.jsonl", tmp_path / "received.jsonl"
    command = (
        f"tee {shlex.quote(str(sent))} | {shlex.quote(quickstart)} serve --stdio "
        f"| tee {shlex.quote(str(received))}"
    )

    def read():
        load = lambda path: [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        return load(sent), load(received)

    return command, read


@pytest.fixture(scope="session")
def conformance_server():
    """The conformance suite's server (tests/conformance-server), whose
    `test.tool_with_progress` reports progress, which no quickstart tool does: the binary
    named by CONFORMANCE_SERVER_BIN, or else built here (a no-op when it is up to date)."""
    path = os.environ.get("CONFORMANCE_SERVER_BIN")
    if path is None:
        subprocess.run(["cargo", "build", "--locked", "--quiet", "-p", "conformance-server"], cwd=ROOT, check=True)
        target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
        path = str(target / "debug" / "conformance-server")
    assert pathlib.Path(path).is_file(), f"{path} is missing: build it with `cargo build -p conformance-server`"
    return path


def serving_http(binary):
    """A fixture body: starts `binary` serving streamable HTTP on a free loopback port (or
    `address`); yields a function returning (url, process) for the given extra arguments."""
    started = []

    def start(*extra, address="127.0.0.1:0"):
        process = subprocess.Popen(
            [binary, "serve", "--http", address, *extra],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        started.append(process)
        line = process.stderr.readline()
        assert line.startswith("listening on "), line
        return line.split()[-1], process

    yield start
    for process in started:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture
def fleet(quickstart):
    """Three quickstart replicas sharing their sessions through Redis, behind nginx: see
    `replicas.Fleet`."""
    from replicas import Fleet

    fleet = Fleet(quickstart)
    yield fleet
    fleet.stop()


@pytest.fixture
def http_server(quickstart):
    """The quickstart serving streamable HTTP: see `serving_http`."""
    yield from serving_http(quickstart)


@pytest.fixture
def authorization_server():
    """A real OAuth authorization server, tests/oauth/issuer.mjs under Node (installed by
    `npm ci --prefix tests/oauth`, which the test command runs): its issuer URL."""
    node = shutil.which("node")
    assert node is not None, "node is not on PATH: the authorization server runs under Node"
    assert (OAUTH / "node_modules" / "oauth2-mock-server").is_dir(), (
        "oauth2-mock-server is not installed: run `npm ci --prefix tests/oauth`"
    )
    # Its standard input stays open: it exits when that closes.
    process = subprocess.Popen(
        [node, "issuer.mjs"], cwd=OAUTH, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    line = process.stdout.readline()
    try:
        issuer = json.loads(line)["issuer"]
    except (ValueError, KeyError, TypeError):
        process.kill()
        pytest.fail(f"the authorization server did not start: it said {line!r}, exit code {process.wait()}")
    yield issuer
    process.terminate()
    process.wait(timeout=10)


@pytest.fixture
def oauth_quickstart(http_server, authorization_server):
    """The quickstart serving streamable HTTP as a resource server of `authorization_server`:
    a function that starts one with extra arguments, on a port chosen first so that its
    audience is the URL clients use (or what `audience` makes of it), and returns that URL."""

    def start(*extra, audience=lambda url: url):
        address = f"127.0.0.1:{free_port()}"
        url = f"http://{address}/mcp"
        served, _ = http_server(
            "--oauth-issuer",
            authorization_server,
            "--oauth-audience",
            audience(url),
            *extra,
            address=address,
        )
        assert served == url
        return url

    return start


@pytest.fixture
def conformance_http(conformance_server):
    """The conformance server serving streamable HTTP (tools that report progress or change
    the tool list): see `serving_http`."""
    yield from serving_http(conformance_server)


def spec_validator(revision, definition):
    """A validator for one definition of the official MCP schema of `revision`."""
    spec = json.loads((SPEC / revision / "schema.json").read_text())
    key = "$defs" if "$defs" in spec else "definitions"
    assert definition in spec[key], f"MCP {revision} has no {key}/{definition}"
    schema = {"$schema": spec["$schema"], key: spec[key], "$ref": f"#/{key}/{definition}"}
    return jsonschema.validators.validator_for(schema)(schema)


RESULT_DEFINITIONS = {
    "initialize": "InitializeResult",
    "server/discover": "DiscoverResult",
    "ping": "EmptyResult",
    "tools/list": "ListToolsResult",
    "tools/call": "CallToolResult",
    "resources/list": "ListResourcesResult",
    "resources/templates/list": "ListResourceTemplatesResult",
    "resources/read": "ReadResourceResult",
    "resources/subscribe": "EmptyResult",
    "resources/unsubscribe": "EmptyResult",
    "prompts/list": "ListPromptsResult",
    "prompts/get": "GetPromptResult",
    "completion/complete": "CompleteResult",
}


def validate_responses(revision, sent, received):
    """Checks every response received against the official schema of `revision`: the
    envelope, and the result against the result type of the request's method."""
    methods = {message["id"]: message["method"] for message in sent if "id" in message and "method" in message}
    error_definition = "JSONRPCError" if revision == "2025-06-18" else "JSONRPCErrorResponse"
    checked = 0
    for message in received:
        if "id" not in message:
            spec_validator(revision, "JSONRPCNotification").validate(message)
        elif "error" in message:
            spec_validator(revision, error_definition).validate(message)
        else:
            spec_validator(revision, "JSONRPCResponse").validate(message)
            definition = RESULT_DEFINITIONS[methods[message["id"]]]
            if message["result"].get("resultType") == "input_required":
                # A round of a call that asks the client (2026-07-28).
                definition = "InputRequiredResult"
            spec_validator(revision, definition).validate(message["result"])
        checked += 1
    return checked
