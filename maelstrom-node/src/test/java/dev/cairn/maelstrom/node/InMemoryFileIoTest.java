package dev.cairn.maelstrom.node;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.io.FileHandle;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.FileNotFoundException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The FileIo contract (broker.io.FileIo) on the heap. */
class InMemoryFileIoTest {
    private final InMemoryFileIo io = new InMemoryFileIo();

    @Test
    void positionalWritesReadsAndTruncation() throws Exception {
        FileHandle file = io.open(Path.of("/d/a.log"));
        file.write(ByteBuffer.wrap(new byte[] {1, 2, 3}), 0);
        file.write(ByteBuffer.wrap(new byte[] {9}), 5);
        assertEquals(6, file.size());
        ByteBuffer all = ByteBuffer.allocate(6);
        file.readFully(all, 0);
        assertArrayEquals(new byte[] {1, 2, 3, 0, 0, 9}, all.array());
        file.truncate(2);
        assertEquals(2, io.size(Path.of("/d/a.log")));
        assertEquals(-1, file.read(ByteBuffer.allocate(1), 2));
        assertThrows(EOFException.class, () -> file.readFully(ByteBuffer.allocate(3), 0));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertEquals(2, file.transferTo(0, 10, Channels.newChannel(out)));
        assertArrayEquals(new byte[] {1, 2}, out.toByteArray());
    }

    @Test
    void listMoveAndDelete() throws Exception {
        io.createDirectories(Path.of("/d"));
        assertTrue(io.exists(Path.of("/d")));
        assertEquals(List.of(), io.list(Path.of("/d")));
        io.open(Path.of("/d/b"));
        io.open(Path.of("/d/a"));
        io.open(Path.of("/d/sub/c"));
        assertEquals(List.of(Path.of("/d/a"), Path.of("/d/b")), io.list(Path.of("/d")));
        FileHandle b = io.open(Path.of("/d/b"));
        b.write(ByteBuffer.wrap(new byte[] {7}), 0);
        io.atomicMove(Path.of("/d/b"), Path.of("/d/a"));
        assertEquals(1, io.size(Path.of("/d/a")));
        assertFalse(io.exists(Path.of("/d/b")));
        io.delete(Path.of("/d/a"));
        assertFalse(io.exists(Path.of("/d/a")));
        assertThrows(FileNotFoundException.class, () -> io.size(Path.of("/d/a")));
    }
}
