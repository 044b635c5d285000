package dev.cairn.client;

/** A connection to a broker failed or closed; the request's outcome is unknown and a retry may succeed. */
public class CairnNetworkException extends CairnException {
    private static final long serialVersionUID = 1L;

    public CairnNetworkException(String message, Throwable cause) {
        super(message, true, cause);
    }
}
