#!/usr/bin/env python3
"""A language server that misbehaves on purpose, for the --lsp tests.

Usage: fake_lsp.py MODE LOG
  never-init    reads everything and never answers initialize
  stop-reading  answers initialize, then never reads again
  flood         publishes 20,000 diagnostics for each version of a document
Each start appends the process id to LOG, one line.
"""
import json
import sys
import time

mode, log = sys.argv[1], sys.argv[2]
with open(log, "a") as f:
    f.write(f"{__import__('os').getpid()}\n")

stdin, stdout = sys.stdin.buffer, sys.stdout.buffer


def read_message():
    length = None
    while True:
        line = stdin.readline()
        if not line:
            sys.exit(0)
        line = line.strip()
        if not line:
            break
        name, _, value = line.partition(b":")
        if name.lower() == b"content-length":
            length = int(value)
    return json.loads(stdin.read(length))


def send(message):
    body = json.dumps(message).encode()
    stdout.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    stdout.flush()


while True:
    message = read_message()
    method = message.get("method")
    if mode == "never-init":
        continue
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": message["id"], "result": {"capabilities": {}}})
        if mode == "stop-reading":
            while True:
                time.sleep(60)
    elif method in ("textDocument/didOpen", "textDocument/didChange") and mode == "flood":
        doc = message["params"]["textDocument"]
        diagnostics = [{"range": {"start": {"line": i % 5, "character": 0},
                                  "end": {"line": i % 5, "character": 1}},
                        "severity": 2, "message": f"flood {i}"} for i in range(20000)]
        send({"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics",
              "params": {"uri": doc["uri"], "version": doc["version"], "diagnostics": diagnostics}})
