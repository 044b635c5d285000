#!/usr/bin/env python3
"""Regenerates the configuration table in README.md and the commented config/broker.properties from
BrokerConfig's key declarations.

Run from the repository root after adding or changing a key: python3 tools/readme-config-table.py
BrokerConfigTest fails while README.md or config/broker.properties misses a key, so neither can silently
fall behind.
"""
import re
import sys

SOURCE = 'broker/src/main/java/dev/cairn/broker/config/BrokerConfig.java'
PRETTY = {'1L << 30': '1073741824', '7L * 24 * 3600 * 1000': '604800000',
          'Long.MAXVALUE': '9223372036854775807 (never)'}

source = open(SOURCE, encoding='utf-8').read()
rows = []
properties = []
pattern = r'(intKey|longKey|boolKey|stringKey)\(\s*"([^"]+)",\s*(.*?),\s*"((?:[^"\\]|\\.)*(?:"\s*\+\s*"(?:[^"\\]|\\.)*)*)"\);'
for match in re.finditer(pattern, source, re.S):
    _, name, rest, doc = match.groups()
    doc = re.sub(r'"\s*\+\s*"', '', doc).replace('\\"', '"')
    default = rest.split(',')[0].strip().strip('"').replace('_', '')
    default = PRETTY.get(default, default.rstrip('L'))
    rows.append(f"| `{name}` | `{default or '(empty)'}` | {doc} |")
    bare = default.replace(' (never)', '')
    properties.append(f"# {doc}\n#{name}={bare}\n")

readme = open('README.md', encoding='utf-8').read()
start = readme.index('| key | default | meaning |')
end = readme.index('\n## ', start)
table = '| key | default | meaning |\n|---|---|---|\n' + '\n'.join(rows) + '\n'
open('README.md', 'w', encoding='utf-8').write(readme[:start] + table + readme[end:])
print(f'{len(rows)} keys written to README.md', file=sys.stderr)

header = """# Cairn broker configuration: every key with its default and meaning. All lines are commented out, so
# this file starts the same single-node broker as no file at all. Uncomment and change what you need:
#   ./cairn start --config config/broker.properties
# Generated from BrokerConfig by tools/readme-config-table.py; edit BrokerConfig, then regenerate.

"""
open('config/broker.properties', 'w', encoding='utf-8').write(header + '\n'.join(properties))
print(f'{len(properties)} keys written to config/broker.properties', file=sys.stderr)
