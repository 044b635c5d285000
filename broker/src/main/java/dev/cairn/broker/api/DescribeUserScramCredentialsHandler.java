package dev.cairn.broker.api;

import dev.cairn.broker.cluster.MetadataService;
import dev.cairn.broker.cluster.ScramCredentials;
import dev.cairn.broker.security.ScramCredential;
import dev.cairn.broker.security.acl.AclOperation;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.RequestFrame;
import dev.cairn.protocol.message.DescribeUserScramCredentialsRequest;
import dev.cairn.protocol.message.DescribeUserScramCredentialsRequest.UserName;
import dev.cairn.protocol.message.DescribeUserScramCredentialsResponse;
import dev.cairn.protocol.message.DescribeUserScramCredentialsResponse.CredentialInfo;
import dev.cairn.protocol.message.DescribeUserScramCredentialsResponse.DescribeUserScramCredentialsResult;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * DescribeUserScramCredentials (key 50): for each user, the mechanisms and iteration counts of its credentials (no
 * key material), from this broker's metadata image. Null or empty users means every user. An unknown user gets
 * RESOURCE_NOT_FOUND, a user named twice DUPLICATE_RESOURCE, as in Kafka.
 */
public final class DescribeUserScramCredentialsHandler implements RequestHandler {
    private final MetadataService metadata;

    public DescribeUserScramCredentialsHandler(MetadataService metadata) {
        this.metadata = metadata;
    }

    @Override
    public CompletableFuture<Struct> handle(RequestContext context, RequestFrame request) {
        ScramCredentials credentials = metadata.image().scramCredentials();
        if (!context.session().allowedOnCluster(AclOperation.DESCRIBE)) {
            return CompletableFuture.completedFuture(new Struct(DescribeUserScramCredentialsResponse.SCHEMA)
                    .set(DescribeUserScramCredentialsResponse.THROTTLE_TIME_MS, 0)
                    .set(DescribeUserScramCredentialsResponse.ERROR_CODE, ErrorCode.CLUSTER_AUTHORIZATION_FAILED.code())
                    .set(DescribeUserScramCredentialsResponse.ERROR_MESSAGE, "Cluster authorization failed.")
                    .set(DescribeUserScramCredentialsResponse.RESULTS, List.of()));
        }
        List<Struct> wanted = request.body().get(DescribeUserScramCredentialsRequest.USERS);
        List<Struct> results = new ArrayList<>();
        if (wanted == null || wanted.isEmpty()) {
            for (String user : credentials.mechanismsByUser().keySet()) {
                results.add(describe(credentials, user));
            }
        } else {
            Set<String> seen = new LinkedHashSet<>();
            Set<String> duplicated = new LinkedHashSet<>();
            for (Struct user : wanted) {
                String name = user.get(UserName.NAME);
                if (!seen.add(name)) {
                    duplicated.add(name);
                }
            }
            for (String name : seen) {
                if (duplicated.contains(name)) {
                    results.add(result(name, ErrorCode.DUPLICATE_RESOURCE, "Cannot describe SCRAM credentials for "
                            + "the same user twice in a single request", List.of()));
                } else if (!credentials.mechanismsByUser().containsKey(name)) {
                    results.add(result(name, ErrorCode.RESOURCE_NOT_FOUND, "Attempt to describe a user credential "
                            + "that does not exist", List.of()));
                } else {
                    results.add(describe(credentials, name));
                }
            }
        }
        return CompletableFuture.completedFuture(new Struct(DescribeUserScramCredentialsResponse.SCHEMA)
                .set(DescribeUserScramCredentialsResponse.THROTTLE_TIME_MS, 0)
                .set(DescribeUserScramCredentialsResponse.ERROR_CODE, ErrorCode.NONE.code())
                .set(DescribeUserScramCredentialsResponse.ERROR_MESSAGE, null)
                .set(DescribeUserScramCredentialsResponse.RESULTS, results));
    }

    private static Struct describe(ScramCredentials credentials, String user) {
        List<Struct> infos = new ArrayList<>();
        for (byte mechanism : credentials.mechanismsByUser().get(user)) {
            credentials.get(user, mechanism).map(ScramCredential::decode).ifPresent(c -> infos.add(
                    new Struct(CredentialInfo.SCHEMA)
                            .set(CredentialInfo.MECHANISM, (byte) c.mechanism().typeId())
                            .set(CredentialInfo.ITERATIONS, c.iterations())));
        }
        return result(user, ErrorCode.NONE, null, infos);
    }

    private static Struct result(String user, ErrorCode error, String message, List<Struct> infos) {
        return new Struct(DescribeUserScramCredentialsResult.SCHEMA)
                .set(DescribeUserScramCredentialsResult.USER, user)
                .set(DescribeUserScramCredentialsResult.ERROR_CODE, error.code())
                .set(DescribeUserScramCredentialsResult.ERROR_MESSAGE, message)
                .set(DescribeUserScramCredentialsResult.CREDENTIAL_INFOS, infos);
    }
}
