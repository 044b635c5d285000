package dev.cairn.broker.io;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The simulator's own crash and fault model, which the log tests rely on. */
class SimulatedFileIoTest {
    private static final Path FILE = Path.of("/d/f");

    private static byte[] contents(SimulatedFileIo io, Path path) throws IOException {
        try (FileHandle handle = io.open(path)) {
            ByteBuffer buffer = ByteBuffer.allocate((int) handle.size());
            handle.readFully(buffer, 0);
            return buffer.array();
        }
    }

    @Test
    void crashKeepsForcedBytesAndAPrefixOfTheRestPossiblyTorn() throws IOException {
        Set<Integer> sizes = new HashSet<>();
        for (long seed = 0; seed < 200; seed++) {
            SimulatedFileIo io = new SimulatedFileIo(seed);
            FileHandle handle = io.open(FILE);
            handle.write(ByteBuffer.wrap(new byte[] {1, 2, 3, 4}), 0);
            handle.force();
            handle.write(ByteBuffer.wrap(new byte[] {5, 6, 7, 8}), 4);
            handle.write(ByteBuffer.wrap(new byte[] {9, 10}), 8);
            io.crash();
            assertThrows(ClosedChannelException.class, () -> handle.size(), "handles die with the crash");
            byte[] after = contents(io, FILE);
            assertTrue(after.length >= 4 && after.length <= 10, "size " + after.length);
            for (int i = 0; i < after.length; i++) {
                assertEquals(i + 1, after[i], "a crash never invents bytes");
            }
            sizes.add(after.length);
        }
        assertEquals(Set.of(4, 5, 6, 7, 8, 9, 10), sizes, "every prefix and every tear point occurs");
    }

    @Test
    void truncationIsDurableOnlyAfterForce() throws IOException {
        Set<Integer> sizes = new HashSet<>();
        for (long seed = 0; seed < 50; seed++) {
            SimulatedFileIo io = new SimulatedFileIo(seed);
            try (FileHandle handle = io.open(FILE)) {
                handle.write(ByteBuffer.wrap(new byte[8]), 0);
                handle.force();
                handle.truncate(2);
                assertEquals(2, handle.size());
            }
            io.crash();
            sizes.add(contents(io, FILE).length);
        }
        assertEquals(Set.of(2, 8), sizes);
    }

    @Test
    void diskFullWritesThePrefixThatFitsAndFails() throws IOException {
        SimulatedFileIo io = new SimulatedFileIo(1);
        io.setCapacityBytes(6);
        try (FileHandle handle = io.open(FILE)) {
            handle.write(ByteBuffer.wrap(new byte[4]), 0);
            IOException error = assertThrows(IOException.class, () -> handle.write(ByteBuffer.wrap(new byte[4]), 4));
            assertTrue(StorageException.isDiskFull(error), error.getMessage());
            assertEquals(6, handle.size());
            handle.truncate(4);
            io.setCapacityBytes(Long.MAX_VALUE);
            handle.write(ByteBuffer.wrap(new byte[4]), 4);
            assertEquals(8, handle.size());
        }
    }

    @Test
    void injectedEioFailsTheNextCalls() throws IOException {
        SimulatedFileIo io = new SimulatedFileIo(1);
        try (FileHandle handle = io.open(FILE)) {
            io.failNext(SimulatedFileIo.Operation.FORCE, 2);
            assertThrows(IOException.class, handle::force);
            assertThrows(IOException.class, handle::force);
            handle.force();
            io.failNext(SimulatedFileIo.Operation.READ, 1);
            assertThrows(IOException.class, () -> handle.read(ByteBuffer.allocate(1), 0));
        }
    }

    @Test
    void directoryOperations() throws IOException {
        SimulatedFileIo io = new SimulatedFileIo(1);
        io.open(Path.of("/d/b")).close();
        io.open(Path.of("/d/a")).close();
        io.open(Path.of("/e/c")).close();
        assertEquals(List.of(Path.of("/d/a"), Path.of("/d/b")), io.list(Path.of("/d")));
        io.atomicMove(Path.of("/d/a"), Path.of("/d/z"));
        io.delete(Path.of("/d/b"));
        assertEquals(List.of(Path.of("/d/z")), io.list(Path.of("/d")));
    }
}
