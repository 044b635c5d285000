package dev.cairn.protocol.wire;

import java.nio.charset.StandardCharsets;

/** UTF-8 helpers that agree byte for byte with {@link String#getBytes} (a lone surrogate becomes '?'). */
public final class Utf8 {
    private Utf8() {
    }

    public static byte[] encode(String value) {
        return value.getBytes(StandardCharsets.UTF_8);
    }

    /** Returns the encoded length without encoding, so sizing a message allocates nothing. */
    public static int encodedLength(String value) {
        int length = 0;
        int chars = value.length();
        for (int i = 0; i < chars; i++) {
            char c = value.charAt(i);
            if (c < 0x80) {
                length += 1;
            } else if (c < 0x800) {
                length += 2;
            } else if (Character.isHighSurrogate(c) && i + 1 < chars && Character.isLowSurrogate(value.charAt(i + 1))) {
                length += 4;
                i++;
            } else if (Character.isSurrogate(c)) {
                length += 1;
            } else {
                length += 3;
            }
        }
        return length;
    }
}
