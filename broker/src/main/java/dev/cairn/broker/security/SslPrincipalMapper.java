package dev.cairn.broker.security;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Kafka's {@code ssl.principal.mapping.rules} (KIP-371): turns a client certificate's subject (its distinguished name,
 * RFC 2253, e.g. {@code CN=alice,OU=apps,O=Example}) into the principal's name. Rules are tried in order, separated
 * by commas: {@code RULE:pattern/replacement/} with an optional {@code L} or {@code U} after the last slash (lower or
 * upper case the result), where the pattern must match the whole name and the replacement may use its groups
 * ({@code $1}); or {@code DEFAULT}, the name as it is. When no rule matches, the client is not authenticated, as in
 * Kafka.
 */
public final class SslPrincipalMapper {
    /** Kafka's default: the subject as it is. */
    public static final String DEFAULT_RULES = "DEFAULT";
    private static final Pattern RULE = Pattern.compile(
            "\\s*(?:(DEFAULT)|RULE:((?:\\\\.|[^\\\\/])*)/((?:\\\\.|[^\\\\/])*)/([LU]?))\\s*(?:,|$)");

    private final List<Rule> rules;

    private record Rule(Pattern pattern, String replacement, String caseChange) {
        Optional<String> apply(String name) {
            if (pattern == null) {
                return Optional.of(name);
            }
            Matcher matcher = pattern.matcher(name);
            if (!matcher.matches()) {
                return Optional.empty();
            }
            String result = matcher.replaceAll(replacement);
            return Optional.of(switch (caseChange) {
                case "L" -> result.toLowerCase(Locale.ROOT);
                case "U" -> result.toUpperCase(Locale.ROOT);
                default -> result;
            });
        }
    }

    private SslPrincipalMapper(List<Rule> rules) {
        this.rules = List.copyOf(rules);
    }

    /** Parses the rules; fails with a message naming the first part that is not a rule. */
    public static SslPrincipalMapper parse(String text) {
        List<Rule> rules = new ArrayList<>();
        Matcher matcher = RULE.matcher(text);
        int position = 0;
        while (position < text.length() && !text.substring(position).isBlank()) {
            matcher.region(position, text.length());
            if (!matcher.lookingAt()) {
                throw new IllegalArgumentException("not a rule at \"" + text.substring(position).trim()
                        + "\" (rules are DEFAULT or RULE:pattern/replacement/[LU], separated by commas)");
            }
            if (matcher.group(1) != null) {
                rules.add(new Rule(null, null, ""));
            } else {
                Pattern pattern;
                try {
                    pattern = Pattern.compile(matcher.group(2));
                } catch (PatternSyntaxException e) {
                    throw new IllegalArgumentException("rule pattern " + matcher.group(2) + " is not a regular "
                            + "expression: " + e.getDescription());
                }
                checkGroups(matcher.group(3), pattern.matcher("").groupCount());
                rules.add(new Rule(pattern, matcher.group(3), matcher.group(4)));
            }
            position = matcher.end();
        }
        if (rules.isEmpty()) {
            throw new IllegalArgumentException("no rules (use DEFAULT for the subject as it is)");
        }
        return new SslPrincipalMapper(rules);
    }

    /** Refuses a replacement that refers ({@code $n}) to a group the pattern does not have. */
    private static void checkGroups(String replacement, int groups) {
        for (int i = 0; i < replacement.length(); i++) {
            char c = replacement.charAt(i);
            if (c == '\\') {
                i++;
            } else if (c == '$') {
                if (i + 1 >= replacement.length() || !Character.isDigit(replacement.charAt(i + 1))) {
                    throw new IllegalArgumentException("rule replacement " + replacement + " has a $ without a group "
                            + "number (write \\$ for a dollar sign)");
                }
                if (replacement.charAt(i + 1) - '0' > groups) {
                    throw new IllegalArgumentException("rule replacement " + replacement + " refers to group $"
                            + replacement.charAt(i + 1) + ", its pattern has " + groups);
                }
            }
        }
    }

    /** The principal's name for a certificate subject, or empty when no rule matches it. */
    public Optional<String> map(String distinguishedName) {
        for (Rule rule : rules) {
            Optional<String> name = rule.apply(distinguishedName);
            if (name.isPresent()) {
                return name;
            }
        }
        return Optional.empty();
    }
}
