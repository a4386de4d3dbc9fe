#!/usr/bin/env python3
"""server/'s includes only go down (docs/architecture.md, "The map").

The parts, top to bottom: the process (server/), the session (server/session/),
the front doors (server/doors/), the operations (server/ops/) and the checks
(server/checks/). A file may include a header of its own part or of a part
below it, never one above. Prints every include that runs up and fails.

Usage: layers_test.py SOURCE_DIR
"""
import pathlib
import re
import sys

PARTS = ["server/checks/", "server/ops/", "server/doors/", "server/session/", "server/"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"(server/[^"]+)"', re.MULTILINE)
GENERATED = {"server/commit.h"}  # written by the build (CMakeLists.txt)


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
        for inc in INCLUDE.findall(f.read_text()):
            if inc in GENERATED:
                continue
            if not (root / inc).exists():
                up.append(f"{rel}: includes {inc}, which does not exist")
            elif floor(inc) > floor(rel):
                up.append(f"{rel}: includes {inc}, a part above its own")
    for line in up:
        print(line)
    print(f"{len(files)} files, {len(up)} includes running up")
    return 1 if up else 0


if __name__ == "__main__":
    sys.exit(main())
