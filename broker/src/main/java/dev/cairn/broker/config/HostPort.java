package dev.cairn.broker.config;

/**
 * An address. Accepts {@code host:port}, {@code PLAINTEXT://host:port} and bracketed IPv6 {@code [::1]:port}; a
 * Kafka listener with another security protocol is parsed by {@link KafkaListener}.
 */
public record HostPort(String host, int port) {

    public static HostPort parse(String text) {
        String rest = text.trim();
        int scheme = rest.indexOf("://");
        if (scheme >= 0) {
            String protocol = rest.substring(0, scheme);
            if (!protocol.equalsIgnoreCase("PLAINTEXT")) {
                throw new ConfigException("listener " + text + ": only PLAINTEXT is supported, not " + protocol);
            }
            rest = rest.substring(scheme + 3);
        }
        int colon = rest.lastIndexOf(':');
        if (colon <= 0 || colon == rest.length() - 1) {
            throw new ConfigException("listener " + text + " is not host:port");
        }
        String host = rest.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(rest.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new ConfigException("listener " + text + " has no numeric port");
        }
        if (port < 0 || port > 65_535) {
            throw new ConfigException("listener " + text + " has port " + port + " outside [0, 65535]");
        }
        return new HostPort(host, port);
    }

    @Override
    public String toString() {
        return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
    }
}
