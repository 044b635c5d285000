package dev.cairn.broker.security;

import java.util.Optional;

/**
 * A parsed client-first-message (RFC 5802 section 7) as Kafka clients send it:
 * {@code gs2-header client-first-message-bare}, where the gs2-header is {@code n,,} or {@code y,,} (optionally
 * with {@code a=} naming the same user) and the bare part is {@code n=<saslname>,r=<nonce>[,<ext>=<value>]*}.
 * Parsing is strict, since everything here arrives before the client has authenticated.
 *
 * @param gs2Header the header exactly as sent, including its trailing comma; the client echoes it back, base64
 *     encoded, as its channel binding
 * @param username the decoded user name
 * @param nonce the client nonce
 * @param bare client-first-message-bare, the first part of the AuthMessage
 */
record ScramClientFirst(String gs2Header, String username, String nonce, String bare) {

    /** Kafka's extension asking to authenticate with a delegation token instead of a password. */
    static final String TOKEN_AUTH_EXTENSION = "tokenauth";

    static ScramClientFirst parse(ScramMechanism mechanism, String message) throws SaslFailure {
        String name = mechanism.mechanismName();
        int flagEnd = message.indexOf(',');
        int authzidEnd = flagEnd < 0 ? -1 : message.indexOf(',', flagEnd + 1);
        if (authzidEnd < 0) {
            throw SaslFailure.malformed(name, "client-first-message lacks a gs2-header");
        }
        String flag = message.substring(0, flagEnd);
        if (flag.startsWith("p=")) {
            throw SaslFailure.unsupported(name, "channel binding is not supported");
        }
        if (!flag.equals("n") && !flag.equals("y")) {
            throw SaslFailure.malformed(name, "client-first-message has an invalid channel binding flag");
        }
        String authzid = message.substring(flagEnd + 1, authzidEnd);
        String bare = message.substring(authzidEnd + 1);
        String[] attributes = bare.split(",", -1);
        if (attributes[0].startsWith("m=")) {
            throw SaslFailure.unsupported(name, "mandatory extensions (m=) are not supported");
        }
        if (attributes.length < 2 || !attributes[0].startsWith("n=") || !attributes[1].startsWith("r=")) {
            throw SaslFailure.malformed(name, "client-first-message must start n=<user>,r=<nonce>");
        }
        String username = SaslNames.decode(attributes[0].substring(2)).orElseThrow(
                () -> SaslFailure.malformed(name, "client-first-message has an invalid user name encoding"));
        checkUsername(name, username);
        if (!authzid.isEmpty()) {
            Optional<String> requested = authzid.startsWith("a=") ? SaslNames.decode(authzid.substring(2))
                    : Optional.empty();
            if (requested.isEmpty() || requested.get().isEmpty()) {
                throw SaslFailure.malformed(name, "client-first-message has an invalid authorization id");
            }
            if (!requested.get().equals(username)) {
                throw SaslFailure.unsupported(name, "an authorization id different from the user name is not "
                        + "supported");
            }
        }
        String nonce = attributes[1].substring(2);
        checkNonce(name, nonce);
        for (int i = 2; i < attributes.length; i++) {
            checkExtension(name, attributes[i]);
        }
        return new ScramClientFirst(message.substring(0, authzidEnd + 1), username, nonce, bare);
    }

    private static void checkUsername(String name, String username) throws SaslFailure {
        if (username.isEmpty()) {
            throw SaslFailure.malformed(name, "client-first-message has an empty user name");
        }
        if (Utf8.encode(username).length > ScramServer.USERNAME_BYTES_MAX) {
            throw SaslFailure.malformed(name, "user name exceeds " + ScramServer.USERNAME_BYTES_MAX + " bytes");
        }
    }

    private static void checkNonce(String name, String nonce) throws SaslFailure {
        if (nonce.isEmpty()) {
            throw SaslFailure.malformed(name, "client-first-message has an empty nonce");
        }
        if (nonce.length() > ScramServer.CLIENT_NONCE_CHARS_MAX) {
            throw SaslFailure.malformed(name, "client nonce exceeds " + ScramServer.CLIENT_NONCE_CHARS_MAX
                    + " characters");
        }
        if (!isPrintable(nonce)) {
            throw SaslFailure.malformed(name, "client nonce has a character outside printable ASCII");
        }
    }

    /** Extensions are {@code key=value}; Cairn ignores all but a request for delegation-token authentication. */
    private static void checkExtension(String name, String attribute) throws SaslFailure {
        int equals = attribute.indexOf('=');
        if (equals <= 0 || !isLetters(attribute.substring(0, equals))) {
            throw SaslFailure.malformed(name, "client-first-message has a malformed extension");
        }
        if (attribute.substring(0, equals).equals(TOKEN_AUTH_EXTENSION)
                && attribute.substring(equals + 1).equalsIgnoreCase("true")) {
            throw SaslFailure.unsupported(name, "delegation tokens are not supported");
        }
    }

    /** RFC 5802's printable: %x21-7E except ','; callers have already split on ','. */
    static boolean isPrintable(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x21 || c > 0x7E || c == ',') {
                return false;
            }
        }
        return true;
    }

    private static boolean isLetters(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z')) {
                return false;
            }
        }
        return true;
    }
}
