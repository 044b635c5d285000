package dev.cairn.protocol;

import dev.cairn.protocol.message.AddOffsetsToTxnRequest;
import dev.cairn.protocol.message.AddOffsetsToTxnResponse;
import dev.cairn.protocol.message.AddPartitionsToTxnRequest;
import dev.cairn.protocol.message.AddPartitionsToTxnResponse;
import dev.cairn.protocol.message.AlterConfigsRequest;
import dev.cairn.protocol.message.AlterConfigsResponse;
import dev.cairn.protocol.message.AlterPartitionReassignmentsRequest;
import dev.cairn.protocol.message.AlterPartitionReassignmentsResponse;
import dev.cairn.protocol.message.AlterUserScramCredentialsRequest;
import dev.cairn.protocol.message.AlterUserScramCredentialsResponse;
import dev.cairn.protocol.message.ApiVersionsRequest;
import dev.cairn.protocol.message.ApiVersionsResponse;
import dev.cairn.protocol.message.CreateAclsRequest;
import dev.cairn.protocol.message.CreateAclsResponse;
import dev.cairn.protocol.message.CreatePartitionsRequest;
import dev.cairn.protocol.message.CreatePartitionsResponse;
import dev.cairn.protocol.message.CreateTopicsRequest;
import dev.cairn.protocol.message.CreateTopicsResponse;
import dev.cairn.protocol.message.DeleteAclsRequest;
import dev.cairn.protocol.message.DeleteAclsResponse;
import dev.cairn.protocol.message.DeleteGroupsRequest;
import dev.cairn.protocol.message.DeleteGroupsResponse;
import dev.cairn.protocol.message.DeleteRecordsRequest;
import dev.cairn.protocol.message.DeleteRecordsResponse;
import dev.cairn.protocol.message.DeleteTopicsRequest;
import dev.cairn.protocol.message.DeleteTopicsResponse;
import dev.cairn.protocol.message.DescribeAclsRequest;
import dev.cairn.protocol.message.DescribeAclsResponse;
import dev.cairn.protocol.message.DescribeClientQuotasRequest;
import dev.cairn.protocol.message.DescribeClientQuotasResponse;
import dev.cairn.protocol.message.DescribeClusterRequest;
import dev.cairn.protocol.message.DescribeClusterResponse;
import dev.cairn.protocol.message.DescribeConfigsRequest;
import dev.cairn.protocol.message.DescribeConfigsResponse;
import dev.cairn.protocol.message.DescribeGroupsRequest;
import dev.cairn.protocol.message.DescribeGroupsResponse;
import dev.cairn.protocol.message.DescribeLogDirsRequest;
import dev.cairn.protocol.message.DescribeLogDirsResponse;
import dev.cairn.protocol.message.DescribeProducersRequest;
import dev.cairn.protocol.message.DescribeProducersResponse;
import dev.cairn.protocol.message.DescribeTransactionsRequest;
import dev.cairn.protocol.message.DescribeTransactionsResponse;
import dev.cairn.protocol.message.DescribeUserScramCredentialsRequest;
import dev.cairn.protocol.message.DescribeUserScramCredentialsResponse;
import dev.cairn.protocol.message.ElectLeadersRequest;
import dev.cairn.protocol.message.ElectLeadersResponse;
import dev.cairn.protocol.message.EndTxnRequest;
import dev.cairn.protocol.message.EndTxnResponse;
import dev.cairn.protocol.message.FetchRequest;
import dev.cairn.protocol.message.FetchResponse;
import dev.cairn.protocol.message.FindCoordinatorRequest;
import dev.cairn.protocol.message.FindCoordinatorResponse;
import dev.cairn.protocol.message.HeartbeatRequest;
import dev.cairn.protocol.message.HeartbeatResponse;
import dev.cairn.protocol.message.IncrementalAlterConfigsRequest;
import dev.cairn.protocol.message.IncrementalAlterConfigsResponse;
import dev.cairn.protocol.message.InitProducerIdRequest;
import dev.cairn.protocol.message.InitProducerIdResponse;
import dev.cairn.protocol.message.JoinGroupRequest;
import dev.cairn.protocol.message.JoinGroupResponse;
import dev.cairn.protocol.message.LeaveGroupRequest;
import dev.cairn.protocol.message.LeaveGroupResponse;
import dev.cairn.protocol.message.ListGroupsRequest;
import dev.cairn.protocol.message.ListGroupsResponse;
import dev.cairn.protocol.message.ListPartitionReassignmentsRequest;
import dev.cairn.protocol.message.ListPartitionReassignmentsResponse;
import dev.cairn.protocol.message.ListTransactionsRequest;
import dev.cairn.protocol.message.ListTransactionsResponse;
import dev.cairn.protocol.message.ListOffsetsRequest;
import dev.cairn.protocol.message.ListOffsetsResponse;
import dev.cairn.protocol.message.MetadataRequest;
import dev.cairn.protocol.message.MetadataResponse;
import dev.cairn.protocol.message.OffsetCommitRequest;
import dev.cairn.protocol.message.OffsetCommitResponse;
import dev.cairn.protocol.message.OffsetDeleteRequest;
import dev.cairn.protocol.message.OffsetDeleteResponse;
import dev.cairn.protocol.message.OffsetFetchRequest;
import dev.cairn.protocol.message.OffsetFetchResponse;
import dev.cairn.protocol.message.OffsetForLeaderEpochRequest;
import dev.cairn.protocol.message.OffsetForLeaderEpochResponse;
import dev.cairn.protocol.message.ProduceRequest;
import dev.cairn.protocol.message.ProduceResponse;
import dev.cairn.protocol.message.SaslAuthenticateRequest;
import dev.cairn.protocol.message.SaslAuthenticateResponse;
import dev.cairn.protocol.message.SaslHandshakeRequest;
import dev.cairn.protocol.message.SaslHandshakeResponse;
import dev.cairn.protocol.message.SyncGroupRequest;
import dev.cairn.protocol.message.SyncGroupResponse;
import dev.cairn.protocol.message.TxnOffsetCommitRequest;
import dev.cairn.protocol.message.TxnOffsetCommitResponse;
import dev.cairn.protocol.message.WriteTxnMarkersRequest;
import dev.cairn.protocol.message.WriteTxnMarkersResponse;
import dev.cairn.protocol.schema.Schema;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.List;

/**
 * The Kafka APIs Cairn serves, and THE supported-version table: each constant's version range is what the
 * broker accepts, and the ApiVersions response is computed from it ({@link #apiVersionsResponse}). Raising a
 * maximum means regenerating the message schemas for the new versions (the constructor checks they are declared)
 * and adding oracle coverage.
 *
 * <p>All supported versions lie inside kafka-clients 4.4's {@code validVersions}, so each one is tested against
 * the 4.4 specs and serialisers. Sources for the choices: shared docs kafka-protocol.md, A.1.
 */
public enum ApiKey {
    /**
     * Produce is advertised from version 0 although versions 0-2 are rejected: librdkafka's compressed produce
     * fails unless ApiVersions lists v0 (KAFKA-18659). A v0-2 request decodes as unsupported.
     */
    PRODUCE(0, ProduceRequest.SCHEMA, ProduceResponse.SCHEMA, 0, 3, 7),
    FETCH(1, FetchRequest.SCHEMA, FetchResponse.SCHEMA, 4, 4, 11),
    LIST_OFFSETS(2, ListOffsetsRequest.SCHEMA, ListOffsetsResponse.SCHEMA, 1, 1, 2),
    METADATA(3, MetadataRequest.SCHEMA, MetadataResponse.SCHEMA, 1, 1, 13),
    OFFSET_COMMIT(8, OffsetCommitRequest.SCHEMA, OffsetCommitResponse.SCHEMA, 2, 2, 7),
    OFFSET_FETCH(9, OffsetFetchRequest.SCHEMA, OffsetFetchResponse.SCHEMA, 1, 1, 7),
    FIND_COORDINATOR(10, FindCoordinatorRequest.SCHEMA, FindCoordinatorResponse.SCHEMA, 0, 0, 2),
    JOIN_GROUP(11, JoinGroupRequest.SCHEMA, JoinGroupResponse.SCHEMA, 0, 0, 5),
    HEARTBEAT(12, HeartbeatRequest.SCHEMA, HeartbeatResponse.SCHEMA, 0, 0, 3),
    LEAVE_GROUP(13, LeaveGroupRequest.SCHEMA, LeaveGroupResponse.SCHEMA, 0, 0, 1),
    SYNC_GROUP(14, SyncGroupRequest.SCHEMA, SyncGroupResponse.SCHEMA, 0, 0, 3),
    DESCRIBE_GROUPS(15, DescribeGroupsRequest.SCHEMA, DescribeGroupsResponse.SCHEMA, 0, 0, 3),
    LIST_GROUPS(16, ListGroupsRequest.SCHEMA, ListGroupsResponse.SCHEMA, 0, 0, 5),
    /**
     * SaslHandshake v0 is not served: after it the client would send raw SASL tokens without Kafka framing (clients
     * older than Kafka 1.0 only); v1 is followed by SaslAuthenticate requests. It is advertised from v0 all the same,
     * as Produce is: librdkafka enables SASL only when ApiVersions lists SaslHandshake v0 ("SASL Handshake not
     * supported by broker" otherwise), then uses v1 since SaslAuthenticate is listed. A v0 request decodes as
     * unsupported and the connection is closed.
     */
    SASL_HANDSHAKE(17, SaslHandshakeRequest.SCHEMA, SaslHandshakeResponse.SCHEMA, 0, 1, 1),
    API_VERSIONS(18, ApiVersionsRequest.SCHEMA, ApiVersionsResponse.SCHEMA, 0, 0, 3),
    CREATE_TOPICS(19, CreateTopicsRequest.SCHEMA, CreateTopicsResponse.SCHEMA, 2, 2, 4),
    DELETE_TOPICS(20, DeleteTopicsRequest.SCHEMA, DeleteTopicsResponse.SCHEMA, 1, 1, 1),
    DELETE_RECORDS(21, DeleteRecordsRequest.SCHEMA, DeleteRecordsResponse.SCHEMA, 0, 0, 2),
    INIT_PRODUCER_ID(22, InitProducerIdRequest.SCHEMA, InitProducerIdResponse.SCHEMA, 0, 0, 4),
    OFFSET_FOR_LEADER_EPOCH(23, OffsetForLeaderEpochRequest.SCHEMA, OffsetForLeaderEpochResponse.SCHEMA, 2, 2, 4),
    /** Versions 4+ are Kafka's broker-to-broker batched form (and transaction version 2's), not served. */
    ADD_PARTITIONS_TO_TXN(24, AddPartitionsToTxnRequest.SCHEMA, AddPartitionsToTxnResponse.SCHEMA, 0, 0, 3),
    ADD_OFFSETS_TO_TXN(25, AddOffsetsToTxnRequest.SCHEMA, AddOffsetsToTxnResponse.SCHEMA, 0, 0, 3),
    /** Version 5 belongs to transaction version 2 (KIP-890's epoch bump per transaction), not served. */
    END_TXN(26, EndTxnRequest.SCHEMA, EndTxnResponse.SCHEMA, 0, 0, 4),
    TXN_OFFSET_COMMIT(28, TxnOffsetCommitRequest.SCHEMA, TxnOffsetCommitResponse.SCHEMA, 0, 0, 4),
    DESCRIBE_PRODUCERS(61, DescribeProducersRequest.SCHEMA, DescribeProducersResponse.SCHEMA, 0, 0, 0),
    DESCRIBE_TRANSACTIONS(65, DescribeTransactionsRequest.SCHEMA, DescribeTransactionsResponse.SCHEMA, 0, 0, 0),
    /** Version 2 filters by a regular expression over transactional ids; not served. */
    LIST_TRANSACTIONS(66, ListTransactionsRequest.SCHEMA, ListTransactionsResponse.SCHEMA, 0, 0, 1),
    WRITE_TXN_MARKERS(27, WriteTxnMarkersRequest.SCHEMA, WriteTxnMarkersResponse.SCHEMA, 1, 1, 1),
    DESCRIBE_ACLS(29, DescribeAclsRequest.SCHEMA, DescribeAclsResponse.SCHEMA, 1, 1, 3),
    CREATE_ACLS(30, CreateAclsRequest.SCHEMA, CreateAclsResponse.SCHEMA, 1, 1, 3),
    DELETE_ACLS(31, DeleteAclsRequest.SCHEMA, DeleteAclsResponse.SCHEMA, 1, 1, 3),
    DESCRIBE_CONFIGS(32, DescribeConfigsRequest.SCHEMA, DescribeConfigsResponse.SCHEMA, 1, 1, 4),
    ALTER_CONFIGS(33, AlterConfigsRequest.SCHEMA, AlterConfigsResponse.SCHEMA, 0, 0, 2),
    DESCRIBE_LOG_DIRS(35, DescribeLogDirsRequest.SCHEMA, DescribeLogDirsResponse.SCHEMA, 1, 1, 4),
    SASL_AUTHENTICATE(36, SaslAuthenticateRequest.SCHEMA, SaslAuthenticateResponse.SCHEMA, 0, 0, 2),
    CREATE_PARTITIONS(37, CreatePartitionsRequest.SCHEMA, CreatePartitionsResponse.SCHEMA, 0, 0, 3),
    ELECT_LEADERS(43, ElectLeadersRequest.SCHEMA, ElectLeadersResponse.SCHEMA, 0, 0, 2),
    INCREMENTAL_ALTER_CONFIGS(44, IncrementalAlterConfigsRequest.SCHEMA, IncrementalAlterConfigsResponse.SCHEMA,
            0, 0, 1),
    ALTER_PARTITION_REASSIGNMENTS(45, AlterPartitionReassignmentsRequest.SCHEMA,
            AlterPartitionReassignmentsResponse.SCHEMA, 0, 0, 1),
    LIST_PARTITION_REASSIGNMENTS(46, ListPartitionReassignmentsRequest.SCHEMA,
            ListPartitionReassignmentsResponse.SCHEMA, 0, 0, 0),
    DELETE_GROUPS(42, DeleteGroupsRequest.SCHEMA, DeleteGroupsResponse.SCHEMA, 0, 0, 2),
    OFFSET_DELETE(47, OffsetDeleteRequest.SCHEMA, OffsetDeleteResponse.SCHEMA, 0, 0, 0),
    DESCRIBE_CLIENT_QUOTAS(48, DescribeClientQuotasRequest.SCHEMA, DescribeClientQuotasResponse.SCHEMA, 0, 0, 1),
    DESCRIBE_USER_SCRAM_CREDENTIALS(50, DescribeUserScramCredentialsRequest.SCHEMA,
            DescribeUserScramCredentialsResponse.SCHEMA, 0, 0, 0),
    ALTER_USER_SCRAM_CREDENTIALS(51, AlterUserScramCredentialsRequest.SCHEMA,
            AlterUserScramCredentialsResponse.SCHEMA, 0, 0, 0),
    DESCRIBE_CLUSTER(60, DescribeClusterRequest.SCHEMA, DescribeClusterResponse.SCHEMA, 0, 0, 0);

    /** Request header v1: api key, api version, correlation id, client id. */
    public static final short REQUEST_HEADER_VERSION_CLASSIC = 1;
    /** Request header v2 = v1 plus a tagged-field section, used by every flexible request version. */
    public static final short REQUEST_HEADER_VERSION_FLEXIBLE = 2;
    /** Response header v0: the correlation id. */
    public static final short RESPONSE_HEADER_VERSION_CLASSIC = 0;
    /** Response header v1 = v0 plus a tagged-field section, used by flexible responses except ApiVersions. */
    public static final short RESPONSE_HEADER_VERSION_FLEXIBLE = 1;

    /** Larger than every API key id Cairn knows; sizes the lookup table. */
    private static final int API_KEY_ID_LIMIT = 128;
    private static final ApiKey[] BY_ID = new ApiKey[API_KEY_ID_LIMIT];

    static {
        for (ApiKey apiKey : values()) {
            BY_ID[apiKey.id] = apiKey;
        }
    }

    private final short id;
    private final Schema requestSchema;
    private final Schema responseSchema;
    private final short advertisedMinVersion;
    private final short minVersion;
    private final short maxVersion;

    ApiKey(int id, Schema requestSchema, Schema responseSchema, int advertisedMinVersion, int minVersion,
           int maxVersion) {
        this.id = (short) id;
        this.requestSchema = requestSchema;
        this.responseSchema = responseSchema;
        this.advertisedMinVersion = (short) advertisedMinVersion;
        this.minVersion = (short) minVersion;
        this.maxVersion = (short) maxVersion;
        checkDeclared(requestSchema);
        checkDeclared(responseSchema);
    }

    private void checkDeclared(Schema schema) {
        if (schema.apiKey() != id) {
            throw new IllegalStateException(schema.name() + " has API key " + schema.apiKey() + ", not " + id);
        }
        if (!schema.declaredVersions().contains(minVersion) || !schema.declaredVersions().contains(maxVersion)) {
            throw new IllegalStateException(schema.name() + " declares versions " + schema.declaredVersions()
                    + " but " + minVersion + "-" + maxVersion + " are supported");
        }
        if (advertisedMinVersion > minVersion) {
            throw new IllegalStateException(name() + " advertises less than it supports");
        }
    }

    /** Returns the API for a wire id, or null if Cairn does not serve it. */
    public static ApiKey forId(short id) {
        return id >= 0 && id < API_KEY_ID_LIMIT ? BY_ID[id] : null;
    }

    public short id() {
        return id;
    }

    /** The API's name as Kafka's specs spell it, e.g. {@code OffsetCommit}. */
    public String apiName() {
        String schemaName = requestSchema.name();
        return schemaName.substring(0, schemaName.length() - "Request".length());
    }

    public Schema requestSchema() {
        return requestSchema;
    }

    public Schema responseSchema() {
        return responseSchema;
    }

    /** The lowest version listed in ApiVersions responses (below {@link #minVersion()} only for Produce). */
    public short advertisedMinVersion() {
        return advertisedMinVersion;
    }

    /** The lowest version the broker decodes and answers. */
    public short minVersion() {
        return minVersion;
    }

    public short maxVersion() {
        return maxVersion;
    }

    public boolean isSupported(short version) {
        return version >= minVersion && version <= maxVersion;
    }

    /** Whether a version is flexible per the spec (defined also for versions Cairn does not support). */
    public boolean isFlexible(short version) {
        return requestSchema.isFlexible(version);
    }

    public short requestHeaderVersion(short version) {
        return isFlexible(version) ? REQUEST_HEADER_VERSION_FLEXIBLE : REQUEST_HEADER_VERSION_CLASSIC;
    }

    /**
     * ApiVersions responses always use header v0 so that a client can read the response to a version the broker
     * does not know (KIP-511).
     */
    public short responseHeaderVersion(short version) {
        if (this == API_VERSIONS || !isFlexible(version)) {
            return RESPONSE_HEADER_VERSION_CLASSIC;
        }
        return RESPONSE_HEADER_VERSION_FLEXIBLE;
    }

    /** Builds the ApiVersions response body from this table: every API with its advertised range. */
    public static Struct apiVersionsResponse(ErrorCode errorCode) {
        List<Struct> apiKeys = new ArrayList<>();
        for (ApiKey apiKey : values()) {
            apiKeys.add(new Struct(ApiVersionsResponse.ApiVersion.SCHEMA)
                    .set(ApiVersionsResponse.ApiVersion.API_KEY, apiKey.id)
                    .set(ApiVersionsResponse.ApiVersion.MIN_VERSION, apiKey.advertisedMinVersion)
                    .set(ApiVersionsResponse.ApiVersion.MAX_VERSION, apiKey.maxVersion));
        }
        return new Struct(ApiVersionsResponse.SCHEMA)
                .set(ApiVersionsResponse.ERROR_CODE, errorCode.code())
                .set(ApiVersionsResponse.API_KEYS, apiKeys);
    }
}
