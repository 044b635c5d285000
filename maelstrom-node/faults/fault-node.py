#!/usr/bin/env python3
"""Maelstrom --bin wrapper that injects process faults into Cairn's Maelstrom node (issue 22).

Maelstrom 0.2.4's only nemesis is `partition`. This wrapper sits between Maelstrom and the real node
(../target/cairn-maelstrom-node), speaking Maelstrom's protocol unchanged, and on a seeded schedule:

  kill   SIGKILLs the node and, after up to CAIRN_FAULT_DOWN_S, starts a new one on the same storage directory
         (--storage-dir), replays the remembered `init` to it and swallows its reply (Maelstrom had its init_ok).
         Messages that arrive while no node runs are dropped, as they would be by a crashed process.
  pause  SIGSTOPs the node for up to CAIRN_FAULT_PAUSE_S, then SIGCONTs it; input is queued meanwhile.
  clock  moves the node's wall clock (CLOCK_REALTIME only) by up to +-CAIRN_FAULT_CLOCK_JUMP_S, through
         libfaketime (Debian's `faketime` package) preloaded into the node with FAKETIME_DONT_FAKE_MONOTONIC=1,
         FAKETIME_FORCE_MONOTONIC_FIX=0 (without it the JVM's timed waits misbehave) and a timestamp file the
         wrapper rewrites, re-read by the node at most once a second. Without libfaketime, clock faults are
         refused (exit 2).

Environment (Maelstrom passes its own environment to --bin):
  CAIRN_FAULTS              comma list of kill,pause,clock; empty or unset: no faults (a plain pass-through)
  CAIRN_FAULT_DIR           directory shared by the nodes of ONE Maelstrom run: node storage (storage/<node>),
                            the slots that bound how many nodes are down at once (slots/), clock files (clock/),
                            and faults.log, one line per fault. Unset: a new directory per wrapper (then the nodes
                            cannot coordinate, and the directory is left behind).
  CAIRN_FAULT_SEED          seed of every node's schedule (default 1); node nX uses seed:nX
  CAIRN_FAULT_INTERVAL_S    mean seconds between two faults of one node (default 5; each wait is 0.5-1.5 times it)
  CAIRN_FAULT_START_S       no fault before this many seconds after the node's first init_ok (default 5)
  CAIRN_FAULT_DURATION_S    no fault starts later than this many seconds after init arrived (default 30; set it
                            to the test's --time-limit, so that the final reads run without faults)
  CAIRN_FAULT_MAX_DOWN      nodes killed or paused at once, over the whole run (default: a minority, (N-1)//2,
                            at least 1; a round that finds no free slot skips its kill or pause)
  CAIRN_FAULT_DOWN_S        a killed node stays down 0 to this many seconds (default 2)
  CAIRN_FAULT_PAUSE_S       a pause lasts 0.5 to this many seconds (default 4)
  CAIRN_FAULT_CLOCK_JUMP_S  a clock fault sets the offset from real time to a value in +-this (default 600)
  CAIRN_FAULT_NODE          the node's launcher (default: ../target/cairn-maelstrom-node beside this script)
  CAIRN_FAULT_AMNESIA       1: deliberately unsafe, a killed node's Raft directory (storage/<node>/raft) is deleted
                            before it restarts: it forgets its log, term and vote (its incarnation count stays), to
                            see whether these runs catch a node that loses what it acknowledged
Arguments after --bin are passed on to the node.

Replies to Maelstrom clients (other than init_ok) that come 4.5 s or more after their request are dropped (a paused node would
otherwise answer a client that Maelstrom closed after its 5 s timeout: "Invalid dest", and Maelstrom stops reading
the node; maelstrom.md 2.4). Such an op is already :info; dropping its reply is a network loss.

Bounded: every wait has a timeout, the input queue to the node is bounded (lines beyond it are dropped), at most
RESTART_TRIES starts per kill. The node is started with PR_SET_PDEATHSIG=SIGKILL, so it dies with this wrapper even
when Maelstrom SIGKILLs the wrapper at teardown; on stdin EOF or SIGTERM the wrapper kills its node (that PID only).
Python 3 standard library only.
"""

import ctypes
import glob
import json
import os
import queue
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
INPUT_QUEUE_MAX = 20_000
INIT_OK_WAIT_S = 20.0
RESTART_TRIES = 3
CLIENT_REPLY_CUTOFF_S = 4.5
PENDING_CLIENT_MAX = 100_000
PENDING_CLIENT_AGE_S = 30.0
KILL_WAIT_S = 10.0
PR_SET_PDEATHSIG = 1

CLIENT_SRC = re.compile(r'"src"\s*:\s*"(c\d+)"')
CLIENT_DEST = re.compile(r'"dest"\s*:\s*"(c\d+)"')
MSG_ID = re.compile(r'"msg_id"\s*:\s*(\d+)')
IN_REPLY_TO = re.compile(r'"in_reply_to"\s*:\s*(\d+)')


def env_float(name, default):
    value = os.environ.get(name, "")
    return float(value) if value else default


def log(message):
    sys.stderr.write("fault-node: %s\n" % message)
    sys.stderr.flush()


def find_libfaketime():
    for pattern in ("/usr/lib/*/faketime/libfaketime.so.1", "/usr/lib/faketime/libfaketime.so.1",
                    "/usr/local/lib/faketime/libfaketime.so.1"):
        found = sorted(glob.glob(pattern))
        if found:
            return found[0]
    return None


def die_with_parent():
    """Runs in the child between fork and exec: SIGKILL it when the wrapper thread that started it ends."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


class Child:
    """One node process, with the thread that writes its stdin from a bounded queue."""

    def __init__(self, wrapper, generation):
        self.generation = generation
        self.inbox = queue.Queue(maxsize=INPUT_QUEUE_MAX)
        self.killed = False
        self.swallow_init = generation > 0
        self.init_ok = threading.Event()
        self.process = subprocess.Popen(
            [wrapper.node, "--storage-dir", os.path.join(wrapper.dir, "storage")] + wrapper.node_args,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=None, env=wrapper.child_env,
            preexec_fn=die_with_parent, bufsize=0)
        self.pid = self.process.pid
        threading.Thread(target=self.write_loop, daemon=True).start()
        threading.Thread(target=wrapper.read_loop, args=(self,), daemon=True).start()

    def offer(self, line):
        try:
            self.inbox.put_nowait(line)
            return True
        except queue.Full:
            return False

    def write_loop(self):
        stdin = self.process.stdin
        while not self.killed:
            try:
                line = self.inbox.get(timeout=1.0)
            except queue.Empty:
                if self.process.poll() is not None:
                    return
                continue
            try:
                view = memoryview(line)
                while view:   # an unbuffered pipe write may be partial
                    view = view[stdin.write(view):]
            except (BrokenPipeError, OSError, ValueError, TypeError):
                return

    def kill(self):
        self.killed = True
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            self.process.wait(timeout=KILL_WAIT_S)
        except Exception:  # noqa: BLE001 (a zombie we cannot reap in time is reaped at exit)
            log("node pid %d did not end within %.0f s of SIGKILL" % (self.pid, KILL_WAIT_S))


class Wrapper:
    def __init__(self):
        self.faults = [f for f in os.environ.get("CAIRN_FAULTS", "").replace(" ", "").split(",") if f]
        unknown = [f for f in self.faults if f not in ("kill", "pause", "clock")]
        if unknown:
            log("unknown faults %s (known: kill, pause, clock)" % unknown)
            sys.exit(2)
        self.node = os.environ.get("CAIRN_FAULT_NODE") or os.path.join(HERE, "..", "target", "cairn-maelstrom-node")
        if not os.access(self.node, os.X_OK):
            log("node launcher %s is missing; build it: mvn -pl maelstrom-node -am package" % self.node)
            sys.exit(2)
        self.node_args = sys.argv[1:]
        self.dir = os.environ.get("CAIRN_FAULT_DIR") or tempfile.mkdtemp(prefix="cairn-fault-node-")
        self.shared = bool(os.environ.get("CAIRN_FAULT_DIR"))
        for sub in ("storage", "slots", "clock"):
            os.makedirs(os.path.join(self.dir, sub), exist_ok=True)
        self.seed = os.environ.get("CAIRN_FAULT_SEED", "1")
        self.interval_s = env_float("CAIRN_FAULT_INTERVAL_S", 5.0)
        self.start_s = env_float("CAIRN_FAULT_START_S", 5.0)
        self.duration_s = env_float("CAIRN_FAULT_DURATION_S", 30.0)
        self.down_s = env_float("CAIRN_FAULT_DOWN_S", 2.0)
        self.pause_s = max(0.5, env_float("CAIRN_FAULT_PAUSE_S", 4.0))
        self.jump_s = env_float("CAIRN_FAULT_CLOCK_JUMP_S", 600.0)
        self.max_down_env = os.environ.get("CAIRN_FAULT_MAX_DOWN", "")
        self.amnesia = os.environ.get("CAIRN_FAULT_AMNESIA", "") == "1"
        self.out_lock = threading.Lock()
        self.state_lock = threading.Lock()
        self.child = None
        self.generation = 0
        self.init_line = None
        self.init_src = None
        self.init_msg_id = None
        self.node_id = None
        self.node_count = 1
        self.init_at = None
        self.initialised = threading.Event()
        self.ready = threading.Event()
        self.stopping = threading.Event()
        self.pending_clients = {}
        self.pending_lock = threading.Lock()
        self.dropped_late = 0
        self.dropped_down = 0
        self.child_env = dict(os.environ)
        self.clock_file = None
        if "clock" in self.faults:
            lib = find_libfaketime()
            if lib is None:
                log("clock faults need libfaketime (apt-get install faketime); refusing to run without it")
                sys.exit(2)
            # One clock file per wrapper until the node id is known; named after this wrapper's pid.
            self.clock_file = os.path.join(self.dir, "clock", "wrapper-%d" % os.getpid())
            self.write_clock(0)
            preload = self.child_env.get("LD_PRELOAD", "")
            self.child_env.update({
                "LD_PRELOAD": (preload + " " + lib).strip(),
                "FAKETIME_TIMESTAMP_FILE": self.clock_file,
                "FAKETIME_DONT_FAKE_MONOTONIC": "1",
                "FAKETIME_CACHE_DURATION": "1",
                # libfaketime's default fix-up of pthread_cond_timedwait for CLOCK_MONOTONIC broke the JVM's timed
                # waits: a one-node init took 6 s instead of 0.8 s and its groups elected no leader. Off, the JVM
                # waits on the real monotonic clock, which is not faked anyway.
                "FAKETIME_FORCE_MONOTONIC_FIX": "0",
            })

    # ---- clock ------------------------------------------------------------------------------------------------

    def write_clock(self, offset_s):
        """libfaketime reads '+N' / '-N' (seconds from real time) from the file, at most once a second."""
        tmp = self.clock_file + ".tmp"
        with open(tmp, "w") as f:
            f.write("%+d\n" % offset_s)
        os.replace(tmp, self.clock_file)

    # ---- protocol pumps ---------------------------------------------------------------------------------------

    def emit(self, line):
        with self.out_lock:
            sys.stdout.buffer.write(line)
            sys.stdout.buffer.flush()

    def read_loop(self, child):
        """Copies one child's stdout to Maelstrom, minus a restarted child's init reply and late client replies."""
        stream = child.process.stdout
        while True:
            try:
                line = stream.readline()
            except (OSError, ValueError):
                line = b""
            if not line:
                break
            text = line.decode("utf-8", "replace")
            if not child.swallow_init and not self.ready.is_set() and self.is_init_reply(text):
                self.ready.set()
            if child.swallow_init and not child.init_ok.is_set() and self.is_init_reply(text):
                body = json.loads(text).get("body", {})
                if body.get("type") != "init_ok":
                    log("restarted node answered init with %s" % body)
                child.init_ok.set()
                continue
            if self.is_late_client_reply(text):
                continue
            if not line.endswith(b"\n"):
                line += b"\n"
            self.emit(line)
        if child.killed or self.stopping.is_set():
            return
        status = child.process.wait(timeout=KILL_WAIT_S)
        log("node pid %d ended on its own with status %s; the wrapper ends with it" % (child.pid, status))
        self.record("crash pid=%d status=%s" % (child.pid, status))
        sys.stdout.flush()
        os._exit(status if isinstance(status, int) and 0 < status < 256 else 1)

    def is_init_reply(self, text):
        m = IN_REPLY_TO.search(text)
        d = CLIENT_DEST.search(text)
        return (m is not None and int(m.group(1)) == self.init_msg_id and d is not None
                and d.group(1) == self.init_src)

    def is_late_client_reply(self, text):
        d = CLIENT_DEST.search(text)
        if d is None:
            return False
        m = IN_REPLY_TO.search(text)
        if m is None:
            return False
        with self.pending_lock:
            arrived = self.pending_clients.pop((d.group(1), int(m.group(1))), None)
        if arrived is not None and time.monotonic() - arrived >= CLIENT_REPLY_CUTOFF_S:
            self.dropped_late += 1
            log("dropped a reply to %s %.1f s after its request (the client has given up)"
                % (d.group(1), time.monotonic() - arrived))
            return True
        return False

    def note_client_request(self, text):
        s = CLIENT_SRC.search(text)
        if s is None:
            return
        m = MSG_ID.search(text[text.find('"body"'):]) if '"body"' in text else None
        if m is None:
            return
        now = time.monotonic()
        with self.pending_lock:
            if len(self.pending_clients) >= PENDING_CLIENT_MAX:
                self.pending_clients = {k: v for k, v in self.pending_clients.items()
                                        if now - v < PENDING_CLIENT_AGE_S}
            self.pending_clients[(s.group(1), int(m.group(1)))] = now

    def on_init(self, line):
        message = json.loads(line)
        body = message["body"]
        self.init_line = line
        self.init_src = message["src"]
        self.init_msg_id = body["msg_id"]
        self.node_id = body["node_id"]
        self.node_count = len(body.get("node_ids", [])) or 1
        self.init_at = time.monotonic()
        if self.clock_file is not None:
            # Give the clock file the node's name too (a link), for whoever reads the run directory.
            named = os.path.join(self.dir, "clock", self.node_id)
            try:
                os.symlink(os.path.basename(self.clock_file), named)
            except OSError:
                pass
        self.initialised.set()

    def pump_stdin(self):
        for line in sys.stdin.buffer:
            text = line.decode("utf-8", "replace")
            is_init = False
            if self.init_line is None and '"init"' in text:
                try:
                    is_init = json.loads(text)["body"].get("type") == "init"
                except (ValueError, KeyError, TypeError):
                    pass
                if is_init:
                    self.on_init(line)
            # Not init: Maelstrom waits 10 s for init_ok, and a loaded host can take more than 4.5 s to start a JVM
            # (a CI run lost every init_ok to the late-reply cut-off before this).
            if not is_init and CLIENT_SRC.search(text):
                self.note_client_request(text)
            with self.state_lock:
                child = self.child
            if child is None or child.killed:
                self.dropped_down += 1
                continue
            if not child.offer(line):
                log("input queue of node pid %d full (%d lines); dropped a message" % (child.pid, INPUT_QUEUE_MAX))

    # ---- faults -----------------------------------------------------------------------------------------------

    def record(self, what):
        since = time.monotonic() - self.init_at if self.init_at is not None else 0.0
        line = "%7.2f %s %s\n" % (since, self.node_id or "?", what)
        with open(os.path.join(self.dir, "faults.log"), "a") as f:
            f.write(line)
        log(what)

    def max_down(self):
        if self.max_down_env:
            return int(self.max_down_env)
        return max(1, (self.node_count - 1) // 2)

    def take_slot(self):
        for i in range(self.max_down()):
            path = os.path.join(self.dir, "slots", "slot-%d" % i)
            try:
                fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                continue
            os.write(fd, ("%s %d\n" % (self.node_id, os.getpid())).encode())
            os.close(fd)
            return path
        return None

    def start_child(self):
        with self.state_lock:
            child = Child(self, self.generation)
            self.generation += 1
            self.child = child
        return child

    def kill_and_restart(self, rng):
        with self.state_lock:
            old = self.child
        old.kill()
        down = rng.uniform(0, self.down_s)
        self.record("kill pid=%d down=%.1fs" % (old.pid, down))
        if self.amnesia:
            shutil.rmtree(os.path.join(self.dir, "storage", self.node_id, "raft"), ignore_errors=True)
            self.record("amnesia: deleted the Raft directory of %s" % self.node_id)
        self.stopping.wait(down)
        for attempt in range(1, RESTART_TRIES + 1):
            if self.stopping.is_set():
                return
            child = self.start_child()
            child.offer(self.init_line)
            if child.init_ok.wait(INIT_OK_WAIT_S):
                self.record("restarted pid=%d init_ok" % child.pid)
                return
            self.record("restarted pid=%d gave no init reply within %.0f s (try %d)"
                        % (child.pid, INIT_OK_WAIT_S, attempt))
            child.kill()
        log("node could not be restarted; ending the wrapper so that Maelstrom sees a crashed node")
        os._exit(1)

    def pause(self, rng):
        with self.state_lock:
            child = self.child
        seconds = rng.uniform(0.5, self.pause_s)
        self.record("pause pid=%d for=%.1fs" % (child.pid, seconds))
        try:
            os.kill(child.pid, signal.SIGSTOP)
            self.stopping.wait(seconds)
        finally:
            try:
                os.kill(child.pid, signal.SIGCONT)
            except ProcessLookupError:
                pass

    def clock_jump(self, rng):
        offset = int(round(rng.uniform(-self.jump_s, self.jump_s)))
        self.write_clock(offset)
        self.record("clock offset=%+ds" % offset)

    def fault_loop(self):
        """Runs for the wrapper's lifetime: a node started from this thread dies when the thread ends."""
        while not self.ready.wait(1.0):
            if self.stopping.is_set():
                return
        if not self.faults:
            self.stopping.wait()
            return
        if not self.shared:
            log("CAIRN_FAULT_DIR is unset: the nodes cannot coordinate, so more than a minority may be down at once")
        rng = random.Random("%s:%s" % (self.seed, self.node_id))
        next_at = time.monotonic() + self.start_s + rng.uniform(0, self.interval_s)
        while not self.stopping.is_set():
            now = time.monotonic()
            if now - self.init_at > self.duration_s:
                break
            if now < next_at:
                self.stopping.wait(min(1.0, next_at - now))
                continue
            kind = rng.choice(self.faults)
            if kind == "clock":
                self.clock_jump(rng)
            else:
                slot = self.take_slot()
                if slot is None:
                    self.record("%s skipped: %d node(s) already down" % (kind, self.max_down()))
                else:
                    try:
                        if kind == "kill":
                            self.kill_and_restart(rng)
                        else:
                            self.pause(rng)
                    finally:
                        os.unlink(slot)
            next_at = time.monotonic() + rng.uniform(0.5, 1.5) * self.interval_s
        self.record("faults over (dropped %d messages while down, %d late client replies)"
                    % (self.dropped_down, self.dropped_late))
        self.stopping.wait()

    def run(self):
        signal.signal(signal.SIGTERM, lambda *_: self.stop(143))
        faults = threading.Thread(target=self.fault_loop, name="faults")
        # The first node is started from the main thread, which lives as long as the wrapper (PR_SET_PDEATHSIG
        # follows the thread that started the node); restarts come from the fault thread, which lives as long too.
        self.start_child()
        faults.start()
        try:
            self.pump_stdin()
        finally:
            self.stop(0)

    def stop(self, status):
        self.stopping.set()
        with self.state_lock:
            child = self.child
        if child is not None:
            child.kill()
        os._exit(status)


if __name__ == "__main__":
    Wrapper().run()
