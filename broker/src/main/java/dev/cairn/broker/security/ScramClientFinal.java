package dev.cairn.broker.security;

import java.util.Base64;

/**
 * A parsed client-final-message (RFC 5802 section 7): {@code c=<base64 gs2-header>,r=<nonce>[,<ext>]*,p=<proof>}.
 * The part before {@code ,p=} is kept verbatim, because the proof signs exactly those bytes.
 *
 * @param channelBinding the decoded {@code c=} value, which must equal the gs2-header of the first message
 * @param nonce the combined client and server nonce
 * @param proof the decoded ClientProof
 * @param withoutProof client-final-message-without-proof, the last part of the AuthMessage
 */
record ScramClientFinal(byte[] channelBinding, String nonce, byte[] proof, String withoutProof) {

    static ScramClientFinal parse(ScramMechanism mechanism, String message) throws SaslFailure {
        String name = mechanism.mechanismName();
        int proofStart = message.lastIndexOf(",p=");
        if (proofStart < 0) {
            throw SaslFailure.malformed(name, "client-final-message lacks a proof");
        }
        String withoutProof = message.substring(0, proofStart);
        String[] attributes = withoutProof.split(",", -1);
        if (attributes.length < 2 || !attributes[0].startsWith("c=") || !attributes[1].startsWith("r=")) {
            throw SaslFailure.malformed(name, "client-final-message must start c=<binding>,r=<nonce>");
        }
        for (int i = 2; i < attributes.length; i++) {
            if (attributes[i].indexOf('=') <= 0) {
                throw SaslFailure.malformed(name, "client-final-message has a malformed extension");
            }
        }
        byte[] channelBinding = base64(name, attributes[0].substring(2), "channel binding");
        byte[] proof = base64(name, message.substring(proofStart + 3), "proof");
        if (proof.length != mechanism.digestBytes()) {
            throw SaslFailure.malformed(name, "client-final-message has a proof of the wrong length");
        }
        return new ScramClientFinal(channelBinding, attributes[1].substring(2), proof, withoutProof);
    }

    private static byte[] base64(String name, String value, String what) throws SaslFailure {
        try {
            return Base64.getDecoder().decode(value);
        } catch (IllegalArgumentException e) {
            throw SaslFailure.malformed(name, "client-final-message has an invalid base64 " + what);
        }
    }
}
