package dev.cairn.maelstrom.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Argument handling of the CLI (flags as Maelstrom's; Jepsen exits 254 on bad arguments). */
class HarnessMainTest {

    private static int run(String... args) throws Exception {
        return HarnessMain.run(args, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
    }

    @Test
    void concurrencyAcceptsMaelstromsNodeMultiplier() {
        assertEquals(6, HarnessMain.parseConcurrency("2n", 3));
        assertEquals(3, HarnessMain.parseConcurrency("n", 3));
        assertEquals(4, HarnessMain.parseConcurrency("4", 3));
    }

    @Test
    void badArgumentsExit254WithoutStartingAnything() throws Exception {
        assertEquals(HarnessMain.EXIT_BAD_ARGS, run("--node-count", "3"));
        assertEquals(HarnessMain.EXIT_BAD_ARGS, run("--bin", "/bin/true", "--nemesis", "kill"));
        assertEquals(HarnessMain.EXIT_BAD_ARGS, run("--bin", "/bin/true", "--bogus", "1"));
        assertEquals(HarnessMain.EXIT_BAD_ARGS, run("--bin", "/bin/true", "--node-count", "0"));
        assertEquals(HarnessMain.EXIT_BAD_ARGS, run("--bin", "/bin/true", "--rate"));
    }
}
