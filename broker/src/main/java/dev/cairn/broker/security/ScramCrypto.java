package dev.cairn.broker.security;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The primitives of RFC 5802 section 2.2: H(), HMAC(), Hi() and XOR. Hi() is PBKDF2 with one output block, written
 * over {@link Mac} directly because the JDK's PBKDF2 key factory takes the password as chars and encodes them
 * itself, and is not offered for every HMAC on every JDK build.
 */
final class ScramCrypto {

    private ScramCrypto() {
    }

    static byte[] hash(ScramMechanism mechanism, byte[] data) {
        try {
            return MessageDigest.getInstance(mechanism.digestAlgorithm()).digest(data);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JDK lacks " + mechanism.digestAlgorithm(), e);
        }
    }

    /** HMAC(key, data); {@code key} must not be empty. */
    static byte[] hmac(ScramMechanism mechanism, byte[] key, byte[] data) {
        return mac(mechanism, key).doFinal(data);
    }

    /**
     * Hi(str, salt, i): U1 = HMAC(str, salt + INT(1)), Ui = HMAC(str, Ui-1), result U1 XOR ... XOR Ui.
     * {@code password} must not be empty.
     */
    static byte[] hi(ScramMechanism mechanism, byte[] password, byte[] salt, int iterations) {
        Mac mac = mac(mechanism, password);
        mac.update(salt);
        mac.update(new byte[] {0, 0, 0, 1});
        byte[] u = mac.doFinal();
        byte[] result = u.clone();
        for (int i = 1; i < iterations; i++) {
            u = mac.doFinal(u);
            for (int b = 0; b < result.length; b++) {
                result[b] ^= u[b];
            }
        }
        return result;
    }

    /** {@code a XOR b}; the arrays must be of equal length. */
    static byte[] xor(byte[] a, byte[] b) {
        if (a.length != b.length) {
            throw new IllegalArgumentException("xor of arrays of different lengths");
        }
        byte[] result = new byte[a.length];
        for (int i = 0; i < a.length; i++) {
            result[i] = (byte) (a[i] ^ b[i]);
        }
        return result;
    }

    private static Mac mac(ScramMechanism mechanism, byte[] key) {
        try {
            Mac mac = Mac.getInstance(mechanism.hmacAlgorithm());
            mac.init(new SecretKeySpec(key, mechanism.hmacAlgorithm()));
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot initialise " + mechanism.hmacAlgorithm(), e);
        }
    }
}
