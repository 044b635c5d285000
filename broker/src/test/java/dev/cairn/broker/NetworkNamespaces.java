package dev.cairn.broker;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A private network of Linux network namespaces that a test creates and deletes itself (iproute2, needs root):
 * one namespace per host, each with {@code eth0} joined by a veth pair to a bridge in a "switch" namespace,
 * which also holds the clients' address. Nothing is added to the namespace the test runs in.
 *
 * <pre>
 *  NAME-h1 (eth0 10.77.0.1) --veth-- [v1]
 *  NAME-h2 (eth0 10.77.0.2) --veth-- [v2]  br0 (10.77.0.100) in NAME-switch
 *  NAME-h3 (eth0 10.77.0.3) --veth-- [v3]
 * </pre>
 *
 * {@link #isolate} takes a host's switch port down (it can reach nobody, nobody reaches it); {@link #heal} brings
 * it back. Every command is bounded by {@link #COMMAND_TIMEOUT_SECONDS}.
 */
final class NetworkNamespaces implements AutoCloseable {
    static final long COMMAND_TIMEOUT_SECONDS = 20;
    private static final String SUBNET = "10.77.0.";
    private static final String SWITCH_ADDRESS = SUBNET + "100";

    private final String name;
    private final int hosts;
    private final List<String> created = new ArrayList<>();

    private NetworkNamespaces(String name, int hosts) {
        this.name = name;
        this.hosts = hosts;
    }

    /** Why namespaces cannot be made here, or empty when they can (root, iproute2 and netns support). */
    static Optional<String> unavailableReason() {
        if (!System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("linux")) {
            return Optional.of("network namespaces need Linux");
        }
        try {
            String uid = run(List.of("id", "-u")).trim();
            if (!uid.equals("0")) {
                return Optional.of("network namespaces need root (running as uid " + uid + ")");
            }
            run(List.of("ip", "netns", "list"));
        } catch (IOException e) {
            return Optional.of("iproute2 ('ip netns') is not usable: " + e.getMessage());
        }
        return Optional.empty();
    }

    /** Creates the switch and {@code hosts} host namespaces under a fresh random name. */
    static NetworkNamespaces create(int hosts) throws IOException {
        String name = "cairn-" + Long.toHexString(ThreadLocalRandom.current().nextLong() & 0xFFFFFFL);
        NetworkNamespaces network = new NetworkNamespaces(name, hosts);
        try {
            network.build();
        } catch (IOException e) {
            network.close();
            throw e;
        }
        return network;
    }

    private void build() throws IOException {
        String sw = switchNamespace();
        addNamespace(sw);
        ip(sw, "link", "set", "lo", "up");
        ip(sw, "link", "add", "br0", "type", "bridge");
        ip(sw, "addr", "add", SWITCH_ADDRESS + "/24", "dev", "br0");
        ip(sw, "link", "set", "br0", "up");
        for (int host = 1; host <= hosts; host++) {
            String ns = hostNamespace(host);
            addNamespace(ns);
            ip(sw, "link", "add", port(host), "type", "veth", "peer", "name", "eth0", "netns", ns);
            ip(sw, "link", "set", port(host), "master", "br0");
            ip(sw, "link", "set", port(host), "up");
            ip(ns, "link", "set", "lo", "up");
            ip(ns, "addr", "add", address(host) + "/24", "dev", "eth0");
            ip(ns, "link", "set", "eth0", "up");
        }
    }

    String hostNamespace(int host) {
        return name + "-h" + host;
    }

    String switchNamespace() {
        return name + "-switch";
    }

    static String address(int host) {
        return SUBNET + host;
    }

    /** The words that run a command inside a namespace. */
    static List<String> inNamespace(String namespace) {
        return List.of("ip", "netns", "exec", namespace);
    }

    /** Cuts a host off: its switch port goes down. */
    void isolate(int host) throws IOException {
        ip(switchNamespace(), "link", "set", port(host), "down");
    }

    void heal(int host) throws IOException {
        ip(switchNamespace(), "link", "set", port(host), "up");
    }

    private static String port(int host) {
        return "v" + host;
    }

    private void addNamespace(String ns) throws IOException {
        run(List.of("ip", "netns", "add", ns));
        created.add(ns);
    }

    private static void ip(String ns, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of("ip", "-n", ns));
        command.addAll(List.of(args));
        run(command);
    }

    private static String run(List<String> command) throws IOException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            if (!process.waitFor(COMMAND_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IOException(String.join(" ", command) + " did not finish in " + COMMAND_TIMEOUT_SECONDS
                        + " s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new IOException("interrupted running " + String.join(" ", command), e);
        }
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (process.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + " exited with " + process.exitValue() + ": "
                    + output.trim());
        }
        return output;
    }

    /** Deletes every namespace this network created (their veth pairs and bridge go with them). */
    @Override
    public void close() throws IOException {
        IOException failure = null;
        for (int i = created.size() - 1; i >= 0; i--) {
            try {
                run(List.of("ip", "netns", "delete", created.get(i)));
            } catch (IOException e) {
                failure = e;
            }
        }
        created.clear();
        if (failure != null) {
            throw failure;
        }
    }
}
