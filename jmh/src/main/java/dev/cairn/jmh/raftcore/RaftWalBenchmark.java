package dev.cairn.jmh.raftcore;

import dev.cairn.raft.Entry;
import dev.cairn.raft.HardState;
import dev.cairn.raft.storage.RaftWal;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Group commit across Raft groups (issue 17, docs/multi-raft.md): {@value #GROUPS} groups each persist one 1 KiB
 * entry, durably. {@code sharedLog}: one {@link RaftWal} for all of them and one fsync for the lot, as Cairn's
 * runtime does. {@code logPerGroup}: a log and an fsync per group, as each Ratis division does. One op = one
 * group's entry made durable, so the scores compare directly. The logs live in a fresh directory under /tmp (or
 * {@code -Dcairn.bench.dir}), on this machine's disk.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class RaftWalBenchmark {

    static final int GROUPS = 100;
    private static final int ENTRY_BYTES = 1024;

    private Path dir;
    private RaftWal shared;
    private RaftWal[] perGroup;
    private final byte[] data = new byte[ENTRY_BYTES];
    private long raftIndex;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        Path base = Path.of(System.getProperty("cairn.bench.dir", System.getProperty("java.io.tmpdir")));
        dir = Files.createTempDirectory(base, "raft-wal-bench");
        shared = RaftWal.open(dir.resolve("shared"), RaftWal.SEGMENT_BYTES_DEFAULT).wal();
        perGroup = new RaftWal[GROUPS];
        for (int g = 0; g < GROUPS; g++) {
            perGroup[g] = RaftWal.open(dir.resolve("group-" + g), RaftWal.SEGMENT_BYTES_DEFAULT).wal();
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        shared.close();
        for (RaftWal wal : perGroup) {
            wal.close();
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(file);
            }
        }
    }

    @Benchmark
    @OperationsPerInvocation(GROUPS)
    public void sharedLog() throws IOException {
        raftIndex++;
        for (int g = 0; g < GROUPS; g++) {
            shared.append(g, new HardState(1, 1, raftIndex - 1), List.of(new Entry(1, raftIndex, data)));
        }
        shared.sync(true);
    }

    @Benchmark
    @OperationsPerInvocation(GROUPS)
    public void logPerGroup() throws IOException {
        raftIndex++;
        for (int g = 0; g < GROUPS; g++) {
            perGroup[g].append(g, new HardState(1, 1, raftIndex - 1), List.of(new Entry(1, raftIndex, data)));
            perGroup[g].sync(true);
        }
    }
}
