package dev.cairn.broker.security;

import java.util.Optional;

/**
 * The SCRAM mechanisms Kafka defines (RFC 5802 with the hash of RFC 7677 or its SHA-512 sibling), with the names
 * the JDK knows their algorithms by and the numeric type Kafka's DescribeUserScramCredentials and
 * AlterUserScramCredentials requests use for them. One enum keeps those three spellings of the same thing from
 * drifting apart across the SASL, admin and metadata code.
 */
public enum ScramMechanism {
    SCRAM_SHA_256("SCRAM-SHA-256", "SHA-256", "HmacSHA256", 1),
    SCRAM_SHA_512("SCRAM-SHA-512", "SHA-512", "HmacSHA512", 2);

    /**
     * The fewest PBKDF2 iterations accepted for a stored credential. RFC 7677 recommends at least 4096, and Kafka
     * refuses fewer, both when storing a credential and, on the client, in a server-first-message.
     */
    public static final int ITERATIONS_MIN = 4096;

    /** The most iterations accepted, as in Kafka: each login costs the broker this many HMACs. */
    public static final int ITERATIONS_MAX = 16384;

    private final String mechanismName;
    private final String digestAlgorithm;
    private final String hmacAlgorithm;
    private final int typeId;

    ScramMechanism(String mechanismName, String digestAlgorithm, String hmacAlgorithm, int typeId) {
        this.mechanismName = mechanismName;
        this.digestAlgorithm = digestAlgorithm;
        this.hmacAlgorithm = hmacAlgorithm;
        this.typeId = typeId;
    }

    /** The SASL name, e.g. {@code SCRAM-SHA-256}. */
    public String mechanismName() {
        return mechanismName;
    }

    /** The JDK {@link java.security.MessageDigest} algorithm, H() in RFC 5802. */
    public String digestAlgorithm() {
        return digestAlgorithm;
    }

    /** The JDK MAC algorithm, HMAC() in RFC 5802. */
    public String hmacAlgorithm() {
        return hmacAlgorithm;
    }

    /** Kafka's mechanism type in the admin requests: 1 for SCRAM-SHA-256, 2 for SCRAM-SHA-512. */
    public int typeId() {
        return typeId;
    }

    /** The length of H() and HMAC() output, and so of StoredKey, ServerKey and a client proof. */
    public int digestBytes() {
        return this == SCRAM_SHA_256 ? 32 : 64;
    }

    /** The mechanism with this SASL name (exact, as SASL names are case-sensitive), if any. */
    public static Optional<ScramMechanism> forName(String name) {
        for (ScramMechanism mechanism : values()) {
            if (mechanism.mechanismName.equals(name)) {
                return Optional.of(mechanism);
            }
        }
        return Optional.empty();
    }

    /** The mechanism with this Kafka type id, if any (0 is Kafka's UNKNOWN and maps to none). */
    public static Optional<ScramMechanism> forTypeId(int typeId) {
        for (ScramMechanism mechanism : values()) {
            if (mechanism.typeId == typeId) {
                return Optional.of(mechanism);
            }
        }
        return Optional.empty();
    }
}
