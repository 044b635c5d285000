package dev.cairn.broker.security;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/** OAUTHBEARER token validation (issue 21): signatures by the key set, expiry, issuer, audience, the principal. */
class JwtValidatorTest {
    private static final long NOW_S = 1_800_000_000L;
    private static final long NOW_MS = NOW_S * 1000;
    private final KeyPair rsa;
    private final KeyPair ec;
    private final JsonWebKeys keys;

    JwtValidatorTest() throws Exception {
        rsa = TestJwts.rsa();
        ec = TestJwts.ec();
        keys = JsonWebKeys.parse(TestJwts.jwks(rsa, ec).getBytes(StandardCharsets.UTF_8));
    }

    private JwtValidator validator(String issuer, List<String> audiences) {
        return new JwtValidator(() -> keys, issuer, audiences, "sub", 30_000);
    }

    @Test
    void rsaAndEcSignedTokensNameTheirSubject() throws Exception {
        JwtValidator validator = validator("https://idp.example", List.of("kafka"));
        String rsaToken = TestJwts.sign("RS256", "rsa-1", TestJwts.claims("alice", NOW_S, 600), rsa.getPrivate());
        assertEquals(new JwtValidator.Validated("alice", (NOW_S + 600) * 1000), validator.validate(rsaToken, NOW_MS));
        String ecToken = TestJwts.sign("ES256", "ec-1", TestJwts.claims("bob", NOW_S, 60), ec.getPrivate());
        assertEquals("bob", validator.validate(ecToken, NOW_MS).principal());
    }

    @Test
    void rsaPssAndLongerDigestsVerify() throws Exception {
        JwtValidator validator = validator("https://idp.example", List.of("kafka"));
        for (String alg : List.of("PS256", "PS384", "PS512", "RS384", "RS512")) {
            String token = TestJwts.sign(alg, "rsa-1", TestJwts.claims("carol", NOW_S, 600), rsa.getPrivate());
            assertEquals("carol", validator.validate(token, NOW_MS).principal(), alg);
        }
        // A PKCS#1 v1.5 signature under a PS256 header, and PS256 under an EC key, are refused.
        String rs = TestJwts.sign("RS256", "rsa-1", TestJwts.claims("carol", NOW_S, 600), rsa.getPrivate());
        String relabelled = relabel(rs, "PS256");
        assertThrows(SaslFailure.class, () -> validator.validate(relabelled, NOW_MS));
        String onEcKey = relabel(TestJwts.sign("ES256", "ec-1", TestJwts.claims("carol", NOW_S, 600),
                ec.getPrivate()), "PS256");
        assertThrows(SaslFailure.class, () -> validator.validate(onEcKey, NOW_MS));
    }

    /** The token with its header's alg replaced, payload and signature kept. */
    private static String relabel(String token, String alg) {
        String[] parts = token.split("\\.");
        String header = new String(Base64.getUrlDecoder().decode(parts[0]),
                StandardCharsets.UTF_8).replaceFirst("\"alg\":\"[A-Z0-9]+\"", "\"alg\":\"" + alg
                + "\"");
        return Base64.getUrlEncoder().withoutPadding().encodeToString(
                header.getBytes(StandardCharsets.UTF_8)) + "." + parts[1] + "." + parts[2];
    }

    @Test
    void badTokensAreRefusedWithoutEchoingThem() throws Exception {
        JwtValidator validator = validator("https://idp.example", List.of("kafka"));
        String good = TestJwts.sign("RS256", "rsa-1", TestJwts.claims("alice", NOW_S, 600), rsa.getPrivate());
        String[] parts = good.split("\\.");
        KeyPair stranger = TestJwts.rsa();
        String unsignedHeader = Base64.getUrlEncoder().withoutPadding().encodeToString(
                "{\"alg\":\"none\"}".getBytes(StandardCharsets.UTF_8));
        List<String> bad = List.of(
                "not-a-jwt",
                unsignedHeader + "." + parts[1] + ".",
                TestJwts.sign("RS256", "rsa-1", TestJwts.claims("alice", NOW_S, 600), stranger.getPrivate()),
                TestJwts.sign("RS256", "nobody", TestJwts.claims("alice", NOW_S, 600), rsa.getPrivate()),
                TestJwts.sign("RS256", "rsa-1", TestJwts.claims("alice", NOW_S - 3600, 600), rsa.getPrivate()),
                TestJwts.sign("RS256", "rsa-1", TestJwts.claims("alice", NOW_S + 3600, 600), rsa.getPrivate()),
                TestJwts.sign("ES256", "rsa-1", TestJwts.claims("alice", NOW_S, 600), ec.getPrivate()),
                TestJwts.sign("RS256", "rsa-1", "{\"sub\":\"alice\",\"iss\":\"https://idp.example\","
                        + "\"aud\":\"kafka\"}", rsa.getPrivate()),
                TestJwts.sign("RS256", "rsa-1", "{\"exp\":" + (NOW_S + 60) + ",\"iss\":\"https://idp.example\","
                        + "\"aud\":\"kafka\"}", rsa.getPrivate()),
                parts[0] + "." + parts[1] + "." + parts[2].substring(0, parts[2].length() - 4) + "AAAA");
        for (String token : bad) {
            SaslFailure failure = assertThrows(SaslFailure.class, () -> validator.validate(token, NOW_MS), token);
            assertTrue(failure.isInvalidCredentials(), failure.getMessage());
            assertFalse(failure.getMessage().contains("alice"), failure.getMessage());
        }
        assertThrows(SaslFailure.class, () -> validator("https://other.example", List.of()).validate(good, NOW_MS));
        assertThrows(SaslFailure.class, () -> validator(null, List.of("payments")).validate(good, NOW_MS));
        assertEquals("alice", validator(null, List.of()).validate(good, NOW_MS).principal());
    }

    @Test
    void theServerAnswersARefusedTokenWithRfc7628sErrorChallenge() throws Exception {
        JwtValidator validator = validator(null, List.of());
        String good = TestJwts.sign("RS256", "rsa-1", TestJwts.claims("alice", NOW_S, 600), rsa.getPrivate());
        OAuthBearerServer server = new OAuthBearerServer(validator, () -> NOW_MS);
        assertArrayEquals(new byte[0], server.evaluate(("n,,\u0001auth=Bearer " + good + "\u0001\u0001")
                .getBytes(StandardCharsets.UTF_8)));
        assertTrue(server.isComplete());
        assertEquals("alice", server.authenticatedUser());
        assertEquals((NOW_S + 600) * 1000, server.credentialExpiresAtMs());

        OAuthBearerServer withExtensions = new OAuthBearerServer(validator, () -> NOW_MS);
        withExtensions.evaluate(("n,a=alice,\u0001auth=Bearer " + good + "\u0001traceId=42\u0001\u0001")
                .getBytes(StandardCharsets.UTF_8));
        assertTrue(withExtensions.isComplete());

        OAuthBearerServer expired = new OAuthBearerServer(validator, () -> NOW_MS + 3_600_000);
        byte[] challenge = expired.evaluate(("n,,\u0001auth=Bearer " + good + "\u0001\u0001")
                .getBytes(StandardCharsets.UTF_8));
        assertEquals("{\"status\":\"invalid_token\"}", new String(challenge, StandardCharsets.UTF_8));
        assertFalse(expired.isComplete());
        SaslFailure failure = assertThrows(SaslFailure.class, () -> expired.evaluate(new byte[] {1}));
        assertTrue(failure.getMessage().contains("expired"), failure.getMessage());

        OAuthBearerServer otherAuthzid = new OAuthBearerServer(validator, () -> NOW_MS);
        otherAuthzid.evaluate(("n,a=mallory,\u0001auth=Bearer " + good + "\u0001\u0001")
                .getBytes(StandardCharsets.UTF_8));
        assertFalse(otherAuthzid.isComplete());

        for (String malformed : List.of("", "n,,auth=Bearer x", "n,,\u0001auth=Basic abc\u0001\u0001",
                "n,,\u0001host=x\u0001\u0001")) {
            assertThrows(SaslFailure.class, () -> new OAuthBearerServer(validator, () -> NOW_MS)
                    .evaluate(malformed.getBytes(StandardCharsets.UTF_8)), malformed);
        }
    }

    @Test
    void keySetsAreBoundedAndChecked() {
        assertThrows(IllegalArgumentException.class, () -> JsonWebKeys.parse("{}".getBytes(StandardCharsets.UTF_8)));
        assertThrows(IllegalArgumentException.class, () -> JsonWebKeys.parse("[".getBytes(StandardCharsets.UTF_8)));
        assertThrows(IllegalArgumentException.class, () -> JsonWebKeys.parse(
                "{\"keys\":[{\"kty\":\"oct\",\"k\":\"AAAA\"}]}".getBytes(StandardCharsets.UTF_8)));
        assertThrows(IllegalArgumentException.class, () -> JsonWebKeys.parse(
                new byte[JsonWebKeys.JWKS_BYTES_MAX + 1]));
        assertEquals(2, keys.size());
    }
}
