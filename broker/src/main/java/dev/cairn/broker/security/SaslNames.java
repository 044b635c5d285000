package dev.cairn.broker.security;

import java.util.Optional;

/**
 * SCRAM's saslname encoding (RFC 5802 section 5.1): a user name travels with ',' written {@code =2C} and '='
 * written {@code =3D}, so it cannot break the comma-separated message. Any other '=' is malformed, which keeps the
 * mapping one-to-one: each user name has exactly one encoding.
 */
final class SaslNames {

    private SaslNames() {
    }

    /** The decoded name, or empty if {@code encoded} holds a NUL or an '=' not starting {@code =2C} or {@code =3D}. */
    static Optional<String> decode(String encoded) {
        StringBuilder decoded = new StringBuilder(encoded.length());
        for (int i = 0; i < encoded.length(); i++) {
            char c = encoded.charAt(i);
            if (c == '\u0000') {
                return Optional.empty();
            } else if (c != '=') {
                decoded.append(c);
            } else if (encoded.startsWith("=2C", i)) {
                decoded.append(',');
                i += 2;
            } else if (encoded.startsWith("=3D", i)) {
                decoded.append('=');
                i += 2;
            } else {
                return Optional.empty();
            }
        }
        return Optional.of(decoded.toString());
    }

    /** The saslname for {@code name}. */
    static String encode(String name) {
        return name.replace("=", "=3D").replace(",", "=2C");
    }
}
