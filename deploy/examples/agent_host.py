#!/usr/bin/env python3
"""An agent host that spawns editd over stdio and forwards a model's edits to it.

What docs/deployment.md ("As a child process") shows, as a program that runs: the host starts
`editd --root WORKSPACE`, writes one JSON-RPC request per line to its stdin and reads one reply per
line from its stdout (editd's logs go to stderr, which the host passes through). A model's tool
call becomes a request; the reply, or its error with `data.kind`, goes back to the model.

    deploy/examples/agent_host.py EDITD WORKSPACE

Runs a short session on WORKSPACE/hello.py (created if missing): read it, replace a line with the
fingerprint of that read, try the same stale edit again (a `conflict` the model would be shown),
and close stdin, upon which editd answers what it has and exits 0. Exit status 0 when every
reply was the one expected; `make test` runs it (ctest: deploy_agent_host).
"""

import json
import subprocess
import sys


class Editd:
    """editd as a child process: one request per line in, one reply per line out."""

    def __init__(self, binary, root):
        self.proc = subprocess.Popen([binary, "--root", root], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, encoding="utf-8")
        self.next_id = 0

    def call(self, method, **params):
        self.next_id += 1
        request = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        reply = json.loads(self.proc.stdout.readline())
        assert reply.get("id") == self.next_id, reply
        return reply

    def close(self):
        self.proc.stdin.close()
        return self.proc.wait(timeout=30)


def expect(what, ok):
    print(("ok    " if ok else "FAIL  ") + what)
    return ok


def main():
    binary, root = sys.argv[1], sys.argv[2]
    editd = Editd(binary, root)
    ok = True

    init = editd.call("initialize", protocolVersion=1, clientInfo={"name": "agent_host.py"})
    ok &= expect("initialize names editd", init["result"]["agentInfo"]["name"] == "editd")

    editd.call("write_text", path="hello.py", content="def greet():\n    print('hi')\n")
    read = editd.call("read_text", path="hello.py")["result"]
    ok &= expect("read_text returns the content", "print('hi')" in read["content"])

    # The model's tool call, with the fingerprint of what it read.
    edit = editd.call("str_replace", path="hello.py", oldText="    print('hi')",
                      newText="    print('hello')", expectedFingerprint=read["fingerprint"])
    ok &= expect("str_replace applies", edit.get("result", {}).get("replacements") == 1)

    # The same call again: the file changed since that read.
    stale = editd.call("str_replace", path="hello.py", oldText="    print('hello')",
                       newText="    print('bye')", expectedFingerprint=read["fingerprint"])
    ok &= expect("a stale fingerprint is a conflict",
                 stale.get("error", {}).get("data", {}).get("kind") == "conflict")

    ok &= expect("end of stdin: editd exits 0", editd.close() == 0)
    with open(f"{root}/hello.py", encoding="utf-8") as f:
        ok &= expect("the file holds the one edit", f.read() == "def greet():\n    print('hello')\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
