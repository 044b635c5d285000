package dev.cairn.broker.api;

import dev.cairn.broker.security.acl.AclBinding;
import dev.cairn.broker.security.acl.AclOperation;
import dev.cairn.broker.security.acl.ResourceType;

/**
 * The authorized-operations bit fields of Metadata, DescribeCluster and DescribeGroups (KIP-430): the operations
 * of Kafka's ACL model for the resource type that the session's principal may do (every one of them on a broker
 * without ACLs, as Kafka without an authorizer answers); a client that does not ask gets Kafka's "not provided"
 * value. Bit n stands for the {@code AclOperation} whose code is n.
 */
final class AuthorizedOperations {
    /** Kafka's "authorized operations not provided". */
    static final int OMITTED = Integer.MIN_VALUE;

    private static final int READ = 3;
    private static final int WRITE = 4;
    private static final int CREATE = 5;
    private static final int DELETE = 6;
    private static final int ALTER = 7;
    private static final int DESCRIBE = 8;
    private static final int CLUSTER_ACTION = 9;
    private static final int DESCRIBE_CONFIGS = 10;
    private static final int ALTER_CONFIGS = 11;
    private static final int IDEMPOTENT_WRITE = 12;

    /** What Kafka 4.4 without an authorizer reports for a topic. */
    static final int TOPIC = bits(READ, WRITE, CREATE, DELETE, ALTER, DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS);
    /** What Kafka 4.4 without an authorizer reports for a group. */
    static final int GROUP = bits(READ, DELETE, DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS);
    /** What Kafka 4.4 without an authorizer reports for the cluster. */
    static final int CLUSTER = bits(CREATE, ALTER, DESCRIBE, CLUSTER_ACTION, DESCRIBE_CONFIGS, ALTER_CONFIGS,
            IDEMPOTENT_WRITE);

    private AuthorizedOperations() {
    }

    /** The field to answer: {@code all} when the client asked, else {@link #OMITTED}. */
    static int answer(boolean asked, int all) {
        return asked ? all : OMITTED;
    }

    private static final java.util.Set<AclOperation> TOPIC_OPERATIONS = java.util.EnumSet.of(AclOperation.READ,
            AclOperation.WRITE, AclOperation.CREATE, AclOperation.DELETE, AclOperation.ALTER, AclOperation.DESCRIBE,
            AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS);
    private static final java.util.Set<AclOperation> GROUP_OPERATIONS = java.util.EnumSet.of(AclOperation.READ,
            AclOperation.DELETE, AclOperation.DESCRIBE, AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS);
    private static final java.util.Set<AclOperation> CLUSTER_OPERATIONS = java.util.EnumSet.of(AclOperation.CREATE,
            AclOperation.ALTER, AclOperation.DESCRIBE, AclOperation.CLUSTER_ACTION, AclOperation.DESCRIBE_CONFIGS,
            AclOperation.ALTER_CONFIGS, AclOperation.IDEMPOTENT_WRITE);

    /** The operations this session may do on a topic, when the client asked; without ACLs, all of them. */
    static int topic(boolean asked, ConnectionSession session, String name) {
        return asked ? session.authorizedOperations(ResourceType.TOPIC, name, TOPIC_OPERATIONS) : OMITTED;
    }

    /** The operations this session may do on a group, when the client asked. */
    static int group(boolean asked, ConnectionSession session, String groupId) {
        return asked ? session.authorizedOperations(ResourceType.GROUP, groupId, GROUP_OPERATIONS) : OMITTED;
    }

    /** The operations this session may do on the cluster, when the client asked. */
    static int cluster(boolean asked, ConnectionSession session) {
        return asked ? session.authorizedOperations(ResourceType.CLUSTER, AclBinding.CLUSTER_NAME,
                CLUSTER_OPERATIONS) : OMITTED;
    }

    private static int bits(int... operations) {
        int field = 0;
        for (int operation : operations) {
            field |= 1 << operation;
        }
        return field;
    }
}
