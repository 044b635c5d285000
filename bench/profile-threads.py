"""Groups `perf script -F comm,ip,sym,dso` samples of a broker by what its threads were doing (bench/profile.sh).

Reads the samples on stdin; prints each group's share of the samples and how much of it was in the kernel. The
groups are named after Cairn's and Kafka's threads and the Ratis classes at the root of their stacks.
"""
import collections
import sys

GROUPS = [  # (test on the thread name and joined stack, group), first match wins
    (lambda c, s: c.startswith(("C1 Compiler", "C2 Compiler")), "JIT compiler"),
    (lambda c, s: c.startswith(("GC Thread", "G1 ")), "garbage collector"),
    (lambda c, s: "BufferedWriteChannel" in s or "FileChannelImpl.force" in s, "Raft log fsync (Ratis's flush thread, or the engine's log)"),
    (lambda c, s: "SegmentedRaftLogWorker.run" in s, "Raft log writes (Ratis log worker)"),
    (lambda c, s: "StateMachineUpdater" in s, "apply (Ratis StateMachineUpdater)"),
    (lambda c, s: "LeaderStateImpl" in s, "commit and replies (Ratis LeaderStateImpl)"),
    (lambda c, s: c.startswith("cairn-raft-subm"), "submit lanes: Ratis append, batch into the segment"),
    (lambda c, s: c.startswith("multiThreadIoEv"), "network event loops: decode, handlers, encode, send"),
    (lambda c, s: c.startswith("1@group") or "@group-" in c, "Ratis group threads: futex waits and wake-ups"),
    (lambda c, s: c.startswith("data-plane"), "Kafka network and request handler threads"),
    (lambda c, s: c.startswith("raft-loop-"), "engine event loops: the engine's log write, frames, Raft steps"),
    (lambda c, s: c.startswith("raft-apply-"), "engine apply lanes: entries applied, batches into the segments"),
]


def main():
    samples = []
    thread, stack = None, []
    for line in sys.stdin:
        if not line.strip():
            if thread is not None:
                samples.append((thread, stack))
            thread, stack = None, []
        elif not line[0].isspace():
            thread, stack = line.strip(), []
        else:
            stack.append(line.strip())
    if thread is not None:
        samples.append((thread, stack))
    total = len(samples)
    groups, kernel = collections.Counter(), collections.Counter()
    for thread, stack in samples:
        group = next((name for test, name in GROUPS if test(thread, " ".join(stack))), "other: " + thread)
        groups[group] += 1
        if stack and "[kernel" in stack[0]:   # the sampled frame, with its object in brackets
            kernel[group] += 1
    if not total:
        print("no samples")
        return
    print(f"{total} samples")
    print(f"{'share':>6}  {'kernel':>6}  group")
    for name, count in groups.most_common(14):
        print(f"{100 * count / total:5.1f}%  {100 * kernel[name] / count:5.0f}%  {name}")


if __name__ == "__main__":
    main()
