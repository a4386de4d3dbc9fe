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
  symbols-late  answers documentSymbol with one symbol, `sym_<file's stem>` on line 1,
                but holds the answers for a file whose name holds "slow": once two
                such requests wait and 66 other documents were opened, it answers
                the first; three documents later, the second
  symbols-scan  a symbol for each line `function NAME` (to the next line that starts
                with `}`), its selectionRange on NAME, lines counted as LSP says;
                but it lies about NAMEs that start with `shifted` (a line lower)
                and adds `far`, a million lines below the text
  symbols-u2028 as symbols-scan, but counting lines as tsserver does: U+2028 and
                U+2029 end lines too (both publish no diagnostics for each version)
  symbols-many  answers documentSymbol with 165,000 symbols (about 24 MiB)
  symbols-empty answers documentSymbol with 10 MiB of `[{},{},...]`
  symbols-deep  answers documentSymbol with 63 nested symbols named by 1,000 characters,
                the innermost holding 2,000 more
Each start appends the process id to LOG, one line.
"""
import os
import sys

mode, log = sys.argv[1], sys.argv[2]
with open(log, "a") as f:  # first, before the imports: a start is counted however slow
    f.write(f"{os.getpid()}\n")

import json  # noqa: E402
import re  # noqa: E402
import time  # noqa: E402

sys.setrecursionlimit(20000)  # symbols-junk nests 5,000 levels

stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
texts, published = {}, {}  # by URI: the text held, the diagnostics last published
answered = 0  # documentSymbol requests answered (symbols-count)
held, others = [], set()  # symbols-late: requests held, other documents opened
first_at = None  # symbols-late: how many others were open at the first answer


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


def pos(l, c):
    return {"line": l, "character": c}


def one_symbol(name, line=0):
    return {"name": name, "kind": 12, "range": {"start": pos(line, 0), "end": pos(line, 1)},
            "selectionRange": {"start": pos(line, 0), "end": pos(line, 1)}}


def stem(uri):
    return os.path.splitext(os.path.basename(uri))[0]


def scanned(text, breaks):
    """The symbols of `function NAME` lines, lines split at `breaks`."""
    lines = re.split(breaks, text)
    out = []
    for i, line in enumerate(lines):
        m = re.match(r"\s*function (\w+)", line)
        if not m:
            continue
        end = next((j for j in range(i + 1, len(lines)) if lines[j].startswith("}")), i)
        name = m.group(1)
        at = 1 if name.startswith("shifted") else 0
        col = m.start(1)
        out.append({"name": name, "kind": 12,
                    "range": {"start": pos(i + at, 0), "end": pos(end + at, 1)},
                    "selectionRange": {"start": pos(i + at, col), "end": pos(i + at, col + len(name))}})
    if "u2028" not in mode:
        out.append({"name": "far", "kind": 12, "range": {"start": pos(10**6, 0), "end": pos(10**6, 5)},
                    "selectionRange": {"start": pos(10**6, 0), "end": pos(10**6, 3)}})
    return out


def answer_late():
    global first_at
    if len(held) == 2 and first_at is None and len(others) >= 66:
        first_at = len(others)
        send({"jsonrpc": "2.0", "id": held.pop(0), "result": [one_symbol("sym_slow")]})
    if first_at is not None and held and len(others) >= first_at + 3:
        send({"jsonrpc": "2.0", "id": held.pop(0), "result": [one_symbol("sym_slow")]})


while True:
    message = read_message()
    method = message.get("method")
    if method == "textDocument/didOpen":
        texts[message["params"]["textDocument"]["uri"]] = message["params"]["textDocument"]["text"]
        if mode == "symbols-late" and "slow" not in message["params"]["textDocument"]["uri"]:
            others.add(message["params"]["textDocument"]["uri"])
            answer_late()
    elif method == "textDocument/didChange":
        texts[message["params"]["textDocument"]["uri"]] = message["params"]["contentChanges"][-1]["text"]
    if mode in ("symbols-scan", "symbols-u2028") and method in (
            "textDocument/didOpen", "textDocument/didChange"):
        doc = message["params"]["textDocument"]
        send({"jsonrpc": "2.0", "method": "textDocument/publishDiagnostics",
              "params": {"uri": doc["uri"], "version": doc["version"], "diagnostics": []}})
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
        uri = message["params"]["textDocument"]["uri"]
        if mode == "symbols-late":
            if "slow" in uri:
                held.append(message["id"])
                answer_late()
            else:
                send({"jsonrpc": "2.0", "id": message["id"], "result": [one_symbol("sym_" + stem(uri))]})
            continue
        if mode in ("symbols-scan", "symbols-u2028"):
            breaks = "\r\n|\r|\n|\u2028|\u2029" if mode == "symbols-u2028" else "\r\n|\r|\n"
            send({"jsonrpc": "2.0", "id": message["id"], "result": scanned(texts[uri], breaks)})
            continue
        if mode == "symbols-many":
            send({"jsonrpc": "2.0", "id": message["id"], "result": [
                {"name": f"symbol_number_{i}", "kind": 13, "detail": "int",
                 "range": {"start": pos(i % 3, 0), "end": pos(i % 3, 2)},
                 "selectionRange": {"start": pos(i % 3, 0), "end": pos(i % 3, 2)}}
                for i in range(165000)]})
            continue
        if mode == "symbols-deep":
            def named(name, children=()):
                return {"name": name, "kind": 3, "range": {"start": pos(0, 0), "end": pos(0, 1)},
                        "selectionRange": {"start": pos(0, 0), "end": pos(0, 0)},
                        "children": list(children)}
            node = named("n62" + "x" * 997, [named(f"leaf{i}") for i in range(2000)])
            for level in range(61, -1, -1):
                node = named(f"n{level:02d}" + "x" * 997, [node])
            send({"jsonrpc": "2.0", "id": message["id"], "result": [node]})
            continue
        if mode == "symbols-empty":
            body = b'{"jsonrpc":"2.0","id":%d,"result":[' % message["id"] + \
                b",".join([b"{}"] * (10 * 2**20 // 3)) + b"]}"
            stdout.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
            stdout.flush()
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
