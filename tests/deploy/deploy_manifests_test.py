#!/usr/bin/env python3
"""The deployment examples agree with the Dockerfile, so that they cannot drift from it.

Reads Dockerfile, deploy/compose.yaml, deploy/kubernetes/pod.yaml and the Makefile's IMAGE, and
checks that they name the same image, user (uid and gid), workspace, socket path, command,
health check and stop signal, and that every other container of the compose file and the pod
shares the workspace and the socket directory as the same user (the socket is mode 0600).

Python's standard library only: the manifests are read with a small parser of the YAML they use
(block mappings and sequences, flow sequences, scalars); anything else in them is an error here,
not a silent misreading. When PyYAML is installed, its reading must be the same.

    tests/deploy/deploy_manifests_test.py [SOURCE_DIR]
"""

import json
import os
import re
import sys

SOURCE = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
SHUTDOWN_GRACE = 10  # editd's default --shutdown-grace, seconds

failures = []


def check(what, ok, detail=""):
    print(("ok    " if ok else "FAIL  ") + what + ("" if ok or not detail else f": {detail}"))
    if not ok:
        failures.append(what)


def read(path):
    with open(os.path.join(SOURCE, path), encoding="utf-8") as f:
        return f.read()


# --- a YAML subset -------------------------------------------------------------------------------

class YamlError(Exception):
    pass


def strip_comment(text):
    quote = None
    for i, c in enumerate(text):
        if quote:
            if c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif c == "#" and (i == 0 or text[i - 1] in " \t"):
            return text[:i].rstrip()
    return text.rstrip()


def split_key(text):
    """('key', 'rest') for 'key: rest' or 'key:', else None."""
    if text[:1] in "\"'[{":
        return None
    m = re.match(r"^([^\s:#][^:]*?):(?:\s+(.*))?$", text)
    return (m.group(1), m.group(2) or "") if m else None


def scalar(text, where):
    if text.startswith('"'):
        return json.loads(text)
    if text.startswith("'"):
        if not text.endswith("'") or len(text) < 2:
            raise YamlError(f"{where}: unterminated quote")
        return text[1:-1].replace("''", "'")
    if text.startswith("["):
        return flow_sequence(text, where)
    if text == "{}":
        return {}
    if text[:1] in "{|>&*!%@`":
        raise YamlError(f"{where}: unsupported YAML: {text}")
    if re.fullmatch(r"-?[0-9]+", text):
        return int(text)
    if text in ("true", "false"):
        return text == "true"
    if text in ("null", "~", ""):
        return None
    return text


def flow_sequence(text, where):
    if not text.endswith("]"):
        raise YamlError(f"{where}: a flow sequence must end on its line: {text}")
    items, item, quote = [], "", None
    for c in text[1:-1]:
        if quote:
            item += c
            if c == quote:
                quote = None
        elif c in "\"'":
            quote = c
            item += c
        elif c == ",":
            items.append(item.strip())
            item = ""
        elif c in "[]{}":
            raise YamlError(f"{where}: nested flow collections are not supported: {text}")
        else:
            item += c
    if item.strip():
        items.append(item.strip())
    return [scalar(i, where) for i in items]


def parse_yaml(text, name):
    lines = []
    for number, raw in enumerate(text.splitlines(), 1):
        if "\t" in raw[: len(raw) - len(raw.lstrip())]:
            raise YamlError(f"{name}:{number}: tab in indentation")
        content = strip_comment(raw.strip())
        if content and content != "---":
            lines.append([len(raw) - len(raw.lstrip()), content, f"{name}:{number}"])

    def block(i, indent):
        if lines[i][1] == "-" or lines[i][1].startswith("- "):
            return sequence(i, indent)
        return mapping(i, indent)

    def nested(i, indent, where):
        """The value of a key or item with nothing after it: the block below, or null."""
        if i < len(lines) and (lines[i][0] > indent or
                               (lines[i][0] == indent and lines[i][1].startswith("- "))):
            return block(i, lines[i][0])
        return None, i

    def sequence(i, indent):
        out = []
        while i < len(lines) and lines[i][0] == indent and (lines[i][1] == "-" or lines[i][1].startswith("- ")):
            where, item = lines[i][2], lines[i][1][2:].strip()
            if not item:
                value, i = nested(i + 1, indent, where)
            elif split_key(item):
                lines[i] = [indent + 2 + len(lines[i][1][2:]) - len(lines[i][1][2:].lstrip()), item, where]
                value, i = mapping(i, lines[i][0])
            else:
                value, i = scalar(item, where), i + 1
            out.append(value)
        if i < len(lines) and lines[i][0] > indent:
            raise YamlError(f"{lines[i][2]}: unexpected indentation")
        return out, i

    def mapping(i, indent):
        out = {}
        while i < len(lines) and lines[i][0] == indent:
            where, content = lines[i][2], lines[i][1]
            kv = split_key(content)
            if not kv:
                raise YamlError(f"{where}: expected 'key: value', got {content}")
            key, rest = kv
            if key in out:
                raise YamlError(f"{where}: duplicate key {key}")
            if rest:
                out[key], i = scalar(rest, where), i + 1
            else:
                out[key], i = nested(i + 1, indent, where)
        if i < len(lines) and lines[i][0] > indent:
            raise YamlError(f"{lines[i][2]}: unexpected indentation")
        return out, i

    if not lines:
        return None
    value, i = block(0, lines[0][0])
    if i != len(lines):
        raise YamlError(f"{lines[i][2]}: unexpected indentation")
    return value


def load_yaml(path):
    text = read(path)
    value = parse_yaml(text, path)
    try:
        import yaml  # optional: a cross-check of the parser above
    except ImportError:
        return value
    check(f"{path}: PyYAML reads it the same", yaml.safe_load(text) == value)
    return value


# --- the Dockerfile ------------------------------------------------------------------------------

def dockerfile_stages(text):
    """[[(INSTRUCTION, arguments)]] per stage, continuation lines joined, comments dropped."""
    stages, logical = [], ""
    for raw in text.splitlines():
        line = raw.strip()
        if not logical and (not line or line.startswith("#")):
            continue
        if logical and line.startswith("#"):
            continue
        if line.endswith("\\"):
            logical += line[:-1] + " "
            continue
        logical += line
        instruction, _, args = logical.partition(" ")
        logical = ""
        if instruction.upper() == "FROM":
            stages.append([])
        stages[-1].append((instruction.upper(), args.strip()))
    return stages


def exec_form(args, what):
    try:
        value = json.loads(args)
    except json.JSONDecodeError:
        value = None
    check(f"Dockerfile: {what} is in exec form (JSON)", isinstance(value, list), args)
    return value if isinstance(value, list) else []


def main():
    stages = dockerfile_stages(read("Dockerfile"))
    final = stages[-1]
    last = {}
    for instruction, args in final:
        last[instruction] = args  # the last one counts
    check("Dockerfile: multi-stage, every stage FROM debian:bookworm-slim",
          len(stages) >= 2 and all(s[0][1].split()[0] == "debian:bookworm-slim" for s in stages),
          str([s[0][1] for s in stages]))

    user = last.get("USER", "")
    m = re.fullmatch(r"(\d+):(\d+)", user)
    check("Dockerfile: USER is numeric uid:gid, not root", bool(m) and m.group(1) != "0", user)
    uid, gid = (int(m.group(1)), int(m.group(2))) if m else (None, None)
    runs = " ".join(args for instruction, args in final if instruction == "RUN")
    check(f"Dockerfile: useradd creates uid {uid}", re.search(rf"useradd\b[^&;]*--uid {uid}\b", runs) is not None)
    check(f"Dockerfile: groupadd creates gid {gid}", re.search(rf"groupadd\b[^&;]*--gid {gid}\b", runs) is not None)

    command = exec_form(last.get("ENTRYPOINT", "[]"), "ENTRYPOINT") + exec_form(last.get("CMD", "[]"), "CMD")
    root = command[command.index("--root") + 1] if "--root" in command[:-1] else None
    listens = [command[i + 1] for i, a in enumerate(command[:-1]) if a == "--listen"]
    unix = [a[len("unix:"):] for a in listens if a.startswith("unix:")]
    check("Dockerfile: the default command is editd --root DIR --listen unix:SOCKET",
          command[:1] == ["editd"] and root is not None and len(unix) == 1, str(command))
    sock = unix[0] if unix else None
    sockdir = os.path.dirname(sock) if sock else None
    print(f"      image user {uid}:{gid}, workspace {root}, socket {sock}")
    check("Dockerfile: the workspace is /workspace and the socket /run/editd/editd.sock",
          root == "/workspace" and sock == "/run/editd/editd.sock")
    check("Dockerfile: no --token-file or token in the default command or ENV",
          not any("token" in a for a in command) and "token" not in last.get("ENV", "").lower())

    volumes = exec_form(last.get("VOLUME", "[]"), "VOLUME")
    check("Dockerfile: VOLUME declares the workspace and the socket directory",
          root in volumes and sockdir in volumes, str(volumes))
    check("Dockerfile: WORKDIR is the workspace", last.get("WORKDIR") == root, last.get("WORKDIR", ""))
    check("Dockerfile: the socket directory and the workspace belong to the user",
          re.search(rf"chown \S+ (?=.*{re.escape(root)})(?=.*{re.escape(sockdir)})", runs) is not None)
    check("Dockerfile: STOPSIGNAL SIGTERM", last.get("STOPSIGNAL") == "SIGTERM", last.get("STOPSIGNAL", ""))
    health = last.get("HEALTHCHECK", "")
    health_cmd = exec_form(health[health.index("CMD ") + 4:], "HEALTHCHECK CMD") if "CMD " in health else []
    probe = ["editd", "probe", f"unix:{sock}"]
    check("Dockerfile: HEALTHCHECK runs editd probe unix:SOCKET", health_cmd == probe, str(health_cmd))

    makefile = read("Makefile")
    m = re.search(r"^IMAGE \?= (\S+)$", makefile, re.M)
    image = m.group(1) if m else None
    check("Makefile: IMAGE ?= names the image", image is not None)

    # --- deploy/compose.yaml
    compose = load_yaml("deploy/compose.yaml")
    services = compose.get("services", {})
    editd = services.get("editd", {})
    where = "deploy/compose.yaml: services.editd"
    check(f"{where}: image is {image}", editd.get("image") == image, str(editd.get("image")))
    check(f"{where}: user is {uid}:{gid}", editd.get("user") == f"{uid}:{gid}", str(editd.get("user")))
    check(f"{where}: command is the image's default (or absent)",
          editd.get("command") in (None, command[1:]), str(editd.get("command")))
    mounts = {v.split(":")[1]: v.split(":")[0] for v in editd.get("volumes", [])}
    check(f"{where}: volumes at {root} and {sockdir}", root in mounts and sockdir in mounts, str(mounts))
    check(f"{where}: healthcheck is [CMD, editd, probe, unix:{sock}]",
          editd.get("healthcheck", {}).get("test") == ["CMD"] + probe, str(editd.get("healthcheck")))
    check(f"{where}: stop_signal SIGTERM", editd.get("stop_signal") == "SIGTERM")
    grace = re.fullmatch(r"(\d+)s", str(editd.get("stop_grace_period", "10s")))
    check(f"{where}: stop_grace_period above --shutdown-grace ({SHUTDOWN_GRACE} s)",
          bool(grace) and int(grace.group(1)) > SHUTDOWN_GRACE, str(editd.get("stop_grace_period")))
    declared = compose.get("volumes") or {}
    for path, source in mounts.items():
        if path in (root, sockdir) and not source.startswith((".", "/", "$")):
            check(f"deploy/compose.yaml: named volume {source} is declared", source in declared)
    others = {n: s for n, s in services.items() if n != "editd"}
    check("deploy/compose.yaml: an agent service beside editd", bool(others))
    for name, service in others.items():
        theirs = {v.split(":")[1]: v.split(":")[0] for v in service.get("volumes", [])}
        check(f"deploy/compose.yaml: services.{name} shares {root} and {sockdir} with editd",
              all(theirs.get(p) == mounts.get(p) for p in (root, sockdir)), str(theirs))
        check(f"deploy/compose.yaml: services.{name} runs as {uid}:{gid} (the socket is 0600)",
              service.get("user") == f"{uid}:{gid}", str(service.get("user")))
        env = service.get("environment") or {}
        if "EDITD_SOCKET" in env:
            check(f"deploy/compose.yaml: services.{name} EDITD_SOCKET is {sock}", env["EDITD_SOCKET"] == sock)

    # --- deploy/kubernetes/pod.yaml
    pod = load_yaml("deploy/kubernetes/pod.yaml")
    spec = pod.get("spec", {})
    check("deploy/kubernetes/pod.yaml: a v1 Pod", pod.get("apiVersion") == "v1" and pod.get("kind") == "Pod")
    containers = {c.get("name"): c for c in spec.get("containers", [])}
    editd = containers.get("editd", {})
    where = "deploy/kubernetes/pod.yaml: container editd"
    pod_sc = spec.get("securityContext") or {}

    def run_as(c):
        sc = c.get("securityContext") or {}
        return sc.get("runAsUser", pod_sc.get("runAsUser")), sc.get("runAsGroup", pod_sc.get("runAsGroup"))

    check(f"{where}: image is {image}", editd.get("image") == image, str(editd.get("image")))
    check(f"{where}: command and args are the image's default (or absent)",
          editd.get("command") in (None, command[:1]) and editd.get("args") in (None, command[1:]),
          f"{editd.get('command')} {editd.get('args')}")
    check(f"{where}: runAsUser {uid}, runAsGroup {gid}", run_as(editd) == (uid, gid), str(run_as(editd)))
    check("deploy/kubernetes/pod.yaml: runAsNonRoot", pod_sc.get("runAsNonRoot") is True or
          (editd.get("securityContext") or {}).get("runAsNonRoot") is True)
    mounts = {m["mountPath"]: m["name"] for m in editd.get("volumeMounts", [])}
    check(f"{where}: mounts at {root} and {sockdir}", root in mounts and sockdir in mounts, str(mounts))
    volumes = {v["name"]: v for v in spec.get("volumes", [])}
    check("deploy/kubernetes/pod.yaml: the socket directory is an emptyDir",
          "emptyDir" in volumes.get(mounts.get(sockdir), {}), str(volumes.get(mounts.get(sockdir))))
    check("deploy/kubernetes/pod.yaml: every mounted volume is declared",
          all(n in volumes for c in containers.values() for n in (m["name"] for m in c.get("volumeMounts", []))))
    for probe_name in ("readinessProbe", "livenessProbe"):
        got = (editd.get(probe_name) or {}).get("exec", {}).get("command")
        check(f"{where}: {probe_name} execs editd probe unix:{sock}", got == probe, str(got))
    check(f"deploy/kubernetes/pod.yaml: terminationGracePeriodSeconds above --shutdown-grace ({SHUTDOWN_GRACE} s)",
          spec.get("terminationGracePeriodSeconds", 30) > SHUTDOWN_GRACE)
    others = {n: c for n, c in containers.items() if n != "editd"}
    check("deploy/kubernetes/pod.yaml: an agent container beside editd", bool(others))
    for name, c in others.items():
        theirs = {m["mountPath"]: m["name"] for m in c.get("volumeMounts", [])}
        check(f"deploy/kubernetes/pod.yaml: container {name} shares {root} and {sockdir} with editd",
              all(theirs.get(p) == mounts.get(p) for p in (root, sockdir)), str(theirs))
        check(f"deploy/kubernetes/pod.yaml: container {name} runs as {uid}:{gid} (the socket is 0600)",
              run_as(c) == (uid, gid), str(run_as(c)))
        env = {e["name"]: e.get("value") for e in c.get("env", [])}
        if "EDITD_SOCKET" in env:
            check(f"deploy/kubernetes/pod.yaml: container {name} EDITD_SOCKET is {sock}", env["EDITD_SOCKET"] == sock)

    # --- docs/deployment.md shows the same
    docs = read("docs/deployment.md")
    for text in (image, f"{uid}:{gid}", f"unix:{sock}", f"editd probe unix:{sock}", f"{root}",
                 "deploy/compose.yaml", "deploy/kubernetes/pod.yaml", "--token-file /run/secrets/editd-token"):
        check(f"docs/deployment.md mentions {text}", text in docs)

    print(f"{len(failures)} check(s) failed" if failures else "every check passed")
    return 1 if failures else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (YamlError, OSError, KeyError, AttributeError, TypeError) as e:
        print(f"FAIL  {type(e).__name__}: {e}")
        sys.exit(1)
