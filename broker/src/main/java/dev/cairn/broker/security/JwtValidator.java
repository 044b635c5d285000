package dev.cairn.broker.security;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.MGF1ParameterSpec;
import java.security.spec.PSSParameterSpec;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Validates an OAuth access token that is a signed JWT (RFC 7519, JWS compact form), as Kafka's
 * OAuthBearerValidatorCallbackHandler does: the signature by a key of the identity provider's key set
 * (RS256/384/512, PS256/384/512, ES256/384/512; unsigned and HMAC tokens are refused), the expiry ({@code exp},
 * required) and {@code nbf}/{@code iat} within the clock skew, the issuer and audience when they are configured, and
 * the principal from the configured subject claim. Thread-safe.
 */
public final class JwtValidator {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Map<String, String> ALGORITHMS = Map.of(
            "RS256", "SHA256withRSA", "RS384", "SHA384withRSA", "RS512", "SHA512withRSA",
            "PS256", "RSASSA-PSS", "PS384", "RSASSA-PSS", "PS512", "RSASSA-PSS",
            "ES256", "SHA256withECDSAinP1363Format", "ES384", "SHA384withECDSAinP1363Format",
            "ES512", "SHA512withECDSAinP1363Format");
    /** RFC 7518 3.5: RSASSA-PSS with the same SHA-2 for the digest and MGF1, a salt as long as the digest. */
    private static final Map<String, PSSParameterSpec> PSS_PARAMETERS = Map.of(
            "PS256", new PSSParameterSpec("SHA-256", "MGF1", MGF1ParameterSpec.SHA256, 32, 1),
            "PS384", new PSSParameterSpec("SHA-384", "MGF1", MGF1ParameterSpec.SHA384, 48, 1),
            "PS512", new PSSParameterSpec("SHA-512", "MGF1", MGF1ParameterSpec.SHA512, 64, 1));

    private final Supplier<JsonWebKeys> keys;
    private final String expectedIssuer;
    private final List<String> expectedAudiences;
    private final String subjectClaim;
    private final long clockSkewMs;

    /** A valid token's principal and when it expires. */
    public record Validated(String principal, long expiresAtMs) {
    }

    /**
     * @param keys the identity provider's current key set
     * @param expectedIssuer the {@code iss} a token must carry, or null for any
     * @param expectedAudiences audiences of which a token's {@code aud} must name one; empty for any
     * @param subjectClaim the claim holding the principal's name (Kafka's default: {@code sub})
     */
    public JwtValidator(Supplier<JsonWebKeys> keys, String expectedIssuer, List<String> expectedAudiences,
            String subjectClaim, long clockSkewMs) {
        this.keys = keys;
        this.expectedIssuer = expectedIssuer;
        this.expectedAudiences = List.copyOf(expectedAudiences);
        this.subjectClaim = subjectClaim;
        this.clockSkewMs = clockSkewMs;
    }

    /**
     * The token's principal and expiry.
     *
     * @throws SaslFailure naming why the token is refused (safe to send to the client: no key material)
     */
    public Validated validate(String token, long nowMs) throws SaslFailure {
        String[] parts = token.split("\\.", -1);
        if (parts.length != 3) {
            throw invalid("the token is not a signed JWT (a JWS has 3 parts)");
        }
        JsonNode header = json(parts[0], "header");
        JsonNode claims = json(parts[1], "payload");
        String algorithm = text(header, "alg");
        String javaAlgorithm = algorithm == null ? null : ALGORITHMS.get(algorithm);
        if (javaAlgorithm == null) {
            throw invalid("the token's algorithm is not accepted (accepted: "
                    + ALGORITHMS.keySet().stream().sorted().toList() + ")");
        }
        PublicKey key = keys.get().key(text(header, "kid"));
        if (key == null) {
            throw invalid("the token's key id is not in the key set");
        }
        boolean rsa = !algorithm.startsWith("ES");
        if (rsa ? !(key instanceof RSAPublicKey) : !(key instanceof ECPublicKey)) {
            throw invalid("the token's algorithm does not match its key's type");
        }
        verify(javaAlgorithm, PSS_PARAMETERS.get(algorithm), key, parts);
        long expiresAtMs = seconds(claims, "exp", true) * 1000;
        if (nowMs - clockSkewMs >= expiresAtMs) {
            throw invalid("the token has expired");
        }
        long notBeforeMs = seconds(claims, "nbf", false) * 1000;
        long issuedAtMs = seconds(claims, "iat", false) * 1000;
        if (notBeforeMs > nowMs + clockSkewMs || issuedAtMs > nowMs + clockSkewMs) {
            throw invalid("the token is not valid yet (nbf or iat in the future)");
        }
        if (expectedIssuer != null && !expectedIssuer.equals(text(claims, "iss"))) {
            throw invalid("the token's issuer is not " + expectedIssuer);
        }
        if (!expectedAudiences.isEmpty() && !audienceMatches(claims.get("aud"))) {
            throw invalid("the token's audience is none of " + expectedAudiences);
        }
        String principal = text(claims, subjectClaim);
        if (principal == null || principal.isBlank()) {
            throw invalid("the token has no \"" + subjectClaim + "\" claim to name its principal");
        }
        return new Validated(principal, expiresAtMs);
    }

    /** @param pss RSASSA-PSS's parameters, or null for the other algorithms */
    private static void verify(String javaAlgorithm, PSSParameterSpec pss, PublicKey key, String[] parts)
            throws SaslFailure {
        byte[] signature;
        try {
            signature = Base64.getUrlDecoder().decode(parts[2]);
        } catch (IllegalArgumentException e) {
            throw invalid("the token's signature is not base64url");
        }
        try {
            Signature verifier = Signature.getInstance(javaAlgorithm);
            if (pss != null) {
                verifier.setParameter(pss);
            }
            verifier.initVerify(key);
            verifier.update((parts[0] + "." + parts[1]).getBytes(StandardCharsets.US_ASCII));
            if (!verifier.verify(signature)) {
                throw invalid("the token's signature does not verify");
            }
        } catch (GeneralSecurityException e) {
            throw invalid("the token's signature does not verify");
        }
    }

    private boolean audienceMatches(JsonNode audience) {
        if (audience == null) {
            return false;
        }
        if (audience.isTextual()) {
            return expectedAudiences.contains(audience.asText());
        }
        for (JsonNode each : audience) {
            if (each.isTextual() && expectedAudiences.contains(each.asText())) {
                return true;
            }
        }
        return false;
    }

    private static JsonNode json(String part, String what) throws SaslFailure {
        try {
            JsonNode node = JSON.readTree(Base64.getUrlDecoder().decode(part));
            if (node == null || !node.isObject()) {
                throw invalid("the token's " + what + " is not a JSON object");
            }
            return node;
        } catch (IllegalArgumentException | IOException e) {
            throw invalid("the token's " + what + " is not base64url JSON");
        }
    }

    private static long seconds(JsonNode claims, String name, boolean required) throws SaslFailure {
        JsonNode value = claims.get(name);
        if (value == null) {
            if (required) {
                throw invalid("the token has no \"" + name + "\" claim");
            }
            return 0;
        }
        if (!value.isNumber() || value.asLong() < 0 || value.asLong() > Long.MAX_VALUE / 1000) {
            throw invalid("the token's \"" + name + "\" claim is not a time in seconds");
        }
        return value.asLong();
    }

    /** A refused token; {@code what} is fixed text or configuration, never a value taken from the token. */
    private static SaslFailure invalid(String what) {
        return SaslFailure.withMessage(SaslFailure.Reason.INVALID_CREDENTIALS,
                "Authentication failed with SASL mechanism OAUTHBEARER: " + what);
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value == null || !value.isTextual() ? null : value.asText();
    }
}
