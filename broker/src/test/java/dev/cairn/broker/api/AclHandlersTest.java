package dev.cairn.broker.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.cairn.broker.cluster.MetadataCommand;
import dev.cairn.broker.config.Limits;
import dev.cairn.protocol.ApiKey;
import dev.cairn.protocol.ErrorCode;
import dev.cairn.protocol.message.CreateAclsRequest;
import dev.cairn.protocol.message.CreateAclsRequest.AclCreation;
import dev.cairn.protocol.message.CreateAclsResponse;
import dev.cairn.protocol.message.CreateAclsResponse.AclCreationResult;
import dev.cairn.protocol.message.DeleteAclsRequest;
import dev.cairn.protocol.message.DeleteAclsRequest.DeleteAclsFilter;
import dev.cairn.protocol.message.DeleteAclsResponse;
import dev.cairn.protocol.message.DeleteAclsResponse.DeleteAclsFilterResult;
import dev.cairn.protocol.message.DescribeAclsRequest;
import dev.cairn.protocol.message.DescribeAclsResponse;
import dev.cairn.protocol.schema.Struct;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * CreateAcls, DescribeAcls and DeleteAcls over the real metadata core: SECURITY_DISABLED without an authorizer, the
 * per-request bound on creations, and a DeleteAcls filter matching more bindings than one metadata entry may carry.
 */
class AclHandlersTest {
    private static final byte TOPIC = 2;
    private static final byte LITERAL = 3;
    private static final byte ANY = 1;
    private static final byte READ = 3;
    private static final byte ALLOW = 3;

    private final FakeMetadataService metadata = new FakeMetadataService();
    private final AccessControl access = new AccessControl(true, Set.of("User:ANONYMOUS"), false,
            () -> metadata.image().acls());
    private final RequestContext superUser = new RequestContext(1, "127.0.0.1:1",
            ConnectionSession.of(false, access, "127.0.0.1"));

    private static Struct creation(String topic) {
        return new Struct(AclCreation.SCHEMA).set(AclCreation.RESOURCE_TYPE, TOPIC)
                .set(AclCreation.RESOURCE_NAME, topic).set(AclCreation.RESOURCE_PATTERN_TYPE, LITERAL)
                .set(AclCreation.PRINCIPAL, "User:alice").set(AclCreation.HOST, "*")
                .set(AclCreation.OPERATION, READ).set(AclCreation.PERMISSION_TYPE, ALLOW);
    }

    private Struct create(RequestContext context, int count) {
        List<Struct> creations = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            creations.add(creation("t" + i));
        }
        return ApiTestSupport.call(new CreateAclsHandler(metadata), ApiTestSupport.request(ApiKey.CREATE_ACLS, 3,
                new Struct(CreateAclsRequest.SCHEMA).set(CreateAclsRequest.CREATIONS, creations)), context);
    }

    private static short firstError(Struct createResponse) {
        return createResponse.get(CreateAclsResponse.RESULTS).get(0).get(AclCreationResult.ERROR_CODE);
    }

    private int described() {
        Struct response = ApiTestSupport.call(new DescribeAclsHandler(), ApiTestSupport.request(ApiKey.DESCRIBE_ACLS,
                3, new Struct(DescribeAclsRequest.SCHEMA).set(DescribeAclsRequest.RESOURCE_TYPE_FILTER, ANY)
                        .set(DescribeAclsRequest.PATTERN_TYPE_FILTER, ANY).set(DescribeAclsRequest.OPERATION, ANY)
                        .set(DescribeAclsRequest.PERMISSION_TYPE, ANY)
                        .set(DescribeAclsRequest.RESOURCE_NAME_FILTER, null)
                        .set(DescribeAclsRequest.PRINCIPAL_FILTER, null)
                        .set(DescribeAclsRequest.HOST_FILTER, null)), superUser);
        assertEquals(ErrorCode.NONE.code(), response.get(DescribeAclsResponse.ERROR_CODE));
        return response.get(DescribeAclsResponse.RESOURCES).size();
    }

    @Test
    void withoutAnAuthorizerAclsAreRefusedAsKafkaRefusesThem() {
        assertEquals(ErrorCode.SECURITY_DISABLED.code(), firstError(create(ApiTestSupport.CONTEXT, 1)));
    }

    @Test
    void oneRequestCreatesAtMostTheLimitAndADeleteLargerThanOneEntryIsSplit() {
        assertEquals(ErrorCode.INVALID_REQUEST.code(),
                firstError(create(superUser, Limits.SECURITY_CHANGES_PER_ENTRY_MAX + 1)));
        assertEquals(0, metadata.image().acls().size(), "nothing of a refused request is created");
        assertEquals(ErrorCode.NONE.code(), firstError(create(superUser, Limits.SECURITY_CHANGES_PER_ENTRY_MAX)));
        assertEquals(ErrorCode.NONE.code(), firstError(create(superUser, 5)), "t0-t4 again: a set, no duplicates");
        assertEquals(Limits.SECURITY_CHANGES_PER_ENTRY_MAX, described());
        Struct creationOfAnother = ApiTestSupport.call(new CreateAclsHandler(metadata), ApiTestSupport.request(
                ApiKey.CREATE_ACLS, 3, new Struct(CreateAclsRequest.SCHEMA).set(CreateAclsRequest.CREATIONS,
                        List.of(creation("extra")))), superUser);
        assertEquals(ErrorCode.NONE.code(), firstError(creationOfAnother));

        int submittedBefore = metadata.submitted().size();
        Struct filter = new Struct(DeleteAclsFilter.SCHEMA).set(DeleteAclsFilter.RESOURCE_TYPE_FILTER, TOPIC)
                .set(DeleteAclsFilter.PATTERN_TYPE_FILTER, ANY).set(DeleteAclsFilter.OPERATION, ANY)
                .set(DeleteAclsFilter.PERMISSION_TYPE, ANY).set(DeleteAclsFilter.RESOURCE_NAME_FILTER, null)
                .set(DeleteAclsFilter.PRINCIPAL_FILTER, null).set(DeleteAclsFilter.HOST_FILTER, null);
        Struct deleted = ApiTestSupport.call(new DeleteAclsHandler(metadata), ApiTestSupport.request(
                ApiKey.DELETE_ACLS, 3, new Struct(DeleteAclsRequest.SCHEMA).set(DeleteAclsRequest.FILTERS,
                        List.of(filter))), superUser);
        Struct result = deleted.get(DeleteAclsResponse.FILTER_RESULTS).get(0);
        assertEquals(ErrorCode.NONE.code(), result.get(DeleteAclsFilterResult.ERROR_CODE));
        assertEquals(Limits.SECURITY_CHANGES_PER_ENTRY_MAX + 1,
                result.get(DeleteAclsFilterResult.MATCHING_ACLS).size());
        assertEquals(0, metadata.image().acls().size());
        List<MetadataCommand> entries = metadata.submitted().subList(submittedBefore, metadata.submitted().size());
        assertEquals(2, entries.size(), "1,001 removals go in two metadata entries");
    }
}
