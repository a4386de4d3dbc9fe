#!/usr/bin/env python3
"""Every path of the tree that the documentation names exists.

docs/*.md and README.md name files and folders in backticks (`server/ops/commit.h`,
`backends/local/*`, `edit/match/`, `server/doors/mcp_errors.*`): each such name that starts
with one of the tree's top-level folders must match something in the tree, so that a map a
newcomer follows never sends them to a file that moved. Exit status 1 lists the names that
match nothing.

usage: paths_test.py SOURCE_DIR
"""
import glob
import os
import re
import sys

TOP = ("protocol/", "edit/", "support/", "backends/", "server/", "tests/", "docs/", "bench/", "deploy/")
# `path`, `path:line`, `path (note)`: the name is the first word in the backticks.
NAME = re.compile(r"`([A-Za-z0-9_./*{},-]+)(?::\d+)?[^`]*`")


def expand(name):
    """`a/b.{h,cpp}` -> a/b.h, a/b.cpp."""
    m = re.search(r"\{([^}]*)\}", name)
    if not m:
        return [name]
    return [x for alt in m.group(1).split(",") for x in expand(name[: m.start()] + alt + name[m.end():])]


def main():
    root = sys.argv[1]
    missing = []
    docs = sorted(glob.glob(os.path.join(root, "docs", "*.md"))) + [os.path.join(root, "README.md")]
    checked = 0
    for doc in docs:
        with open(doc, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                for m in NAME.finditer(line):
                    name = m.group(1).rstrip(".,")
                    if not name.startswith(TOP) or "//" in name:
                        continue
                    # A name with no extension, wildcard or trailing slash may be a
                    # method (`edit/read_text`, `server/discover`), not a path.
                    last = name.rsplit("/", 1)[-1]
                    if last and "." not in last and "*" not in last:
                        continue
                    for candidate in expand(name):
                        checked += 1
                        if not glob.glob(os.path.join(root, candidate)):
                            missing.append(f"{os.path.relpath(doc, root)}:{n}: `{candidate}`")
    if missing:
        print("paths the documentation names that are not in the tree:")
        print("\n".join(missing))
        return 1
    print(f"{checked} paths named in the documentation, all in the tree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
