package dev.cairn.broker.config;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The Kafka listener, in Kafka's syntax: {@code listeners=NAME://host:port}, the name mapped to a security protocol by
 * {@code listener.security.protocol.map} (by default each protocol's own name maps to itself). A bare {@code
 * host:port} is a PLAINTEXT listener. Cairn serves one Kafka listener per broker today; a list of several is refused
 * at start with a message saying so, rather than half served.
 */
public record KafkaListener(String name, SecurityProtocol protocol, HostPort address) {

    /** Kafka's default listener.security.protocol.map. */
    public static final String PROTOCOL_MAP_DEFAULT =
            "PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL";

    /** Parses {@code listeners} against {@code listener.security.protocol.map}. */
    public static KafkaListener parse(String listeners, String protocolMap) {
        List<String> entries = List.of(listeners.trim().split("\\s*,\\s*"));
        if (entries.size() != 1) {
            throw new ConfigException("listeners=" + listeners + " names " + entries.size() + " listeners; Cairn "
                    + "serves one Kafka listener per broker today (one of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL)");
        }
        String entry = entries.get(0);
        int scheme = entry.indexOf("://");
        if (scheme < 0) {
            return new KafkaListener("PLAINTEXT", SecurityProtocol.PLAINTEXT, HostPort.parse(entry));
        }
        String name = entry.substring(0, scheme).toUpperCase(Locale.ROOT);
        SecurityProtocol protocol = parseProtocolMap(protocolMap).get(name);
        if (protocol == null) {
            throw new ConfigException("listener " + entry + ": the name " + name + " is not in "
                    + "listener.security.protocol.map=" + protocolMap);
        }
        return new KafkaListener(name, protocol, HostPort.parse(entry.substring(scheme + 3)));
    }

    /** Parses an advertised listener: {@code host:port}, or {@code NAME://host:port} whose name must be this one's. */
    public HostPort advertised(String text) {
        String trimmed = text.trim();
        int scheme = trimmed.indexOf("://");
        if (scheme < 0) {
            return HostPort.parse(trimmed);
        }
        String advertisedName = trimmed.substring(0, scheme).toUpperCase(Locale.ROOT);
        if (!advertisedName.equals(name)) {
            throw new ConfigException("advertised.listeners=" + text + " names listener " + advertisedName
                    + ", but listeners has only " + name);
        }
        return HostPort.parse(trimmed.substring(scheme + 3));
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
