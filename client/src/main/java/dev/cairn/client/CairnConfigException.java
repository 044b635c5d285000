package dev.cairn.client;

/** A configuration value is missing, malformed or inconsistent with another; retrying cannot help. */
public class CairnConfigException extends CairnException {
    private static final long serialVersionUID = 1L;

    public CairnConfigException(String message) {
        super(message, false);
    }
}
