#!/usr/bin/env python3
"""Latency quantiles of a Maelstrom run, from its history.edn.

Usage: latency.py STORE_DIR_OR_HISTORY [...]
Pairs each :invoke with the next completion of the same process and reports, over :ok completions, the
count and p50/p90/p99/max in milliseconds, overall and per :f (send, poll, commit_offsets, ...).
Maelstrom's own :crash operations (the workload closing a client) are skipped. Standard library only.
"""
import os
import re
import sys

LINE = re.compile(r':time (\d+), :type :(\w+), :process (\d+), :f :([\w-]+)')


def quantile(sorted_values, q):
    if not sorted_values:
        return float('nan')
    index = min(len(sorted_values) - 1, max(0, int(round(q * len(sorted_values) + 0.5)) - 1))
    return sorted_values[index]


def latencies(path):
    pending = {}
    by_f = {}
    with open(path, encoding='utf-8') as history:
        for line in history:
            match = LINE.search(line)
            if not match:
                continue
            time_ns, kind, process, f = int(match.group(1)), match.group(2), match.group(3), match.group(4)
            if f == 'crash':
                continue
            if kind == 'invoke':
                pending[process] = time_ns
            elif process in pending:
                start = pending.pop(process)
                if kind == 'ok':
                    by_f.setdefault(f, []).append((time_ns - start) / 1e6)
    return by_f


def report(name, values):
    values = sorted(values)
    print(f'{name:>16} n={len(values):6d} p50={quantile(values, 0.5):8.2f} p90={quantile(values, 0.9):8.2f} '
          f'p99={quantile(values, 0.99):8.2f} max={values[-1] if values else float("nan"):8.2f} ms')


def main(paths):
    if not paths:
        print(__doc__, file=sys.stderr)
        return 2
    for path in paths:
        if os.path.isdir(path):
            path = os.path.join(path, 'history.edn')
        by_f = latencies(path)
        print(path)
        report('all', [v for values in by_f.values() for v in values])
        for f in sorted(by_f):
            report(f, by_f[f])
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
