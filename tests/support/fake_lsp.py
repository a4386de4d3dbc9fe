#!/usr/bin/env python3
"""A language server that misbehaves on purpose, for the --lsp tests.

Usage: fake_lsp.py MODE LOG
  never-init    reads everything and never answers initialize
  stop-reading  answers initialize, then never reads again
  flood         publishes 20,000 diagnostics for each version of a document
  no-symbols    answers initialize without documentSymbolProvider
  symbols-hang  offers documentSymbol and never answers it
  symbols-die   offers documentSymbol and exits when asked
  symbols-junk  answers documentSymbol with nonsense: inverted and far ranges, names
                that are not strings, 5,000 levels of children, a symbol per line
Each start appends the process id to LOG, one line.
"""
import json
import sys
import time

mode, log = sys.argv[1], sys.argv[2]
sys.setrecursionlimit(20000)  # symbols-junk nests 5,000 levels
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
        caps = {} if mode in ("never-init", "stop-reading", "flood", "no-symbols") else \
            {"documentSymbolProvider": True}
        send({"jsonrpc": "2.0", "id": message["id"], "result": {"capabilities": caps}})
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
    elif method == "textDocument/documentSymbol":
        if mode == "symbols-die":
            sys.exit(3)
        if mode == "symbols-junk":
            def pos(l, c):
                return {"line": l, "character": c}
            deep = {"name": "deep", "kind": 12, "range": {"start": pos(0, 0), "end": pos(1, 0)},
                    "selectionRange": {"start": pos(0, 0), "end": pos(0, 1)}}
            for i in range(5000):
                deep = {"name": "deep", "kind": 12, "range": {"start": pos(0, 0), "end": pos(1, 0)},
                        "selectionRange": {"start": pos(0, 0), "end": pos(0, 1)}, "children": [deep]}
            junk = [
                {"name": "inverted", "kind": 12, "range": {"start": pos(3, 5), "end": pos(1, 0)},
                 "selectionRange": {"start": pos(3, 5), "end": pos(3, 6)}},
                {"name": "far", "kind": 999, "range": {"start": pos(10**9, 10**9), "end": pos(10**12, 0)},
                 "selectionRange": {"start": pos(10**9, 0), "end": pos(10**9, 1)}},
                {"name": 42, "kind": 12, "range": {"start": pos(0, 0), "end": pos(0, 1)}},
                {"name": "nolines", "kind": 12, "range": "everywhere"},
                deep,
            ] + [{"name": f"line{i}", "kind": 13, "range": {"start": pos(i, 0), "end": pos(i, 1)},
                  "selectionRange": {"start": pos(i, 0), "end": pos(i, 1)}} for i in range(3)]
            send({"jsonrpc": "2.0", "id": message["id"], "result": junk})
        # symbols-hang: never answers.
