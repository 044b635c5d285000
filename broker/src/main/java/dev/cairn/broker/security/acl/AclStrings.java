package dev.cairn.broker.security.acl;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Strict UTF-8 for the strings of a binding. {@code String.getBytes} and {@code new String(bytes, UTF_8)} replace
 * what they cannot code with '?' or U+FFFD, so two different bindings could encode to the same bytes, or one
 * binding decode to another; a replicated ACL must read back as exactly what was stored, so both ways refuse.
 */
final class AclStrings {

    private AclStrings() {
    }

    /** The UTF-8 bytes of {@code text}, or empty if it holds an unpaired surrogate (it has no UTF-8 form). */
    static Optional<byte[]> encode(String text) {
        try {
            ByteBuffer bytes = StandardCharsets.UTF_8.newEncoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .encode(CharBuffer.wrap(text));
            byte[] out = new byte[bytes.remaining()];
            bytes.get(out);
            return Optional.of(out);
        } catch (CharacterCodingException e) {
            return Optional.empty();
        }
    }

    /** The text of {@code length} bytes at {@code in}'s position, or empty if they are not well-formed UTF-8. */
    static Optional<String> decode(ByteBuffer in, int length) {
        ByteBuffer slice = in.slice();
        slice.limit(length);
        in.position(in.position() + length);
        try {
            return Optional.of(StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(slice)
                    .toString());
        } catch (CharacterCodingException e) {
            return Optional.empty();
        }
    }

    /**
     * Why {@code text} cannot be stored as the binding's {@code field}, or empty when it can: it must have a UTF-8
     * form of at most {@link AclBinding#STRING_BYTES_MAX} bytes.
     */
    static Optional<String> storable(String field, String text) {
        Optional<byte[]> bytes = encode(text);
        if (bytes.isEmpty()) {
            return Optional.of("Invalid " + field + ": not well-formed Unicode");
        }
        if (bytes.get().length > AclBinding.STRING_BYTES_MAX) {
            return Optional.of("Invalid " + field + ": " + bytes.get().length + " UTF-8 bytes, more than the "
                    + AclBinding.STRING_BYTES_MAX + " Cairn stores");
        }
        return Optional.empty();
    }
}
