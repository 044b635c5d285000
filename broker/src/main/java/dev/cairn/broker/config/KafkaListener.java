package dev.cairn.broker.config;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A Kafka listener, in Kafka's syntax: {@code listeners=NAME://host:port,...}, each name mapped to a security
 * protocol by {@code listener.security.protocol.map} (by default each protocol's own name maps to itself). A bare
 * {@code host:port} is a PLAINTEXT listener. A broker may have several, with distinct names and ports (for example a
 * plaintext one for clients inside a network and a TLS one for those outside); clients are told the brokers'
 * endpoints of the listener they connected to.
 */
public record KafkaListener(String name, SecurityProtocol protocol, HostPort address) {

    /** Kafka's default listener.security.protocol.map. */
    public static final String PROTOCOL_MAP_DEFAULT =
            "PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL";
    /** Listeners one broker may have. */
    public static final int LISTENERS_MAX = 16;

    /** Parses one {@code listeners} entry against {@code listener.security.protocol.map}. */
    public static KafkaListener parse(String entry, String protocolMap) {
        return parse(entry.trim(), parseProtocolMap(protocolMap), protocolMap);
    }

    private static KafkaListener parse(String entry, Map<String, SecurityProtocol> protocols, String protocolMap) {
        int scheme = entry.indexOf("://");
        if (scheme < 0) {
            return new KafkaListener("PLAINTEXT", SecurityProtocol.PLAINTEXT, HostPort.parse(entry));
        }
        String name = entry.substring(0, scheme).toUpperCase(Locale.ROOT);
        SecurityProtocol protocol = protocols.get(name);
        if (protocol == null) {
            throw new ConfigException("listener " + entry + ": the name " + name + " is not in "
                    + "listener.security.protocol.map=" + protocolMap);
        }
        return new KafkaListener(name, protocol, HostPort.parse(entry.substring(scheme + 3)));
    }

    /**
     * Parses {@code listeners}: one or more entries, with distinct names and distinct ports (port 0, a free port, may
     * repeat), at most {@link #LISTENERS_MAX}.
     */
    public static List<KafkaListener> parseAll(String listeners, String protocolMap) {
        Map<String, SecurityProtocol> protocols = parseProtocolMap(protocolMap);
        List<KafkaListener> parsed = new java.util.ArrayList<>();
        for (String entry : listeners.trim().split("\\s*,\\s*")) {
            if (!entry.isEmpty()) {
                parsed.add(parse(entry, protocols, protocolMap));
            }
        }
        if (parsed.isEmpty() || parsed.size() > LISTENERS_MAX) {
            throw new ConfigException("listeners=" + listeners + " names " + parsed.size() + " listeners; give 1 to "
                    + LISTENERS_MAX);
        }
        java.util.Set<String> names = new java.util.HashSet<>();
        java.util.Set<Integer> ports = new java.util.HashSet<>();
        for (KafkaListener listener : parsed) {
            if (!names.add(listener.name())) {
                throw new ConfigException("listeners=" + listeners + " names listener " + listener.name() + " twice");
            }
            if (listener.address().port() != 0 && !ports.add(listener.address().port())) {
                throw new ConfigException("listeners=" + listeners + " uses port " + listener.address().port()
                        + " twice");
            }
        }
        return List.copyOf(parsed);
    }

    /**
     * The address each listener advertises, by name: its entry in {@code advertised.listeners} ({@code
     * NAME://host:port,...}; a bare {@code host:port} only when there is one listener), else its own address.
     */
    public static Map<String, HostPort> advertised(List<KafkaListener> listeners, String text) {
        Map<String, HostPort> advertised = new LinkedHashMap<>();
        listeners.forEach(listener -> advertised.put(listener.name(), listener.address()));
        if (text == null || text.isBlank()) {
            return advertised;
        }
        for (String entry : text.trim().split("\\s*,\\s*")) {
            int scheme = entry.indexOf("://");
            if (scheme < 0) {
                if (listeners.size() != 1) {
                    throw new ConfigException("advertised.listeners=" + text + ": with several listeners each entry "
                            + "must name its listener (NAME://host:port)");
                }
                advertised.put(listeners.get(0).name(), HostPort.parse(entry));
                continue;
            }
            String name = entry.substring(0, scheme).toUpperCase(Locale.ROOT);
            if (!advertised.containsKey(name)) {
                throw new ConfigException("advertised.listeners=" + text + " names listener " + name
                        + ", but listeners has only " + advertised.keySet());
            }
            advertised.put(name, HostPort.parse(entry.substring(scheme + 3)));
        }
        return advertised;
    }

    /** {@code NAME:PROTOCOL,...}; names are case-insensitive as in Kafka. */
    static Map<String, SecurityProtocol> parseProtocolMap(String text) {
        Map<String, SecurityProtocol> map = new LinkedHashMap<>();
        for (String pair : text.trim().split("\\s*,\\s*")) {
            if (pair.isEmpty()) {
                continue;
            }
            int colon = pair.indexOf(':');
            if (colon <= 0 || colon == pair.length() - 1) {
                throw new ConfigException("listener.security.protocol.map entry " + pair + " is not NAME:PROTOCOL");
            }
            map.put(pair.substring(0, colon).trim().toUpperCase(Locale.ROOT),
                    SecurityProtocol.parse(pair.substring(colon + 1)));
        }
        return map;
    }

    @Override
    public String toString() {
        return name + "://" + address;
    }
}
