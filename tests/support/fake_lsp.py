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
  quiet-when-clean
                as typescript-language-server: an error for each line that holds
                ERROR, published on didOpen, on didClose (an empty list), and on
                didChange unless the last publish and this one are both empty
  symbols-count answers documentSymbol with one symbol, `asked<N>` on line 1, N
                counting the requests it has answered
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
texts, published = {}, {}  # by URI: the text held, the diagnostics last published
answered = 0  # documentSymbol requests answered (symbols-count)


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
        caps = {} if mode in ("never-init", "stop-reading", "flood", "no-symbols",
                              "quiet-when-clean") else {"documentSymbolProvider": True}
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
    elif mode == "quiet-when-clean" and method in (
            "textDocument/didOpen", "textDocument/didChange", "textDocument/didClose"):
        uri = message["params"]["textDocument"]["uri"]
        if method == "textDocument/didClose":
            texts.pop(uri, None)
            now = []
        else:
            texts[uri] = message["params"]["textDocument"]["text"] if method.endswith("Open") \
                else message["params"]["contentChanges"][-1]["text"]
            now = [{"range": {"start": {"line": i, "character": 0}, "end": {"line": i, "character": 1}},
                    "severity": 1, "message": "ERROR here"}
                   for i, line in enumerate(texts[uri].split("\n")) if "ERROR" in line]
        if method == "textDocument/didChange" and not now and not published.get(uri):
            continue
        published[uri] = now
        send({"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics",
              "params": {"uri": uri, "diagnostics": now}})
    elif "id" in message and isinstance(method, str) and method.startswith("$/"):
        send({"jsonrpc": "2.0", "id": message["id"],
              "error": {"code": -32601, "message": f"unhandled method {method}"}})
    elif method == "textDocument/documentSymbol":
        if mode == "symbols-count":
            answered += 1
            send({"jsonrpc": "2.0", "id": message["id"], "result": [
                {"name": f"asked{answered}", "kind": 12,
                 "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}},
                 "selectionRange": {"start": {"line": 0, "character": 0},
                                    "end": {"line": 0, "character": 1}}}]})
            continue
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
