// The official MCP TypeScript SDK's client, and the official MCP Inspector's CLI (built on
// it), against the quickstart server over stdio, and the CLI over streamable HTTP through
// nginx to three replicas that share their sessions through Redis. Both check a result's structuredContent
// against the tool's output schema: a failure must reach them as the tool's own failure
// (isError, the text a model reads, the error detail in _meta), never as a schema mismatch,
// and a success must still pass the check. Run by scripts/test.sh with node's test runner;
// QUICKSTART_BIN names the server binary.

import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const here = dirname(fileURLToPath(import.meta.url));
const QUICKSTART = process.env.QUICKSTART_BIN ?? resolve(here, "../../target/debug/quickstart");
/** The key of a result's _meta that holds a failed call's MCPErrorDetail (mcp_runtime::ERROR_META). */
const ERROR_META = "io.github.mcp-runtime/error";
/** The inspector CLI's own folder: it finds its package.json through the working directory. */
const INSPECTOR = join(here, "node_modules", "@modelcontextprotocol", "inspector-cli", "build");

// What the SDK's schema compiler (Ajv) warns of, as it compiles the listed tools' schemas: a
// `format` it does not know is one such warning, once per field.
const warnings = [];
const warn = console.warn;
console.warn = (...args) => {
  warnings.push(args.join(" "));
  warn(...args);
};

// JSON.stringify writes this number as these digits, which fit in a 64-bit integer; the
// same plus 1000 does not.
const BIG = 9223372036854775000;

/** The calls that fail, each with its error type and the start of its message. */
const FAILURES = [
  {
    what: "a sum past 64 bits",
    tool: "calculator.add",
    args: { a: BIG, b: 1000 },
    type: "ValidationError",
    message: `${BIG} + 1000 does not fit in a 64-bit integer`,
  },
  {
    what: "arguments the input schema refuses",
    tool: "calculator.add",
    args: { a: 1 },
    type: "ValidationError",
    message: "invalid arguments for tool `calculator.add`: ",
  },
  {
    what: "a file that is not there",
    tool: "file_utility.read_file_content",
    args: { file_path: "/nonexistent/typescript-sdk.txt" },
    type: "FileNotFoundError",
    message: "cannot read `/nonexistent/typescript-sdk.txt`",
  },
];

/** Checks that `result` is the failure `expected` describes, as MCP's CallToolResult. */
function assertFailure(result, expected) {
  assert.equal(result.isError, true, JSON.stringify(result));
  assert.equal(result.structuredContent, undefined, "a failure sends no structuredContent");
  const detail = result._meta?.[ERROR_META];
  assert.ok(detail, `the error detail in _meta: ${JSON.stringify(result)}`);
  assert.equal(detail.error_type, expected.type);
  assert.ok(
    detail.error_message.startsWith(expected.message),
    `${JSON.stringify(detail.error_message)} starts with ${JSON.stringify(expected.message)}`,
  );
  const [first] = result.content;
  assert.equal(first.type, "text");
  const stated = `[FAIL] Tool execution failed:\nError: ${detail.error_type}: ${detail.error_message}`;
  assert.ok(
    first.text.startsWith(stated),
    `${JSON.stringify(first.text)} starts with ${JSON.stringify(stated)}`,
  );
  assert.ok(!first.text.endsWith("Output: "), "no empty Output line");
}

describe("the official TypeScript SDK's client", () => {
  let client;

  before(async () => {
    assert.ok(existsSync(QUICKSTART), `${QUICKSTART} is missing: build it with cargo build -p quickstart`);
    client = new Client({ name: "mcp-runtime-typescript-tests", version: "1.0.0" });
    const transport = new StdioClientTransport({
      command: QUICKSTART,
      args: ["serve", "--stdio"],
      stderr: "ignore",
    });
    await client.connect(transport);
    // The listing gives the client each tool's output schema, which it checks results against.
    const { tools } = await client.listTools();
    const add = tools.find((tool) => tool.name === "calculator.add");
    assert.deepEqual(add.outputSchema.required, ["sum"]);
  });

  after(async () => {
    await client?.close();
  });

  test("a success passes the output schema check", async () => {
    const result = await client.callTool({ name: "calculator.add", arguments: { a: 2, b: 40 } });
    assert.equal(result.isError, false);
    assert.deepEqual(result.structuredContent, { sum: 42 });
    assert.deepEqual(result.content, [{ type: "text", text: '{"sum":42}' }]);
  });

  for (const failure of FAILURES) {
    test(`${failure.what} (${failure.tool}) reaches it as the tool's failure`, async () => {
      const result = await client.callTool({ name: failure.tool, arguments: failure.args });
      assertFailure(result, failure);
    });
  }

  test("every listed schema compiles without an unknown format", () => {
    // By now the listing and each called tool's output schema have been compiled.
    assert.deepEqual(warnings.filter((line) => line.includes("unknown format")), []);
  });
});

describe("the official MCP Inspector's CLI", () => {
  /** `tools/call` of `tool` with `args` through the inspector: its exit status and output. */
  async function inspect(tool, args) {
    // As JSON, which the inspector reads them as; a BigInt as its digits.
    const json = (value) => (typeof value === "bigint" ? value.toString() : JSON.stringify(value));
    const pairs = Object.entries(args).map(([key, value]) => `${key}=${json(value)}`);
    const command = [
      "cli.js", "--cli", QUICKSTART, "serve", "--stdio",
      "--method", "tools/call", "--tool-name", tool, "--tool-arg", ...pairs,
    ];
    try {
      const options = { cwd: INSPECTOR, timeout: 60_000 };
      const { stdout, stderr } = await promisify(execFile)(process.execPath, command, options);
      return { code: 0, stdout, stderr };
    } catch (err) {
      return { code: err.code, stdout: err.stdout, stderr: err.stderr };
    }
  }

  test("a success passes the output schema check", async () => {
    const { code, stdout, stderr } = await inspect("calculator.add", { a: 2, b: 40 });
    assert.equal(code, 0, stderr);
    const result = JSON.parse(stdout);
    assert.equal(result.isError, false);
    assert.deepEqual(result.structuredContent, { sum: 42 });
    // The schema it checked the result against compiled without a warning.
    assert.ok(!stderr.includes("unknown format"), stderr);
  });

  for (const failure of FAILURES) {
    test(`${failure.what} (${failure.tool}) shows the tool's failure`, async () => {
      const { code, stdout, stderr } = await inspect(failure.tool, failure.args);
      assert.equal(code, 0, stderr);
      assertFailure(JSON.parse(stdout), failure);
    });
  }

  test("the largest 64-bit integer, rounded up by JavaScript, is refused as the tool's failure", async () => {
    // The inspector reads the argument as a number: 2^63, past the integers the tool takes.
    const { code, stdout, stderr } = await inspect("calculator.add", { a: 9223372036854775807n, b: 1 });
    assert.equal(code, 0, stderr);
    assertFailure(JSON.parse(stdout), {
      type: "ValidationError",
      message: "invalid arguments for tool `calculator.add`: `/a`: ",
    });
  });
});

/** A free loopback port. */
async function freePort() {
  const server = createServer();
  await new Promise((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address();
  await new Promise((done) => server.close(done));
  return port;
}

/** Resolves once something listens on `port`; fails after 20 s, or once `child` exits. */
async function listening(port, what, child) {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    assert.equal(child.exitCode, null, `${what} exited`);
    const open = await new Promise((done) => {
      const socket = createConnection({ port, host: "127.0.0.1" }, () => {
        socket.end();
        done(true);
      });
      socket.on("error", () => done(false));
    });
    if (open) return;
    await new Promise((done) => setTimeout(done, 50));
  }
  assert.fail(`${what} does not listen on ${port}`);
}

/** Debian's `name`, where its package puts it. */
function system(name, dir) {
  const path = join(dir, name);
  assert.ok(existsSync(path), `${path} is missing: the test command installs ${name}`);
  return path;
}

describe("the official MCP Inspector's CLI, across three replicas behind nginx", () => {
  const children = [];
  let dir;
  let url;
  let ports;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "mcp-inspector-replicas-"));
    const redisPort = await freePort();
    const redis = spawn(system("redis-server", "/usr/bin"), [
      "--port", String(redisPort), "--save", "", "--appendonly", "no", "--bind", "127.0.0.1", "--dir", dir,
    ], { stdio: "ignore" });
    children.push(redis);
    await listening(redisPort, "redis-server", redis);
    ports = [await freePort(), await freePort(), await freePort()];
    for (const [index, port] of ports.entries()) {
      const replica = spawn(QUICKSTART, [
        "serve", "--http", `127.0.0.1:${port}`,
        "--session-store", `redis://127.0.0.1:${redisPort}`, "--session-namespace", "inspector",
      ], { stdio: "ignore" });
      children.push(replica);
      await listening(port, `replica ${index}`, replica);
    }
    const nginxPort = await freePort();
    const upstreams = ports.map((port) => `server 127.0.0.1:${port};`).join(" ");
    writeFileSync(join(dir, "nginx.conf"), `daemon off; worker_processes 1; pid nginx.pid;
      error_log error.log notice; events { worker_connections 64; }
      http {
        log_format upstreams '$request $status upstream="$upstream_addr"';
        access_log access.log upstreams;
        client_body_temp_path client_body_temp; proxy_temp_path proxy_temp;
        fastcgi_temp_path fastcgi_temp; uwsgi_temp_path uwsgi_temp; scgi_temp_path scgi_temp;
        upstream mcp { ${upstreams} keepalive 8; }
        server {
          listen 127.0.0.1:${nginxPort};
          location = /mcp {
            proxy_pass http://mcp; proxy_http_version 1.1; proxy_set_header Connection "";
            proxy_buffering off; proxy_read_timeout 120s;
          }
        }
      }`);
    const nginx = spawn(system("nginx", "/usr/sbin"), ["-p", dir, "-c", join(dir, "nginx.conf"), "-e", join(dir, "error.log")], { stdio: "ignore" });
    children.push(nginx);
    await listening(nginxPort, "nginx", nginx);
    url = `http://127.0.0.1:${nginxPort}/mcp`;
  });

  after(() => {
    for (const child of children) child.kill("SIGKILL");
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** `method` through the inspector over streamable HTTP, with `extra` arguments. */
  async function inspect(method, extra = []) {
    const command = ["cli.js", "--cli", url, "--transport", "http", "--method", method, ...extra];
    const { stdout } = await promisify(execFile)(process.execPath, command, { cwd: INSPECTOR, timeout: 60_000 });
    return JSON.parse(stdout);
  }

  test("lists and calls, each session's requests answered by whichever replica they reach", async () => {
    for (let round = 0; round < 4; round += 1) {
      const { tools } = await inspect("tools/list");
      assert.ok(tools.some((tool) => tool.name === "calculator.add"), JSON.stringify(tools));
      const result = await inspect("tools/call", ["--tool-name", "calculator.add", "--tool-arg", "a=2", "b=40"]);
      assert.equal(result.isError, false, JSON.stringify(result));
      assert.deepEqual(result.structuredContent, { sum: 42 });
    }
    // Round robin without affinity: every replica answered some of the sessions' requests.
    const log = readFileSync(join(dir, "access.log"), "utf8");
    for (const port of ports) {
      assert.ok(log.includes(`upstream="127.0.0.1:${port}"`), log);
    }
    // No request was refused for its session.
    assert.ok(!/ 404 upstream=/.test(log), log);
  });
});
