package dev.cairn.broker.security;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.GeneralSecurityException;
import java.util.Base64;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;

/**
 * A SCRAM client whose messages a test writes by hand (to try gs2-headers, authzids and extensions Kafka's client
 * never sends), with the proof computed by Kafka's {@link ScramFormatter}, so the server is not checked against
 * its own arithmetic.
 */
final class ManualScramClient {

    private final ScramFormatter formatter;
    private final String password;
    private String gs2Header;
    private String clientFirstBare;
    private String authMessage;
    private byte[] saltedPassword;

    ManualScramClient(ScramMechanism mechanism, String password) throws GeneralSecurityException {
        this.formatter = new ScramFormatter(kafka(mechanism));
        this.password = password;
    }

    static org.apache.kafka.common.security.scram.internals.ScramMechanism kafka(ScramMechanism mechanism) {
        return org.apache.kafka.common.security.scram.internals.ScramMechanism.forMechanismName(
                mechanism.mechanismName());
    }

    /** The client-first-message, remembered for the AuthMessage. */
    byte[] first(String gs2Header, String bare) {
        this.gs2Header = gs2Header;
        this.clientFirstBare = bare;
        return (gs2Header + bare).getBytes(UTF_8);
    }

    /** The client-final-message answering {@code serverFirst}, with {@code extra} (",x=y" or "") before the proof. */
    byte[] finalMessage(byte[] serverFirst, String extra) throws GeneralSecurityException {
        return finalMessage(serverFirst, extra, "");
    }

    /** As {@link #finalMessage(byte[], String)}, with {@code noncePrefix} written before the combined nonce. */
    byte[] finalMessage(byte[] serverFirst, String extra, String noncePrefix) throws GeneralSecurityException {
        String serverFirstText = new String(serverFirst, UTF_8);
        String[] parts = serverFirstText.split(",");
        String nonce = parts[0].substring(2);
        byte[] salt = Base64.getDecoder().decode(parts[1].substring(2));
        int iterations = Integer.parseInt(parts[2].substring(2));
        saltedPassword = formatter.saltedPassword(password, salt, iterations);
        String withoutProof = "c=" + Base64.getEncoder().encodeToString(gs2Header.getBytes(UTF_8)) + ",r=" + noncePrefix
                + nonce + extra;
        authMessage = clientFirstBare + "," + serverFirstText + "," + withoutProof;
        byte[] clientKey = formatter.clientKey(saltedPassword);
        byte[] signature = formatter.hmac(formatter.storedKey(clientKey), authMessage.getBytes(UTF_8));
        byte[] proof = ScramFormatter.xor(clientKey, signature);
        return (withoutProof + ",p=" + Base64.getEncoder().encodeToString(proof)).getBytes(UTF_8);
    }

    /** Checks the server-final-message proves the server holds ServerKey. */
    void verify(byte[] serverFinal) throws GeneralSecurityException {
        String text = new String(serverFinal, UTF_8);
        assertTrue(text.startsWith("v="), text);
        byte[] expected = formatter.hmac(formatter.serverKey(saltedPassword), authMessage.getBytes(UTF_8));
        assertArrayEquals(expected, Base64.getDecoder().decode(text.substring(2)));
    }
}
