#!/usr/bin/env python3
"""Peak memory of editd under inputs that once grew it without bound.

  python3 bench/memory_bounds.py EDITD clients N K MIB [EDITD_ARGS...]
      N Unix socket clients each pipeline K write_text of MIB MiB creating files
      of their own, reading their replies (each with its diff) as they come;
      prints editd's peak RSS (VmHWM).
  python3 bench/memory_bounds.py EDITD hashline MIB [EDITD_ARGS...]
      one read_text format hashline of a file of MIB MiB of empty lines;
      prints the outcome (ok or the error kind), the reply's size and the peak RSS.
"""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time


def peak_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        return int(next(l for l in f if l.startswith("VmHWM")).split()[1])


def clients(editd, n, k, mib, extra):
    work = tempfile.mkdtemp()
    root, sock = os.path.join(work, "root"), os.path.join(work, "s.sock")
    os.mkdir(root)
    p = subprocess.Popen([editd, "--root", root, "--listen", "unix:" + sock] + extra,
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            if os.path.exists(sock):
                break
            time.sleep(0.01)
        body = "x" * (mib * 1024 * 1024 - 1) + "\n"

        def client(c):
            s = socket.socket(socket.AF_UNIX)
            s.connect(sock)
            replies = s.makefile("rb")
            reader = threading.Thread(target=lambda: [replies.readline() for _ in range(k)])
            reader.start()
            for i in range(k):
                s.sendall((json.dumps({"jsonrpc": "2.0", "id": i, "method": "write_text",
                                       "params": {"path": f"c{c}-{i}.txt", "content": body}})
                           + "\n").encode())
            reader.join()

        threads = [threading.Thread(target=client, args=(c,)) for c in range(n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        print(f"{n} clients x {k} write_text of {mib} MiB: peak RSS {peak_kib(p.pid) // 1024} MiB")
    finally:
        p.kill()
        shutil.rmtree(work)


def hashline(editd, mib, extra):
    root = tempfile.mkdtemp()
    try:
        with open(os.path.join(root, "blank.txt"), "w") as f:
            f.write("\n" * (mib * 1024 * 1024))
        p = subprocess.Popen([editd, "--root", root] + extra, stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        p.stdin.write((json.dumps({"jsonrpc": "2.0", "id": 1, "method": "read_text",
                                   "params": {"path": "blank.txt", "format": "hashline"}})
                       + "\n").encode())
        p.stdin.flush()
        line = p.stdout.readline()
        kind = json.loads(line).get("error", {}).get("data", {}).get("kind", "ok")
        print(f"hashline read of {mib} MiB of empty lines: {kind}, reply {len(line)} bytes, "
              f"peak RSS {peak_kib(p.pid) // 1024} MiB")
        p.kill()
    finally:
        shutil.rmtree(root)


if __name__ == "__main__":
    if len(sys.argv) >= 6 and sys.argv[2] == "clients":
        clients(sys.argv[1], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6:])
    elif len(sys.argv) >= 4 and sys.argv[2] == "hashline":
        hashline(sys.argv[1], int(sys.argv[3]), sys.argv[4:])
    else:
        sys.exit(__doc__)
