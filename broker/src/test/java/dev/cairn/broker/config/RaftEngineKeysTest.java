package dev.cairn.broker.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

class RaftEngineKeysTest {

    @Test
    void cairnIsTheDefaultAndRatisIsChosenByName() {
        assertEquals(RaftEngineKeys.Engine.CAIRN, BrokerConfig.defaults().raftEngine());
        assertEquals(RaftEngineKeys.Engine.RATIS, BrokerConfig.fromMap(Map.of("raft.engine", "ratis")).raftEngine());
        BrokerConfig cairn = BrokerConfig.fromMap(Map.of("raft.engine", "cairn"));
        assertEquals(RaftEngineKeys.Engine.CAIRN, cairn.raftEngine());
        assertEquals(new HostPort("127.0.0.1", 0), cairn.raftEngineListener(), "raft.listener's host, any port");
        assertEquals(new HostPort("127.0.0.1", 9095), BrokerConfig.fromMap(Map.of("raft.engine", "cairn",
                "raft.engine.listener", "127.0.0.1:9095")).raftEngineListener());
        ConfigException unknown = assertThrows(ConfigException.class,
                () -> BrokerConfig.fromMap(Map.of("raft.engine", "Ratis2")));
        assertTrue(unknown.getMessage().contains("raft.engine"), unknown.getMessage());
    }

    @Test
    void cairnRefusesWhatItCannotRunYet() {
        assertRefused(Map.of("raft.engine", "cairn", "node.id", Integer.toString(Integer.MAX_VALUE),
                "raft.voters", Integer.MAX_VALUE + "@127.0.0.1:9093"), "node.id");
        assertRefused(Map.of("raft.engine", "cairn", "message.max.bytes", Integer.toString(40 << 20),
                "socket.request.max.bytes", Integer.toString(100 << 20)), "message.max.bytes");
        assertRefused(Map.of("raft.engine", "cairn", "raft.engine.listener", "nohost"), "raft.engine.listener");
        // The same values are fine on Ratis.
        BrokerConfig.fromMap(Map.of("raft.engine", "ratis", "message.max.bytes", Integer.toString(40 << 20),
                "socket.request.max.bytes", Integer.toString(100 << 20)));
    }

    /**
     * An engine entry that carries its batch (a transactional one, or an append placed behind one) is logged whole in
     * one RaftWal record and sent whole in one frame, so the largest batch leaves room under both for the command's
     * header; a larger one made the WAL refuse the append.
     */
    @Test
    void theEnginesLargestBatchFitsOneFrameAndOneWalRecord() {
        int headroom = 32 * 1024;
        assertTrue(RaftEngineKeys.ENGINE_BATCH_BYTES_MAX + headroom <= dev.cairn.raft.storage.RaftWal.RECORD_BYTES_MAX);
        assertTrue(RaftEngineKeys.ENGINE_BATCH_BYTES_MAX + headroom
                <= dev.cairn.raft.runtime.FrameCodec.FRAME_BYTES_MAX);
        assertRefused(Map.of("raft.engine", "cairn", "message.max.bytes", Integer.toString(20 << 20)),
                "message.max.bytes");
    }

    private static void assertRefused(Map<String, String> values, String naming) {
        ConfigException refused = assertThrows(ConfigException.class, () -> BrokerConfig.fromMap(values));
        assertTrue(refused.getMessage().contains(naming), refused.getMessage());
    }
}
