"""Sums the JFR allocation samples of a broker (`jfr print --events jdk.ObjectAllocationSample`, bench/profile.sh
with ALLOC=1): bytes allocated in all and per produced record, and the largest allocation sites.

Usage: jfr print --events jdk.ObjectAllocationSample FILE | python3 profile-alloc.py RECORDS
"""
import collections
import re
import sys

UNITS = {'bytes': 1, 'kB': 1e3, 'MB': 1e6, 'GB': 1e9}


def main():
    records = int(sys.argv[1])
    total = 0.0
    sites = collections.Counter()
    for event in sys.stdin.read().split('jdk.ObjectAllocationSample')[1:]:
        weight = re.search(r'weight = ([\d.]+) (\w+)', event)
        kind = re.search(r'objectClass = (\S+)', event)
        if not weight or not kind:
            continue
        size = float(weight.group(1)) * UNITS.get(weight.group(2), 1)
        total += size
        frames = [f for f in re.findall(r'^\s+([\w.$<>]+)\(', event, re.M)
                  if not f.startswith(('java.', 'jdk.', 'sun.'))]
        sites[kind.group(1) + ' at ' + (frames[0] if frames else '?')] += size
    print(f'allocated over the measured round: {total / 1e9:.2f} GB, {total / records:.0f} bytes per produced record')
    for site, size in sites.most_common(8):
        print(f'{size / total * 100:5.1f}%  {site}')


if __name__ == '__main__':
    main()
