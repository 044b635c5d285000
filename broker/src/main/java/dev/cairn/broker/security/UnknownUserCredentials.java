package dev.cairn.broker.security;

import java.security.SecureRandom;
import java.util.Arrays;

/**
 * Stand-in credentials for user names that do not exist. Failing at once for an unknown user would tell an
 * unauthenticated client which names exist; instead the exchange carries on with a credential derived from the name
 * and a secret key, and fails at the proof like a wrong password. Deriving (rather than drawing fresh random salts)
 * keeps the salt the same on every attempt, as a real user's is, so repeating the first step reveals nothing.
 *
 * <p>{@link #processWide()} uses one key for the life of the process, so all connections agree. The iteration count
 * is {@link ScramMechanism#ITERATIONS_MIN}, the common default; a deployment storing real credentials with other
 * counts still lets a patient observer compare counts, which SCRAM cannot hide.
 */
final class UnknownUserCredentials {

    private static final int KEY_BYTES = 32;
    private static final UnknownUserCredentials PROCESS_WIDE = new UnknownUserCredentials(randomKey());

    private final byte[] key;

    /** @param key the secret the stand-ins are derived from; never sent anywhere */
    UnknownUserCredentials(byte[] key) {
        if (key.length == 0) {
            throw new IllegalArgumentException("key must not be empty");
        }
        this.key = key.clone();
    }

    static UnknownUserCredentials processWide() {
        return PROCESS_WIDE;
    }

    /** The stand-in for {@code username}: the same on every call, and unusable, as nobody knows its password. */
    ScramCredential forUser(ScramMechanism mechanism, String username) {
        byte[] salt = Arrays.copyOf(derive(mechanism, "salt", username), ScramCredential.GENERATED_SALT_BYTES);
        return new ScramCredential(mechanism, salt, derive(mechanism, "stored-key", username),
                derive(mechanism, "server-key", username), ScramMechanism.ITERATIONS_MIN);
    }

    private byte[] derive(ScramMechanism mechanism, String purpose, String username) {
        String input = mechanism.mechanismName() + '\u0000' + purpose + '\u0000' + username;
        return ScramCrypto.hmac(mechanism, key, Utf8.encode(input));
    }

    private static byte[] randomKey() {
        byte[] key = new byte[KEY_BYTES];
        new SecureRandom().nextBytes(key);
        return key;
    }
}
