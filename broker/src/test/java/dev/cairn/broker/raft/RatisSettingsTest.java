package dev.cairn.broker.raft;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.junit.jupiter.api.Test;

/** The Ratis properties Cairn's settings produce, where their relations are what keeps a feature working. */
class RatisSettingsTest {
    private static final int KAFKA_DEFAULT_BATCH_BYTES = 1024 * 1024 + 12;

    private static RaftProperties properties(RatisSettings settings) {
        return settings.toProperties();
    }

    private static RatisSettings defaults() {
        return RatisSettings.defaults(new File("unused"), "127.0.0.1", 0);
    }

    /**
     * Ratis refuses an entry above the appender's buffer limit, and the write buffer must hold one entry plus 8
     * bytes: a batch of the broker's message.max.bytes must fit both, and gRPC must carry it to followers.
     */
    @Test
    void aBatchOfMessageMaxBytesFitsOneRaftEntry() {
        for (int batchBytes : new int[] {KAFKA_DEFAULT_BATCH_BYTES, 3 * 1024 * 1024, 64 * 1024 * 1024}) {
            RaftProperties p = properties(defaults().withBatchBytesMax(batchBytes));
            long appenderLimit = RaftServerConfigKeys.Log.Appender.bufferByteLimit(p).getSize();
            long writeBuffer = RaftServerConfigKeys.Log.writeBufferSize(p).getSize();
            assertTrue(appenderLimit >= batchBytes + 1024L, batchBytes + ": appender limit " + appenderLimit);
            assertTrue(writeBuffer >= appenderLimit + 8, batchBytes + ": write buffer " + writeBuffer);
            assertTrue(GrpcConfigKeys.messageSizeMax(p, s -> { }).getSize() >= writeBuffer);
        }
        RaftProperties p = properties(defaults());
        assertTrue(RaftServerConfigKeys.Log.Appender.bufferByteLimit(p).getSize() >= KAFKA_DEFAULT_BATCH_BYTES + 1024L,
                "the default settings carry a batch of Kafka's default message.max.bytes");
    }

    /** A new group elects well before the ordinary election timeout (a new partition's leader comes at once). */
    @Test
    void aGroupsFirstElectionComesBeforeTheOrdinaryTimeout() {
        RaftProperties p = properties(defaults());
        long firstMax = RaftServerConfigKeys.Rpc.firstElectionTimeoutMax(p).toLong(TimeUnit.MILLISECONDS);
        long ordinaryMin = RaftServerConfigKeys.Rpc.timeoutMin(p).toLong(TimeUnit.MILLISECONDS);
        assertTrue(firstMax * 4 <= ordinaryMin, "first election within " + firstMax + " ms, ordinary " + ordinaryMin);
        assertEquals(RatisSettings.ELECTION_TIMEOUT_MIN_DEFAULT.toLong(TimeUnit.MILLISECONDS), ordinaryMin);
    }

    /** Issue 17: Kafka's default durability unless log.flush.interval.messages=1 asks for fsync before the ack. */
    @Test
    void acknowledgesOnWriteByDefaultAndOnFsyncWhenAsked() {
        assertEquals(true, org.apache.ratis.server.RaftServerConfigKeys.Log.unsafeFlushEnabled(
                properties(defaults())));
        assertEquals(false, org.apache.ratis.server.RaftServerConfigKeys.Log.unsafeFlushEnabled(
                properties(defaults().withFsyncBeforeAck(true))));
    }
}
