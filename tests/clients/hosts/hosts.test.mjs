// A real MCP host (Claude Code, Codex CLI or Gemini CLI, from npm at the versions
// package-lock.json pins) drives editd through a scripted session: the host is configured as the
// README's "Use it from an MCP host" says, its model is model_server.mjs on loopback, and the
// checks are on what lands on disk and on what the model receives back (error flags, candidate
// lines, paging facts, a page that arrives whole).
//
// Run: run.sh HOST PATH/TO/editd (it enters a network namespace with only loopback, then runs
// this file with the Node that package-lock.json pins); this file refuses to run anywhere a
// network interface other than loopback is up, so nothing can reach a vendor.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { sideText, startModelServer } from "./model_server.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const BIN = path.join(HERE, "node_modules", ".bin");
const HOST = process.argv[2];
const EDITD = path.resolve(process.argv[3] ?? "");
const RUN_TIMEOUT_MS = 60_000;
const FINAL = "All done: the scripted session is complete.";
const BIG_LINES = 2500;
const bigLine = (i) => `L${String(i).padStart(4, "0")} the big file's line ${i}`;

function fail(message) {
  console.error(`${HOST}: ${message}`);
  process.exit(1);
}

if (!["claude", "codex", "gemini"].includes(HOST)) fail("usage: hosts.test.mjs claude|codex|gemini EDITD");
if (!fs.existsSync(EDITD)) fail(`no editd binary at ${EDITD}`);
const outside = Object.entries(os.networkInterfaces()).filter(([name]) => name !== "lo");
if (outside.length) fail(`network interfaces besides loopback are up (${outside.map(([n]) => n)}): run through run.sh`);

// ---- The project the host works in, and a home of its own ----
const top = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `editd-host-${HOST}-`)));
const project = path.join(top, "project");
const home = path.join(top, "home");
const binDir = path.join(top, "bin");
for (const d of [project, home, binDir]) fs.mkdirSync(d, { recursive: true });
// `editd` on the PATH starts 2 s late: a host set up as the README says must wait for its MCP
// servers (a cold start on a busy machine), not send the first request before editd's tools are
// listed. Claude Code 2.1.332's print mode and Codex 0.169 do not wait by default.
fs.writeFileSync(path.join(binDir, "editd"),
  `#!/bin/sh\nsleep 2\nexec '${EDITD.replaceAll("'", "'\\''")}' "$@"\n`, { mode: 0o755 });
const big = Array.from({ length: BIG_LINES }, (_, i) => bigLine(i + 1) + "\n").join("");
const files = {
  "big.txt": big,
  "dup.txt": "value = 1\nother = 2\nvalue = 1\n",
  "crlf.txt": "\uFEFFfirst\r\n    second\r\nthird\r\n",
  "a.txt": "alpha\nbeta\n",
  "b.txt": "one\ntwo\n",
  "multi.txt": "red = 1\ngreen = 2\nblue = 3\n",
  "old-name.txt": "moved by the host\n",
};
for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(project, name), text);

// ---- The scripted session: one tool call per step, then a final text ----
// `args` are the tool's arguments (or a function of the results so far, for a call made from
// what an earlier one returned); `model` checks what the model received back; `disk` what the
// project holds after the run.
const patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n alpha\n-beta\n+BETA\n*** Update File: b.txt\n@@\n one\n-two\n+TWO\n*** End Patch\n";
const steps = [
  {
    what: "read_text of a 2,500-line file: the first page, whole, with its paging facts",
    tool: "read_text", args: { path: "big.txt" },
    model(r) {
      assert.notEqual(r.isError, true, "the read failed");
      const total = r.text.match(/"totalLines":\s*(\d+)|lines \d+-\d+ of (\d+)/);
      assert.ok(total, "the model was not told the total line count");
      assert.equal(Number(total[1] ?? total[2]), BIG_LINES, "total lines");
      const next = r.text.match(/"nextLine":\s*(\d+)|call read_text with line (\d+) to read on/);
      assert.ok(next, "the model was not told which line to read on from");
      const nextLine = Number(next[1] ?? next[2]);
      assert.ok(nextLine > 1 && nextLine <= BIG_LINES, `next line ${nextLine}`);
      // The page arrives whole: its first and last line, nothing past it, no host's cut.
      assert.ok(r.text.includes(bigLine(1)), "the page's first line did not reach the model");
      assert.ok(r.text.includes(bigLine(nextLine - 1)), `the page's last line (${nextLine - 1}) did not reach the model`);
      assert.ok(!r.text.includes(bigLine(nextLine)), "a line past the page reached the model");
      assert.doesNotMatch(r.text, /truncated|omitted|too large|saved to|\u2026/i, "the host cut the page");
      // Where the model sees the structured result, the paging facts come before the content.
      const content = r.text.indexOf('"content"');
      if (content >= 0) assert.ok(r.text.indexOf('"nextLine"') < content, "paging facts after the content");
    },
  },
  {
    what: "an ambiguous str_replace: an error, with both candidate lines",
    tool: "str_replace", args: { path: "dup.txt", oldText: "value = 1", newText: "value = 9" },
    model(r) {
      assert.notEqual(r.isError, false, "the ambiguous edit was not flagged as an error");
      assert.match(r.text, /ambiguous/);
      assert.match(r.text, /Candidate, line 1:/);
      assert.match(r.text, /Candidate, line 3:/);
    },
    disk: () => assert.equal(read("dup.txt"), files["dup.txt"], "the refused edit changed dup.txt"),
  },
  {
    what: "create, with the arguments the host adds to every tool",
    tool: "create", args: { path: "notes/new.txt", content: `made by ${HOST}\n` },
    gemini: { wait_for_previous: true },
    model(r) {
      assert.notEqual(r.isError, true, `create failed: ${r.text.slice(0, 300)}`);
      assert.match(r.text, /notes\/new\.txt/);
    },
    disk: () => assert.equal(read("notes/new.txt"), `made by ${HOST}\n`),
  },
  {
    what: "str_replace in a file with a BOM and CRLF line ends",
    tool: "str_replace", args: { path: "crlf.txt", oldText: "    second", newText: "    SECOND" },
    model: (r) => assert.notEqual(r.isError, true, `str_replace failed: ${r.text.slice(0, 300)}`),
    disk: () => assert.equal(read("crlf.txt"), "\uFEFFfirst\r\n    SECOND\r\nthird\r\n"),
  },
  {
    what: "apply_patch on two files",
    tool: "apply_patch", args: { patch },
    model: (r) => assert.notEqual(r.isError, true, `apply_patch failed: ${r.text.slice(0, 300)}`),
    disk() {
      assert.equal(read("a.txt"), "alpha\nBETA\n");
      assert.equal(read("b.txt"), "one\nTWO\n");
    },
  },
  {
    what: "search for a literal: each hit with its path, line and anchor",
    tool: "search", args: { pattern: "L1234 the big" },
    model(r) {
      assert.notEqual(r.isError, true, `search failed: ${r.text.slice(0, 300)}`);
      assert.match(r.text, /big\.txt/, "the hit's path did not reach the model");
      assert.match(r.text, /1234~[0-9A-Za-z]+/, "the hit's anchor did not reach the model");
      assert.ok(!r.text.includes(bigLine(1233)), "a line that does not match was shown as a hit");
    },
  },
  {
    what: "edit_lines at the anchor search gave",
    tool: "edit_lines",
    args: (received) => {
      const anchor = received.at(-1)?.text.match(/1234~[0-9A-Za-z]+/)?.[0] ?? "1234~missing";
      return { path: "big.txt", edits: [{ replace: { start: anchor }, newText: "L1234 edited through search" }] };
    },
    model: (r) => assert.notEqual(r.isError, true, `edit_lines failed: ${r.text.slice(0, 300)}`),
    disk() {
      const lines = read("big.txt").split("\n");
      assert.equal(lines[1233], "L1234 edited through search");
      assert.equal(lines[1232], bigLine(1233));
      assert.equal(lines.length, BIG_LINES + 1);
    },
  },
  {
    what: "str_replace with several edits: all land, in one call",
    tool: "str_replace",
    args: { path: "multi.txt", edits: [{ oldText: "red = 1", newText: "red = 10" }, { oldText: "blue = 3", newText: "blue = 30" }] },
    model: (r) => assert.notEqual(r.isError, true, `the multi-edit failed: ${r.text.slice(0, 300)}`),
    disk: () => assert.equal(read("multi.txt"), "red = 10\ngreen = 2\nblue = 30\n"),
  },
  {
    what: "str_replace with several edits, one of which matches nothing: none lands, the index is named",
    tool: "str_replace",
    args: { path: "multi.txt", edits: [{ oldText: "green = 2", newText: "green = 20" }, { oldText: "purple = 4", newText: "x" }] },
    model(r) {
      assert.notEqual(r.isError, false, "the failed multi-edit was not flagged as an error");
      assert.match(r.text, /edits\[1\]/);
    },
    disk: () => assert.equal(read("multi.txt"), "red = 10\ngreen = 2\nblue = 30\n"),
  },
  {
    what: "move a file into a new directory",
    tool: "move", args: { from: "old-name.txt", to: "moved/new-name.txt" },
    model: (r) => assert.notEqual(r.isError, true, `move failed: ${r.text.slice(0, 300)}`),
    disk() {
      assert.equal(read("moved/new-name.txt"), files["old-name.txt"]);
      assert.ok(!fs.existsSync(path.join(project, "old-name.txt")), "the moved file is still at its old name");
    },
  },
  {
    what: "write_text outside the root: refused",
    tool: "write_text", args: { path: "../outside.txt", content: "escaped\n" },
    model(r) {
      assert.notEqual(r.isError, false, "the refusal was not flagged as an error");
      assert.match(r.text, /Error \(/);
    },
    disk: () => assert.ok(!fs.existsSync(path.join(top, "outside.txt")), "a file was written outside the root"),
  },
];

function read(rel) {
  return fs.readFileSync(path.join(project, rel), "utf8");
}

// ---- The model's side: each main-conversation request carries the results so far ----
const session = { log: [], received: [], toolNames: null, sideRequests: 0 };
session.play = (api, body) => {
  const names = api.toolNames(body);
  const editdName = (tool) => names.find((n) => n === tool || (n.includes("editd") && n.endsWith(tool)));
  if (!editdName("read_text")) {
    // Claude Code defers MCP tools: it names them, and a model loads them with ToolSearch first.
    if (names.includes("ToolSearch") && JSON.stringify(body).includes("mcp__editd__read_text")) {
      const all = [...new Set(steps.map((s) => `mcp__editd__${s.tool}`))];
      return { step: "search", call: { name: "ToolSearch", args: { query: `select:${all.join(",")}` } } };
    }
    session.sideRequests += 1;
    return { text: sideText(api, body) };
  }
  session.toolNames = names;
  session.lastBody = body;
  const results = api.results(body).filter((r) => !String(r.id ?? "").endsWith("search"));
  results.forEach((r, i) => { session.received[i] = r; });
  const step = results.length;
  if (step >= steps.length) return { text: FINAL };
  const s = steps[step];
  const name = editdName(s.tool);
  if (!name) return { text: `no editd tool ${s.tool} among ${names.join(", ")}` };
  const args = typeof s.args === "function" ? s.args(session.received.slice(0, step)) : s.args;
  return { step, call: { name, args: { ...args, ...(s[HOST] ?? {}) } } };
};

const { server, port } = await startModelServer(session);
const base = `http://127.0.0.1:${port}`;

// ---- Each host, configured as the README says ----
const env = {
  PATH: `${binDir}:${BIN}:${process.env.PATH}`,
  HOME: home,
  TERM: "dumb",
  NO_COLOR: "1",
  LANG: "C.UTF-8",
};
const PROMPT = "Follow the scripted session.";

function run(command, args, extraEnv = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: project, env: { ...env, ...extraEnv },
      stdio: ["ignore", "pipe", "pipe"], detached: true });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => { stdout += d; });
    child.stderr.on("data", (d) => { stderr += d; });
    const timer = setTimeout(() => {
      stderr += `\n[killed after ${RUN_TIMEOUT_MS / 1000} s]`;
      try { process.kill(-child.pid, "SIGKILL"); } catch { /* gone */ }
    }, RUN_TIMEOUT_MS);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

const node = path.join(BIN, "node");
// Claude Code's native binary, from its platform package: the package's postinstall copies it
// over bin/claude.exe, and the tests install with --ignore-scripts (nothing but the registry).
const CLAUDE = path.join(HERE, "node_modules", "@anthropic-ai", "claude-code-linux-x64", "claude");
let result;
if (HOST === "claude") {
  const claudeEnv = {
    ANTHROPIC_BASE_URL: base,
    ANTHROPIC_API_KEY: "sk-ant-scripted",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_UPDATES: "1",
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
  };
  // README: `claude mcp add editd -- editd --root .` in the project.
  const add = await run(CLAUDE, ["mcp", "add", "editd", "--", "editd", "--root", "."], claudeEnv);
  if (add.code !== 0) fail(`claude mcp add failed (${add.code}):\n${add.stdout}\n${add.stderr}`);
  // README: `MCP_CONNECTION_NONBLOCKING=0 claude -p` with the server's tools allowed. Without the
  // variable, print mode sends its first request without waiting for MCP servers to connect.
  const readmeLine = "MCP_CONNECTION_NONBLOCKING=0 claude -p \"...\" --allowedTools mcp__editd";
  if (!fs.readFileSync(path.join(HERE, "..", "..", "..", "README.md"), "utf8").includes(readmeLine))
    fail(`the README no longer says: ${readmeLine}`);
  result = await run(CLAUDE, ["-p", PROMPT, "--allowedTools", "mcp__editd"],
    { ...claudeEnv, MCP_CONNECTION_NONBLOCKING: "0" });
} else if (HOST === "codex") {
  // The user's own ~/.codex/config.toml: the model provider (here the scripted one) and the
  // switches that keep Codex from reaching anything else.
  const codexHome = path.join(home, ".codex");
  fs.mkdirSync(codexHome, { recursive: true });
  fs.writeFileSync(path.join(codexHome, "config.toml"), [
    'model = "scripted-model"',
    'model_provider = "scripted"',
    "check_for_update_on_startup = false",
    "[model_providers.scripted]",
    'name = "scripted"',
    `base_url = "${base}/v1"`,
    'wire_api = "responses"',
    'env_key = "SCRIPTED_API_KEY"',
    "request_max_retries = 0",
    "stream_max_retries = 0",
    "[analytics]",
    "enabled = false",
    "[feedback]",
    "enabled = false",
    "[otel]",
    'exporter = "none"',
    "",
  ].join("\n"));
  // README: the project's .codex/config.toml, and `codex exec --trust`.
  fs.mkdirSync(path.join(project, ".codex"));
  fs.writeFileSync(path.join(project, ".codex", "config.toml"), readmeBlock("toml"));
  result = await run(node, [path.join(BIN, "codex"), "exec", "--trust", "--skip-git-repo-check", PROMPT],
    { SCRIPTED_API_KEY: "scripted", CODEX_HOME: codexHome });
} else {
  // The user's own ~/.gemini/settings.json: an API key's auth, telemetry and updates off.
  fs.mkdirSync(path.join(home, ".gemini"), { recursive: true });
  fs.writeFileSync(path.join(home, ".gemini", "settings.json"), JSON.stringify({
    security: { auth: { selectedType: "gemini-api-key" } },
    telemetry: { enabled: false },
    privacy: { usageStatisticsEnabled: false },
    general: { disableAutoUpdate: true, disableUpdateNag: true },
  }, null, 2));
  // README: the project's .gemini/settings.json, and a trusted workspace.
  fs.mkdirSync(path.join(project, ".gemini"));
  fs.writeFileSync(path.join(project, ".gemini", "settings.json"), readmeBlock("json"));
  result = await run(node, [path.join(BIN, "gemini"), "-p", PROMPT], {
    GEMINI_API_KEY: "scripted", GOOGLE_GEMINI_BASE_URL: base, GEMINI_CLI_TRUST_WORKSPACE: "true",
  });
}
server.close();

// The README's configuration block for this host, as a user copies it.
function readmeBlock(lang) {
  const readme = fs.readFileSync(path.join(HERE, "..", "..", "..", "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Use it from an MCP host"));
  const title = { toml: "Codex CLI", json: "Gemini CLI" }[lang];
  const at = section.indexOf(title);
  const block = section.slice(at).match(new RegExp("```" + lang + "\\n([\\s\\S]*?)```"));
  if (at < 0 || !block) fail(`no ${lang} block for ${title} in the README`);
  return block[1];
}

// ---- The checks ----
const report = () => [
  `exit ${result.code}${result.signal ? ` (${result.signal})` : ""}`,
  `stdout:\n${result.stdout.slice(-4000)}`, `stderr:\n${result.stderr.slice(-4000)}`,
  `requests: ${session.log.map((r) => `${r.method} ${r.url}`).join(", ")}`,
  `tools: ${session.toolNames}`,
  `received: ${JSON.stringify(session.received.map((r) => r && { isError: r.isError, text: r.text.slice(0, 400) }), null, 1)}`,
].join("\n");
if (process.env.EDITD_HOST_TEST_DEBUG) {
  fs.writeFileSync(path.join(top, "requests.json"), JSON.stringify(session.log, null, 1));
  console.error(`debug: ${top}`);
}
let failures = 0;
function check(what, fn) {
  try {
    fn();
    console.log(`ok: ${what}`);
  } catch (e) {
    failures += 1;
    console.log(`FAILED: ${what}: ${e.message}`);
  }
}
check("the host ran the whole session and exited 0", () => {
  assert.equal(result.code, 0, "exit status");
  assert.equal(session.received.length, steps.length, "tool results the model received");
  assert.ok(result.stdout.includes(FINAL), "the final answer was not printed");
});
steps.forEach((s, i) => {
  const r = session.received[i];
  check(`${s.what}: what the model received`, () => {
    assert.ok(r, "no result reached the model");
    s.model(r);
  });
  if (s.disk) check(`${s.what}: on disk`, s.disk);
});
if (HOST === "gemini")
  check("Gemini CLI adds wait_for_previous to editd's tools", () => {
    const decl = session.lastBody?.tools?.flatMap((t) => t.functionDeclarations ?? [])
      .find((f) => f.name.endsWith("read_text"));
    const schema = decl?.parametersJsonSchema ?? decl?.parameters;
    assert.ok(schema?.properties?.wait_for_previous, "read_text's schema has no wait_for_previous");
  });
if (failures) {
  console.log(report());
  process.exit(1);
}
fs.rmSync(top, { recursive: true, force: true });
console.log(`${HOST}: every check passed`);
