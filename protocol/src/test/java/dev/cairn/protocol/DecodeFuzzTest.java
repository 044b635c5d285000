package dev.cairn.protocol;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.cairn.protocol.schema.Schema;
import dev.cairn.protocol.schema.Struct;
import dev.cairn.protocol.wire.DecodeException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Mutation fuzzing of the decode entry points (acceptance point 3): a million frames derived from valid request
 * and response frames of every API and supported version, by bit flips, byte sets, truncations, length-field
 * corruption, insertions, deletions, trailing garbage and random garbage behind a valid header. For each frame:
 * only {@link DecodeException} escapes, and the bytes the decoding thread allocates stay within
 * {@link #ALLOCATED_BYTES_PER_FRAME_BYTE_MAX} times the frame size plus {@link #ALLOCATED_BYTES_CONSTANT_MAX}
 * (measured with {@code com.sun.management.ThreadMXBean}). A hang fails the {@link Timeout}. The seed and the
 * offending frame are printed on failure.
 */
class DecodeFuzzTest {
    private static final long SEED = 0xF022_0001L;
    private static final int MUTATED_FRAMES = 1_000_000;
    /**
     * Frames decoded first without the allocation check, because the first decodes load classes (formatter,
     * exception paths) on the decoding thread. They are still checked for escaping exceptions.
     */
    private static final int WARM_UP_FRAMES = 20_000;
    private static final int BASE_FRAMES_PER_MESSAGE_VERSION = 12;
    /** Boxed values, struct slots and list entries cost a bounded multiple of the wire bytes they came from. */
    private static final long ALLOCATED_BYTES_PER_FRAME_BYTE_MAX = 32;
    /** Covers the wrappers, the exception and its message, whatever the frame size. */
    private static final long ALLOCATED_BYTES_CONSTANT_MAX = 8 * 1024;
    private static final int GARBAGE_BYTES_MAX = 256;
    /** Below this size the constant dominates, so the reported ratio covers larger frames only. */
    private static final int RATIO_REPORT_FRAME_BYTES_MIN = 256;
    /** Bytes of a valid header kept in front of garbage so the garbage reaches the body decoder. */
    private static final int KEPT_HEADER_BYTES = 8;
    private static final int[] INTERESTING_BYTES = {0x00, 0xff, 0x7f, 0x80, 0x01, 0xfe};
    private static final int[] INTERESTING_INTS = {0x7fffffff, 0xffffffff, 0x80000000, 0xfffffffe, 0x00010000,
        0x0000ffff, 0x00007fff};

    private record Target(ApiKey apiKey, short version, boolean request, byte[] frame) {
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void onlyDecodeExceptionEscapesAndAllocationStaysBounded() {
        Random random = new Random(SEED);
        List<Target> corpus = corpus(random);
        com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        for (int i = 0; i < WARM_UP_FRAMES; i++) {
            Target target = corpus.get(random.nextInt(corpus.size()));
            byte[] mutated = mutate(target.frame(), random);
            try {
                decode(target, ByteBuffer.wrap(mutated));
            } catch (DecodeException expected) {
                continue;
            } catch (RuntimeException unexpected) {
                fail(describe(target, -i, mutated) + " threw " + unexpected, unexpected);
            }
        }
        long rejected = 0;
        long worstAllocatedBytes = 0;
        double worstRatio = 0;
        for (int i = 0; i < MUTATED_FRAMES; i++) {
            Target target = corpus.get(random.nextInt(corpus.size()));
            byte[] mutated = mutate(target.frame(), random);
            ByteBuffer frame = ByteBuffer.wrap(mutated);
            long allocatedBefore = threads.getCurrentThreadAllocatedBytes();
            try {
                decode(target, frame);
            } catch (DecodeException expected) {
                rejected++;
            } catch (RuntimeException unexpected) {
                fail(describe(target, i, mutated) + " threw " + unexpected, unexpected);
            }
            long allocated = threads.getCurrentThreadAllocatedBytes() - allocatedBefore;
            long allowed = ALLOCATED_BYTES_PER_FRAME_BYTE_MAX * mutated.length + ALLOCATED_BYTES_CONSTANT_MAX;
            if (allocated > allowed) {
                fail(describe(target, i, mutated) + " allocated " + allocated + " bytes, more than " + allowed);
            }
            worstAllocatedBytes = Math.max(worstAllocatedBytes, allocated);
            if (mutated.length >= RATIO_REPORT_FRAME_BYTES_MIN) {
                worstRatio = Math.max(worstRatio, (double) allocated / mutated.length);
            }
        }
        System.out.printf("DecodeFuzzTest: %d frames, %d rejected, %d accepted; most allocated by one decode %d bytes;"
                + " worst %.1f allocated bytes per frame byte for frames of %d+ bytes; seed %d%n", MUTATED_FRAMES,
                rejected, MUTATED_FRAMES - rejected, worstAllocatedBytes, worstRatio, RATIO_REPORT_FRAME_BYTES_MIN,
                SEED);
        assertTrue(rejected > MUTATED_FRAMES / 4, "mutations should mostly produce malformed frames");
    }

    private static String describe(Target target, int frameNumber, byte[] mutated) {
        return "seed=" + SEED + " frame#" + frameNumber + " " + target.apiKey() + " v" + target.version()
                + (target.request() ? " request " : " response ") + HexFormat.of().formatHex(mutated);
    }

    private static void decode(Target target, ByteBuffer frame) {
        if (target.request()) {
            ProtocolCodec.decodeRequest(frame);
        } else {
            ProtocolCodec.decodeResponse(frame, target.apiKey(), target.version());
        }
    }

    private static List<Target> corpus(Random random) {
        List<Target> corpus = new ArrayList<>();
        RandomStructs structs = new RandomStructs(random.nextLong(), true);
        for (ApiKey apiKey : ApiKey.values()) {
            for (short version = apiKey.minVersion(); version <= apiKey.maxVersion(); version++) {
                for (int i = 0; i < BASE_FRAMES_PER_MESSAGE_VERSION; i++) {
                    RequestHeader header = new RequestHeader(apiKey.id(), version, random.nextInt(),
                            random.nextBoolean() ? null : "client-" + i);
                    Struct request = structs.message(apiKey.requestSchema(), version);
                    corpus.add(new Target(apiKey, version, true,
                            withoutSizePrefix(ProtocolCodec.encodeRequest(header, request))));
                    Schema responseSchema = apiKey.responseSchema();
                    Struct response = structs.message(responseSchema, version);
                    corpus.add(new Target(apiKey, version, false,
                            withoutSizePrefix(ProtocolCodec.encodeResponse(header, response))));
                }
            }
        }
        return corpus;
    }

    private static byte[] withoutSizePrefix(ByteBuffer frame) {
        return Arrays.copyOfRange(frame.array(), Framing.SIZE_PREFIX_BYTES, frame.limit());
    }

    static byte[] mutate(byte[] valid, Random random) {
        byte[] frame = valid.clone();
        int mutations = 1 + random.nextInt(3);
        for (int m = 0; m < mutations; m++) {
            frame = mutateOnce(frame, random);
        }
        return frame;
    }

    private static byte[] mutateOnce(byte[] frame, Random random) {
        int length = frame.length;
        switch (random.nextInt(8)) {
            case 0:
                if (length > 0) {
                    int bit = random.nextInt(length * 8);
                    frame[bit / 8] ^= (byte) (1 << (bit % 8));
                }
                return frame;
            case 1:
                if (length > 0) {
                    frame[random.nextInt(length)] = random.nextBoolean()
                            ? (byte) INTERESTING_BYTES[random.nextInt(INTERESTING_BYTES.length)]
                            : (byte) random.nextInt();
                }
                return frame;
            case 2:
                return Arrays.copyOf(frame, random.nextInt(length + 1));
            case 3:
                return corruptLength(frame, random);
            case 4:
                byte[] garbage = new byte[random.nextInt(GARBAGE_BYTES_MAX)];
                random.nextBytes(garbage);
                if (random.nextBoolean()) {
                    System.arraycopy(frame, 0, garbage, 0, Math.min(Math.min(KEPT_HEADER_BYTES, length),
                            garbage.length));
                }
                return garbage;
            case 5:
                int insertAt = random.nextInt(length + 1);
                byte[] inserted = new byte[1 + random.nextInt(8)];
                random.nextBytes(inserted);
                byte[] longer = new byte[length + inserted.length];
                System.arraycopy(frame, 0, longer, 0, insertAt);
                System.arraycopy(inserted, 0, longer, insertAt, inserted.length);
                System.arraycopy(frame, insertAt, longer, insertAt + inserted.length, length - insertAt);
                return longer;
            case 6:
                if (length == 0) {
                    return frame;
                }
                int deleteAt = random.nextInt(length);
                int deleted = Math.min(length - deleteAt, 1 + random.nextInt(8));
                byte[] shorter = new byte[length - deleted];
                System.arraycopy(frame, 0, shorter, 0, deleteAt);
                System.arraycopy(frame, deleteAt + deleted, shorter, deleteAt, length - deleteAt - deleted);
                return shorter;
            default:
                byte[] trailing = Arrays.copyOf(frame, length + 1 + random.nextInt(16));
                trailing[trailing.length - 1] = (byte) random.nextInt();
                return trailing;
        }
    }

    /** Overwrites what may be a length, count or varint with an extreme value. */
    private static byte[] corruptLength(byte[] frame, Random random) {
        ByteBuffer buffer = ByteBuffer.wrap(frame);
        int value = INTERESTING_INTS[random.nextInt(INTERESTING_INTS.length)];
        int shape = random.nextInt(3);
        if (shape == 0 && frame.length >= Integer.BYTES) {
            buffer.putInt(random.nextInt(frame.length - Integer.BYTES + 1), value);
        } else if (shape == 1 && frame.length >= Short.BYTES) {
            buffer.putShort(random.nextInt(frame.length - Short.BYTES + 1), (short) value);
        } else if (frame.length >= 5) {
            int at = random.nextInt(frame.length - 4);
            for (int i = 0; i < 4; i++) {
                frame[at + i] = (byte) (value >>> (7 * i) | 0x80);
            }
            frame[at + 4] = (byte) (random.nextBoolean() ? 0x0f : 0x7f);
        }
        return frame;
    }
}
