#!/usr/bin/env python3
"""Start time of the Cairn Maelstrom node: process spawn to the init_ok line on stdout (issue 22).

Each run spawns the launcher (by default ../target/cairn-maelstrom-node, next to this tools/ directory) the way
Maelstrom does, writes Maelstrom's init message for a one-node cluster to its stdin at once, and times until an
init_ok reply appears on its stdout. It then closes stdin (the node shuts down on EOF) and waits for the process
to end. Runs are sequential. The figures are min / median / max over the runs, with the load average before and
after (the same numbers `uptime` prints).

Only processes this script started are signalled, by their PID: the launcher execs java, so that PID is the
node's JVM. Every wait is bounded: init_ok within --timeout, exit after EOF within --exit-timeout (then SIGKILL).

The node's Raft directories go to a temporary directory of this script's (-Djava.io.tmpdir in
CAIRN_MAELSTROM_JAVA_OPTS), shared by the runs as /tmp is by successive Maelstrom nodes, removed at the end.

Usage: start-time.py [--runs 7] [--launcher PATH] [--java-opts="-XX:..."] [--timeout 20] [--label TEXT]
Standard library only. Exit status 1 if any run failed (no init_ok in time, non-JSON on stdout, early exit).
"""

import argparse
import json
import os
import selectors
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

INIT = {"src": "c0", "dest": "n0", "body": {"type": "init", "msg_id": 1, "node_id": "n0", "node_ids": ["n0"]}}
JVM_FIGURE_MARK = "init_ok "
JVM_FIGURE_SUFFIX = " ms after the JVM started"
READ_CHUNK_BYTES = 65536


def load_average():
    return "%.2f %.2f %.2f" % os.getloadavg()


def jvm_reported_ms(stderr_path):
    """The node's own figure from its stderr log line 'init_ok N ms after the JVM started', or None."""
    try:
        with open(stderr_path, encoding="utf-8", errors="replace") as f:
            for line in f:
                at = line.find(JVM_FIGURE_SUFFIX)
                if at < 0:
                    continue
                start = line.rfind(JVM_FIGURE_MARK, 0, at)
                if start >= 0 and line[start + len(JVM_FIGURE_MARK):at].strip().isdigit():
                    return int(line[start + len(JVM_FIGURE_MARK):at])
    except OSError:
        pass
    return None


def wait_for_init_ok(proc, timeout_s):
    """Reads proc's stdout until an init_ok line; returns (monotonic time seen or None, problem or None)."""
    deadline = time.monotonic() + timeout_s
    fd = proc.stdout.fileno()
    pending = b""
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None, "no init_ok within %.0f s" % timeout_s
            if not selector.select(timeout=left):
                continue
            chunk = os.read(fd, READ_CHUNK_BYTES)
            if not chunk:
                return None, "stdout closed before init_ok (exit status %s)" % proc.poll()
            pending += chunk
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                seen = time.monotonic()
                text = line.decode("utf-8", errors="replace").strip()
                if not text:
                    continue
                try:
                    body = json.loads(text).get("body", {})
                except (ValueError, AttributeError):
                    return None, "stdout line is not protocol JSON: %r" % text[:200]
                if body.get("type") == "init_ok" and body.get("in_reply_to") == 1:
                    return seen, None
                return None, "unexpected reply before init_ok: %s" % text[:200]


def stop(proc, exit_timeout_s):
    """Closes stdin (the node exits on EOF), waits a bounded time, then SIGKILLs proc's own PID."""
    try:
        proc.stdin.close()
    except OSError:
        pass
    try:
        proc.wait(timeout=exit_timeout_s)
        return "exited %d" % proc.returncode
    except subprocess.TimeoutExpired:
        proc.kill()  # SIGKILL to proc.pid only
        try:
            proc.wait(timeout=exit_timeout_s)
        except subprocess.TimeoutExpired:
            return "still running after SIGKILL (pid %d)" % proc.pid
        return "killed after %.0f s" % exit_timeout_s


def one_run(args, env, stderr_path):
    with open(stderr_path, "wb") as stderr:
        started = time.monotonic()
        proc = subprocess.Popen([args.launcher], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr,
                                env=env, cwd=os.path.dirname(stderr_path))
    try:
        proc.stdin.write((json.dumps(INIT) + "\n").encode("utf-8"))
        proc.stdin.flush()
        seen, problem = wait_for_init_ok(proc, args.timeout)
    except (OSError, ValueError) as e:
        seen, problem = None, "talking to the node failed: %s" % e
    finally:
        ending = stop(proc, args.exit_timeout)
    wall_ms = None if seen is None else (seen - started) * 1000.0
    return wall_ms, jvm_reported_ms(stderr_path), problem, ending


def summary(name, values):
    if not values:
        return "%s: no data" % name
    return "%s: min %.0f / median %.0f / max %.0f ms" % (name, min(values), statistics.median(values), max(values))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--launcher", default=os.path.join(here, "..", "target", "cairn-maelstrom-node"))
    parser.add_argument("--java-opts", default="",
                        help='appended to CAIRN_MAELSTROM_JAVA_OPTS; write --java-opts="-XX:..."')
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds to wait for init_ok per run")
    parser.add_argument("--exit-timeout", type=float, default=10.0, help="seconds to wait for exit after EOF")
    parser.add_argument("--pause", type=float, default=1.0, help="seconds between runs")
    parser.add_argument("--label", default="", help="printed with the summary")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    args.launcher = os.path.abspath(args.launcher)
    if not os.access(args.launcher, os.X_OK):
        parser.error("not an executable launcher: %s" % args.launcher)

    work = tempfile.mkdtemp(prefix="cairn-start-time-")
    env = dict(os.environ)
    env["CAIRN_MAELSTROM_JAVA_OPTS"] = " ".join(
        o for o in (env.get("CAIRN_MAELSTROM_JAVA_OPTS", ""), "-Djava.io.tmpdir=" + work, args.java_opts) if o)
    label = (" [%s]" % args.label) if args.label else ""
    print("launcher %s%s" % (args.launcher, label))
    print("CAIRN_MAELSTROM_JAVA_OPTS=%s" % env["CAIRN_MAELSTROM_JAVA_OPTS"])
    load_before = load_average()
    print("load before: %s" % load_before, flush=True)
    walls, jvms, failures = [], [], 0
    try:
        for run in range(1, args.runs + 1):
            stderr_path = os.path.join(work, "run-%d.stderr" % run)
            wall_ms, jvm_ms, problem, ending = one_run(args, env, stderr_path)
            if problem is not None:
                failures += 1
                kept = os.path.join(tempfile.gettempdir(), "cairn-start-time-failed-run-%d.stderr" % run)
                shutil.copyfile(stderr_path, kept)
                print("run %d: FAILED: %s (%s; node stderr kept in %s)" % (run, problem, ending, kept), flush=True)
            else:
                walls.append(wall_ms)
                if jvm_ms is not None:
                    jvms.append(jvm_ms)
                print("run %d: %.0f ms spawn to init_ok (node's own figure: %s ms after JVM start; %s)"
                      % (run, wall_ms, "?" if jvm_ms is None else jvm_ms, ending), flush=True)
            if run < args.runs:
                time.sleep(args.pause)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    load_after = load_average()
    print("load after: %s" % load_after)
    print("%s%s, %d runs, %d failed, load %s -> %s"
          % (summary("spawn to init_ok", walls), label, args.runs, failures, load_before, load_after))
    print(summary("node's own figure (JVM start to init_ok)", jvms))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
