package dev.cairn.broker.security;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Reads the users out of a broker's PLAIN JAAS text, the {@code sasl.jaas.config} value Kafka operators already
 * have, for example
 * <pre>
 * org.apache.kafka.common.security.plain.PlainLoginModule required
 *     username="admin" password="admin-secret" user_admin="admin-secret" user_alice="alice-secret";
 * </pre>
 * Each {@code user_<name>="<password>"} option defines a user; other options ({@code username} and
 * {@code password} are the broker's own login elsewhere) are ignored. Values are double-quoted, with {@code \}
 * escaping the next character, or unquoted words. Exactly one login module, flagged {@code required}, ending
 * with {@code ;}.
 *
 * <p>The text holds passwords, so an error names only a character position, the expected token, or an option key
 * that was followed by '=' (hence a key, not a stray password word); never a value or any other part of the text.
 */
public final class JaasPlainUsers {

    /** The only login module accepted. */
    public static final String PLAIN_LOGIN_MODULE = "org.apache.kafka.common.security.plain.PlainLoginModule";

    private static final String USER_PREFIX = "user_";

    private final String text;
    private int pos;

    private JaasPlainUsers(String text) {
        this.text = text;
    }

    /**
     * The users and passwords, in the order given.
     *
     * @throws IllegalArgumentException if the text is not one PlainLoginModule entry as described above, or
     *     defines an option twice, or a user with an empty name or password
     */
    public static Map<String, String> parse(String jaasConfig) {
        Objects.requireNonNull(jaasConfig, "jaasConfig");
        return new JaasPlainUsers(jaasConfig).entry();
    }

    private Map<String, String> entry() {
        skipWhitespace();
        int moduleStart = pos;
        if (!word().equals(PLAIN_LOGIN_MODULE)) {
            throw fail(moduleStart, "the login module must be " + PLAIN_LOGIN_MODULE);
        }
        skipWhitespace();
        int flagStart = pos;
        if (!word().equalsIgnoreCase("required")) {
            throw fail(flagStart, "the login module's flag must be 'required'");
        }
        Map<String, String> options = new LinkedHashMap<>();
        Map<String, String> users = new LinkedHashMap<>();
        while (true) {
            skipWhitespace();
            if (pos >= text.length()) {
                throw fail(pos, "the login module entry must end with ';'");
            }
            if (text.charAt(pos) == ';') {
                pos++;
                break;
            }
            option(options, users);
        }
        skipWhitespace();
        if (pos < text.length()) {
            throw fail(pos, "only one login module entry is allowed, with nothing after its ';'");
        }
        return Collections.unmodifiableMap(users);
    }

    private void option(Map<String, String> options, Map<String, String> users) {
        int keyStart = pos;
        while (pos < text.length() && !isDelimiter(text.charAt(pos)) && text.charAt(pos) != '=') {
            pos++;
        }
        String key = text.substring(keyStart, pos);
        skipWhitespace();
        if (key.isEmpty() || pos >= text.length() || text.charAt(pos) != '=') {
            throw fail(keyStart, "expected an option key=value");
        }
        pos++;
        skipWhitespace();
        String value = value(key);
        if (options.putIfAbsent(key, value) != null) {
            throw fail(keyStart, "option '" + key + "' is given twice");
        }
        if (key.startsWith(USER_PREFIX)) {
            String user = key.substring(USER_PREFIX.length());
            if (user.isEmpty()) {
                throw fail(keyStart, "option '" + USER_PREFIX + "' names no user");
            }
            if (value.isEmpty()) {
                throw fail(keyStart, "option '" + key + "' gives an empty password");
            }
            users.put(user, value);
        }
    }

    private String value(String key) {
        if (pos < text.length() && text.charAt(pos) == '"') {
            return quoted(key);
        }
        int start = pos;
        while (pos < text.length() && !isDelimiter(text.charAt(pos))) {
            pos++;
        }
        if (start == pos) {
            throw fail(start, "option '" + key + "' has no value");
        }
        return text.substring(start, pos);
    }

    private String quoted(String key) {
        int start = pos;
        pos++;
        StringBuilder value = new StringBuilder();
        while (pos < text.length()) {
            char c = text.charAt(pos++);
            if (c == '"') {
                return value.toString();
            }
            if (c == '\\') {
                if (pos >= text.length()) {
                    break;
                }
                c = text.charAt(pos++);
            }
            value.append(c);
        }
        throw fail(start, "option '" + key + "' has an unterminated quoted value");
    }

    private String word() {
        int start = pos;
        while (pos < text.length() && !isDelimiter(text.charAt(pos))) {
            pos++;
        }
        return text.substring(start, pos);
    }

    private static boolean isDelimiter(char c) {
        return Character.isWhitespace(c) || c == ';' || c == '"';
    }

    private void skipWhitespace() {
        while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
            pos++;
        }
    }

    private static IllegalArgumentException fail(int position, String what) {
        return new IllegalArgumentException("invalid PLAIN JAAS configuration at character " + position + ": " + what);
    }
}
