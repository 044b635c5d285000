#!/usr/bin/env python3
"""Regenerates the configuration table in README.md and the commented config/broker.properties from
BrokerConfig's key declarations.

Run from the repository root after adding or changing a key: python3 tools/readme-config-table.py
BrokerConfigTest fails while README.md or config/broker.properties misses a key, so neither can silently
fall behind.
"""
import re
import sys

SOURCES = ['broker/src/main/java/dev/cairn/broker/config/BrokerConfig.java',
           'broker/src/main/java/dev/cairn/broker/config/SecurityKeys.java',
           'broker/src/main/java/dev/cairn/broker/config/RaftTlsKeys.java',
           'broker/src/main/java/dev/cairn/broker/config/RaftEngineKeys.java',
           'broker/src/main/java/dev/cairn/broker/config/TransactionKeys.java']
PRETTY = {'KafkaListener.PROTOCOLMAPDEFAULT': 'PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL',
          '64L * 1024 * 1024': '67108864', '256L * 1024 * 1024': '268435456',
          '1L << 30': '1073741824', '7L * 24 * 3600 * 1000': '604800000',
          'Long.MAXVALUE': '9223372036854775807 (never)'}

source = '\n'.join(open(path, encoding='utf-8').read() for path in SOURCES)
rows = []
properties = []
# A password key has no default argument: give it an empty one so one pattern reads every kind.
source = re.sub(r'passwordKey\(\s*("[^"]+"),', r'passwordKey(\1, "",', source)
# A key with its own parser, new ConfigKey<>("name", "default", "doc", Kind, parser): read it as a string key.
source = re.sub(r'new ConfigKey<>\(\s*("[^"]+"),\s*("[^"]*"),\s*("(?:[^"\\]|\\.)*"(?:\s*\+\s*"(?:[^"\\]|\\.)*")*)'
                r',\s*ConfigKey\.Kind\.\w+,\s*[\w:]+\);',
                r'stringKey(\1, \2, \3);', source, flags=re.S)
pattern = (r'(intKey|longKey|boolKey|stringKey|passwordKey)\(\s*"([^"]+)",\s*(.*?),\s*'
           r'"((?:[^"\\]|\\.)*(?:"\s*\+\s*"(?:[^"\\]|\\.)*)*)"\);')
for match in re.finditer(pattern, source, re.S):
    _, name, rest, doc = match.groups()
    doc = re.sub(r'"\s*\+\s*"', '', doc).replace('\\"', '"')
    text = rest.strip()
    # A quoted default may hold commas (a list); anything else ends at the first comma (the bounds follow).
    default = text[1:text.index('"', 1)] if text.startswith('"') else text.split(',')[0].strip().replace('_', '')
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
