#!/usr/bin/env python3
"""Generates protocol/src/main/java/dev/cairn/protocol/message/*.java from the message specs in kafka-clients.

The specs are facts about the wire format (field names, types, versions); this script turns them into
Schema declarations for the versions Cairn supports. It emits no Kafka code and none of the specs' prose.

Usage: python3 protocol/tools/generate_message_schemas.py [path/to/kafka-clients-4.4.0.jar]
Keep DECLARED_VERSIONS in step with ApiKey's supported-version table; ApiKey checks that every supported
version is declared, and MessageSpecConformanceTest checks the declarations against the specs.
"""
import glob
import json
import os
import re
import sys
import zipfile

KAFKA_CLIENTS_VERSION = "4.4.0"

# API name -> (lowest, highest) version whose fields are declared. Must cover ApiKey's supported range.
DECLARED_VERSIONS = {
    "ApiVersions": (0, 3), "Metadata": (1, 13), "Produce": (3, 7), "Fetch": (4, 11), "ListOffsets": (1, 2),
    "OffsetCommit": (2, 7), "OffsetFetch": (1, 7), "FindCoordinator": (0, 2), "JoinGroup": (0, 5),
    "SyncGroup": (0, 3), "Heartbeat": (0, 3), "LeaveGroup": (0, 1), "InitProducerId": (0, 4),
    "CreateTopics": (2, 4), "DeleteTopics": (1, 1), "DescribeCluster": (0, 0), "ListGroups": (0, 5),
    "DescribeGroups": (0, 3), "CreatePartitions": (0, 3), "DescribeConfigs": (1, 4),
    "DeleteGroups": (0, 2), "OffsetDelete": (0, 0), "DeleteRecords": (0, 2), "DescribeLogDirs": (1, 4),
    "ElectLeaders": (0, 2), "SaslHandshake": (1, 1), "SaslAuthenticate": (0, 2),
    "DescribeUserScramCredentials": (0, 0), "AlterUserScramCredentials": (0, 0), "DescribeClientQuotas": (0, 1),
    "DescribeAcls": (1, 3), "CreateAcls": (1, 3), "DeleteAcls": (1, 3), "AlterConfigs": (0, 2),
    "IncrementalAlterConfigs": (0, 1), "OffsetForLeaderEpoch": (2, 4),
    "AlterPartitionReassignments": (0, 1), "ListPartitionReassignments": (0, 0),
    "AddPartitionsToTxn": (0, 3), "AddOffsetsToTxn": (0, 3), "EndTxn": (0, 4), "TxnOffsetCommit": (0, 4),
    "DescribeProducers": (0, 0), "DescribeTransactions": (0, 0), "ListTransactions": (0, 1),
    "WriteTxnMarkers": (1, 1),
}

PRIMITIVES = {
    "bool": ("Boolean", "BOOL"), "int8": ("Byte", "INT8"), "int16": ("Short", "INT16"),
    "int32": ("Integer", "INT32"), "int64": ("Long", "INT64"), "uint16": ("Integer", "UINT16"),
    "float64": ("Double", "FLOAT64"), "uuid": ("UUID", "UUID"), "string": ("String", "STRING"),
    "bytes": ("byte[]", "BYTES"), "records": ("RecordsPayload", "RECORDS"),
}
# The style rules' longest line (config/checkstyle.xml).
LINE_MAX = 120
RESERVED_CONSTANTS = {"SCHEMA", "BUILDER", "DECLARED_VERSIONS"}


def parse_versions(spec):
    if spec is None or spec == "none":
        return None
    if spec.endswith("+"):
        return int(spec[:-1]), 1 << 15
    if "-" in spec:
        low, high = spec.split("-")
        return int(low), int(high)
    return int(spec), int(spec)


def overlaps(spec, low, high):
    versions = parse_versions(spec)
    return versions is not None and versions[0] <= high and versions[1] >= low


def constant_name(name):
    snake = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    snake = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1_\2", snake)
    return snake.upper()


def default_literal(field, kind):
    value = field["default"]
    text = str(value)
    if text == "null" and (kind == "string" or kind.startswith("[]")):
        return "null"
    if kind == "string":
        return "null" if text == "null" else json.dumps(text)
    if kind == "bool":
        return text
    number = int(text, 16) if text.lower().startswith("0x") else int(text)
    if kind == "int8":
        return "(byte) %d" % number
    if kind == "int16":
        return "(short) %d" % number
    if kind == "int64":
        return "%dL" % number
    if kind in ("int32", "uint16"):
        return "%d" % number
    raise ValueError("unsupported default for %s: %s" % (kind, text))


class Generator:
    def __init__(self, spec, low, high):
        self.spec = spec
        # Structs the spec declares once and names by type elsewhere (its commonStructs).
        self.common = {struct["name"]: struct["fields"] for struct in spec.get("commonStructs", [])}
        self.low = low
        self.high = high
        self.structs = []
        self.struct_names = set()

    def type_of(self, field, owner_lines):
        kind = field["type"]
        if kind in PRIMITIVES:
            java, constant = PRIMITIVES[kind]
            return java, "Type." + constant
        if kind.startswith("[]"):
            element = kind[2:]
            if element in PRIMITIVES:
                java, constant = PRIMITIVES[element]
                return "List<%s>" % java, "Type.arrayOf(Type.%s)" % constant
            fields = field.get("fields", self.common.get(element))
            if fields is None:
                raise ValueError("struct %s referenced without fields" % element)
            if element not in self.struct_names:
                self.emit_struct(element, fields)
            return "List<Struct>", "Type.arrayOf(%s.SCHEMA)" % element
        raise ValueError("unsupported type %s (a struct-typed field in a declared version)" % kind)

    @staticmethod
    def layout(tokens, indent):
        """Lays a statement out in lines of at most 120 columns, continuation lines indented by eight more."""
        lines = []
        current = indent + tokens[0]
        for token in tokens[1:]:
            separator = " " if current.endswith("=") else ""
            if len(current) + len(separator) + len(token) > 120:
                lines.append(current)
                current = indent + "        " + token
            else:
                current += separator + token
        lines.append(current)
        return lines

    def field_lines(self, field, builder):
        java, type_expr = self.type_of(field, None)
        name = field["name"]
        constant = constant_name(name)
        if constant in RESERVED_CONSTANTS:
            raise ValueError("field constant %s collides" % constant)
        calls = ['.versions("%s")' % field["versions"]]
        if "nullableVersions" in field:
            calls.append('.nullableVersions("%s")' % field["nullableVersions"])
        if "tag" in field:
            calls.append('.tag(%d, "%s")' % (field["tag"], field["taggedVersions"]))
        if "default" in field:
            calls.append(".defaultValue(%s)" % default_literal(field, field["type"]))
        if "flexibleVersions" in field:
            raise ValueError("field-level flexibleVersions is not supported: %s" % name)
        declaration = "public static final Field<%s> %s =" % (java, constant)
        return [declaration, "BUILDER.field(\"%s\", %s)" % (name, type_expr)] + calls + [".add();"]

    def declared(self, fields):
        return [f for f in fields if overlaps(f["versions"], self.low, self.high)]

    def emit_struct(self, name, fields):
        if name in self.struct_names:
            raise ValueError("duplicate struct %s" % name)
        self.struct_names.add(name)
        body = []
        for field in self.declared(fields):
            body.extend(self.layout(self.field_lines(field, "BUILDER"), "        "))
        self.structs.append((name, body))

    def generate(self):
        name = self.spec["name"]
        api = name[:-len("Request")] if name.endswith("Request") else name[:-len("Response")]
        message_lines = []
        for field in self.declared(self.spec["fields"]):
            message_lines.extend(self.layout(self.field_lines(field, "BUILDER"), "    "))
        text_all = "\n".join(message_lines + [l for _, b in self.structs for l in b])
        imports = {"dev.cairn.protocol.schema.Schema"}
        if "Field<" in text_all:
            imports.update({"dev.cairn.protocol.schema.Field", "dev.cairn.protocol.schema.Type"})
        if "List<" in text_all:
            imports.add("java.util.List")
        if "List<Struct>" in text_all:
            imports.add("dev.cairn.protocol.schema.Struct")
        if "<UUID>" in text_all:
            imports.add("java.util.UUID")
        if "RecordsPayload" in text_all:
            imports.add("dev.cairn.protocol.wire.RecordsPayload")
        out = ["package dev.cairn.protocol.message;", ""]
        out += ["import %s;" % i for i in sorted(imports)]
        kind = "request" if name.endswith("Request") else "response"
        first = (" * The %s %s (API key %d): the fields of Kafka's {@code %s.json} that exist in"
                 % (api, kind, self.spec["apiKey"], name))
        second = (" * versions %d-%d, with the spec's names, types, versions, nullable versions, tags and defaults."
                  % (self.low, self.high))
        if len(first) > LINE_MAX:
            # Long API names: the spec file name moves to the next line, so no line passes the style limit.
            first = " * The %s %s (API key %d): the fields of Kafka's" % (api, kind, self.spec["apiKey"])
            second = (" * {@code %s.json} that exist in versions %d-%d, with the spec's names, types, versions,"
                      % (name, self.low, self.high))
            second += "\n * nullable versions, tags and defaults."
        out += ["", "/**", first, second,
                " * Generated by {@code protocol/tools/generate_message_schemas.py} from kafka-clients %s; regenerate,"
                " do not edit."
                % KAFKA_CLIENTS_VERSION,
                " */",
                "public final class %s {" % name]
        for struct_name, body in self.structs:
            out.append("    /** The {@code %s} struct. */" % struct_name)
            out.append("    public static final class %s {" % struct_name)
            out.append('        private static final Schema.Builder BUILDER = Schema.struct("%s");' % struct_name)
            out.extend(body)
            out.append("        public static final Schema SCHEMA = BUILDER.build();")
            out.append("")
            out.append("        private %s() {" % struct_name)
            out.append("        }")
            out.append("    }")
            out.append("")
        builder = ('    private static final Schema.Builder BUILDER = Schema.message("%s", %d, "%s", "%d-%d");'
                   % (name, self.spec["apiKey"], self.spec["flexibleVersions"], self.low, self.high))
        if len(builder) > LINE_MAX:
            builder = ('    private static final Schema.Builder BUILDER = Schema.message("%s", %d,\n            "%s", "%d-%d");'
                       % (name, self.spec["apiKey"], self.spec["flexibleVersions"], self.low, self.high))
        out.append(builder)
        out.extend(message_lines)
        out.append("    public static final Schema SCHEMA = BUILDER.build();")
        out.append("")
        out.append("    private %s() {" % name)
        out.append("    }")
        out.append("}")
        return "\n".join(out) + "\n"


def main():
    jar = sys.argv[1] if len(sys.argv) > 1 else glob.glob(os.path.expanduser(
        "~/.m2/repository/org/apache/kafka/kafka-clients/%s/kafka-clients-%s.jar"
        % (KAFKA_CLIENTS_VERSION, KAFKA_CLIENTS_VERSION)))[0]
    target = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                          "../src/main/java/dev/cairn/protocol/message")
    with zipfile.ZipFile(jar) as archive:
        for api, (low, high) in DECLARED_VERSIONS.items():
            for suffix in ("Request", "Response"):
                text = archive.read("common/message/%s%s.json" % (api, suffix)).decode("utf-8")
                spec = json.loads(re.sub(r"^\s*//.*$", "", text, flags=re.M))
                source = Generator(spec, low, high).generate()
                with open(os.path.join(target, "%s%s.java" % (api, suffix)), "w") as handle:
                    handle.write(source)


if __name__ == "__main__":
    main()
