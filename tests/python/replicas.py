"""Three replicas of the quickstart behind Debian's nginx (round robin, no affinity), their
sessions in one Debian redis-server (`--session-store`): what the replica tests of the SDK
majors share. A replica can be killed (SIGKILL) and started again on its port."""

import os
import pathlib
import shutil
import signal
import socket
import subprocess
import tempfile
import time

from conftest import ROOT, free_port

CALLS = 30
"""Calls of the logging tool; a replica is killed after a third of them, started again after two."""


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
    log_format upstreams '$request $status upstream="$upstream_addr"';
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
            proxy_next_upstream_tries 3;
            proxy_connect_timeout 2s;
            proxy_read_timeout 120s;
            proxy_buffering off;
        }}
    }}
}}
"""


class Fleet:
    """redis-server, `count` quickstart replicas sharing their sessions through it, and nginx
    in front of them; everything stopped by `stop`."""

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
            f"        server 127.0.0.1:{port} max_fails=1 fail_timeout=2s;" for port in self.ports
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
             f"redis://127.0.0.1:{self.redis_port}", "--session-namespace", "replicas"],
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

    def stop(self):
        for process in [self.nginx, *self.replicas, self.redis]:
            if process is not None and process.poll() is None:
                process.kill()
                process.wait(timeout=10)
        shutil.rmtree(self.dir, ignore_errors=True)


class Heard:
    """What the client was told: its log messages, and the questions it answered (each
    accepted with `go`, as `accept(content)` makes the SDK's answer)."""

    def __init__(self, accept):
        self.logs = []
        self.asked = []
        self._accept = accept

    async def on_log(self, params):
        self.logs.append(params)

    async def on_elicit(self, context, params):
        self.asked.append(params.message)
        return self._accept({"go": True})


async def one_session_across_the_replicas(fleet, heard, set_level, call):
    """Sets the session's log level, makes `CALLS` calls while replica 0 is killed and
    started again, then answers a tool's question: `call(tool, arguments)` gives the SDK's
    (is_error, structured content) of a call."""
    readme = str(ROOT / "README.md")
    await set_level("info")
    for number in range(CALLS):
        if number == CALLS // 3:
            fleet.kill(0)
        if number == 2 * CALLS // 3:
            fleet.start(0)
        failed, _ = await call("file_utility.read_file_content", {"file_path": readme, "max_chars": 5})
        assert failed is False, number
        # Its log message came with it, whichever replica ran it: the level is the
        # session's, kept in Redis.
        assert len(heard.logs) == number + 1, (number, heard.logs)
        assert heard.logs[-1].data == f"reading {readme}", heard.logs[-1]
    # A question the tool asks is answered, though the answer may reach another replica.
    failed, counted = await call("text.slow_count", {"text": "one two three", "delay_ms": 10, "confirm": True})
    assert failed is False, counted
    assert heard.asked == ["Count this text?"], heard.asked
    assert counted["words"] == 3, counted
    answered = fleet.answered_by()
    assert all(answered.get(f"127.0.0.1:{port}", 0) > 0 for port in fleet.ports), answered
