// The MCP Inspector's CLI (npx @modelcontextprotocol/inspector --cli) driving
// editd over stdio, as a user checking a server by hand would: list the tools,
// call one that succeeds and one that fails. The Inspector is its own client
// (it validates the tool list and each call's arguments against the
// inputSchema before sending), so this checks editd against a second consumer
// of the schemas besides the SDK clients in mcp_client.test.mjs.
//
// The Inspector is pinned to 0.15.0, the last release that runs on Node 18
// (Debian 12's nodejs, which make deps installs): from 0.16 on it asks for
// Node 22 (2.x: 22.19), and 2.x fails on Node 18 ("CustomEvent is not
// defined"). Its CLI exits 0 on a tool result with isError, which later
// releases do not: the test reads isError from the output, not the exit code.
//
// Run: node inspector_cli.test.mjs PATH/TO/editd   (after npm ci in this folder)
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const INSPECTOR = path.join(HERE, "node_modules", ".bin", "mcp-inspector");
const EDITD = path.resolve(process.argv[2] ?? process.env.EDITD_BINARY ?? "../../../build/editd");
// The tools meant for models: what tools/list lists by default.
const TOOLS = ["apply_patch", "changes", "copy", "create", "delete", "edit_lines", "fingerprint",
  "insert", "list", "move", "read_text", "revert", "search", "set_format", "str_replace", "undo",
  "write_text"];

const scratch = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "editd-inspector-")));
const root = path.join(scratch, "root");
fs.mkdirSync(root);

// Runs the Inspector's CLI against `editd --root root`; its exit code and
// stdout parsed as JSON. The Inspector keeps a catalog of servers: it goes to
// the scratch folder, never to the user's home.
function inspect(args) {
  return new Promise((resolve, reject) => {
    execFile(INSPECTOR, ["--cli", EDITD, "--root", root, ...args],
      { env: { ...process.env, MCP_CATALOG_PATH: path.join(scratch, "mcp.json") }, timeout: 60_000 },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== "number") return reject(error);
        let output;
        try {
          output = JSON.parse(stdout);
        } catch {
          return reject(new Error(`the Inspector's output is not JSON (exit ${error?.code ?? 0}):\n` +
            `${stdout}\n${stderr}`));
        }
        resolve({ code: error ? error.code : 0, output });
      });
  });
}

test("the Inspector lists every tool with a flat, closed input schema and annotations", async () => {
  const { code, output } = await inspect(["--method", "tools/list"]);
  assert.equal(code, 0);
  assert.deepEqual(output.tools.map((t) => t.name).sort(), TOOLS);
  for (const tool of output.tools) {
    assert.equal(tool.inputSchema.type, "object", tool.name);
    assert.equal(tool.inputSchema.additionalProperties, false, tool.name);
    for (const banned of ["anyOf", "oneOf", "$ref", "$defs", "$schema"])
      assert.ok(!JSON.stringify(tool.inputSchema).includes(`"${banned}"`), `${tool.name}: ${banned}`);
    assert.equal(tool.outputSchema?.type, "object", tool.name);
    assert.equal(typeof tool.annotations?.readOnlyHint, "boolean", tool.name);
    assert.equal(tool.annotations.openWorldHint, false, tool.name);
    assert.ok(tool.description.length > 40, tool.name);
  }
  const read = output.tools.find((t) => t.name === "read_text");
  assert.equal(read.annotations.readOnlyHint, true);
  assert.deepEqual(read.inputSchema.required, ["path"]);
});

test("the Inspector calls read_text and str_replace; the edit is on disk", async () => {
  fs.writeFileSync(path.join(root, "notes.txt"), "alpha\r\nbeta\r\n");
  const read = await inspect(["--method", "tools/call", "--tool-name", "read_text",
    "--tool-arg", "path=notes.txt"]);
  assert.equal(read.code, 0);
  assert.equal(read.output.isError, false);
  assert.equal(read.output.structuredContent.content, "alpha\r\nbeta\r\n");
  assert.match(read.output.content[0].text, /^notes\.txt: lines 1-2 of 2, fingerprint xxh3:/);

  const edit = await inspect(["--method", "tools/call", "--tool-name", "str_replace",
    "--tool-arg", "path=notes.txt", "oldText=beta", "newText=gamma",
    `expectedFingerprint=${read.output.structuredContent.fingerprint}`]);
  assert.equal(edit.code, 0);
  assert.equal(edit.output.isError, false);
  assert.equal(edit.output.structuredContent.replacements, 1);
  assert.match(edit.output.content[0].text, /\+gamma/);
  assert.equal(fs.readFileSync(path.join(root, "notes.txt"), "utf8"), "alpha\r\ngamma\r\n");
});

test("a failed edit reaches the Inspector as isError with the kind and the closest region", async () => {
  fs.writeFileSync(path.join(root, "code.py"), "def total(xs):\n    return sum(xs)\n");
  const { output } = await inspect(["--method", "tools/call", "--tool-name", "str_replace",
    "--tool-arg", "path=code.py", "oldText=def totl(xs):", "newText=def total(items):"]);
  assert.equal(output.isError, true);
  const text = output.content.map((c) => c.text).join("\n");
  assert.match(text, /no_match/);
  assert.match(text, /line 1/);
  assert.match(text, /def total\(xs\):/);
  assert.equal(fs.readFileSync(path.join(root, "code.py"), "utf8"), "def total(xs):\n    return sum(xs)\n");
});

test.after(() => fs.rmSync(scratch, { recursive: true, force: true }));
