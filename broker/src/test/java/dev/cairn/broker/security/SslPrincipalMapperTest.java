package dev.cairn.broker.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** ssl.principal.mapping.rules with Kafka's syntax (KIP-371), on the examples of Kafka's documentation. */
class SslPrincipalMapperTest {

    @Test
    void rulesApplyInOrderWithGroupsAndCase() {
        SslPrincipalMapper mapper = SslPrincipalMapper.parse("RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/, "
                + "RULE:^CN=(.*?),OU=(.*?),O=(.*?),L=(.*?),ST=(.*?),C=(.*?)$/$1@$2/L,"
                + "RULE:^.*[Cc][Nn]=([a-zA-Z0-9.]*).*$/$1/U, DEFAULT");
        assertEquals(Optional.of("duke"), mapper.map("CN=duke,OU=ServiceUsers,O=Org,C=US"));
        assertEquals(Optional.of("duke@sme"), mapper.map("CN=Duke,OU=SME,O=mycp,L=Fulton,ST=MD,C=US"));
        assertEquals(Optional.of("DUKE"), mapper.map("OU=JavaSoft,cn=duke,O=Sun Microsystems"));
        assertEquals(Optional.of("OU=JavaSoft,O=Sun Microsystems,C=US"), mapper.map("OU=JavaSoft,O=Sun Microsystems,C=US"));
    }

    @Test
    void withoutDefaultASubjectNoRuleMatchesHasNoPrincipal() {
        SslPrincipalMapper mapper = SslPrincipalMapper.parse("RULE:^CN=([^,]*),O=Example$/$1/");
        assertEquals(Optional.of("alice"), mapper.map("CN=alice,O=Example"));
        assertEquals(Optional.empty(), mapper.map("CN=mallory,O=Elsewhere"));
        assertEquals(Optional.of("CN=x"), SslPrincipalMapper.parse(SslPrincipalMapper.DEFAULT_RULES).map("CN=x"));
    }

    @Test
    void malformedRulesAreRefused() {
        for (String bad : new String[] {"", "RULE:abc", "RULE:^CN=(.*$/$1/", "RULE:^CN=(.*)$/$2/", "DEFAULTS",
                "RULE:^CN=(.*)$/$1/X"}) {
            assertThrows(IllegalArgumentException.class, () -> SslPrincipalMapper.parse(bad), bad);
        }
    }
}
