#!/usr/bin/env python3
"""Clients that send a long line and leave before its end, against one that stays.

    python3 bench/leave_mid_line.py build/editd [MODE] [CLIENTS] [MIB]

MODE partial (default): CLIENTS clients each send MIB MiB of a request without
its newline, wait until editd has read it all, and leave together. MODE full:
the line is whole (a string never closed: refused with parse_error, after a
costly parse). Meanwhile one client on the same I/O thread (--io-threads 1)
sends a one-line fingerprint every 2 ms. Prints editd's CPU, the latencies of
the client that stays and how long a SIGTERM right after takes to exit.
Never part of pass/fail (docs/performance.md has the figures).
"""
import fcntl, json, os, signal, socket, struct, subprocess, sys, tempfile, termios, threading, time

binary = sys.argv[1]
mode = sys.argv[2] if len(sys.argv) > 2 else "partial"
clients = int(sys.argv[3]) if len(sys.argv) > 3 else 4
mib = int(sys.argv[4]) if len(sys.argv) > 4 else 60

root, run = tempfile.mkdtemp(), tempfile.mkdtemp()
open(os.path.join(root, "a.txt"), "w").write("hello\n")
path = os.path.join(run, "editd.sock")
editd = subprocess.Popen([binary, "--root", root, "--listen", "unix:" + path, "--io-threads", "1"],
                         stderr=subprocess.DEVNULL)
while not os.path.exists(path):
    time.sleep(0.01)


def cpu_seconds():
    f = open(f"/proc/{editd.pid}/stat").read().split()
    return (int(f[13]) + int(f[14])) / os.sysconf("SC_CLK_TCK")


line = b'{"jsonrpc":"2.0","id":1,"method":"write_text","params":{"path":"x","content":"'
line += b"a" * ((mib << 20) - len(line))
if mode == "full":
    line += b"\n"

stays = socket.socket(socket.AF_UNIX)
stays.connect(path)
replies = stays.makefile("rb")


def fingerprint(i):
    stays.sendall((json.dumps({"jsonrpc": "2.0", "id": i, "method": "fingerprint",
                               "params": {"path": "a.txt"}}) + "\n").encode())
    return replies.readline()


fingerprint(0)
stop = False
latencies = []


def ping():
    i = 1
    while not stop:
        t = time.monotonic()
        fingerprint(i)
        latencies.append(time.monotonic() - t)
        i += 1
        time.sleep(0.002)


def unread(s):
    return struct.unpack("i", fcntl.ioctl(s.fileno(), termios.TIOCOUTQ, b"\0\0\0\0"))[0]


senders = []


def send():
    s = socket.socket(socket.AF_UNIX)
    s.connect(path)
    s.sendall(line)
    while unread(s) > 0:
        time.sleep(0.001)
    senders.append(s)


pinger = threading.Thread(target=ping)
pinger.start()
cpu0, t0 = cpu_seconds(), time.monotonic()
threads = [threading.Thread(target=send) for _ in range(clients)]
for t in threads:
    t.start()
for t in threads:
    t.join()
cpu1 = cpu_seconds()
for s in senders:
    s.close()
time.sleep(2)
cpu2 = cpu_seconds()
stop = True
pinger.join()
latencies.sort()
ms = lambda q: latencies[min(len(latencies) - 1, int(len(latencies) * q))] * 1000
print(f"{mode} {clients} x {mib} MiB: editd CPU {cpu1 - cpu0:.2f} s while read, "
      f"{cpu2 - cpu1:.2f} s in the 2 s after they left; {len(latencies)} fingerprints: "
      f"median {ms(0.5):.1f} ms, p99 {ms(0.99):.1f} ms, max {latencies[-1] * 1000:.1f} ms")
t = time.monotonic()
# SIGTERM while full lines may still be parsing: the exit waits for them.
editd.send_signal(signal.SIGTERM)
editd.wait()
print(f"SIGTERM to exit: {time.monotonic() - t:.2f} s, exit code {editd.returncode}")
