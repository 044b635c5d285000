package dev.cairn.broker.security;

import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Objects;

/**
 * What the broker stores for one user and one SCRAM mechanism: the salt and iteration count it tells the client,
 * and StoredKey and ServerKey (RFC 5802 section 3). The password itself is never kept, and StoredKey is a hash of
 * the key the client proves it knows, so a leaked credential does not let anyone log in as the user directly.
 *
 * <p>The arrays are copied in and out, so a record cannot be changed after validation. {@link #toString()} names
 * only the mechanism and iteration count, keeping salts and keys out of logs; equality compares array contents.
 * {@link #encode()} gives the versioned binary form replicated in the metadata group.
 *
 * @param mechanism the mechanism the keys belong to
 * @param salt the salt, 1 to {@link #SALT_BYTES_MAX} bytes
 * @param storedKey H(ClientKey), as long as the mechanism's digest
 * @param serverKey HMAC(SaltedPassword, "Server Key"), as long as the mechanism's digest
 * @param iterations the PBKDF2 iteration count, within Kafka's bounds
 */
public record ScramCredential(ScramMechanism mechanism, byte[] salt, byte[] storedKey, byte[] serverKey,
                              int iterations) {

    /** The longest salt accepted. Kafka's own salts are a few dozen bytes. */
    public static final int SALT_BYTES_MAX = 256;

    /** The length of the salt {@link #generate} draws. */
    public static final int GENERATED_SALT_BYTES = 32;

    private static final byte ENCODING_VERSION = 1;
    private static final int ENCODED_BYTES_MAX = 1 + 1 + 4 + 3 * (2 + SALT_BYTES_MAX);

    /** Validates and copies the arrays. */
    public ScramCredential {
        Objects.requireNonNull(mechanism, "mechanism");
        checkSaltAndIterations(salt, iterations);
        salt = salt.clone();
        storedKey = checkKey(mechanism, "storedKey", storedKey);
        serverKey = checkKey(mechanism, "serverKey", serverKey);
    }

    /** Derives the keys from SaltedPassword = Hi(password, salt, iterations), e.g. as a client sent it. */
    public static ScramCredential fromSaltedPassword(ScramMechanism mechanism, byte[] saltedPassword, byte[] salt,
                                                     int iterations) {
        Objects.requireNonNull(mechanism, "mechanism");
        Objects.requireNonNull(saltedPassword, "saltedPassword");
        if (saltedPassword.length == 0) {
            throw new IllegalArgumentException("saltedPassword must not be empty");
        }
        byte[] clientKey = ScramCrypto.hmac(mechanism, saltedPassword, Utf8.encode("Client Key"));
        byte[] storedKey = ScramCrypto.hash(mechanism, clientKey);
        byte[] serverKey = ScramCrypto.hmac(mechanism, saltedPassword, Utf8.encode("Server Key"));
        return new ScramCredential(mechanism, salt, storedKey, serverKey, iterations);
    }

    /**
     * Derives a credential from a password: SaltedPassword = Hi(password, salt, iterations) over the password's
     * UTF-8 bytes. SASLprep normalisation (RFC 4013) is not applied, as Kafka's clients do not apply it either:
     * both sides hash exactly the UTF-8 the user typed, so they agree even on non-normalised passwords.
     *
     * @throws IllegalArgumentException if the password is empty, the salt is empty or too long, or the iteration
     *     count is outside [{@link ScramMechanism#ITERATIONS_MIN}, {@link ScramMechanism#ITERATIONS_MAX}]
     */
    public static ScramCredential fromPassword(ScramMechanism mechanism, String password, byte[] salt,
                                               int iterations) {
        Objects.requireNonNull(mechanism, "mechanism");
        Objects.requireNonNull(password, "password");
        if (password.isEmpty()) {
            throw new IllegalArgumentException("password must not be empty");
        }
        checkSaltAndIterations(salt, iterations);
        byte[] saltedPassword = ScramCrypto.hi(mechanism, Utf8.encode(password), salt, iterations);
        try {
            return fromSaltedPassword(mechanism, saltedPassword, salt, iterations);
        } finally {
            Arrays.fill(saltedPassword, (byte) 0);
        }
    }

    /** A credential for {@code password} with a fresh random salt of {@link #GENERATED_SALT_BYTES}. */
    public static ScramCredential generate(ScramMechanism mechanism, String password, int iterations,
                                           SecureRandom random) {
        byte[] salt = new byte[GENERATED_SALT_BYTES];
        random.nextBytes(salt);
        return fromPassword(mechanism, password, salt, iterations);
    }

    @Override
    public byte[] salt() {
        return salt.clone();
    }

    @Override
    public byte[] storedKey() {
        return storedKey.clone();
    }

    @Override
    public byte[] serverKey() {
        return serverKey.clone();
    }

    /**
     * The binary form: version (1 byte, currently 1), mechanism type id (1 byte), iterations (4 bytes, big-endian),
     * then salt, StoredKey and ServerKey, each as a 2-byte big-endian length and the bytes.
     */
    public byte[] encode() {
        ByteBuffer out = ByteBuffer.allocate(1 + 1 + 4 + 2 + salt.length + 2 + storedKey.length + 2
                + serverKey.length);
        out.put(ENCODING_VERSION).put((byte) mechanism.typeId()).putInt(iterations);
        for (byte[] field : new byte[][] {salt, storedKey, serverKey}) {
            out.putShort((short) field.length).put(field);
        }
        return out.array();
    }

    /**
     * Reads {@link #encode()}'s form.
     *
     * @throws IllegalArgumentException if the input is truncated, too long, of an unknown version or mechanism,
     *     or describes an invalid credential
     */
    public static ScramCredential decode(byte[] encoded) {
        Objects.requireNonNull(encoded, "encoded");
        if (encoded.length > ENCODED_BYTES_MAX) {
            throw new IllegalArgumentException("encoded SCRAM credential is " + encoded.length
                    + " bytes, more than the " + ENCODED_BYTES_MAX + " allowed");
        }
        ByteBuffer in = ByteBuffer.wrap(encoded);
        require(in, 1 + 1 + 4, "header");
        byte version = in.get();
        if (version != ENCODING_VERSION) {
            throw new IllegalArgumentException("unknown SCRAM credential encoding version " + version);
        }
        int typeId = in.get();
        ScramMechanism mechanism = ScramMechanism.forTypeId(typeId).orElseThrow(
                () -> new IllegalArgumentException("unknown SCRAM mechanism type " + typeId));
        int iterations = in.getInt();
        byte[] salt = readField(in, "salt");
        byte[] storedKey = readField(in, "storedKey");
        byte[] serverKey = readField(in, "serverKey");
        if (in.hasRemaining()) {
            throw new IllegalArgumentException("encoded SCRAM credential has " + in.remaining() + " trailing bytes");
        }
        return new ScramCredential(mechanism, salt, storedKey, serverKey, iterations);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ScramCredential that
                && mechanism == that.mechanism
                && iterations == that.iterations
                && Arrays.equals(salt, that.salt)
                && Arrays.equals(storedKey, that.storedKey)
                && Arrays.equals(serverKey, that.serverKey);
    }

    @Override
    public int hashCode() {
        int result = Objects.hash(mechanism, iterations);
        result = 31 * result + Arrays.hashCode(salt);
        result = 31 * result + Arrays.hashCode(storedKey);
        return 31 * result + Arrays.hashCode(serverKey);
    }

    @Override
    public String toString() {
        return "ScramCredential[mechanism=" + mechanism.mechanismName() + ", iterations=" + iterations + "]";
    }

    private static void checkSaltAndIterations(byte[] salt, int iterations) {
        Objects.requireNonNull(salt, "salt");
        if (salt.length == 0 || salt.length > SALT_BYTES_MAX) {
            throw new IllegalArgumentException("SCRAM salt must be 1 to " + SALT_BYTES_MAX + " bytes, not "
                    + salt.length);
        }
        if (iterations < ScramMechanism.ITERATIONS_MIN || iterations > ScramMechanism.ITERATIONS_MAX) {
            throw new IllegalArgumentException("SCRAM iterations must be between " + ScramMechanism.ITERATIONS_MIN
                    + " and " + ScramMechanism.ITERATIONS_MAX + ", not " + iterations);
        }
    }

    private static byte[] checkKey(ScramMechanism mechanism, String name, byte[] key) {
        Objects.requireNonNull(key, name);
        if (key.length != mechanism.digestBytes()) {
            throw new IllegalArgumentException(name + " for " + mechanism.mechanismName() + " must be "
                    + mechanism.digestBytes() + " bytes, not " + key.length);
        }
        return key.clone();
    }

    private static byte[] readField(ByteBuffer in, String name) {
        require(in, 2, name + " length");
        int length = Short.toUnsignedInt(in.getShort());
        if (length > SALT_BYTES_MAX) {
            throw new IllegalArgumentException("encoded SCRAM credential's " + name + " is " + length
                    + " bytes, more than " + SALT_BYTES_MAX);
        }
        require(in, length, name);
        byte[] field = new byte[length];
        in.get(field);
        return field;
    }

    private static void require(ByteBuffer in, int bytes, String what) {
        if (in.remaining() < bytes) {
            throw new IllegalArgumentException("encoded SCRAM credential is truncated in its " + what);
        }
    }
}
