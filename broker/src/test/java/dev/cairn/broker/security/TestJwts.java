package dev.cairn.broker.security;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.ECGenParameterSpec;
import java.util.Base64;

/** Keys, key sets and signed JWTs made with the JDK alone, for OAUTHBEARER tests. */
public final class TestJwts {
    private static final Base64.Encoder URL = Base64.getUrlEncoder().withoutPadding();

    private TestJwts() {
    }

    public static KeyPair rsa() throws GeneralSecurityException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
        generator.initialize(2048);
        return generator.generateKeyPair();
    }

    public static KeyPair ec() throws GeneralSecurityException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"));
        return generator.generateKeyPair();
    }

    /** A JWKS document holding {@code rsaKey} as "rsa-1" and {@code ecKey} as "ec-1" (either may be null). */
    public static String jwks(KeyPair rsaKey, KeyPair ecKey) {
        StringBuilder keys = new StringBuilder("{\"keys\":[");
        if (rsaKey != null) {
            RSAPublicKey key = (RSAPublicKey) rsaKey.getPublic();
            keys.append("{\"kty\":\"RSA\",\"kid\":\"rsa-1\",\"use\":\"sig\",\"alg\":\"RS256\",\"n\":\"")
                    .append(unsigned(key.getModulus())).append("\",\"e\":\"").append(unsigned(key.getPublicExponent()))
                    .append("\"}");
        }
        if (ecKey != null) {
            ECPublicKey key = (ECPublicKey) ecKey.getPublic();
            keys.append(rsaKey != null ? "," : "").append("{\"kty\":\"EC\",\"kid\":\"ec-1\",\"crv\":\"P-256\",\"x\":\"")
                    .append(coordinate(key.getW().getAffineX())).append("\",\"y\":\"")
                    .append(coordinate(key.getW().getAffineY())).append("\"}");
        }
        return keys.append("]}").toString();
    }

    /** A JWS compact token: the header and claims (JSON objects' text) signed with {@code key} by {@code alg}. */
    public static String sign(String alg, String kid, String claims, PrivateKey key) throws GeneralSecurityException {
        String header = "{\"alg\":\"" + alg + "\"" + (kid == null ? "" : ",\"kid\":\"" + kid + "\"")
                + ",\"typ\":\"JWT\"}";
        String signingInput = URL.encodeToString(header.getBytes(StandardCharsets.UTF_8)) + "."
                + URL.encodeToString(claims.getBytes(StandardCharsets.UTF_8));
        String bits = alg.substring(2);
        Signature signature;
        if (alg.startsWith("PS")) {
            // RFC 7518 3.5: the digest and MGF1 both SHA-<bits>, a salt of the digest's length.
            signature = Signature.getInstance("RSASSA-PSS");
            signature.setParameter(new java.security.spec.PSSParameterSpec("SHA-" + bits, "MGF1",
                    new java.security.spec.MGF1ParameterSpec("SHA-" + bits), Integer.parseInt(bits) / 8, 1));
        } else {
            signature = Signature.getInstance("SHA" + bits + (alg.startsWith("RS") ? "withRSA"
                    : "withECDSAinP1363Format"));
        }
        signature.initSign(key);
        signature.update(signingInput.getBytes(StandardCharsets.US_ASCII));
        return signingInput + "." + URL.encodeToString(signature.sign());
    }

    /** Claims for {@code subject}, expiring {@code expiresInSeconds} after {@code nowSeconds}. */
    public static String claims(String subject, long nowSeconds, long expiresInSeconds) {
        return "{\"sub\":\"" + subject + "\",\"iat\":" + nowSeconds + ",\"exp\":" + (nowSeconds + expiresInSeconds)
                + ",\"iss\":\"https://idp.example\",\"aud\":[\"kafka\",\"other\"],\"scope\":\"kafka\"}";
    }

    private static String unsigned(BigInteger value) {
        byte[] bytes = value.toByteArray();
        int skip = bytes.length > 1 && bytes[0] == 0 ? 1 : 0;
        return URL.encodeToString(java.util.Arrays.copyOfRange(bytes, skip, bytes.length));
    }

    private static String coordinate(BigInteger value) {
        byte[] bytes = new byte[32];
        byte[] raw = value.toByteArray();
        int length = Math.min(raw.length, 32);
        System.arraycopy(raw, raw.length - length, bytes, 32 - length, length);
        return URL.encodeToString(bytes);
    }
}
