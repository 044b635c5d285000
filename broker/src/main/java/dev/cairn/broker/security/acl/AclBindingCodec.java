package dev.cairn.broker.security.acl;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * The replicated binary form of an {@link AclBinding}: version (1 byte, currently 1); the resource type, pattern
 * type, operation and permission as Kafka's one-byte codes; then the resource name, principal and host, each a
 * 2-byte big-endian length and that many bytes of UTF-8. The version byte lets a later Cairn add fields while
 * still reading what an older one stored; Kafka's codes keep the enums' meaning fixed across Cairn versions, since
 * Kafka never renumbers them.
 *
 * <p>Decoding checks structure only (known codes, lengths, UTF-8), not {@link AclBinding#invalidReason()}: what
 * bindings are acceptable is policy and may loosen in a later version, and a replica must still load what an
 * earlier leader accepted.
 */
final class AclBindingCodec {

    static final byte VERSION = 1;
    private static final int HEADER_BYTES = 1 + 4;

    private AclBindingCodec() {
    }

    static byte[] encode(AclBinding binding) {
        byte[] name = field("resourceName", binding.resourceName());
        byte[] principal = field("principal", binding.principal());
        byte[] host = field("host", binding.host());
        ByteBuffer out = ByteBuffer.allocate(HEADER_BYTES + 6 + name.length + principal.length + host.length);
        out.put(VERSION)
                .put(Objects.requireNonNull(binding.resourceType(), "resourceType").code())
                .put(Objects.requireNonNull(binding.patternType(), "patternType").code())
                .put(Objects.requireNonNull(binding.operation(), "operation").code())
                .put(Objects.requireNonNull(binding.permission(), "permission").code());
        for (byte[] bytes : new byte[][] {name, principal, host}) {
            out.putShort((short) bytes.length).put(bytes);
        }
        return out.array();
    }

    static AclBinding decode(byte[] encoded) {
        Objects.requireNonNull(encoded, "encoded");
        if (encoded.length > AclBinding.ENCODED_BYTES_MAX) {
            throw new IllegalArgumentException("encoded ACL binding is " + encoded.length + " bytes, more than the "
                    + AclBinding.ENCODED_BYTES_MAX + " allowed");
        }
        ByteBuffer in = ByteBuffer.wrap(encoded);
        try {
            byte version = in.get();
            if (version != VERSION) {
                throw new IllegalArgumentException("unknown ACL binding encoding version " + version);
            }
            ResourceType resourceType = code(in.get(), ResourceType::fromCode, "resource type");
            PatternType patternType = code(in.get(), PatternType::fromCode, "pattern type");
            AclOperation operation = code(in.get(), AclOperation::fromCode, "operation");
            AclPermission permission = code(in.get(), AclPermission::fromCode, "permission");
            String name = readString(in, "resourceName");
            String principal = readString(in, "principal");
            String host = readString(in, "host");
            if (in.hasRemaining()) {
                throw new IllegalArgumentException("encoded ACL binding has " + in.remaining() + " trailing bytes");
            }
            return new AclBinding(resourceType, name, patternType, principal, host, operation, permission);
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("encoded ACL binding is truncated at " + encoded.length + " bytes", e);
        }
    }

    private static byte[] field(String name, String text) {
        Objects.requireNonNull(text, name);
        byte[] bytes = AclStrings.encode(text).orElseThrow(
                () -> new IllegalArgumentException(name + " is not well-formed Unicode"));
        if (bytes.length > AclBinding.STRING_BYTES_MAX) {
            throw new IllegalArgumentException(name + " is " + bytes.length + " UTF-8 bytes, more than "
                    + AclBinding.STRING_BYTES_MAX);
        }
        return bytes;
    }

    private static <T> T code(byte code, Function<Byte, Optional<T>> fromCode, String what) {
        return fromCode.apply(code).orElseThrow(
                () -> new IllegalArgumentException("encoded ACL binding has unknown " + what + " code " + code));
    }

    private static String readString(ByteBuffer in, String name) {
        int length = Short.toUnsignedInt(in.getShort());
        if (length > AclBinding.STRING_BYTES_MAX) {
            throw new IllegalArgumentException("encoded ACL binding's " + name + " is " + length
                    + " bytes, more than " + AclBinding.STRING_BYTES_MAX);
        }
        if (length > in.remaining()) {
            throw new BufferUnderflowException();
        }
        return AclStrings.decode(in, length).orElseThrow(
                () -> new IllegalArgumentException("encoded ACL binding's " + name + " is not well-formed UTF-8"));
    }
}
