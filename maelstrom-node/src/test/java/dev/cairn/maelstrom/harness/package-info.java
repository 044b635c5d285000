/**
 * A test-scope stand-in for Jepsen Maelstrom's {@code kafka} workload and checker: the fast smoke test of the
 * node in {@code mvn verify}.
 *
 * <p>It lives in test sources, not in the shipped jar, because the real Maelstrom 0.2.4 ({@code .ci/maelstrom.sh})
 * is what judges the node. It is kept for what the real Maelstrom cannot do here: run inside the Maven build, in
 * seconds, with no Clojure, second JDK, gnuplot or graphviz, so that every {@code mvn verify} starts the node
 * ({@code KafkaNodeIT}) and its reference fixture ({@code HarnessIT}) under Maelstrom's stdin/stdout protocol,
 * with the partition nemesis, and checks the history. It is no substitute for Maelstrom's checker: there is no
 * Elle cycle search, and it differs from Maelstrom in the ways {@code maelstrom-node/README.md} lists.
 *
 * <p>Entry point: {@link dev.cairn.maelstrom.harness.Harness#run(HarnessConfig)}, which returns a
 * {@link dev.cairn.maelstrom.harness.HarnessResult}; {@link dev.cairn.maelstrom.harness.Report#format} prints it.
 * There is no command line: to test a node by hand, run the real Maelstrom.
 */
package dev.cairn.maelstrom.harness;
