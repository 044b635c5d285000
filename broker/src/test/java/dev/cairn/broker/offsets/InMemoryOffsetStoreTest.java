package dev.cairn.broker.offsets;

import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.cairn.broker.io.FileHandle;
import dev.cairn.broker.io.SimulatedFileIo;
import dev.cairn.broker.io.StorageException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class InMemoryOffsetStoreTest extends OffsetStoreContract {
    private final SimulatedFileIo io = new SimulatedFileIo(1);

    @Override
    OffsetStore open() {
        return new InMemoryOffsetStore(io);
    }

    /** The in-memory store survives a "restart" only through its checkpoint, as the Maelstrom node uses it. */
    @Override
    OffsetStore reopen(OffsetStore store) {
        Path checkpoint = tempDir.resolve("restart-" + System.identityHashCode(store));
        store.checkpoint(checkpoint);
        store.close();
        OffsetStore fresh = new InMemoryOffsetStore(io);
        fresh.restore(checkpoint);
        return fresh;
    }

    @Test
    void corruptCheckpointIsRefused() throws IOException {
        InMemoryOffsetStore store = new InMemoryOffsetStore(io);
        store.commit("t", 0, 1, Map.of("g", new OffsetStore.CommittedOffset(1, null, 1)));
        Path checkpoint = tempDir.resolve("cp");
        store.checkpoint(checkpoint);
        try (FileHandle file = io.open(checkpoint.resolve(InMemoryOffsetStore.SNAPSHOT_FILE))) {
            file.write(ByteBuffer.wrap(new byte[] {42}), 20);
        }
        assertThrows(StorageException.class, () -> new InMemoryOffsetStore(io).restore(checkpoint));
    }
}
