package dev.cairn.client;

/** An operation did not finish within its time limit; its outcome may be unknown, and retrying may succeed. */
public class CairnTimeoutException extends CairnException {
    private static final long serialVersionUID = 1L;

    public CairnTimeoutException(String message) {
        super(message, true);
    }

    public CairnTimeoutException(String message, Throwable cause) {
        super(message, true, cause);
    }
}
