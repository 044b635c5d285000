package dev.cairn.maelstrom.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class NodeConfigTest {

    @Test
    void defaultsAreValidAndSafe() {
        NodeConfig config = NodeConfig.parse(List.of());
        assertEquals(NodeConfig.defaults(), config);
        assertFalse(config.unsafeAckBeforeCommit());
        assertTrue(config.clientDeadlineMs() < NodeConfig.MAELSTROM_CLIENT_TIMEOUT_MS);
    }

    @Test
    void parsesEveryFlag() {
        NodeConfig config = NodeConfig.parse(List.of("--partitions", "5", "--election-timeout-ms", "500", "900",
                "--raft-request-timeout-ms", "700", "--appender-buffer-bytes", "4096", "--client-deadline-ms", "3000",
                "--unsafe-ack-before-commit", "--storage-dir", "/var/tmp/run", "--warm-up-ms", "0"));
        assertEquals(new NodeConfig(5, 500, 900, 700, 4096, 3000, true, Path.of("/var/tmp/run"), 0,
                NodeConfig.RaftEngine.RATIS), config);
    }

    @Test
    void storageDirIsPerProcessByDefaultAndAbsoluteWhenGiven() {
        assertEquals(null, NodeConfig.defaults().storageDir());
        assertTrue(NodeConfig.parse(List.of("--storage-dir", "relative")).storageDir().isAbsolute());
        assertThrows(IllegalArgumentException.class, () -> NodeConfig.parse(List.of("--storage-dir")));
        assertThrows(IllegalArgumentException.class, () -> NodeConfig.parse(List.of("--storage-dir", "")));
    }

    @Test
    void rejectsValuesThatBreakTheProtocolOrEachOther() {
        assertThrows(IllegalArgumentException.class, () -> NodeConfig.parse(List.of("--partitions", "0")));
        assertThrows(IllegalArgumentException.class, () -> NodeConfig.parse(List.of("--client-deadline-ms", "5000")));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> NodeConfig.parse(List.of("--election-timeout-ms", "900", "500")));
        assertTrue(e.getMessage().contains("900") && e.getMessage().contains("500"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> NodeConfig.parse(List.of("--partitions")));
        assertThrows(IllegalArgumentException.class, () -> NodeConfig.parse(List.of("--bogus")));
        assertThrows(IllegalArgumentException.class, () -> NodeConfig.parse(List.of("--warm-up-ms", "-1")));
        assertThrows(IllegalArgumentException.class, () -> NodeConfig.parse(List.of("--warm-up-ms",
                String.valueOf(NodeConfig.WARM_UP_MS_MAX + 1))));
    }

    @Test
    void theRaftEngineIsRatisUnlessCairnsOwnIsAskedFor() {
        assertEquals(NodeConfig.RaftEngine.RATIS, NodeConfig.defaults().raftEngine());
        assertEquals(NodeConfig.RaftEngine.CAIRN, NodeConfig.parse(List.of("--raft", "cairn")).raftEngine());
        assertEquals(NodeConfig.RaftEngine.RATIS, NodeConfig.parse(List.of("--raft", "ratis")).raftEngine());
        assertThrows(IllegalArgumentException.class, () -> NodeConfig.parse(List.of("--raft", "etcd")));
        assertThrows(IllegalArgumentException.class, () -> NodeConfig.parse(List.of("--raft")));
    }
}
