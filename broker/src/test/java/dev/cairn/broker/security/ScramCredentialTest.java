package dev.cairn.broker.security;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** {@link ScramCredential}: agreement with Kafka's arithmetic, validation, the binary form, and no leaks. */
class ScramCredentialTest {

    private static final byte[] SALT = "some-salt-bytes".getBytes(UTF_8);

    @ParameterizedTest
    @EnumSource(ScramMechanism.class)
    void fromPasswordMatchesKafkasFormatter(ScramMechanism mechanism) throws Exception {
        ScramFormatter kafka = new ScramFormatter(ManualScramClient.kafka(mechanism));
        // "pa\u0308ss" is not NFKC-normalised: agreeing on it shows neither side applies SASLprep.
        for (String password : new String[] {"alice-secret", "p\u00e4ss w\u00f6rd \u2603", "pa\u0308ss", "x"}) {
            for (int iterations : new int[] {4096, 5000, 16384}) {
                byte[] salted = kafka.saltedPassword(password, SALT, iterations);
                ScramCredential ours = ScramCredential.fromPassword(mechanism, password, SALT, iterations);
                assertArrayEquals(kafka.storedKey(kafka.clientKey(salted)), ours.storedKey());
                assertArrayEquals(kafka.serverKey(salted), ours.serverKey());
                assertArrayEquals(SALT, ours.salt());
                assertEquals(iterations, ours.iterations());
                assertEquals(ours, ScramCredential.fromSaltedPassword(mechanism, salted, SALT, iterations));
            }
        }
    }

    /** RFC 7677 section 3's SCRAM-SHA-256 example: user "user", password "pencil", 4096 iterations. */
    @Test
    void hiMatchesTheRfc7677Example() {
        byte[] salt = Base64.getDecoder().decode("W22ZaJ0SNY7soEsUEjb6gQ==");
        ScramCredential credential = ScramCredential.fromPassword(ScramMechanism.SCRAM_SHA_256, "pencil", salt,
                4096);
        // From the example's server signature: v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=
        byte[] authMessage = ("n=user,r=rOprNGfwEbeRWgbNEkqO,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
                + "s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096,c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0")
                .getBytes(UTF_8);
        byte[] serverSignature = ScramCrypto.hmac(ScramMechanism.SCRAM_SHA_256, credential.serverKey(), authMessage);
        assertEquals("6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=",
                Base64.getEncoder().encodeToString(serverSignature));
        byte[] proof = Base64.getDecoder().decode("dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=");
        byte[] clientKey = ScramCrypto.xor(proof, ScramCrypto.hmac(ScramMechanism.SCRAM_SHA_256,
                credential.storedKey(), authMessage));
        assertArrayEquals(credential.storedKey(), ScramCrypto.hash(ScramMechanism.SCRAM_SHA_256, clientKey));
    }

    @Test
    void iterationsOutsideKafkasBoundsAreRefused() {
        for (int iterations : new int[] {0, 4095, 16385, Integer.MAX_VALUE}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> ScramCredential.fromPassword(ScramMechanism.SCRAM_SHA_256, "pw", SALT, iterations));
            assertTrue(e.getMessage().contains("between 4096 and 16384"), e.getMessage());
        }
    }

    @Test
    void saltPasswordAndKeysAreValidated() {
        ScramMechanism m = ScramMechanism.SCRAM_SHA_512;
        assertThrows(IllegalArgumentException.class, () -> ScramCredential.fromPassword(m, "pw", new byte[0], 4096));
        assertThrows(IllegalArgumentException.class, () -> ScramCredential.fromPassword(m, "pw", new byte[257], 4096));
        ScramCredential.fromPassword(m, "pw", new byte[256], 4096);
        assertThrows(IllegalArgumentException.class, () -> ScramCredential.fromPassword(m, "", SALT, 4096));
        assertThrows(IllegalArgumentException.class, () -> new ScramCredential(m, SALT, new byte[32], new byte[64],
                4096), "a SHA-256-sized key for SCRAM-SHA-512");
    }

    @ParameterizedTest
    @EnumSource(ScramMechanism.class)
    void encodeDecodeRoundTrips(ScramMechanism mechanism) {
        ScramCredential credential = ScramCredential.generate(mechanism, "pw", 8192, new SecureRandom());
        byte[] encoded = credential.encode();
        assertEquals(1, encoded[0], "version first");
        assertEquals(credential, ScramCredential.decode(encoded));
        assertEquals(credential.hashCode(), ScramCredential.decode(encoded).hashCode());
    }

    @Test
    void everyTruncationIsRefused() {
        byte[] encoded = ScramCredential.fromPassword(ScramMechanism.SCRAM_SHA_256, "pw", SALT, 4096).encode();
        for (int length = 0; length < encoded.length; length++) {
            byte[] truncated = Arrays.copyOf(encoded, length);
            assertThrows(IllegalArgumentException.class, () -> ScramCredential.decode(truncated), "length " + length);
        }
    }

    @Test
    void corruptEncodingsAreRefused() {
        byte[] good = ScramCredential.fromPassword(ScramMechanism.SCRAM_SHA_256, "pw", SALT, 4096).encode();
        assertRefused(Arrays.copyOf(good, good.length + 1), "trailing");
        assertRefused(new byte[100_000], "more than");
        byte[] version = good.clone();
        version[0] = 2;
        assertRefused(version, "version");
        for (byte type : new byte[] {0, 3, -1}) {
            byte[] mechanism = good.clone();
            mechanism[1] = type;
            assertRefused(mechanism, "mechanism type");
        }
        byte[] iterations = good.clone();
        iterations[2] = 0x7f;
        assertRefused(iterations, "iterations");
        byte[] saltLength = good.clone();
        saltLength[6] = 0x7f;
        assertRefused(saltLength, "more than 256");
        byte[] swapped = good.clone();
        swapped[1] = 2;
        assertRefused(swapped, "must be 64 bytes");
    }

    private static void assertRefused(byte[] encoded, String expected) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ScramCredential.decode(encoded));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    @Test
    void toStringShowsNoKeyMaterial() {
        ScramCredential credential = ScramCredential.fromPassword(ScramMechanism.SCRAM_SHA_512, "pw", SALT, 4096);
        String text = credential.toString();
        assertEquals("ScramCredential[mechanism=SCRAM-SHA-512, iterations=4096]", text);
        for (byte[] secret : new byte[][] {credential.salt(), credential.storedKey(), credential.serverKey()}) {
            assertFalse(text.contains(HexFormat.of().formatHex(secret)));
            assertFalse(text.contains(Base64.getEncoder().encodeToString(secret)));
            assertFalse(text.contains(Arrays.toString(secret)));
        }
    }

    @Test
    void arraysAreCopiedInAndOutAndComparedByContent() {
        byte[] salt = SALT.clone();
        ScramCredential credential = ScramCredential.fromPassword(ScramMechanism.SCRAM_SHA_256, "pw", salt, 4096);
        salt[0] ^= 1;
        credential.salt()[0] ^= 1;
        credential.storedKey()[0] ^= 1;
        assertEquals(ScramCredential.fromPassword(ScramMechanism.SCRAM_SHA_256, "pw", SALT, 4096), credential);
        assertNotEquals(ScramCredential.fromPassword(ScramMechanism.SCRAM_SHA_256, "pw2", SALT, 4096), credential);
        assertNotEquals(ScramCredential.fromPassword(ScramMechanism.SCRAM_SHA_256, "pw", SALT, 4097), credential);
    }

    @Test
    void mechanismsMatchKafkas() throws Exception {
        for (ScramMechanism mechanism : ScramMechanism.values()) {
            var kafka = ManualScramClient.kafka(mechanism);
            assertEquals(kafka.hashAlgorithm(), mechanism.digestAlgorithm());
            assertEquals(kafka.macAlgorithm(), mechanism.hmacAlgorithm());
            assertEquals(kafka.type(), mechanism.typeId());
            assertEquals(kafka.minIterations(), ScramMechanism.ITERATIONS_MIN);
            assertEquals(kafka.maxIterations(), ScramMechanism.ITERATIONS_MAX);
            assertEquals(java.security.MessageDigest.getInstance(mechanism.digestAlgorithm()).getDigestLength(),
                    mechanism.digestBytes());
            assertEquals(mechanism, ScramMechanism.forName(mechanism.mechanismName()).orElseThrow());
            assertEquals(mechanism, ScramMechanism.forTypeId(mechanism.typeId()).orElseThrow());
        }
        assertTrue(ScramMechanism.forName("scram-sha-256").isEmpty());
        assertTrue(ScramMechanism.forName("PLAIN").isEmpty());
        assertTrue(ScramMechanism.forTypeId(0).isEmpty());
        assertTrue(ScramMechanism.forTypeId(3).isEmpty());
    }
}
