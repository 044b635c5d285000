package dev.cairn.broker.security;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * Strict UTF-8 decoding for client tokens. {@code new String(bytes, UTF_8)} silently replaces bad sequences with
 * U+FFFD, which would let two different byte strings name the same user; here they are refused instead.
 */
final class Utf8 {

    private Utf8() {
    }

    /** The decoded text, or empty if {@code bytes} is not well-formed UTF-8. */
    static Optional<String> decode(byte[] bytes) {
        try {
            return Optional.of(StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString());
        } catch (CharacterCodingException e) {
            return Optional.empty();
        }
    }

    static byte[] encode(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
