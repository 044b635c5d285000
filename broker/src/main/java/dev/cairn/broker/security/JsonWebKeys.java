package dev.cairn.broker.security;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.math.BigInteger;
import java.security.AlgorithmParameters;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECParameterSpec;
import java.security.spec.ECPoint;
import java.security.spec.ECPublicKeySpec;
import java.security.spec.RSAPublicKeySpec;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The public keys of a JSON Web Key Set (RFC 7517), as an identity provider publishes them at its JWKS endpoint:
 * RSA keys ({@code kty} RSA: {@code n}, {@code e}) and elliptic-curve keys ({@code kty} EC: {@code crv} P-256, P-384
 * or P-521, {@code x}, {@code y}), by key id. Keys for encryption only ({@code use} enc) and of other types are
 * skipped. Bounded: at most {@link #KEYS_MAX} keys from at most {@link #JWKS_BYTES_MAX} bytes.
 */
public final class JsonWebKeys {
    public static final int JWKS_BYTES_MAX = 1 << 20;
    public static final int KEYS_MAX = 100;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Map<String, String> CURVES = Map.of("P-256", "secp256r1", "P-384", "secp384r1",
            "P-521", "secp521r1");

    private final Map<String, PublicKey> byKeyId;

    private JsonWebKeys(Map<String, PublicKey> byKeyId) {
        this.byKeyId = Map.copyOf(byKeyId);
    }

    /** Parses a key set; fails with a message naming what is wrong. A key without {@code kid} is listed as "". */
    public static JsonWebKeys parse(byte[] json) {
        if (json.length > JWKS_BYTES_MAX) {
            throw new IllegalArgumentException("the key set is " + json.length + " bytes, over " + JWKS_BYTES_MAX);
        }
        JsonNode root;
        try {
            root = JSON.readTree(json);
        } catch (IOException e) {
            throw new IllegalArgumentException("the key set is not JSON");
        }
        JsonNode keys = root == null ? null : root.get("keys");
        if (keys == null || !keys.isArray()) {
            throw new IllegalArgumentException("the key set has no \"keys\" array");
        }
        if (keys.size() > KEYS_MAX) {
            throw new IllegalArgumentException("the key set holds " + keys.size() + " keys, over " + KEYS_MAX);
        }
        Map<String, PublicKey> byKeyId = new LinkedHashMap<>();
        for (JsonNode key : keys) {
            if ("enc".equals(text(key, "use"))) {
                continue;
            }
            PublicKey publicKey = switch (String.valueOf(text(key, "kty"))) {
                case "RSA" -> rsa(key);
                case "EC" -> ec(key);
                default -> null;
            };
            if (publicKey != null) {
                byKeyId.put(String.valueOf(text(key, "kid") == null ? "" : text(key, "kid")), publicKey);
            }
        }
        if (byKeyId.isEmpty()) {
            throw new IllegalArgumentException("the key set holds no RSA or EC signing key");
        }
        return new JsonWebKeys(byKeyId);
    }

    /** The key a token names ({@code kid}); a token without a key id may use the only key of a one-key set. */
    public PublicKey key(String keyId) {
        if (keyId == null) {
            return byKeyId.size() == 1 ? byKeyId.values().iterator().next() : null;
        }
        return byKeyId.get(keyId);
    }

    public int size() {
        return byKeyId.size();
    }

    private static PublicKey rsa(JsonNode key) {
        try {
            return KeyFactory.getInstance("RSA").generatePublic(new RSAPublicKeySpec(unsigned(key, "n"),
                    unsigned(key, "e")));
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("RSA key " + text(key, "kid") + " is invalid: " + e.getMessage());
        }
    }

    private static PublicKey ec(JsonNode key) {
        String curve = CURVES.get(String.valueOf(text(key, "crv")));
        if (curve == null) {
            throw new IllegalArgumentException("EC key " + text(key, "kid") + " uses curve " + text(key, "crv")
                    + "; supported: " + CURVES.keySet());
        }
        try {
            AlgorithmParameters parameters = AlgorithmParameters.getInstance("EC");
            parameters.init(new ECGenParameterSpec(curve));
            ECParameterSpec spec = parameters.getParameterSpec(ECParameterSpec.class);
            return KeyFactory.getInstance("EC").generatePublic(new ECPublicKeySpec(new ECPoint(unsigned(key, "x"),
                    unsigned(key, "y")), spec));
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("EC key " + text(key, "kid") + " is invalid: " + e.getMessage());
        }
    }

    private static BigInteger unsigned(JsonNode key, String field) {
        String value = text(key, field);
        if (value == null) {
            throw new IllegalArgumentException("key " + text(key, "kid") + " has no \"" + field + "\"");
        }
        try {
            return new BigInteger(1, Base64.getUrlDecoder().decode(value));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("key " + text(key, "kid") + ": \"" + field + "\" is not base64url");
        }
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value == null || !value.isTextual() ? null : value.asText();
    }
}
