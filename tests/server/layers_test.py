#!/usr/bin/env python3
"""server/'s includes only go down (docs/architecture.md, "The map").

The parts, top to bottom: the process (server/), the session (server/session/),
the front doors (server/doors/), the methods (server/methods/), the operations
(server/ops/), the checks (server/checks/), the search (server/search/) and the
ledger (server/ledger/); the
review page (server/review/) stands beside the doors, just above them. A file may include a header of its own part or of a part
below it, never one above. The operations and the checks, the core, take no
wire types: of protocol/ they include only protocol/error.h (the error model
and how an invalid_params error names its param); the methods translate
(server/methods/). The operations' pipeline (server/ops/pipeline.h)
is private to server/ops/: only its .cpp files include it, the API is
server/ops/operations.h. Prints every include that breaks a rule and fails.

Usage: layers_test.py SOURCE_DIR
"""
import pathlib
import re
import sys

PARTS = ["server/ledger/", "server/search/", "server/checks/", "server/ops/", "server/methods/", "server/doors/", "server/review/", "server/session/", "server/"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"(server/[^"]+)"', re.MULTILINE)
GENERATED = {"server/commit.h"}  # written by the build (CMakeLists.txt)
PROTOCOL = re.compile(r'^\s*#\s*include\s+"(protocol/[^"]+)"', re.MULTILINE)
CORE = ("server/ops/", "server/checks/", "server/search/", "server/ledger/")
CORE_MAY_INCLUDE = {"protocol/error.h"}
PRIVATE = {"server/ops/pipeline.h": "server/ops/"}  # header -> the folder whose .cpp files may include it


def floor(path: str) -> int:
    for i, part in enumerate(PARTS):
        if path.startswith(part):
            return i
    raise ValueError(path)


def main() -> int:
    root = pathlib.Path(sys.argv[1])
    files = sorted(p for p in (root / "server").rglob("*") if p.suffix in (".h", ".cpp"))
    if not files:
        print(f"no sources under {root / 'server'}")
        return 1
    up = []
    for f in files:
        rel = f.relative_to(root).as_posix()
        text = f.read_text()
        for inc in INCLUDE.findall(text):
            if inc in GENERATED:
                continue
            if not (root / inc).exists():
                up.append(f"{rel}: includes {inc}, which does not exist")
            elif floor(inc) > floor(rel):
                up.append(f"{rel}: includes {inc}, a part above its own")
            elif inc in PRIVATE and not (
                rel.endswith(".cpp") and rel.rsplit("/", 1)[0] + "/" == PRIVATE[inc]
            ):
                up.append(f"{rel}: includes {inc}, private to the .cpp files of {PRIVATE[inc]}")
        if rel.startswith(CORE):
            for inc in PROTOCOL.findall(text):
                if inc not in CORE_MAY_INCLUDE:
                    up.append(f"{rel}: includes {inc}: the core takes no wire types")
    for line in up:
        print(line)
    print(f"{len(files)} files, {len(up)} includes running up, bringing the wire into the core "
          "or reaching a private header")
    return 1 if up else 0


if __name__ == "__main__":
    sys.exit(main())
