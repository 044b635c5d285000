package dev.cairn.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.config.ConfigException;
import dev.cairn.broker.config.RaftEngineKeys.Engine;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RaftEngineMarkerTest {

    @Test
    void firstStartRecordsTheEngineAndALaterStartWithTheOtherIsRefused(@TempDir Path dir) throws Exception {
        RaftEngineMarker.check(dir, Engine.CAIRN);
        assertEquals("cairn", Files.readString(dir.resolve(RaftEngineMarker.FILE_NAME)).trim());
        RaftEngineMarker.check(dir, Engine.CAIRN);
        ConfigException refused = assertThrows(ConfigException.class, () -> RaftEngineMarker.check(dir, Engine.RATIS));
        assertTrue(refused.getMessage().contains("raft.engine=cairn"), refused.getMessage());
    }

    @Test
    void aDirectoryWithRatisPartitionsFromBeforeTheMarkerIsRatis(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("partition-groups.properties"), "");
        assertThrows(ConfigException.class, () -> RaftEngineMarker.check(dir, Engine.CAIRN));
        RaftEngineMarker.check(dir, Engine.RATIS);
        assertEquals("ratis", Files.readString(dir.resolve(RaftEngineMarker.FILE_NAME)).trim());
    }

    /** Without an explicit raft.engine a directory keeps what it records: an upgrade does not strand Ratis data. */
    @Test
    void unsetTheEngineIsTheOneTheDirectoryRecords(@TempDir Path dir) throws Exception {
        assertEquals(Engine.CAIRN, RaftEngineMarker.check(dir.resolve("new"), Engine.CAIRN, false));
        Path ratis = dir.resolve("ratis");
        Files.createDirectories(ratis);
        Files.writeString(ratis.resolve("partition-groups.properties"), "");
        assertEquals(Engine.RATIS, RaftEngineMarker.check(ratis, Engine.CAIRN, false));
        assertEquals("ratis", Files.readString(ratis.resolve(RaftEngineMarker.FILE_NAME)).trim());
        assertEquals(Engine.RATIS, RaftEngineMarker.check(ratis, Engine.CAIRN, false));
        assertThrows(ConfigException.class, () -> RaftEngineMarker.check(ratis, Engine.CAIRN, true));
    }

    @Test
    void anUnreadableMarkerIsRefusedRatherThanGuessed(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve(RaftEngineMarker.FILE_NAME), "zookeeper\n");
        assertThrows(java.io.IOException.class, () -> RaftEngineMarker.check(dir, Engine.RATIS));
    }
}
