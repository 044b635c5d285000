package dev.cairn.broker.security;

import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Objects;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The server side of SCRAM-SHA-256 and SCRAM-SHA-512 (RFC 5802, RFC 7677) as Kafka clients speak it: two client
 * tokens, two replies.
 * <ol>
 *   <li>client-first-message ({@code n,,n=<user>,r=<nonce>}) is answered with server-first-message
 *   ({@code r=<nonce>,s=<salt>,i=<iterations>});</li>
 *   <li>client-final-message ({@code c=biws,r=<nonce>,p=<proof>}) is checked and answered with
 *   server-final-message ({@code v=<server signature>}), after which the exchange is complete.</li>
 * </ol>
 * The broker keeps only StoredKey and ServerKey ({@link ScramCredential}); the client's proof shows it knows the key
 * that hashes to StoredKey, and the server's signature shows the client the broker holds ServerKey.
 *
 * <p>An unknown user gets a well-formed server-first-message built from {@link UnknownUserCredentials} and fails at
 * the proof with the same message as a wrong password, so user names cannot be enumerated. Channel binding, the
 * {@code m=} mandatory extension and Kafka's delegation-token extension ({@code tokenauth=true}) are refused;
 * other extensions are ignored. Every limit below fails the exchange with a message naming it.
 *
 * <p>One instance serves one attempt on one connection and is not thread-safe; after any failure, or after
 * completion, every further token fails.
 */
public final class ScramServer implements SaslMechanismServer {

    /** The longest user name accepted, in UTF-8 bytes after saslname decoding. */
    public static final int USERNAME_BYTES_MAX = 512;

    /** The longest client nonce accepted, in characters (Kafka's clients send about 25). */
    public static final int CLIENT_NONCE_CHARS_MAX = 256;

    /** The random bytes in the server's nonce; base64 of a multiple of 3 bytes has no padding and no ','. */
    static final int SERVER_NONCE_BYTES = 24;

    private enum State { CLIENT_FIRST, CLIENT_FINAL, COMPLETE, FAILED }

    private final ScramMechanism mechanism;
    private final Function<String, Optional<ScramCredential>> credentials;
    private final SecureRandom random;
    private final BiFunction<ScramMechanism, String, ScramCredential> standIns;

    private State state = State.CLIENT_FIRST;
    private ScramClientFirst clientFirst;
    private String serverFirst;
    private String nonce;
    private ScramCredential credential;
    private boolean knownUser;

    /**
     * @param mechanism which SCRAM this instance speaks
     * @param credentials looks up a user's credential for {@code mechanism}; empty for an unknown user
     * @param random the source of server nonces
     */
    public ScramServer(ScramMechanism mechanism, Function<String, Optional<ScramCredential>> credentials,
                       SecureRandom random) {
        this(mechanism, credentials, random, UnknownUserCredentials.processWide()::forUser);
    }

    /** As the public constructor, with {@code standIns} giving the credential used for an unknown user. */
    ScramServer(ScramMechanism mechanism, Function<String, Optional<ScramCredential>> credentials,
                SecureRandom random, BiFunction<ScramMechanism, String, ScramCredential> standIns) {
        this.mechanism = Objects.requireNonNull(mechanism, "mechanism");
        this.credentials = Objects.requireNonNull(credentials, "credentials");
        this.random = Objects.requireNonNull(random, "random");
        this.standIns = Objects.requireNonNull(standIns, "standIns");
    }

    @Override
    public byte[] evaluate(byte[] clientToken) throws SaslFailure {
        State current = state;
        if (current == State.COMPLETE) {
            throw SaslFailure.malformed(name(), "token received after authentication completed");
        }
        if (current == State.FAILED) {
            throw SaslFailure.malformed(name(), "token received after authentication failed");
        }
        state = State.FAILED;
        String message = decode(clientToken);
        byte[] reply;
        if (current == State.CLIENT_FIRST) {
            reply = onClientFirst(message);
            state = State.CLIENT_FINAL;
        } else {
            reply = onClientFinal(message);
            state = State.COMPLETE;
        }
        return reply;
    }

    @Override
    public boolean isComplete() {
        return state == State.COMPLETE;
    }

    @Override
    public String authenticatedUser() {
        if (state != State.COMPLETE) {
            throw new IllegalStateException(name() + " authentication has not completed");
        }
        return clientFirst.username();
    }

    @Override
    public String mechanismName() {
        return name();
    }

    private String name() {
        return mechanism.mechanismName();
    }

    private String decode(byte[] token) throws SaslFailure {
        if (token == null || token.length == 0) {
            throw SaslFailure.malformed(name(), "empty token");
        }
        if (token.length > TOKEN_BYTES_MAX) {
            throw SaslFailure.malformed(name(), "token exceeds " + TOKEN_BYTES_MAX + " bytes");
        }
        return Utf8.decode(token).orElseThrow(() -> SaslFailure.malformed(name(), "token is not valid UTF-8"));
    }

    private byte[] onClientFirst(String message) throws SaslFailure {
        clientFirst = ScramClientFirst.parse(mechanism, message);
        Optional<ScramCredential> found = credentials.apply(clientFirst.username());
        knownUser = found.isPresent();
        credential = found.orElseGet(() -> standIns.apply(mechanism, clientFirst.username()));
        if (credential.mechanism() != mechanism) {
            throw new IllegalStateException("the " + name() + " credential lookup returned a "
                    + credential.mechanism().mechanismName() + " credential");
        }
        byte[] serverNonce = new byte[SERVER_NONCE_BYTES];
        random.nextBytes(serverNonce);
        nonce = clientFirst.nonce() + Base64.getEncoder().encodeToString(serverNonce);
        serverFirst = "r=" + nonce + ",s=" + Base64.getEncoder().encodeToString(credential.salt())
                + ",i=" + credential.iterations();
        return Utf8.encode(serverFirst);
    }

    private byte[] onClientFinal(String message) throws SaslFailure {
        ScramClientFinal clientFinal = ScramClientFinal.parse(mechanism, message);
        if (!MessageDigest.isEqual(clientFinal.channelBinding(), Utf8.encode(clientFirst.gs2Header()))) {
            throw SaslFailure.malformed(name(), "client-final-message's channel binding does not match the "
                    + "gs2-header of client-first-message");
        }
        // librdkafka (2.x) sends its own nonce again in front of the combined one (r=<client><client><server>);
        // Kafka's broker accepts any nonce that ends with the combined one, so that form is accepted too, and only
        // that form: the proof below covers the message exactly as sent.
        if (!clientFinal.nonce().equals(nonce) && !clientFinal.nonce().equals(clientFirst.nonce() + nonce)) {
            throw SaslFailure.malformed(name(), "client-final-message's nonce does not match the nonce sent");
        }
        byte[] authMessage = Utf8.encode(clientFirst.bare() + "," + serverFirst + "," + clientFinal.withoutProof());
        byte[] storedKey = credential.storedKey();
        byte[] clientSignature = ScramCrypto.hmac(mechanism, storedKey, authMessage);
        byte[] clientKey = ScramCrypto.xor(clientFinal.proof(), clientSignature);
        boolean proofMatches = MessageDigest.isEqual(ScramCrypto.hash(mechanism, clientKey), storedKey);
        if (!proofMatches || !knownUser) {
            throw SaslFailure.invalidCredentials(name());
        }
        byte[] serverSignature = ScramCrypto.hmac(mechanism, credential.serverKey(), authMessage);
        return Utf8.encode("v=" + Base64.getEncoder().encodeToString(serverSignature));
    }
}
