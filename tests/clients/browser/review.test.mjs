// The review page (`editd review`) in a real browser: Debian's headless Chromium, driven by
// puppeteer-core. Each test starts its own review server on a root and a state directory of its
// own, makes its changes through editd itself (JSON-RPC on stdio, so they are on the ledger as an
// agent's would be), and checks what the page shows and what lands on disk: edits appear live,
// revert takes back exactly one hunk's bytes, a conflict is shown and not forced, keep survives a
// restart, a screenshot holds a rendered diff, requests without the token, from another Host or
// another origin are refused, hostile names and contents render as text, --read-only has no
// buttons, and no page breaks its Content-Security-Policy.
//
// The DOM hooks and the API are those of the review page's contract (issue 55): [data-run],
// #run, [data-hunk="cN:K"] with data-state and data-kept, button[data-action=...],
// [data-conflict], /api/runs, /api/run, /api/revert, /api/keep, /api/info.
//
// Run: run.sh PATH/TO/editd (it enters a network namespace with only loopback, then runs this
// file with the Node that package-lock.json pins). Set EDITD_SCREENSHOT_DIR to keep the
// screenshots. This file refuses to run where a network interface other than loopback is up.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import puppeteer from "puppeteer-core";

const EDITD = path.resolve(process.argv[2] ?? process.env.EDITD_BINARY ?? "../../../build/editd");
const CHROMIUM = process.argv[3] ?? process.env.EDITD_CHROMIUM ?? "/usr/bin/chromium";
// Generous: the suite runs beside others (ctest -j), sometimes under ASan.
const WAIT_MS = 30_000;
const TEST_MS = 180_000;

function quit(message, code) {
  console.error(`browser test: ${message}`);
  process.exit(code);
}
function skip(message) {
  if (process.env.CI === "true") quit(`${message} (CI=true: failing)`, 1);
  quit(`SKIPPED: ${message}`, 77);
}

if (!fs.existsSync(EDITD)) quit(`no editd binary at ${EDITD}`, 1);
const outside = Object.entries(os.networkInterfaces()).filter(([name]) => name !== "lo");
if (outside.length) {
  quit(`network interfaces besides loopback are up (${outside.map(([n]) => n)}): run through run.sh`, 1);
}

// ---- Processes: every child a test starts is stopped when the test ends ----

const children = new Set();
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});

function track(child) {
  children.add(child);
  child.exited = new Promise((resolve) => {
    child.once("exit", (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    });
  });
  return child;
}

// What a test set up is taken down when it ends, last first (t.after runs its hooks first
// first): the page, then the servers, then their directories.
const stacks = new WeakMap();
function onEnd(t, fn) {
  if (!stacks.has(t)) {
    const stack = [];
    stacks.set(t, stack);
    t.after(async () => {
      while (stack.length) {
        try { await stack.pop()(); } catch (e) { console.error(`cleanup: ${e.stack ?? e}`); }
      }
    });
  }
  stacks.get(t).push(fn);
}

async function stop(child, signal = "SIGTERM") {
  if (child.exitCode !== null || child.signalCode !== null) return child.exited;
  child.kill(signal);
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  try {
    return await child.exited;
  } finally {
    clearTimeout(timer);
  }
}

// A root and a state directory (XDG_STATE_HOME: the ledger is the test's own), removed after.
function workspace(t, name) {
  const top = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `editd-browser-${name}-`)));
  const root = path.join(top, "root");
  const state = path.join(top, "state");
  fs.mkdirSync(root);
  fs.mkdirSync(state, { mode: 0o700 });
  onEnd(t, () => fs.rmSync(top, { recursive: true, force: true }));
  return { top, root, state, env: { ...process.env, XDG_STATE_HOME: state } };
}

// ---- editd on stdio: the agent's side ----

// Starts `editd --root ROOT` on stdio and sends `initialize`. `call(method, params)` resolves to
// the result and rejects with the error (its `data` attached).
async function agent(t, ws, clientName = "browser-test-agent", extra = []) {
  const child = track(spawn(EDITD, ["--root", ws.root, "--log-level", "warn", ...extra], {
    env: ws.env, stdio: ["pipe", "pipe", "pipe"],
  }));
  let stderr = "";
  child.stderr.on("data", (d) => { stderr += d; });
  const waiting = new Map();
  let next = 1;
  readline.createInterface({ input: child.stdout }).on("line", (line) => {
    const message = JSON.parse(line);
    const pending = waiting.get(message.id);
    if (!pending) return;
    waiting.delete(message.id);
    if (message.error) {
      pending.reject(Object.assign(new Error(`${pending.method}: ${message.error.message}`),
        { data: message.error.data }));
    } else {
      pending.resolve(message.result);
    }
  });
  child.exited.then(({ code, signal }) => {
    for (const pending of waiting.values()) {
      pending.reject(new Error(`editd exited (${code ?? signal}) before answering ${pending.method}: ${stderr}`));
    }
  });
  const call = (method, params) => new Promise((resolve, reject) => {
    const id = next++;
    waiting.set(id, { method, resolve, reject });
    child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
  });
  const close = async () => {
    child.stdin.end();
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await child.exited;
    clearTimeout(timer);
  };
  onEnd(t, close);
  await call("initialize", { protocolVersion: 1, clientInfo: { name: clientName, version: "1" } });
  return { call, close };
}

// ---- editd review ----

const PRINTED = /^editd review: (http:\/\/127\.0\.0\.1:(\d+)\/\?token=([0-9a-f]{64}))$/;

// Starts `editd review` on the workspace's root, port 0, and reads the one line it prints.
async function review(t, ws, extra = []) {
  const child = track(spawn(EDITD, ["review", "--root", ws.root, "--listen", "127.0.0.1:0", ...extra], {
    env: ws.env, stdio: ["ignore", "pipe", "pipe"],
  }));
  let stderr = "";
  child.stderr.on("data", (d) => { stderr += d; });
  const lines = [];
  const printed = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`editd review printed no URL in ${WAIT_MS} ms: ${stderr}`)), WAIT_MS);
    readline.createInterface({ input: child.stdout }).on("line", (line) => {
      lines.push(line);
      const m = PRINTED.exec(line);
      if (m) { clearTimeout(timer); resolve(m); }
    });
    child.exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`editd review exited (${code ?? signal}) before printing its URL: ${lines.join("\n")}\n${stderr}`));
    });
  });
  const server = {
    url: printed[1], port: Number(printed[2]), token: printed[3],
    origin: `http://127.0.0.1:${printed[2]}`,
    stderr: () => stderr,
    stop: () => stop(child),
  };
  onEnd(t, async () => {
    await server.stop();
    if (!t.passed && stderr) console.error(`editd review's log:\n${stderr}`);
  });
  return server;
}

// One HTTP request to the review server from node:http (so that Host, Origin and the token can
// be anything). Resolves to {status, headers, body, json}.
function request(server, { method = "GET", path: target, headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : (typeof body === "string" ? body : JSON.stringify(body));
    const req = http.request({
      host: "127.0.0.1", port: server.port, method, path: target,
      headers: { ...(data !== undefined ? { "Content-Length": Buffer.byteLength(data) } : {}), ...headers },
    }, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let json;
        try { json = JSON.parse(text); } catch { json = undefined; }
        resolve({ status: res.statusCode, headers: res.headers, body: text, json });
      });
      res.on("error", reject);
    });
    req.setTimeout(WAIT_MS, () => req.destroy(new Error(`${method} ${target}: no answer in ${WAIT_MS} ms`)));
    req.on("error", reject);
    if (data !== undefined) req.write(data);
    req.end();
  });
}

// A GET of the API with the token in its header, which must answer 200.
async function api(server, target) {
  const r = await request(server, { path: target, headers: { "X-Editd-Token": server.token } });
  assert.equal(r.status, 200, `GET ${target}: ${r.status} ${r.body}`);
  return r.json;
}

// The run (from /api/runs) that holds change `id` and is not an outside one.
async function runOf(server, id) {
  const n = Number(id.slice(1));
  const { runs } = await api(server, "/api/runs");
  const run = runs.find((r) => !r.outside && Number(r.first.slice(1)) <= n && n <= Number(r.last.slice(1)));
  assert.ok(run, `no run holds ${id}: ${JSON.stringify(runs)}`);
  return run;
}

// ---- The browser ----

let browser;
const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), "editd-browser-profile-"));

before(async () => {
  try {
    browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true, // --headless=new
      pipe: true, // DevTools over a pipe: no port
      userDataDir,
      args: [
        "--no-sandbox", // as root, and in a user namespace
        "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--metrics-recording-only", "--disable-default-apps",
        "--disable-dev-shm-usage", "--lang=en-US",
      ],
      timeout: WAIT_MS,
    });
  } catch (e) {
    skip(`Chromium (${CHROMIUM}) does not start here: ${e.message}`);
  }
});

after(async () => {
  await browser?.close();
  fs.rmSync(userDataDir, { recursive: true, force: true });
});

// A page of its own (a fresh browser context: no shared storage) at 1280x800 on `server`'s URL.
// It records console messages, uncaught errors, dialogs and Content-Security-Policy violations;
// when the test ends, no violation and no uncaught error may have happened.
async function open(t, server, { url = server.url, dark = false } = {}) {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  const seen = { console: [], errors: [], dialogs: [], csp: [] };
  page.on("console", (m) => seen.console.push(`${m.type()}: ${m.text()}`));
  page.on("pageerror", (e) => seen.errors.push(String(e?.message ?? e)));
  page.on("dialog", async (d) => {
    seen.dialogs.push(`${d.type()}: ${d.message()}`);
    // A confirm before a revert is a fair design: accept it; an alert is only recorded.
    await (d.type() === "confirm" ? d.accept() : d.dismiss());
  });
  await page.exposeFunction("__editdTestCsp", (v) => seen.csp.push(v));
  await page.evaluateOnNewDocument(() => {
    document.addEventListener("securitypolicyviolation", (e) => {
      window.__editdTestCsp(`${e.violatedDirective} blocked ${e.blockedURI} (${e.sourceFile}:${e.lineNumber})`);
    });
  });
  await page.setViewport({ width: 1280, height: 800 });
  if (dark) await page.emulateMediaFeatures([{ name: "prefers-color-scheme", value: "dark" }]);
  const check = () => {
    const refused = seen.console.filter((m) => /Content Security Policy|Refused to/i.test(m));
    assert.deepEqual([...seen.csp, ...refused], [], "Content-Security-Policy violations");
    assert.deepEqual(seen.errors, [], "uncaught errors in the page");
  };
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await context.close();
  };
  onEnd(t, async () => {
    await close();
    if (!t.passed && seen.console.length) console.error(`page console:\n  ${seen.console.join("\n  ")}`);
  });
  const response = await page.goto(url, { waitUntil: "load", timeout: WAIT_MS });
  assert.equal(response.status(), 200, `GET ${url}`);
  return { page, seen, check, close };
}

const hunk = (id) => `[data-hunk="${id}"]`;
const listed = (runId) => `[data-run="${runId}"]:not(#run)`;

// Shows the run that holds change `id` on the page (it may already be open: the newest opens by
// itself), and waits for that change's first hunk.
async function show(page, server, id) {
  const run = await runOf(server, id);
  const open = await page.$(`#run[data-run="${run.id}"]`);
  if (!open) {
    await page.waitForSelector(listed(run.id), { timeout: WAIT_MS });
    await page.click(listed(run.id));
  }
  await page.waitForSelector(`#run[data-run="${run.id}"] ${hunk(`${id}:1`)}`, { timeout: WAIT_MS });
  return run;
}

async function waitFor(what, predicate) {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const value = await predicate();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const numbered = (n, f) => Array.from({ length: n }, (_, i) => f(i + 1)).join("");

// ---- The tests ----

test("an agent's edits made through the RPC appear on the open page, without a reload", { timeout: TEST_MS }, async (t) => {
  const ws = workspace(t, "live");
  const editd = await agent(t, ws);
  const first = await editd.call("create", { path: "src/live.txt", content: "one\ntwo\nthree\n" });
  const server = await review(t, ws);
  const { page, check } = await open(t, server);
  await show(page, server, first.changeId);
  await page.evaluate(() => { window.__editdTestSamePage = true; });

  // The same agent edits again: its run, open on the page, grows.
  const second = await editd.call("str_replace", { path: "src/live.txt", oldText: "two", newText: "TWO" });
  await page.waitForSelector(hunk(`${second.changeId}:1`), { timeout: WAIT_MS });
  const text = await page.$eval(hunk(`${second.changeId}:1`), (e) => e.textContent);
  assert.match(text, /TWO/);

  // Another agent (another process: a run of its own) appears in the run list.
  const other = await agent(t, ws, "browser-test-other");
  const third = await other.call("write_text", { path: "other.txt", content: "from another agent\n" });
  const run = await runOf(server, third.changeId);
  await page.waitForSelector(listed(run.id), { timeout: WAIT_MS });
  await show(page, server, third.changeId);
  assert.match(await page.$eval(hunk(`${third.changeId}:1`), (e) => e.textContent), /from another agent/);

  assert.equal(await page.evaluate(() => window.__editdTestSamePage), true, "the page was reloaded");
  check();
});

test("a hunk the formatter changed (--format) is tagged as such", { timeout: TEST_MS }, async (t) => {
  const ws = workspace(t, "formatter");
  // sed as the formatter: it spaces every '=' of the text it is given.
  const editd = await agent(t, ws, "browser-test-agent", ["--format", "*.txt=sed -e 's/ *= */ = /g'"]);
  await editd.call("create", { path: "f.txt", content: "a = 1\nb = 2\n", format: false });
  const plain = await editd.call("str_replace", { path: "f.txt", oldText: "a = 1", newText: "a = 10", format: false });
  const formatted = await editd.call("str_replace", { path: "f.txt", oldText: "b = 2", newText: "b=20" });
  assert.equal(formatted.formatStatus, "ok");
  assert.equal(fs.readFileSync(path.join(ws.root, "f.txt"), "utf8"), "a = 10\nb = 20\n");
  const server = await review(t, ws);
  const { page, check } = await open(t, server);
  await show(page, server, formatted.changeId);
  await page.waitForSelector(`${hunk(`${formatted.changeId}:1`)} .badge-formatter`, { timeout: WAIT_MS });
  await page.waitForSelector(hunk(`${plain.changeId}:1`), { timeout: WAIT_MS });
  assert.equal(await page.$(`${hunk(`${plain.changeId}:1`)} .badge-formatter`), null,
    "a hunk the formatter did not touch is not tagged");
  check();
});

test("revert on one hunk of three changes exactly that hunk's bytes on disk", { timeout: TEST_MS }, async (t) => {
  const ws = workspace(t, "revert");
  const editd = await agent(t, ws);
  const line = (i) => `line ${String(i).padStart(2, "0")}\tof the file\n`;
  const changed = { 3: "line 03 CHANGED\n", 15: "\tline 15 changed, with a tab  \n", 27: "line 27 CHANGED\n" };
  const original = numbered(30, line);
  const edited = numbered(30, (i) => changed[i] ?? line(i));
  await editd.call("create", { path: "three.txt", content: original });
  const edit = await editd.call("write_text", { path: "three.txt", content: edited });
  const file = path.join(ws.root, "three.txt");
  assert.equal(fs.readFileSync(file, "utf8"), edited);

  const server = await review(t, ws);
  const { page, check } = await open(t, server);
  await show(page, server, edit.changeId);
  for (const k of [1, 2, 3]) await page.waitForSelector(hunk(`${edit.changeId}:${k}`), { timeout: WAIT_MS });
  const middle = hunk(`${edit.changeId}:2`);
  assert.match(await page.$eval(middle, (e) => e.textContent), /line 15 changed/);
  await page.click(`${middle} button[data-action="revert"]`);

  // Lines 3 and 27 stay as the edit left them; line 15 is back, byte for byte.
  const expected = Buffer.from(numbered(30, (i) => (i === 15 ? line(i) : changed[i] ?? line(i))));
  await waitFor("the middle hunk's revert on disk", () => !fs.readFileSync(file).equals(Buffer.from(edited)));
  assert.deepEqual(fs.readFileSync(file), expected);
  await page.waitForSelector(`${middle}[data-state="reverted"]`, { timeout: WAIT_MS });
  for (const k of [1, 3]) {
    assert.equal(await page.$eval(hunk(`${edit.changeId}:${k}`), (e) => e.dataset.state), "stands", `hunk ${k}`);
  }
  assert.deepEqual(fs.readFileSync(file), expected);
  check();
});

test("a hunk whose lines changed since is shown as a conflict, and nothing is forced", { timeout: TEST_MS }, async (t) => {
  const ws = workspace(t, "conflict");
  const editd = await agent(t, ws);
  await editd.call("create", { path: "conflict.txt", content: numbered(20, (i) => `row ${i}\n`) });
  const edit = await editd.call("str_replace", { path: "conflict.txt", oldText: "row 10\n", newText: "row ten, by the agent\n" });
  await editd.close();

  const server = await review(t, ws);
  const { page, check } = await open(t, server);
  await show(page, server, edit.changeId);
  const target = hunk(`${edit.changeId}:1`);

  // Someone else rewrites those lines on disk, behind editd's back.
  const file = path.join(ws.root, "conflict.txt");
  const byHand = Buffer.from(numbered(20, (i) => (i === 10 ? "row 10, rewritten by hand\n" : `row ${i}\n`)));
  fs.writeFileSync(file, byHand);

  await page.click(`${target} button[data-action="revert"]`);
  await page.waitForSelector(`${target} [data-conflict]`, { timeout: WAIT_MS });
  const shown = await page.$eval(`${target} [data-conflict]`, (e) => e.textContent);
  assert.match(shown, /row 10, rewritten by hand/, "the conflict shows the lines now there");
  assert.deepEqual(fs.readFileSync(file), byHand, "the revert was forced");
  assert.notEqual(await page.$eval(target, (e) => e.dataset.state), "reverted");
  check();
});

test("keep marks a hunk reviewed, and the mark survives a restart of the review server", { timeout: TEST_MS }, async (t) => {
  const ws = workspace(t, "keep");
  const editd = await agent(t, ws);
  const made = await editd.call("create", { path: "kept.txt", content: "keep me\n" });
  const id = `${made.changeId}:1`;

  const first = await review(t, ws);
  const one = await open(t, first);
  await show(one.page, first, made.changeId);
  assert.equal(await one.page.$eval(hunk(id), (e) => e.dataset.kept), "false");
  await one.page.click(`${hunk(id)} button[data-action="keep"]`);
  await one.page.waitForSelector(`${hunk(id)}[data-kept="true"]`, { timeout: WAIT_MS });
  const run = await runOf(first, made.changeId);
  const { entries } = await api(first, `/api/run?id=${run.id}`);
  const kept = entries.flatMap((e) => e.files.flatMap((f) => f.hunks)).find((h) => h.id === id);
  assert.equal(kept?.kept, true, "the API does not say kept");
  one.check();
  await one.close();
  await first.stop();

  const second = await review(t, ws);
  const two = await open(t, second);
  await show(two.page, second, made.changeId);
  assert.equal(await two.page.$eval(hunk(id), (e) => e.dataset.kept), "true", "keep was lost in the restart");
  assert.equal(fs.readFileSync(path.join(ws.root, "kept.txt"), "utf8"), "keep me\n");
  two.check();
});

// The width and height a PNG's IHDR says.
function pngSize(png) {
  assert.ok(png.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), "not a PNG");
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

test("a screenshot shows a rendered diff", { timeout: TEST_MS }, async (t) => {
  const ws = workspace(t, "screenshot");
  const editd = await agent(t, ws, "claude-code");
  const source = [
    "#include <stdio.h>", "", "static int add(int a, int b) {", "\treturn a + b;", "}", "",
    "int main(void) {", "\tprintf(\"%d\\n\", add(2, 3));", "\treturn 0;", "}", "",
  ].join("\n");
  await editd.call("create", { path: "src/main.c", content: source });
  const edit = await editd.call("str_replace", {
    path: "src/main.c",
    oldText: "\treturn a + b;",
    newText: "\t/* overflow is the caller's */\n\treturn a + b;  ",
  });
  await editd.call("write_text", { path: "README.txt", content: "a line\r\nanother line\r\n" });

  const server = await review(t, ws);
  const dirs = [ws.top, process.env.EDITD_SCREENSHOT_DIR].filter(Boolean);
  for (const dark of [false, true]) {
    const { page, check, close } = await open(t, server, { dark });
    await show(page, server, edit.changeId);
    const element = await page.$(hunk(`${edit.changeId}:1`));
    const box = await element.boundingBox();
    assert.ok(box && box.width > 0 && box.height > 0, `the diff has no size: ${JSON.stringify(box)}`);
    assert.match(await element.evaluate((e) => e.textContent), /overflow is the caller's/);
    const png = Buffer.from(await page.screenshot({ type: "png" }));
    assert.deepEqual(pngSize(png), { width: 1280, height: 800 });
    // A blank 1280x800 page is about 5 KB of PNG; a page of text and colours is many times that.
    assert.ok(png.length > 20_000, `the screenshot is ${png.length} bytes: nothing rendered?`);
    const detail = Buffer.from(await element.screenshot({ type: "png" }));
    assert.ok(detail.length > 2_000, `the diff's screenshot is ${detail.length} bytes`);
    for (const dir of dirs) {
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, `review${dark ? "-dark" : ""}.png`), png);
      fs.writeFileSync(path.join(dir, `review-hunk${dark ? "-dark" : ""}.png`), detail);
    }
    check();
    await close();
  }
});

test("requests without the token, with a wrong one, from another Host or another origin are refused", { timeout: TEST_MS }, async (t) => {
  const ws = workspace(t, "refused");
  const editd = await agent(t, ws);
  const made = await editd.call("create", { path: "guarded.txt", content: "stays as it is\n" });
  const file = path.join(ws.root, "guarded.txt");
  const bytes = fs.readFileSync(file);
  const server = await review(t, ws);
  const { token, port, origin } = server;
  const json = { "Content-Type": "application/json" };
  const revert = { changes: [made.changeId], hunks: [] };
  const keep = { changes: [made.changeId], hunks: [], kept: true };
  const wrong = "0".repeat(64) === token ? "1".repeat(64) : "0".repeat(64);

  const refused = [
    ["the page without a token", { path: "/" }],
    ["the API without a token", { path: "/api/runs" }],
    ["the live channel without a token", { path: "/api/events" }],
    ["an asset without a token", { path: "/assets/app.js" }],
    ["a wrong token in the query", { path: `/api/runs?token=${wrong}` }],
    ["a wrong token in the header", { path: "/api/runs", headers: { "X-Editd-Token": wrong } }],
    ["the token's first 63 characters", { path: `/api/runs?token=${token.slice(0, 63)}` }],
    ["the token with a character more", { path: `/api/runs?token=${token}0` }],
    ["the page from another Host", { path: `/?token=${token}`, headers: { Host: `evil.example:${port}` } }],
    ["the API from another Host", { path: "/api/runs", headers: { Host: `evil.example:${port}`, "X-Editd-Token": token } }],
    ["another Host on the loopback's port", { path: `/api/runs?token=${token}`, headers: { Host: `127.0.0.1.evil.example:${port}` } }],
    ["a POST with the token only in the query", {
      method: "POST", path: `/api/revert?token=${token}`, headers: { ...json, Origin: origin }, body: revert }],
    ["a POST without a token", { method: "POST", path: "/api/revert", headers: json, body: revert }],
    ["a POST with a wrong token", { method: "POST", path: "/api/revert", headers: { ...json, "X-Editd-Token": wrong }, body: revert }],
    ["a cross-origin POST of a revert", {
      method: "POST", path: "/api/revert", headers: { ...json, "X-Editd-Token": token, Origin: "http://evil.example" }, body: revert }],
    ["a cross-origin POST of a keep", {
      method: "POST", path: "/api/keep", headers: { ...json, "X-Editd-Token": token, Origin: "http://evil.example" }, body: keep }],
    ["a POST from an opaque origin", {
      method: "POST", path: "/api/revert", headers: { ...json, "X-Editd-Token": token, Origin: "null" }, body: revert }],
    ["a POST from another port of the loopback", {
      method: "POST", path: "/api/revert", headers: { ...json, "X-Editd-Token": token, Origin: `http://127.0.0.1:${port + 1}` }, body: revert }],
    ["a POST from another Host", {
      method: "POST", path: "/api/revert", headers: { ...json, "X-Editd-Token": token, Host: `evil.example:${port}` }, body: revert }],
  ];
  for (const [what, options] of refused) {
    const r = await request(server, options);
    assert.equal(r.status, 403, `${what}: ${r.status} ${r.body.slice(0, 200)}`);
    assert.ok(!r.body.includes(token), `${what}: the answer holds the token`);
  }
  // A form's POST (text/plain needs no preflight) is refused too, whatever the code.
  const form = await request(server, {
    method: "POST", path: "/api/revert", headers: { "X-Editd-Token": token, "Content-Type": "text/plain" },
    body: JSON.stringify(revert) });
  assert.ok(form.status >= 400 && form.status < 500, `a text/plain POST: ${form.status} ${form.body.slice(0, 200)}`);
  // GET changes nothing, and other methods are not allowed.
  const getRevert = await request(server, { path: `/api/revert?token=${token}&changes=${made.changeId}` });
  assert.ok(getRevert.status >= 400, `GET /api/revert: ${getRevert.status}`);
  const put = await request(server, { method: "PUT", path: "/api/revert", headers: { ...json, "X-Editd-Token": token }, body: revert });
  assert.ok(put.status === 405 || put.status === 403, `PUT /api/revert: ${put.status}`);

  assert.deepEqual(fs.readFileSync(file), bytes, "a refused request changed the file");
  const { runs } = await api(server, "/api/runs");
  assert.equal(runs.length, 1, `a refused request made a change: ${JSON.stringify(runs)}`);
  assert.equal(runs[0].kept, 0, "a refused keep was kept");
  assert.equal(runs[0].reverted, 0, "a refused revert reverted");

  // What is allowed: the token in the query or the header, on every Host name of the loopback.
  for (const [what, options] of [
    ["the token in the query", { path: `/api/runs?token=${token}` }],
    ["the token in the header", { path: "/api/runs", headers: { "X-Editd-Token": token } }],
    ["Host localhost", { path: `/api/runs?token=${token}`, headers: { Host: `localhost:${port}` } }],
    ["Host [::1]", { path: `/api/runs?token=${token}`, headers: { Host: `[::1]:${port}` } }],
  ]) {
    const r = await request(server, options);
    assert.equal(r.status, 200, `${what}: ${r.status} ${r.body.slice(0, 200)}`);
    assert.ok(Array.isArray(r.json?.runs), `${what}: ${r.body.slice(0, 200)}`);
  }
  const page = await request(server, { path: `/?token=${token}` });
  assert.equal(page.status, 200);
  assert.match(page.headers["content-type"], /^text\/html/);
  assert.match(page.headers["content-security-policy"] ?? "", /default-src 'none'/);
  assert.match(page.headers["content-security-policy"] ?? "", /script-src 'self'/);
  assert.doesNotMatch(page.headers["content-security-policy"] ?? "", /unsafe-inline|unsafe-eval/);
  assert.equal(page.headers["x-content-type-options"], "nosniff");
  assert.equal(page.headers["x-frame-options"], "DENY");
  assert.equal(page.headers["referrer-policy"], "no-referrer");

  // The same keep, sent as the page sends it, is accepted: the refusals above were for their
  // token, Host or origin alone.
  const ok = await request(server, {
    method: "POST", path: "/api/keep", headers: { ...json, "X-Editd-Token": token, Origin: origin }, body: keep });
  assert.equal(ok.status, 200, `the page's own keep: ${ok.status} ${ok.body}`);
  const afterKeep = await api(server, "/api/runs");
  assert.equal(afterKeep.runs[0].kept, 1);
  assert.deepEqual(fs.readFileSync(file), bytes);
});

test("a hostile file name and content render as text", { timeout: TEST_MS }, async (t) => {
  const ws = workspace(t, "hostile");
  const editd = await agent(t, ws, "<img src=x onerror=window.pwned=4>");
  let name = 'a"b<img src=x onerror=alert(1)>.txt';
  try {
    fs.writeFileSync(path.join(ws.top, name), "");
  } catch {
    name = 'a"b<c>.txt'; // a file system that refuses the first: quotes and < still
  }
  const content = [
    "<script>window.pwned=1</script>",
    "<img src=x onerror=\"window.pwned=2\">",
    "\"><svg onload=window.pwned=3>",
    "{{TOKEN}} &amp; &lt;b&gt;",
    "",
  ].join("\n");
  const made = await editd.call("create", { path: name, content });
  assert.equal(fs.readFileSync(path.join(ws.root, name), "utf8"), content);

  const server = await review(t, ws);
  const { page, seen, check } = await open(t, server);
  await show(page, server, made.changeId);
  const found = await page.evaluate((n) => ({
    text: document.body.textContent,
    pwned: typeof window.pwned,
    imgs: [...document.querySelectorAll("img")].filter((i) => i.hasAttribute("onerror") || i.getAttribute("src") === "x").length,
    svgs: [...document.querySelectorAll("svg[onload]")].length,
    scripts: [...document.querySelectorAll("script")].filter((s) => s.textContent.includes("pwned")).length,
    section: [...document.querySelectorAll("[data-file]")].some((e) => e.getAttribute("data-file") === n),
  }), name);
  assert.ok(found.text.includes(name), `the name is not shown as text: ${name}`);
  for (const l of content.split("\n").filter(Boolean)) assert.ok(found.text.includes(l), `not shown as text: ${l}`);
  assert.equal(found.pwned, "undefined", "a script from the file ran");
  assert.equal(found.imgs, 0, "an img element was made from the file");
  assert.equal(found.svgs, 0, "an svg element was made from the file");
  assert.equal(found.scripts, 0, "a script element was made from the file");
  assert.ok(found.section, "no [data-file] section carries the name as it is");
  assert.deepEqual(seen.dialogs, [], "a dialog opened");
  check();
});

test("--read-only shows the page without buttons, and refuses every POST", { timeout: TEST_MS }, async (t) => {
  const ws = workspace(t, "readonly");
  const editd = await agent(t, ws);
  await editd.call("create", { path: "ro.txt", content: "one\ntwo\n" });
  const made = await editd.call("str_replace", { path: "ro.txt", oldText: "two", newText: "TWO" });
  const file = path.join(ws.root, "ro.txt");
  const bytes = fs.readFileSync(file);

  const server = await review(t, ws, ["--read-only"]);
  assert.equal((await api(server, "/api/info")).readOnly, true);
  const { page, check } = await open(t, server);
  await show(page, server, made.changeId);
  const buttons = await page.$$eval(
    "button[data-action^=revert], button[data-action^=keep]", (b) => b.map((e) => e.dataset.action));
  assert.deepEqual(buttons, [], "read-only, yet the page has revert or keep buttons");
  await page.keyboard.press("j");
  await page.keyboard.press("r");
  await page.keyboard.press("a");

  const headers = { "Content-Type": "application/json", "X-Editd-Token": server.token, Origin: server.origin };
  for (const [target, body] of [
    ["/api/revert", { changes: [made.changeId], hunks: [] }],
    ["/api/keep", { changes: [made.changeId], hunks: [], kept: true }],
  ]) {
    const r = await request(server, { method: "POST", path: target, headers, body });
    assert.equal(r.status, 403, `POST ${target}: ${r.status} ${r.body}`);
  }
  assert.deepEqual(fs.readFileSync(file), bytes, "read-only, yet the file changed");
  const run = await runOf(server, made.changeId);
  assert.equal(run.kept, 0);
  assert.equal(run.reverted, 0);
  check();
});
