package dev.cairn.broker.api;

import dev.cairn.broker.cluster.MetadataCommand;
import dev.cairn.broker.cluster.MetadataCommand.ScramDeletion;
import dev.cairn.broker.cluster.MetadataCommand.ScramUpsertion;
import dev.cairn.broker.cluster.MetadataResult;
import dev.cairn.broker.cluster.MetadataService;
import dev.cairn.broker.cluster.ScramCredentials;
import dev.cairn.broker.config.Limits;
import dev.cairn.broker.security.ScramCredential;
import dev.cairn.broker.security.ScramMechanism;
import dev.cairn.broker.security.acl.AclOperation;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.AlterUserScramCredentialsRequest;
import dev.cairn.protocol.message.AlterUserScramCredentialsRequest.ScramCredentialDeletion;
import dev.cairn.protocol.message.AlterUserScramCredentialsRequest.ScramCredentialUpsertion;
import dev.cairn.protocol.message.AlterUserScramCredentialsResponse;
import dev.cairn.protocol.message.AlterUserScramCredentialsResponse.AlterUserScramCredentialsResult;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

/**
 * AlterUserScramCredentials (key 51), what {@code kafka-configs --alter --entity-type users --add-config
 * 'SCRAM-SHA-512=[password=...]'} sends: the client salts and hashes the password itself, so only the salt, the
 * salted password and the iteration count arrive; the broker derives the stored and server keys and replicates those
 * through the metadata group. Checks are Kafka's: a known mechanism, 4096-16384 iterations, a non-empty user, a user
 * altered once per request, deletions of existing credentials only. Users that pass go in one metadata command.
 * The caller needs ALTER on the cluster (CLUSTER_AUTHORIZATION_FAILED for every user otherwise), as in Kafka.
 */
public final class AlterUserScramCredentialsHandler implements RequestHandler {
    private final MetadataService metadata;

    public AlterUserScramCredentialsHandler(MetadataService metadata) {
        this.metadata = metadata;
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        Struct body = request.body();
        ScramCredentials current = metadata.image().scramCredentials();
        Map<String, ErrorAndMessage> errors = new LinkedHashMap<>();
        Map<String, Integer> operationsPerUser = new LinkedHashMap<>();
        for (Struct d : body.get(AlterUserScramCredentialsRequest.DELETIONS)) {
            operationsPerUser.merge(d.get(ScramCredentialDeletion.NAME), 1, Integer::sum);
        }
        for (Struct u : body.get(AlterUserScramCredentialsRequest.UPSERTIONS)) {
            operationsPerUser.merge(u.get(ScramCredentialUpsertion.NAME), 1, Integer::sum);
        }
        int changes = body.get(AlterUserScramCredentialsRequest.DELETIONS).size()
                + body.get(AlterUserScramCredentialsRequest.UPSERTIONS).size();
        if (changes > Limits.SECURITY_CHANGES_PER_ENTRY_MAX) {
            for (String user : operationsPerUser.keySet()) {
                errors.put(user, new ErrorAndMessage(ErrorCode.INVALID_REQUEST, "an AlterUserScramCredentials "
                        + "request may make at most " + Limits.SECURITY_CHANGES_PER_ENTRY_MAX + " changes"));
            }
        }
        if (!context.session().allowedOnCluster(AclOperation.ALTER)) {
            for (String user : operationsPerUser.keySet()) {
                errors.put(user, new ErrorAndMessage(ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
                        "Cluster authorization failed."));
            }
        }
        List<ScramDeletion> deletions = new ArrayList<>();
        for (Struct d : body.get(AlterUserScramCredentialsRequest.DELETIONS)) {
            String user = d.get(ScramCredentialDeletion.NAME);
            Optional<ScramMechanism> mechanism = ScramMechanism.forTypeId(d.get(ScramCredentialDeletion.MECHANISM));
            ErrorAndMessage error = checkCommon(user, mechanism, operationsPerUser);
            if (error == null && current.get(user, (byte) mechanism.get().typeId()).isEmpty()) {
                error = new ErrorAndMessage(ErrorCode.RESOURCE_NOT_FOUND,
                        "Attempt to delete a user credential that does not exist");
            }
            if (error != null) {
                errors.putIfAbsent(user, error);
            } else {
                deletions.add(new ScramDeletion(user, (byte) mechanism.get().typeId()));
            }
        }
        List<ScramUpsertion> upsertions = new ArrayList<>();
        for (Struct u : body.get(AlterUserScramCredentialsRequest.UPSERTIONS)) {
            String user = u.get(ScramCredentialUpsertion.NAME);
            Optional<ScramMechanism> mechanism = ScramMechanism.forTypeId(u.get(ScramCredentialUpsertion.MECHANISM));
            ErrorAndMessage error = checkCommon(user, mechanism, operationsPerUser);
            int iterations = u.get(ScramCredentialUpsertion.ITERATIONS);
            if (error == null && iterations < ScramMechanism.ITERATIONS_MIN) {
                error = new ErrorAndMessage(ErrorCode.UNACCEPTABLE_CREDENTIAL, "Too few iterations");
            } else if (error == null && iterations > ScramMechanism.ITERATIONS_MAX) {
                error = new ErrorAndMessage(ErrorCode.UNACCEPTABLE_CREDENTIAL, "Too many iterations");
            }
            byte[] encoded = null;
            if (error == null) {
                try {
                    encoded = ScramCredential.fromSaltedPassword(mechanism.get(),
                            u.get(ScramCredentialUpsertion.SALTED_PASSWORD), u.get(ScramCredentialUpsertion.SALT),
                            iterations).encode();
                } catch (IllegalArgumentException e) {
                    error = new ErrorAndMessage(ErrorCode.UNACCEPTABLE_CREDENTIAL, e.getMessage());
                }
            }
            if (error != null) {
                errors.putIfAbsent(user, error);
            } else {
                upsertions.add(new ScramUpsertion(user, (byte) mechanism.get().typeId(), encoded));
            }
        }
        deletions.removeIf(d -> errors.containsKey(d.user()));
        upsertions.removeIf(u -> errors.containsKey(u.user()));
        CompletableFuture<MetadataResult> applied = deletions.isEmpty() && upsertions.isEmpty()
                ? CompletableFuture.completedFuture(MetadataResult.OK)
                : metadata.submit(new MetadataCommand.AlterScramCredentials(deletions, upsertions));
        return applied.thenApply(result -> {
            ErrorAndMessage outcome = result instanceof MetadataResult.Rejected r
                    ? new ErrorAndMessage(r.error(), r.message()) : new ErrorAndMessage(ErrorCode.NONE, null);
            List<Struct> results = new ArrayList<>();
            for (String user : operationsPerUser.keySet()) {
                ErrorAndMessage error = errors.getOrDefault(user, outcome);
                results.add(new Struct(AlterUserScramCredentialsResult.SCHEMA)
                        .set(AlterUserScramCredentialsResult.USER, user)
                        .set(AlterUserScramCredentialsResult.ERROR_CODE, error.error().code())
                        .set(AlterUserScramCredentialsResult.ERROR_MESSAGE, error.message()));
            }
            return new Struct(AlterUserScramCredentialsResponse.SCHEMA)
                    .set(AlterUserScramCredentialsResponse.THROTTLE_TIME_MS, 0)
                    .set(AlterUserScramCredentialsResponse.RESULTS, results);
        });
    }

    private static ErrorAndMessage checkCommon(String user, Optional<ScramMechanism> mechanism,
            Map<String, Integer> operationsPerUser) {
        if (user.isEmpty()) {
            return new ErrorAndMessage(ErrorCode.UNACCEPTABLE_CREDENTIAL, "Username must not be empty");
        }
        if (mechanism.isEmpty()) {
            return new ErrorAndMessage(ErrorCode.UNSUPPORTED_SASL_MECHANISM, "Unknown SCRAM mechanism");
        }
        if (operationsPerUser.get(user) > 1) {
            return new ErrorAndMessage(ErrorCode.DUPLICATE_RESOURCE,
                    "A user credential cannot be altered twice in the same request");
        }
        return null;
    }

    private record ErrorAndMessage(ErrorCode error, String message) {
    }
}
