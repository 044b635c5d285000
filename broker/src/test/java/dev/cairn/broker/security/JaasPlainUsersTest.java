package dev.cairn.broker.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JaasPlainUsersTest {

    private static final String MODULE = "org.apache.kafka.common.security.plain.PlainLoginModule";

    @Test
    void kafkasExampleGivesTheUserOptionsOnly() {
        Map<String, String> users = JaasPlainUsers.parse(MODULE + " required username=\"admin\" "
                + "password=\"admin-secret\" user_admin=\"admin-secret\" user_alice=\"alice-secret\";");
        assertEquals(Map.of("admin", "admin-secret", "alice", "alice-secret"), users);
        assertEquals(List.of("admin", "alice"), List.copyOf(users.keySet()), "in the order given");
        assertThrows(UnsupportedOperationException.class, () -> users.put("x", "y"));
    }

    @Test
    void whitespaceNewlinesAndSpacesAroundEqualsAreAllowed() {
        assertEquals(Map.of("bob", "b"),
                JaasPlainUsers.parse("\n  " + MODULE + "\n\tREQUIRED\n  user_bob = \"b\"\n;\n"));
    }

    @Test
    void quotedValuesKeepSpacesSemicolonsAndEscapedQuotes() {
        Map<String, String> users = JaasPlainUsers.parse(MODULE
                + " required user_alice=\"a \\\"quoted\\\" pass; word\" user_bob=\"back\\\\slash\";");
        assertEquals("a \"quoted\" pass; word", users.get("alice"));
        assertEquals("back\\slash", users.get("bob"));
    }

    @Test
    void unquotedValuesAreWords() {
        assertEquals(Map.of("alice", "s3cr=t", "bob", "b"),
                JaasPlainUsers.parse(MODULE + " required user_alice=s3cr=t user_bob=b;"));
    }

    @Test
    void aModuleWithNoUsersGivesNone() {
        assertEquals(Map.of(), JaasPlainUsers.parse(MODULE + " required;"));
    }

    @Test
    void missingSemicolonIsRefused() {
        assertRefused(MODULE + " required user_alice=\"alice-secret\"", "must end with ';'");
    }

    @Test
    void wrongModuleOrFlagIsRefused() {
        assertRefused("org.apache.kafka.common.security.scram.ScramLoginModule required user_alice=\"alice-secret\";",
                "login module must be " + MODULE);
        assertRefused(MODULE + " optional user_alice=\"alice-secret\";", "flag must be 'required'");
        assertRefused("", "login module must be");
    }

    @Test
    void malformedOptionsAreRefusedWithoutThePassword() {
        assertRefused(MODULE + " required user_alice=\"alice-secret;", "option 'user_alice' has an unterminated");
        assertRefused(MODULE + " required user_alice=\"alice-secret\\", "unterminated");
        assertRefused(MODULE + " required user_alice=;", "option 'user_alice' has no value");
        assertRefused(MODULE + " required user_alice=\"alice-secret\" user_alice=\"alice-secret\";", "given twice");
        assertRefused(MODULE + " required user_=\"alice-secret\";", "names no user");
        assertRefused(MODULE + " required user_alice=\"\";", "empty password");
        assertRefused(MODULE + " required user_alice=\"alice-secret\"x;", "expected an option key=value");
        assertRefused(MODULE + " required user_alice=\"alice-secret\"; other required;", "only one login module");
    }

    /** An unquoted password with a space leaves a stray word; the error gives its position, not the word. */
    @Test
    void aStrayPasswordWordIsNotEchoed() {
        String text = MODULE + " required user_alice=alice secret-half;";
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> JaasPlainUsers.parse(text));
        assertFalse(e.getMessage().contains("secret-half"), e.getMessage());
        assertTrue(e.getMessage().contains("character " + text.indexOf("secret-half")), e.getMessage());
    }

    private static void assertRefused(String text, String expected) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> JaasPlainUsers.parse(text));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
        assertFalse(e.getMessage().contains("alice-secret"), e.getMessage());
        assertFalse(e.getMessage().contains("alice secret"), e.getMessage());
    }
}
