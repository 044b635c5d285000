package dev.cairn.broker.api;

/**
 * The authorized-operations bit fields of Metadata, DescribeCluster and DescribeGroups (KIP-430). Cairn has no
 * authorizer, so, as Kafka does without one, a client that asks is told every operation Kafka's ACL model defines
 * for the resource type; a client that does not ask gets Kafka's "not provided" value. Bit n stands for the
 * {@code AclOperation} whose code is n.
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

    private static int bits(int... operations) {
        int field = 0;
        for (int operation : operations) {
            field |= 1 << operation;
        }
        return field;
    }
}
