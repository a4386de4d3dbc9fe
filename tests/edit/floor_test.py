#!/usr/bin/env python3
"""edit/ is the bottom of the house: it includes no header of the project
outside edit/, and protocol/ includes one header of edit/, edit/error.h (the
error model every layer shares), and nothing of support/, backends/ or
server/. support/, the floor of the primitives backends/ and server/ share,
includes only its own files and edit/error.h. backends/ includes nothing of
server/. Prints every include that breaks this and fails.

Usage: floor_test.py SOURCE_DIR
"""
import pathlib
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)
PROJECT = ("edit/", "protocol/", "support/", "backends/", "server/")


def sources(root: pathlib.Path, folder: str):
    return sorted(p for p in (root / folder).rglob("*") if p.suffix in (".h", ".cpp"))


def main() -> int:
    root = pathlib.Path(sys.argv[1])
    edit, protocol = sources(root, "edit"), sources(root, "protocol")
    support, backends = sources(root, "support"), sources(root, "backends")
    if not edit or not protocol or not support or not backends:
        print(f"no sources under {root / 'edit'}, {root / 'protocol'} or {root / 'support'}")
        return 1
    wrong = []
    for f in edit:
        rel = f.relative_to(root).as_posix()
        for inc in INCLUDE.findall(f.read_text()):
            if not inc.startswith("edit/") and inc.startswith(PROJECT):
                wrong.append(f"{rel}: includes {inc}, above edit/")
            elif inc.startswith("edit/") and not (root / inc).exists():
                wrong.append(f"{rel}: includes {inc}, which does not exist")
    for f in protocol:
        rel = f.relative_to(root).as_posix()
        for inc in INCLUDE.findall(f.read_text()):
            if inc.startswith("edit/") and inc != "edit/error.h":
                wrong.append(f"{rel}: includes {inc}; protocol/ may include only edit/error.h")
            elif inc.startswith(("support/", "backends/", "server/")):
                wrong.append(f"{rel}: includes {inc}; protocol/ includes nothing of support/, "
                             "backends/ or server/")
    for f in support:
        rel = f.relative_to(root).as_posix()
        for inc in INCLUDE.findall(f.read_text()):
            if inc.startswith("support/"):
                if not (root / inc).exists():
                    wrong.append(f"{rel}: includes {inc}, which does not exist")
            elif inc.startswith(PROJECT) and inc != "edit/error.h":
                wrong.append(f"{rel}: includes {inc}; support/ may include only support/ "
                             "and edit/error.h")
    for f in backends:
        rel = f.relative_to(root).as_posix()
        for inc in INCLUDE.findall(f.read_text()):
            if inc.startswith("server/"):
                wrong.append(f"{rel}: includes {inc}; backends/ includes nothing of server/")
    for line in wrong:
        print(line)
    print(f"{len(edit) + len(protocol) + len(support) + len(backends)} files, {len(wrong)} includes out of place")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
