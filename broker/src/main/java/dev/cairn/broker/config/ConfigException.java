package dev.cairn.broker.config;

/** A configuration that cannot start a broker; the message names the key and the offending value. */
public final class ConfigException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public ConfigException(String message) {
        super(message);
    }
}
