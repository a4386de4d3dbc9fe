// A real ACP client, built on the official TypeScript SDK, driving editd.
//
// It spawns editd, advertises fs.readTextFile and fs.writeTextFile, serves
// fs/* from an in-memory map that is not on disk, and checks that every edit
// changes the map and never the disk; that permission requests and
// session/update notifications arrive in the shapes the SDK accepts; and that
// a client timeout and a client error give editd's documented errors.
//
// Run: node acp_client.test.mjs PATH/TO/editd   (after npm ci in this folder)
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const EDITD = path.resolve(process.argv[2] ?? process.env.EDITD_BINARY ?? "../../../build/editd");

// The editor side: buffers in memory, plus what editd sent.
class Editor {
  constructor(root) {
    this.root = root;
    this.files = new Map(); // absolute path -> text
    this.fsRequests = [];
    this.permissions = [];
    this.updates = [];
    this.failing = new Set(); // paths answered with a client error
    this.slow = new Set(); // paths answered after editd gave up
    this.decide = () => ({ outcome: "selected", optionId: "allow_once" });
  }
  abs(rel) {
    return path.join(this.root, rel);
  }
  async read(params) {
    this.fsRequests.push({ method: "fs/read_text_file", params });
    await this.misbehave(params.path);
    if (!this.files.has(params.path)) throw acp.RequestError.resourceNotFound(params.path);
    return { content: this.files.get(params.path) };
  }
  async write(params) {
    this.fsRequests.push({ method: "fs/write_text_file", params });
    await this.misbehave(params.path);
    this.files.set(params.path, params.content);
    return {};
  }
  async misbehave(p) {
    if (this.slow.has(p)) await new Promise((resolve) => setTimeout(resolve, 1500));
    if (this.failing.has(p)) throw new acp.RequestError(-32603, "buffer is read-only", { buffer: 7 });
  }
  permission(params) {
    this.permissions.push(params);
    return { outcome: this.decide(params) };
  }
}

// Runs `body(agent, editor, root)` against a fresh editd whose root is an empty
// temporary directory; afterwards the directory must still be empty.
async function withEditd(args, body, { capabilities } = {}) {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "editd-acp-")));
  const child = spawn(EDITD, ["--root", root, "--log-level", "warn", ...args], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const exited = once(child, "exit");
  const editor = new Editor(root);
  const app = acp
    .client({ name: "editd-acp-test" })
    .onRequest(acp.methods.client.fs.readTextFile, (c) => editor.read(c.params))
    .onRequest(acp.methods.client.fs.writeTextFile, (c) => editor.write(c.params))
    .onRequest(acp.methods.client.session.requestPermission, (c) => editor.permission(c.params))
    .onNotification(acp.methods.client.session.update, (c) => {
      editor.updates.push(c.params);
    });
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  try {
    await app.connectWith(stream, async (agent) => {
      const init = await agent.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: capabilities ?? { fs: { readTextFile: true, writeTextFile: true } },
        clientInfo: { name: "editd-acp-test", version: "1" },
      });
      await body(agent, editor, root, init);
    });
    assert.deepEqual(fs.readdirSync(root), [], "nothing may be written to the local disk");
  } finally {
    child.stdin.end();
    const [code] = await exited;
    fs.rmSync(root, { recursive: true, force: true });
    assert.equal(code, 0, "editd exits 0 when the client closes");
  }
}

// Edit methods are ACP extension methods: "_edit/<name>".
const edit = (agent, name, params) => agent.request(`_edit/${name}`, params);

// Waits (up to 10 s) until `cond()` holds.
async function until(cond) {
  for (let i = 0; i < 1000 && !cond(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
}

async function rejects(promise, kind) {
  try {
    await promise;
  } catch (e) {
    assert.equal(e.data?.kind, kind, `expected ${kind}, got ${JSON.stringify(e.data)}: ${e.message}`);
    return e;
  }
  assert.fail(`expected the error ${kind}`);
}

test("every edit lands in the client's buffers, never on disk", async () => {
  await withEditd([], async (agent, ed, root, init) => {
    assert.equal(init.agentCapabilities._meta.editd.backend, "delegated");
    const { sessionId } = await agent.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
    const a = ed.abs("src/a.txt");

    const w = await edit(agent, "write_text", { path: "src/a.txt", content: "one\r\ntwo\r\n" });
    assert.equal(w.created, true);
    assert.equal(ed.files.get(a), "one\r\ntwo\r\n");

    const r = await edit(agent, "read_text", { path: "src/a.txt" });
    assert.equal(r.content, "one\r\ntwo\r\n");
    assert.equal(r.fingerprint, w.fingerprint);

    ed.files.set(a, "one\r\nTWO\r\n"); // an unsaved change in the editor
    await edit(agent, "str_replace", { path: "src/a.txt", oldText: "TWO", newText: "2" });
    assert.equal(ed.files.get(a), "one\r\n2\r\n");
    await edit(agent, "insert", { path: "src/a.txt", line: 2, text: "three" });
    assert.equal(ed.files.get(a), "one\r\n2\r\nthree\r\n");

    await edit(agent, "create", { path: "docs/new.md", content: "# New\n" });
    assert.equal(ed.files.get(ed.abs("docs/new.md")), "# New\n");
    await rejects(edit(agent, "create", { path: "docs/new.md", content: "again" }), "exists");
    await rejects(edit(agent, "read_text", { path: "missing.txt" }), "not_found");
    await rejects(
      edit(agent, "write_text", { path: "src/a.txt", content: "x", expectedFingerprint: w.fingerprint }),
      "conflict",
    );

    assert.ok(init.agentCapabilities._meta.editd.methods.includes("apply_patch"));
    const patched = await edit(agent, "apply_patch", {
      patch:
        "*** Begin Patch\n*** Update File: src/a.txt\n@@\n one\n-2\n+two\n" +
        "*** Add File: src/b.txt\n+bee\n*** End Patch\n",
    });
    assert.deepEqual(
      patched.files.map((f) => [f.path, f.action]),
      [["src/a.txt", "update"], ["src/b.txt", "add"]],
    );
    assert.equal(ed.files.get(a), "one\r\ntwo\r\nthree\r\n");
    assert.equal(ed.files.get(ed.abs("src/b.txt")), "bee\n");

    // ACP has no delete: a patch that deletes is refused before anything is written.
    const writes = ed.fsRequests.filter((q) => q.method === "fs/write_text_file").length;
    const refused = await rejects(
      edit(agent, "apply_patch", {
        patch: "*** Begin Patch\n*** Update File: src/b.txt\n@@\n-bee\n+BEE\n*** Delete File: src/a.txt\n*** End Patch\n",
      }),
      "denied",
    );
    assert.equal(refused.data.reason, "unsupported");
    assert.equal(ed.files.get(ed.abs("src/b.txt")), "bee\n");
    assert.equal(ed.fsRequests.filter((q) => q.method === "fs/write_text_file").length, writes);

    for (const req of ed.fsRequests) {
      assert.equal(req.params.sessionId, sessionId);
      assert.ok(path.isAbsolute(req.params.path));
      assert.equal(req.params.line, undefined, "whole-file reads send no line");
      assert.equal(req.params.limit, undefined, "whole-file reads send no limit");
    }
  });
});

test("a client without both fs capabilities gets the local backend", async () => {
  await withEditd(
    [],
    async (_agent, _ed, _root, init) => {
      assert.equal(init.agentCapabilities._meta.editd.backend, "local");
    },
    { capabilities: { fs: { readTextFile: true, writeTextFile: false } } },
  );
});

test("edits before session/new carry an id of editd's own, which the SDK accepts", async () => {
  await withEditd([], async (agent, ed) => {
    await edit(agent, "write_text", { path: "a.txt", content: "a\n" });
    assert.equal(ed.files.get(ed.abs("a.txt")), "a\n");
    assert.equal(typeof ed.fsRequests[0].params.sessionId, "string");
    assert.equal(ed.updates.length, 0, "no session, no session/update");
  });
});

test("mutations are announced with tool_call and tool_call_update", async () => {
  await withEditd([], async (agent, ed, root) => {
    const { sessionId } = await agent.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
    const a = ed.abs("a.txt");
    ed.files.set(a, "alpha\nbeta\n");
    await edit(agent, "str_replace", { path: "a.txt", oldText: "beta", newText: "gamma" });
    await rejects(edit(agent, "str_replace", { path: "a.txt", oldText: "zeta", newText: "eta" }), "no_match");

    await until(() => ed.updates.length >= 4); // the SDK hands notifications over asynchronously
    const updates = ed.updates.filter((u) => u.sessionId === sessionId).map((u) => u.update);
    assert.equal(updates.length, 4);
    const [start, done, start2, failed] = updates;
    assert.equal(start.sessionUpdate, "tool_call");
    assert.equal(start.kind, "edit");
    assert.equal(start.status, "pending");
    assert.deepEqual(start.locations, [{ path: a }]);
    assert.equal(done.sessionUpdate, "tool_call_update");
    assert.equal(done.toolCallId, start.toolCallId);
    assert.equal(done.status, "completed");
    assert.deepEqual(done.content, [{ type: "diff", path: a, oldText: "alpha\nbeta\n", newText: "alpha\ngamma\n" }]);
    assert.deepEqual(done.locations, [{ path: a, line: 2 }]);
    assert.equal(start2.status, "pending");
    assert.equal(failed.toolCallId, start2.toolCallId);
    assert.equal(failed.status, "failed");
  });
});

test("with --approve ask the client is asked, and a refusal writes nothing", async () => {
  await withEditd(["--approve", "ask"], async (agent, ed, root) => {
    const { sessionId } = await agent.request(acp.methods.agent.session.new, { cwd: root, mcpServers: [] });
    const a = ed.abs("a.txt");
    ed.files.set(a, "old\n");

    await edit(agent, "write_text", { path: "a.txt", content: "new\n" });
    assert.equal(ed.files.get(a), "new\n");
    const asked = ed.permissions[0];
    assert.equal(asked.sessionId, sessionId);
    assert.deepEqual(asked.toolCall.content, [{ type: "diff", path: a, oldText: "old\n", newText: "new\n" }]);
    assert.deepEqual(
      asked.options.map((o) => o.kind),
      ["allow_once", "allow_always", "reject_once"],
    );

    ed.decide = () => ({ outcome: "selected", optionId: "reject_once" });
    await rejects(edit(agent, "write_text", { path: "a.txt", content: "rejected\n" }), "denied");
    ed.decide = () => ({ outcome: "cancelled" });
    await rejects(edit(agent, "create", { path: "b.txt", content: "b\n" }), "denied");
    assert.equal(ed.files.get(a), "new\n");
    assert.equal(ed.files.has(ed.abs("b.txt")), false);

    ed.decide = () => ({ outcome: "selected", optionId: "allow_always" });
    await edit(agent, "write_text", { path: "a.txt", content: "1\n" });
    ed.decide = () => ({ outcome: "selected", optionId: "reject_once" });
    await edit(agent, "write_text", { path: "a.txt", content: "2\n" }); // allowed for the session
    assert.equal(ed.files.get(a), "2\n");
    assert.equal(ed.permissions.length, 4);
  });
});

test("a client error is delegate_failed with its message; a missing file is not_found", async () => {
  await withEditd([], async (agent, ed) => {
    const a = ed.abs("a.txt");
    ed.files.set(a, "a\n");
    ed.failing.add(a);
    const e = await rejects(edit(agent, "str_replace", { path: "a.txt", oldText: "a", newText: "b" }), "delegate_failed");
    assert.equal(e.code, -32052);
    assert.equal(e.data.clientError.message, "buffer is read-only");
    assert.deepEqual(e.data.clientError.data, { buffer: 7 });
    assert.equal(ed.files.get(a), "a\n");
    await rejects(edit(agent, "insert", { path: "nope.txt", line: 0, text: "x" }), "not_found");
  });
});

test("a client slower than --delegate-timeout gives timeout and changes nothing", async () => {
  await withEditd(["--delegate-timeout", "0.3"], async (agent, ed) => {
    const a = ed.abs("slow.txt");
    ed.files.set(a, "s\n");
    ed.slow.add(a);
    const e = await rejects(edit(agent, "write_text", { path: "slow.txt", content: "x\n" }), "timeout");
    assert.equal(e.code, -32051);
    ed.slow.clear();
    await new Promise((resolve) => setTimeout(resolve, 1500)); // the late answer arrives and is ignored
    assert.equal((await edit(agent, "read_text", { path: "slow.txt" })).content, "s\n");
    assert.equal(ed.files.get(a), "s\n");
  });
});
