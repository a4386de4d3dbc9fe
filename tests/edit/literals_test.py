#!/usr/bin/env python3
"""edit/ never names a request param in its prose: no string literal in edit/
spells "oldText" or "newText" (comments may). The engine mentions an input
with mention(Input) (edit/error.h), and the door that carries the request
names it (protocol/error.h, name_inputs): oldText for JSON-RPC and MCP,
old_str for Anthropic's text editor. Prints every literal that names one and
fails.

Usage: literals_test.py SOURCE_DIR
"""
import pathlib
import re
import sys

NAMES = re.compile(r"\b(oldText|newText)\b")


def literals(src: str):
    """(line, text) of every string literal in C++ source, comments skipped."""
    i, n, line = 0, len(src), 1
    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            i = n if j < 0 else j
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            line += src.count("\n", i, j)
            i = j
        elif c == "R" and src.startswith('R"', i) and not (src[i - 1 : i].isalnum() or src[i - 1 : i] == "_"):
            open_paren = src.index("(", i + 2)
            close = ")" + src[i + 2 : open_paren] + '"'
            j = src.index(close, open_paren) + len(close)
            yield line, src[open_paren + 1 : j - len(close)]
            line += src.count("\n", i, j)
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and src[j] != c and src[j] != "\n":
                j += 2 if src[j] == "\\" else 1
            if c == '"':
                yield line, src[i + 1 : j]
            i = j + 1
        else:
            if c == "\n":
                line += 1
            i += 1


def main() -> int:
    root = pathlib.Path(sys.argv[1])
    files = sorted(p for p in (root / "edit").rglob("*") if p.suffix in (".h", ".cpp"))
    if not files:
        print(f"no sources under {root / 'edit'}")
        return 1
    wrong = []
    for f in files:
        for line, text in literals(f.read_text()):
            if NAMES.search(text):
                wrong.append(f'{f.relative_to(root).as_posix()}:{line}: "{text}" names a param: '
                             f"use mention(Input::...)")
    for w in wrong:
        print(w)
    print(f"{len(files)} files, {len(wrong)} literals that name a param")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
