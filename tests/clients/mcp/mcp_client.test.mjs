// Real MCP clients driving editd: the official TypeScript SDK's 1.x client
// (@modelcontextprotocol/sdk) and 2.x client (@modelcontextprotocol/client) in
// its automatic version-negotiation mode, which probes with server/discover
// first and must fall back to initialize. Each runs over stdio (the SDK's own
// transport spawning editd) and over a Unix socket (editd --listen unix:...).
// (The MCP Inspector's CLI has its own test: inspector_cli.test.mjs.)
// The 1.x client validates structuredContent against each listed tool's
// outputSchema, so every call here also checks the schemas against real results.
// Over stdio editd lists the tools meant for models (the default); over the
// socket it runs with --mcp-tools all and lists the provider-native ones too.
//
// Run: node mcp_client.test.mjs PATH/TO/editd   (after npm ci in this folder)
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { Client as Client1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as Stdio1 } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Client as Client2 } from "@modelcontextprotocol/client";
import { StdioClientTransport as Stdio2 } from "@modelcontextprotocol/client/stdio";

const EDITD = path.resolve(process.argv[2] ?? process.env.EDITD_BINARY ?? "../../../build/editd");
const MODEL_TOOLS = ["apply_patch", "changes", "copy", "create", "delete", "edit_lines", "fingerprint",
  "insert", "list", "move", "read_text", "revert", "search", "set_format", "str_replace", "undo",
  "write_text"];
const ALL_TOOLS = [...MODEL_TOOLS, "anthropic_text_editor", "openai_apply_patch"].sort();

function tempRoot() {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "editd-mcp-")));
}

// Newline-delimited JSON-RPC over a Unix socket, as an MCP transport.
class UnixSocketTransport {
  constructor(socketPath) {
    this.socketPath = socketPath;
  }
  async start() {
    if (this.socket) return;
    this.socket = net.connect(this.socketPath);
    await once(this.socket, "connect");
    this.socket.setEncoding("utf8");
    let buf = "";
    this.socket.on("data", (chunk) => {
      buf += chunk;
      for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.trim()) this.onmessage?.(JSON.parse(line));
      }
    });
    this.socket.on("close", () => this.onclose?.());
    this.socket.on("error", (e) => this.onerror?.(e));
  }
  async send(message) {
    this.socket.write(JSON.stringify(message) + "\n");
  }
  async close() {
    this.socket?.end();
  }
}

const clients = {
  "1.x": (name) => new Client1({ name, version: "0" }),
  "2.x auto": (name) => new Client2({ name, version: "0" }, { versionNegotiation: { mode: "auto" } }),
};
const stdioTransports = { "1.x": Stdio1, "2.x auto": Stdio2 };

// The same session for every client and transport.
// `listed`: the tool names tools/list should answer. The provider-native
// tools are called whether listed or not.
async function exercise(client, root, listed) {
  assert.equal(client.getServerVersion().name, "editd");
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), listed);
  for (const t of tools) {
    assert.equal(t.inputSchema.type, "object");
    assert.equal(t.inputSchema.additionalProperties, false);
    assert.equal(t.annotations.openWorldHint, false);
  }

  const w = await client.callTool({ name: "write_text", arguments: { path: "src/app.py", content: "a = 1\nb = 2\n" } });
  assert.equal(w.isError, false);

  // Provider-native tools: when listed, the SDK checks structuredContent against their output schemas.
  const v = await client.callTool({ name: "anthropic_text_editor", arguments: { command: "view", path: "src/app.py" } });
  assert.equal(v.isError, false);
  assert.equal(v.content[0].text, "1: a = 1\n2: b = 2");
  assert.equal(v.structuredContent.type, "tool_result");
  const nf = await client.callTool({
    name: "anthropic_text_editor",
    arguments: { command: "str_replace", path: "src/app.py", old_str: "zzz", new_str: "y" },
  });
  assert.equal(nf.isError, true);
  assert.match(nf.content[0].text, /^Error: No match found for replacement\. Please check your text and try again\./);
  const op = await client.callTool({
    name: "openai_apply_patch",
    arguments: { call_id: "c1", operation: { type: "update_file", path: "src/app.py", diff: "@@\n-zzz\n+y\n" } },
  });
  assert.equal(op.isError, true);
  assert.equal(op.structuredContent.status, "failed");
  assert.equal(w.structuredContent.created, true);
  assert.match(w.content[0].text, /^src\/app\.py: created, \+2 -0 lines, fingerprint xxh3:/);
  assert.equal(fs.readFileSync(path.join(root, "src/app.py"), "utf8"), "a = 1\nb = 2\n");

  const r = await client.callTool({ name: "read_text", arguments: { path: "src/app.py" } });
  assert.equal(r.structuredContent.content, "a = 1\nb = 2\n");
  assert.equal(r.content[0].text.split("\n")[0], `src/app.py: lines 1-2 of 2, fingerprint ${r.structuredContent.fingerprint} (the whole file)`);

  const s = await client.callTool({
    name: "str_replace",
    arguments: { path: "src/app.py", oldText: "b = 2", newText: "b = 3", expectedFingerprint: r.structuredContent.fingerprint },
  });
  assert.equal(s.structuredContent.replacements, 1);
  const i = await client.callTool({ name: "insert", arguments: { path: "src/app.py", line: 0, text: "# top\n" } });
  assert.deepEqual(i.structuredContent.lines, [{ startLine: 1, endLine: 1 }]);
  const c = await client.callTool({ name: "create", arguments: { path: "new.txt", content: "n\n" } });
  assert.equal(c.structuredContent.created, true);
  const p = await client.callTool({
    name: "apply_patch",
    arguments: { patch: "*** Begin Patch\n*** Delete File: new.txt\n*** End Patch\n" },
  });
  assert.equal(p.structuredContent.files[0].action, "delete");
  const f = await client.callTool({ name: "fingerprint", arguments: { path: "src/app.py" } });
  assert.equal(f.structuredContent.size, "# top\na = 1\nb = 3\n".length);

  // Failures are results with isError and the hints in the text.
  const miss = await client.callTool({ name: "str_replace", arguments: { path: "src/app.py", oldText: "b = 4", newText: "x" } });
  assert.equal(miss.isError, true);
  assert.match(miss.content[0].text, /^Error \(no_match\): /);
  assert.match(miss.content[0].text, /Closest region, line 3 \(similarity [0-9.]+\):\nb = 3\n/);
  const bad = await client.callTool({ name: "insert", arguments: { path: "src/app.py", text: "x" } });
  assert.equal(bad.isError, true);
  assert.match(bad.content[0].text, /^Error \(invalid_params\): invalid param 'line'/);
  assert.equal(fs.readFileSync(path.join(root, "src/app.py"), "utf8"), "# top\na = 1\nb = 3\n");

  // An unknown tool is a JSON-RPC error (-32602), not a result.
  await assert.rejects(client.callTool({ name: "frobnicate", arguments: {} }), (e) => e.code === -32602);
  await client.ping();
}

for (const [version, makeClient] of Object.entries(clients)) {
  test(`the ${version} SDK client over stdio`, async () => {
    const root = tempRoot();
    const client = makeClient("editd-mcp-stdio-test");
    const transport = new stdioTransports[version]({ command: EDITD, args: ["--root", root, "--log-level", "warn"] });
    await client.connect(transport);
    try {
      await exercise(client, root, MODEL_TOOLS);
    } finally {
      await client.close();
    }
  });

  test(`the ${version} SDK client over a Unix socket`, async () => {
    const root = tempRoot();
    const run = fs.mkdtempSync(path.join(os.tmpdir(), "editd-mcp-run-"));
    const socketPath = path.join(run, "editd.sock");
    // The debug log names every request, so it shows whether the client probed.
    const server = spawn(EDITD, ["--root", root, "--listen", `unix:${socketPath}`, "--log-level", "debug",
      "--mcp-tools", "all"], {
      stdio: ["pipe", "ignore", "pipe"],
    });
    let log = "";
    server.stderr.on("data", (chunk) => (log += chunk));
    const exited = once(server, "exit");
    try {
      for (let i = 0; i < 2000 && !fs.existsSync(socketPath); i++) await new Promise((r) => setTimeout(r, 5));
      const client = makeClient("editd-mcp-socket-test");
      await client.connect(new UnixSocketTransport(socketPath));
      try {
        await exercise(client, root, ALL_TOOLS);
      } finally {
        await client.close();
      }
    } finally {
      server.kill("SIGTERM");
      const [code] = await exited;
      assert.equal(code, 0);
    }
    // 2.x in auto mode probed with server/discover, got method-not-found and fell back.
    assert.equal(/server\/discover id=\S+ method_not_found/.test(log), version === "2.x auto", log);
    assert.match(log, /initialize id=\S+ ok/);
  });
}
