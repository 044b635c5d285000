package dev.cairn.broker.security.acl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import java.util.function.Function;
import org.apache.kafka.common.acl.AclPermissionType;
import org.junit.jupiter.api.Test;

/**
 * The enums' codes are Kafka's (kafka-clients 4.4): for every byte, Cairn knows a value exactly when Kafka does
 * (UNKNOWN aside), under the same name. Any drift would make Cairn misread ACL requests and stored bindings.
 */
class AclCodesTest {

    private static <C extends Enum<C>, K extends Enum<K>> void sameCodes(Function<Byte, Optional<C>> cairn,
            Function<Byte, K> kafka, Function<C, Byte> cairnCode) {
        for (int code = Byte.MIN_VALUE; code <= Byte.MAX_VALUE; code++) {
            K theirs = kafka.apply((byte) code);
            Optional<C> ours = cairn.apply((byte) code);
            if (theirs.name().equals("UNKNOWN")) {
                assertTrue(ours.isEmpty(), "Cairn knows code " + code + " as " + ours);
            } else {
                assertEquals(theirs.name(), ours.map(Enum::name).orElse("absent"), "code " + code);
                assertEquals((byte) code, cairnCode.apply(ours.get()));
            }
        }
    }

    @Test
    void resourceTypeCodesAreKafkas() {
        sameCodes(ResourceType::fromCode, org.apache.kafka.common.resource.ResourceType::fromCode,
                ResourceType::code);
        assertEquals(7, ResourceType.values().length);
    }

    @Test
    void patternTypeCodesAreKafkas() {
        sameCodes(PatternType::fromCode, org.apache.kafka.common.resource.PatternType::fromCode, PatternType::code);
        assertEquals(4, PatternType.values().length);
    }

    @Test
    void operationCodesAreKafkas() {
        sameCodes(AclOperation::fromCode, org.apache.kafka.common.acl.AclOperation::fromCode, AclOperation::code);
        assertEquals(15, AclOperation.values().length);
    }

    @Test
    void permissionCodesAreKafkas() {
        sameCodes(AclPermission::fromCode, AclPermissionType::fromCode, AclPermission::code);
        assertEquals(3, AclPermission.values().length);
    }

    @Test
    void kafkasUnknownIsNoValue() {
        assertTrue(ResourceType.fromCode((byte) 0).isEmpty());
        assertTrue(PatternType.fromCode((byte) 0).isEmpty());
        assertTrue(AclOperation.fromCode((byte) 0).isEmpty());
        assertTrue(AclPermission.fromCode((byte) 0).isEmpty());
    }
}
