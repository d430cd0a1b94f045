"""Three replicas of the quickstart behind Debian's nginx (round robin, no affinity), their
sessions in one Debian redis-server (`--session-store`): what the replica tests of the SDK
majors share. A replica can be killed (SIGKILL) and started again on its port.

Each replica closes a session's stream of notifications after two seconds
(`--session-stream-lifetime`), and its client reconnects with the last event's id: the
SDKs give a stream up after two failed reconnections in a row, and a clean close starts
their count again."""

import pathlib
import shutil
import signal
import socket
import subprocess
import tempfile
import time

import anyio
from conftest import ROOT, free_port

PHASE = 3.0
"""Seconds of calls after replicas are killed, and after they are started again: longer
than a stream's lifetime, so that the client's count of failed reconnections starts again
between two kills."""

ROUNDS = (3, 10)
"""Rounds of kills: at least the first, so that each replica is killed twice, and until a
kill cut the session's stream at most the second. Two of the three replicas are killed in
each round, so that the replica holding the stream (which moves as it is closed and
resumed) is killed with odds of two in three a round."""


def _binary(name, *dirs):
    found = shutil.which(name) or next(
        (str(pathlib.Path(d) / name) for d in dirs if (pathlib.Path(d) / name).is_file()), None
    )
    assert found, f"{name} is not installed: the test command installs it"
    return found


def _wait_for_port(port, what, process=None, within=20.0):
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise AssertionError(f"{what} exited with {process.returncode}")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise AssertionError(f"{what} does not listen on {port}")


NGINX = """
daemon off;
worker_processes 1;
pid nginx.pid;
error_log error.log notice;
events {{ worker_connections 1024; }}
http {{
    log_format upstreams '$request $status last_event_id="$http_last_event_id" upstream="$upstream_addr"';
    access_log access.log upstreams;
    client_body_temp_path client_body_temp;
    proxy_temp_path proxy_temp;
    fastcgi_temp_path fastcgi_temp;
    uwsgi_temp_path uwsgi_temp;
    scgi_temp_path scgi_temp;
    upstream mcp {{
{servers}
        keepalive 32;
    }}
    server {{
        listen 127.0.0.1:{port};
        location = /mcp {{
            proxy_pass http://mcp;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_next_upstream error timeout non_idempotent;
            proxy_next_upstream_tries 0;
            proxy_next_upstream_timeout 10s;
            proxy_connect_timeout 2s;
            proxy_read_timeout 120s;
            proxy_buffering off;
        }}
    }}
}}
"""


class Fleet:
    """redis-server, `count` quickstart replicas sharing their sessions through it, and nginx
    in front of them; everything stopped by `stop`.

    nginx marks no replica down (`max_fails=0`) and tries the next one until one answers
    (`proxy_next_upstream_tries 0`, within 10 s): a replica started again is first reached on
    nginx's kept connections to the process killed before it, whose failure would otherwise
    mark the live replica down, and with the two others killed leave none (502)."""

    def __init__(self, quickstart, count=3):
        self.quickstart = quickstart
        self.dir = pathlib.Path(tempfile.mkdtemp(prefix="mcp-replicas-"))
        self.redis_port = free_port()
        self.redis = subprocess.Popen(
            [_binary("redis-server", "/usr/bin"), "--port", str(self.redis_port), "--save", "",
             "--appendonly", "no", "--bind", "127.0.0.1", "--dir", str(self.dir)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        _wait_for_port(self.redis_port, "redis-server", self.redis)
        self.ports = [free_port() for _ in range(count)]
        self.replicas = [None] * count
        for index in range(count):
            self.start(index)
        self.port = free_port()
        servers = "\n".join(
            f"        server 127.0.0.1:{port} max_fails=0;" for port in self.ports
        )
        (self.dir / "nginx.conf").write_text(NGINX.format(servers=servers, port=self.port))
        self.nginx = subprocess.Popen(
            [_binary("nginx", "/usr/sbin"), "-p", str(self.dir), "-c", str(self.dir / "nginx.conf"),
             "-e", str(self.dir / "error.log")],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        _wait_for_port(self.port, "nginx", self.nginx)
        self.url = f"http://127.0.0.1:{self.port}/mcp"

    def start(self, index):
        """Starts replica `index` on its port."""
        address = f"127.0.0.1:{self.ports[index]}"
        process = subprocess.Popen(
            [self.quickstart, "serve", "--http", address, "--session-store",
             f"redis://127.0.0.1:{self.redis_port}", "--session-namespace", "replicas",
             "--session-stream-lifetime", "2s", "--allow-dangerous", "file_utility.write_file_content"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        _wait_for_port(self.ports[index], f"replica {index}", process)
        self.replicas[index] = process

    def kill(self, index):
        """Kills replica `index` with SIGKILL."""
        process = self.replicas[index]
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)

    def answered_by(self):
        """How many requests each replica answered, by nginx's log."""
        counts = {}
        for line in (self.dir / "access.log").read_text().splitlines():
            upstream = line.rsplit('upstream="', 1)[-1].rstrip('"').split(", ")[-1]
            counts[upstream] = counts.get(upstream, 0) + 1
        return counts

    def resumptions(self):
        """How many streams were resumed (a GET with `Last-Event-ID`), by nginx's log."""
        return sum(
            1
            for line in (self.dir / "access.log").read_text().splitlines()
            if line.startswith("GET ") and 'last_event_id=""' not in line
        )

    def streams_cut(self):
        """How many of the streams a replica held were cut as it was killed, by nginx's log."""
        return sum(
            1
            for line in (self.dir / "error.log").read_text().splitlines()
            if "upstream prematurely closed" in line and 'request: "GET /mcp' in line
        )

    def stop(self):
        for process in [self.nginx, *self.replicas, self.redis]:
            if process is not None and process.poll() is None:
                process.kill()
                process.wait(timeout=10)
        shutil.rmtree(self.dir, ignore_errors=True)


class Heard:
    """What the client was told: its log messages, the resources it heard were updated, and
    the questions it answered (each accepted with `go`, as `accept(content)` makes the SDK's
    answer)."""

    def __init__(self, accept):
        self.logs = []
        self.updated = []
        self.asked = []
        self._accept = accept

    async def on_log(self, params):
        self.logs.append(params)

    async def on_message(self, message):
        # The SDKs also hand over their transport's errors (a stream dropped): not told.
        notification = getattr(message, "root", message)
        if getattr(notification, "method", None) == "notifications/resources/updated":
            self.updated.append(str(notification.params.uri))

    async def on_elicit(self, context, params):
        self.asked.append(params.message)
        return self._accept({"go": True})


async def one_session_across_the_replicas(fleet, heard, session, figures):
    """Sets the session's log level and subscribes to a file; then, round after round, two
    of the replicas are killed and started again, while the session calls the reader (each
    call logs) and the writer (each write tells the file's subscribers) for `PHASE` seconds
    after each; then a tool's question is answered. `session` gives the SDK's
    `set_level(level)`, `subscribe(uri)` and `call(tool, arguments)` (is_error, structured
    content)."""
    readme = str(ROOT / "README.md")
    notes = fleet.dir / "notes.txt"
    uri = f"file://{notes}"
    await session.set_level("info")
    await session.subscribe(uri)
    calls = answered = writes = rounds = 0
    least, most = ROUNDS
    while rounds < least or (fleet.streams_cut() == 0 and rounds < most):
        killed = [rounds % len(fleet.ports), (rounds + 1) % len(fleet.ports)]
        rounds += 1
        for act in (fleet.kill, fleet.start):
            for index in killed:
                act(index)
            until = time.monotonic() + PHASE
            while time.monotonic() < until:
                calls += 1
                failed, _ = await session.call(
                    "file_utility.read_file_content", {"file_path": readme, "max_chars": 5}
                )
                assert failed is False, calls
                answered += 1
                # Its log message came with it, whichever replica ran it: the level is the
                # session's, kept in Redis.
                assert heard.logs[-1].data == f"reading {readme}", heard.logs[-1]
                writes += 1
                calls += 1
                failed, written = await session.call(
                    "file_utility.write_file_content", {"file_path": str(notes), "content": f"{writes}\n"}
                )
                assert failed is False, written
                answered += 1
                await anyio.sleep(0.05)
    cut = fleet.streams_cut()
    assert cut > 0, f"no kill in {rounds} rounds cut the session's stream"
    # Every update raised after the subscription arrives, once, wherever the session's
    # stream was at the time, and whichever replica held it was killed.
    deadline = time.monotonic() + 20
    while len(heard.updated) < writes and time.monotonic() < deadline:
        await anyio.sleep(0.1)
    await anyio.sleep(1.0)
    assert heard.updated == [uri] * writes, (writes, len(heard.updated))
    resumed = fleet.resumptions()
    # A question the tool asks is answered, though the answer may reach another replica.
    failed, counted = await session.call("text.slow_count", {"text": "one two three", "delay_ms": 10, "confirm": True})
    assert failed is False, counted
    assert heard.asked == ["Count this text?"], heard.asked
    assert counted["words"] == 3, counted
    answered_by = fleet.answered_by()
    assert all(answered_by.get(f"127.0.0.1:{port}", 0) > 0 for port in fleet.ports), answered_by
    figures.write_text(
        f"rounds {rounds} (two replicas killed in each); calls made {calls}, answered {answered}; "
        f"updates sent {writes}, received {len(heard.updated)}; streams cut by a kill {cut}, "
        f"resumed with Last-Event-ID {resumed}; requests by replica {answered_by}\n"
    )


class Session:
    """What `one_session_across_the_replicas` does with an SDK's session."""

    def __init__(self, set_level, subscribe, call):
        self.set_level = set_level
        self.subscribe = subscribe
        self.call = call
