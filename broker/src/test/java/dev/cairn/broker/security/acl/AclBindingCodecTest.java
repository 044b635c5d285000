package dev.cairn.broker.security.acl;

import static dev.cairn.broker.security.acl.Acls.ALICE;
import static dev.cairn.broker.security.acl.Acls.allow;
import static dev.cairn.broker.security.acl.Acls.allowTopic;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link AclBinding#encode()} and {@link AclBinding#decode}: round trips, and every kind of bad input refused. */
class AclBindingCodecTest {

    private static final String MAX = "x".repeat(AclBinding.STRING_BYTES_MAX);

    private static final List<AclBinding> SAMPLES = List.of(
            allowTopic("orders", ALICE, AclOperation.READ),
            new AclBinding(ResourceType.GROUP, "grp-", PatternType.PREFIXED, "User:*", "10.0.0.1",
                    AclOperation.ALL, AclPermission.DENY),
            allow(ResourceType.CLUSTER, AclBinding.CLUSTER_NAME, PatternType.LITERAL, "Group:ops",
                    AclOperation.TWO_PHASE_COMMIT),
            new AclBinding(ResourceType.TRANSACTIONAL_ID, "tränsäktiön-😀", PatternType.LITERAL, "User:日本",
                    "::1", AclOperation.DESCRIBE_TOKENS, AclPermission.ALLOW),
            new AclBinding(ResourceType.USER, MAX, PatternType.LITERAL, "User:" + MAX.substring(5), MAX,
                    AclOperation.CREATE_TOKENS, AclPermission.ALLOW),
            new AclBinding(ResourceType.ANY, "", PatternType.MATCH, "", "", AclOperation.ANY, AclPermission.ANY));

    private static byte[] withByte(byte[] bytes, int index, int value) {
        byte[] copy = bytes.clone();
        copy[index] = (byte) value;
        return copy;
    }

    private static void refused(byte[] bytes, String expected) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> AclBinding.decode(bytes));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    @Test
    void roundTrips() {
        for (AclBinding binding : SAMPLES) {
            byte[] encoded = binding.encode();
            assertEquals(1, encoded[0], "version first");
            assertEquals(binding, AclBinding.decode(encoded));
            assertArrayEquals(encoded, AclBinding.decode(encoded).encode());
        }
    }

    @Test
    void layoutIsVersionCodesThenLengthPrefixedStrings() {
        byte[] encoded = allowTopic("t", ALICE, AclOperation.WRITE).encode();
        ByteBuffer expected = ByteBuffer.allocate(5 + 2 + 1 + 2 + 10 + 2 + 1)
                .put(new byte[] {1, 2, 3, 4, 3})
                .putShort((short) 1).put((byte) 't')
                .putShort((short) 10).put(ALICE.getBytes(StandardCharsets.UTF_8))
                .putShort((short) 1).put((byte) '*');
        assertArrayEquals(expected.array(), encoded);
    }

    @Test
    void largestEncodingIsTheBound() {
        AclBinding largest = new AclBinding(ResourceType.TOPIC, MAX, PatternType.LITERAL, MAX, MAX,
                AclOperation.READ, AclPermission.ALLOW);
        assertEquals(AclBinding.ENCODED_BYTES_MAX, largest.encode().length);
    }

    @Test
    void everyTruncationIsRefused() {
        for (AclBinding binding : SAMPLES) {
            byte[] encoded = binding.encode();
            for (int length = 0; length < encoded.length; length++) {
                byte[] prefix = Arrays.copyOf(encoded, length);
                assertThrows(IllegalArgumentException.class, () -> AclBinding.decode(prefix), "length " + length);
            }
        }
    }

    @Test
    void corruptHeadersAreRefused() {
        byte[] encoded = allowTopic("t", ALICE, AclOperation.WRITE).encode();
        refused(withByte(encoded, 0, 2), "version 2");
        refused(withByte(encoded, 0, 0), "version 0");
        refused(withByte(encoded, 1, 0), "resource type code 0");
        refused(withByte(encoded, 1, 8), "resource type code 8");
        refused(withByte(encoded, 2, 5), "pattern type code 5");
        refused(withByte(encoded, 3, 16), "operation code 16");
        refused(withByte(encoded, 4, -1), "permission code -1");
        refused(Arrays.copyOf(encoded, encoded.length + 1), "1 trailing bytes");
    }

    @Test
    void oversizedInputsAreRefused() {
        refused(new byte[AclBinding.ENCODED_BYTES_MAX + 1], "more than the " + AclBinding.ENCODED_BYTES_MAX);
        byte[] encoded = allowTopic("t", ALICE, AclOperation.WRITE).encode();
        ByteBuffer longName = ByteBuffer.wrap(encoded.clone());
        longName.putShort(5, (short) (AclBinding.STRING_BYTES_MAX + 1));
        refused(longName.array(), "resourceName is 1025 bytes");
        longName.putShort(5, (short) -1);
        refused(longName.array(), "resourceName is 65535 bytes");
    }

    @Test
    void malformedUtf8IsRefused() {
        byte[] encoded = allowTopic("tt", ALICE, AclOperation.WRITE).encode();
        refused(withByte(encoded, 7, 0xff), "resourceName is not well-formed UTF-8");
        refused(withByte(encoded, 7, 0xc3), "resourceName is not well-formed UTF-8");
        byte[] surrogate = allowTopic("ttt", ALICE, AclOperation.WRITE).encode();
        surrogate[7] = (byte) 0xed;
        surrogate[8] = (byte) 0xa0;
        surrogate[9] = (byte) 0x80;
        refused(surrogate, "not well-formed UTF-8");
    }

    @Test
    void encodeNeedsStorableFields() {
        assertThrows(NullPointerException.class,
                () -> new AclBinding(null, "t", PatternType.LITERAL, ALICE, "*", AclOperation.READ,
                        AclPermission.ALLOW).encode());
        assertThrows(NullPointerException.class, () -> allowTopic(null, ALICE, AclOperation.READ).encode());
        assertThrows(NullPointerException.class, () -> AclBinding.decode(null));
        assertThrows(IllegalArgumentException.class, () -> allowTopic(MAX + "x", ALICE, AclOperation.READ).encode());
        assertThrows(IllegalArgumentException.class, () -> allowTopic("é" + MAX.substring(1), ALICE,
                AclOperation.READ).encode(), "1,025 bytes in 1,024 characters");
        assertThrows(IllegalArgumentException.class, () -> allowTopic("\ud800", ALICE, AclOperation.READ).encode());
    }

    /** Random bytes either fail with IllegalArgumentException or decode to a binding that encodes back to them. */
    @Test
    void randomBytesNeverDecodeAmbiguously() {
        Random random = new Random(77);
        byte[] valid = allowTopic("abc", ALICE, AclOperation.WRITE).encode();
        int decoded = 0;
        for (int i = 0; i < 20_000; i++) {
            byte[] bytes = valid.clone();
            for (int flips = 1 + random.nextInt(3); flips > 0; flips--) {
                bytes[random.nextInt(bytes.length)] = (byte) random.nextInt(256);
            }
            try {
                assertArrayEquals(bytes, AclBinding.decode(bytes).encode());
                decoded++;
            } catch (IllegalArgumentException expected) {
                // refused: fine
            }
        }
        assertTrue(decoded > 100, "some corruptions stay well-formed: " + decoded);
    }
}
