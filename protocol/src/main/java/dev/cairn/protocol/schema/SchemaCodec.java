package dev.cairn.protocol.schema;

import dev.cairn.protocol.wire.ByteBufferRecords;
import dev.cairn.protocol.wire.DecodeException;
import dev.cairn.protocol.wire.Readable;
import dev.cairn.protocol.wire.RecordsPayload;
import dev.cairn.protocol.wire.Utf8;
import dev.cairn.protocol.wire.Varints;
import dev.cairn.protocol.wire.Writable;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The one reader, writer and sizer for every message and version: it interprets a {@link Schema} instead of
 * hand-written per-version code (style.md point 3). In a given version, fields outside their {@code versions}
 * are neither read nor written and keep their defaults; flexible versions switch strings, bytes, records and
 * arrays to compact lengths and end every struct with a tagged-field section, in which known tags are decoded,
 * unknown tags skipped, and fields equal to their default omitted on write (as Kafka does).
 *
 * <p>Decoding raises only {@link DecodeException}. Encoding a struct that breaks its schema (a null in a
 * non-nullable field) raises {@link IllegalArgumentException}, as that is a bug in the caller.
 */
public final class SchemaCodec {
    // The loops over fields and array elements are indexed rather than enhanced-for so that encoding allocates no
    // iterators; array values are therefore expected to be random-access lists (ArrayList, List.of).
    private SchemaCodec() {
    }

    /** Reads a message body of the given schema and version. */
    public static Struct read(Schema message, short version, Readable in) {
        return readStruct(message, version, message.isFlexible(version), in);
    }

    /** Writes a message body; exactly {@link #size} bytes. */
    public static void write(Struct message, short version, Writable out) {
        writeStruct(message, version, message.schema().isFlexible(version), out);
    }

    /** The encoded size of a message body in bytes. */
    public static int size(Struct message, short version) {
        return sizeOfStruct(message, version, message.schema().isFlexible(version));
    }

    private static boolean isUntaggedIn(Field<?> field, short version, boolean flexible) {
        return field.isPresentIn(version) && !(flexible && field.isTaggedIn(version));
    }

    // ---------------------------------------------------------------------------------------------- read

    private static Struct readStruct(Schema schema, short version, boolean flexible, Readable in) {
        Struct struct = new Struct(schema);
        List<Field<?>> fields = schema.fields();
        for (int i = 0; i < fields.size(); i++) {
            Field<?> field = fields.get(i);
            if (isUntaggedIn(field, version, flexible)) {
                struct.setBySlot(field.slot(), readValue(field, version, flexible, in));
            }
        }
        if (flexible) {
            readTaggedSection(struct, version, in);
        }
        return struct;
    }

    private static void readTaggedSection(Struct struct, short version, Readable in) {
        int count = in.readUnsignedVarint();
        // A tagged field takes at least two bytes (tag and size), which bounds the loop by the frame.
        if (count < 0 || count > in.remaining() / 2) {
            throw DecodeException.format("tagged field count %d exceeds what %d bytes can hold", count,
                    in.remaining());
        }
        for (int i = 0; i < count; i++) {
            int tag = in.readUnsignedVarint();
            int size = in.readUnsignedVarint();
            if (size < 0 || size > in.remaining()) {
                throw DecodeException.format("tagged field %d of %d bytes exceeds the %d remaining", tag, size,
                        in.remaining());
            }
            Field<?> field = taggedField(struct.schema(), tag, version);
            if (field == null) {
                in.skip(size);
                continue;
            }
            int remainingBefore = in.remaining();
            struct.setBySlot(field.slot(), readValue(field, version, true, in));
            if (remainingBefore - in.remaining() != size) {
                throw DecodeException.format("tagged field %s declared %d bytes but used %d", field, size,
                        remainingBefore - in.remaining());
            }
        }
    }

    private static Field<?> taggedField(Schema schema, int tag, short version) {
        List<Field<?>> tagged = schema.fieldsByTag();
        for (int i = 0; i < tagged.size(); i++) {
            Field<?> field = tagged.get(i);
            if (field.tag() == tag && field.isTaggedIn(version)) {
                return field;
            }
        }
        return null;
    }

    private static Object readValue(Field<?> field, short version, boolean flexible, Readable in) {
        Type<?> type = field.type();
        boolean nullable = field.isNullableIn(version);
        switch (type.kind()) {
            case RECORDS:
                int length = flexible ? in.readCompactLength() : in.readIntLength();
                if (length == Readable.NULL_LENGTH) {
                    return nullOrFail(field, nullable);
                }
                return ByteBufferRecords.of(in.readSlice(length));
            case ARRAY:
                return readArray(field, type, version, flexible, nullable, in);
            default:
                Object value = readPrimitive(type.kind(), flexible, nullable, in);
                return value == null ? nullOrFail(field, nullable) : value;
        }
    }

    private static Object nullOrFail(Field<?> field, boolean nullable) {
        if (!nullable) {
            throw DecodeException.format("non-nullable field %s is null", field);
        }
        return null;
    }

    private static List<Object> readArray(Field<?> field, Type<?> type, short version, boolean flexible,
                                          boolean nullable, Readable in) {
        int count = in.readArrayCount(flexible, elementBytesMin(type, version, flexible));
        if (count == Readable.NULL_LENGTH) {
            nullOrFail(field, nullable);
            return null;
        }
        List<Object> elements = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            if (type.isStructArray()) {
                elements.add(readStruct(type.elementSchema(), version, flexible, in));
            } else {
                Object element = readPrimitive(type.elementType().kind(), flexible, false, in);
                elements.add(element);
            }
        }
        return elements;
    }

    /** Reads a primitive; returns null only for a null string or bytes where {@code nullable} allows it. */
    private static Object readPrimitive(Type.Kind kind, boolean flexible, boolean nullable, Readable in) {
        switch (kind) {
            case BOOL:
                return in.readBoolean();
            case INT8:
                return in.readByte();
            case INT16:
                return in.readShort();
            case INT32:
                return in.readInt();
            case INT64:
                return in.readLong();
            case UINT16:
                return in.readUnsignedShort();
            case FLOAT64:
                return in.readDouble();
            case UUID:
                return in.readUuid();
            case STRING:
                return in.readString(flexible, true);
            case BYTES:
                return in.readBytesField(flexible, true);
            default:
                throw new IllegalStateException("not a primitive kind: " + kind);
        }
    }

    /**
     * The fewest bytes one element of an array can occupy in this version, used to reject an array count that
     * the rest of the frame cannot hold before the list is allocated.
     */
    static int elementBytesMin(Type<?> arrayType, short version, boolean flexible) {
        if (!arrayType.isStructArray()) {
            return kindBytesMin(arrayType.elementType().kind(), flexible);
        }
        int bytes = flexible ? 1 : 0;
        List<Field<?>> fields = arrayType.elementSchema().fields();
        for (int i = 0; i < fields.size(); i++) {
            Field<?> field = fields.get(i);
            if (isUntaggedIn(field, version, flexible)) {
                bytes += kindBytesMin(field.type().kind(), flexible);
            }
        }
        return bytes;
    }

    private static int kindBytesMin(Type.Kind kind, boolean flexible) {
        if (kind.fixedBytes() >= 0) {
            return kind.fixedBytes();
        }
        if (flexible) {
            return 1;
        }
        return kind == Type.Kind.STRING ? Short.BYTES : Integer.BYTES;
    }

    // --------------------------------------------------------------------------------------------- write

    private static void writeStruct(Struct struct, short version, boolean flexible, Writable out) {
        Schema schema = struct.schema();
        List<Field<?>> fields = schema.fields();
        for (int i = 0; i < fields.size(); i++) {
            Field<?> field = fields.get(i);
            if (isUntaggedIn(field, version, flexible)) {
                writeValue(field, struct.getBySlot(field.slot()), version, flexible, out);
            }
        }
        if (!flexible) {
            return;
        }
        int count = 0;
        List<Field<?>> tagged = schema.fieldsByTag();
        for (int i = 0; i < tagged.size(); i++) {
            Field<?> field = tagged.get(i);
            if (isWrittenTagged(field, struct, version)) {
                count++;
            }
        }
        out.writeUnsignedVarint(count);
        for (int i = 0; i < tagged.size(); i++) {
            Field<?> field = tagged.get(i);
            if (isWrittenTagged(field, struct, version)) {
                Object value = struct.getBySlot(field.slot());
                out.writeUnsignedVarint(field.tag());
                out.writeUnsignedVarint(sizeOfValue(field, value, version, true));
                writeValue(field, value, version, true, out);
            }
        }
    }

    private static boolean isWrittenTagged(Field<?> field, Struct struct, short version) {
        return field.isTaggedIn(version) && !field.isDefault(struct.getBySlot(field.slot()));
    }

    private static void checkNullable(Field<?> field, Object value, short version) {
        if (value == null && !field.isNullableIn(version)) {
            throw new IllegalArgumentException("non-nullable field " + field + " is null in version " + version);
        }
    }

    @SuppressWarnings("unchecked")
    private static void writeValue(Field<?> field, Object value, short version, boolean flexible, Writable out) {
        checkNullable(field, value, version);
        Type<?> type = field.type();
        switch (type.kind()) {
            case RECORDS:
                if (value == null) {
                    out.writeLength(Readable.NULL_LENGTH, flexible, false);
                } else {
                    RecordsPayload records = (RecordsPayload) value;
                    out.writeLength(records.sizeInBytes(), flexible, false);
                    out.writeRecords(records);
                }
                return;
            case ARRAY:
                if (value == null) {
                    out.writeLength(Readable.NULL_LENGTH, flexible, false);
                    return;
                }
                List<Object> elements = (List<Object>) value;
                out.writeLength(elements.size(), flexible, false);
                for (int i = 0; i < elements.size(); i++) {
                    Object element = elements.get(i);
                    if (type.isStructArray()) {
                        writeStruct((Struct) element, version, flexible, out);
                    } else {
                        writePrimitive(type.elementType().kind(), element, flexible, out);
                    }
                }
                return;
            default:
                writePrimitive(type.kind(), value, flexible, out);
        }
    }

    private static void writePrimitive(Type.Kind kind, Object value, boolean flexible, Writable out) {
        switch (kind) {
            case BOOL:
                out.writeBoolean((Boolean) value);
                return;
            case INT8:
                out.writeByte((Byte) value);
                return;
            case INT16:
                out.writeShort((Short) value);
                return;
            case INT32:
                out.writeInt((Integer) value);
                return;
            case INT64:
                out.writeLong((Long) value);
                return;
            case UINT16:
                int unsigned = (Integer) value;
                if (unsigned < 0 || unsigned > 0xffff) {
                    throw new IllegalArgumentException("uint16 value out of range: " + unsigned);
                }
                out.writeUnsignedShort(unsigned);
                return;
            case FLOAT64:
                out.writeDouble((Double) value);
                return;
            case UUID:
                out.writeUuid((UUID) value);
                return;
            case STRING:
                out.writeString((String) value, flexible);
                return;
            case BYTES:
                out.writeBytesField((byte[]) value, flexible);
                return;
            default:
                throw new IllegalStateException("not a primitive kind: " + kind);
        }
    }

    // ---------------------------------------------------------------------------------------------- size

    private static int sizeOfStruct(Struct struct, short version, boolean flexible) {
        Schema schema = struct.schema();
        int bytes = 0;
        List<Field<?>> fields = schema.fields();
        for (int i = 0; i < fields.size(); i++) {
            Field<?> field = fields.get(i);
            if (isUntaggedIn(field, version, flexible)) {
                bytes += sizeOfValue(field, struct.getBySlot(field.slot()), version, flexible);
            }
        }
        if (!flexible) {
            return bytes;
        }
        int count = 0;
        List<Field<?>> tagged = schema.fieldsByTag();
        for (int i = 0; i < tagged.size(); i++) {
            Field<?> field = tagged.get(i);
            if (isWrittenTagged(field, struct, version)) {
                count++;
                int valueBytes = sizeOfValue(field, struct.getBySlot(field.slot()), version, true);
                bytes += Varints.sizeOfUnsignedVarint(field.tag()) + Varints.sizeOfUnsignedVarint(valueBytes)
                        + valueBytes;
            }
        }
        return bytes + Varints.sizeOfUnsignedVarint(count);
    }

    private static int sizeOfLength(int length, boolean flexible, boolean int16) {
        if (flexible) {
            return Varints.sizeOfUnsignedVarint(length + 1);
        }
        return int16 ? Short.BYTES : Integer.BYTES;
    }

    @SuppressWarnings("unchecked")
    private static int sizeOfValue(Field<?> field, Object value, short version, boolean flexible) {
        checkNullable(field, value, version);
        Type<?> type = field.type();
        switch (type.kind()) {
            case RECORDS:
                if (value == null) {
                    return sizeOfLength(Readable.NULL_LENGTH, flexible, false);
                }
                int recordsBytes = ((RecordsPayload) value).sizeInBytes();
                return sizeOfLength(recordsBytes, flexible, false) + recordsBytes;
            case ARRAY:
                if (value == null) {
                    return sizeOfLength(Readable.NULL_LENGTH, flexible, false);
                }
                List<Object> elements = (List<Object>) value;
                int bytes = sizeOfLength(elements.size(), flexible, false);
                for (int i = 0; i < elements.size(); i++) {
                    Object element = elements.get(i);
                    bytes += type.isStructArray()
                            ? sizeOfStruct((Struct) element, version, flexible)
                            : sizeOfPrimitive(type.elementType().kind(), element, flexible);
                }
                return bytes;
            default:
                return sizeOfPrimitive(type.kind(), value, flexible);
        }
    }

    private static int sizeOfPrimitive(Type.Kind kind, Object value, boolean flexible) {
        if (kind.fixedBytes() >= 0) {
            return kind.fixedBytes();
        }
        if (kind == Type.Kind.STRING) {
            if (value == null) {
                return sizeOfLength(Readable.NULL_LENGTH, flexible, true);
            }
            int utf8Bytes = Utf8.encodedLength((String) value);
            return sizeOfLength(utf8Bytes, flexible, true) + utf8Bytes;
        }
        if (kind == Type.Kind.BYTES) {
            if (value == null) {
                return sizeOfLength(Readable.NULL_LENGTH, flexible, false);
            }
            int length = ((byte[]) value).length;
            return sizeOfLength(length, flexible, false) + length;
        }
        throw new IllegalStateException("not a primitive kind: " + kind);
    }
}
