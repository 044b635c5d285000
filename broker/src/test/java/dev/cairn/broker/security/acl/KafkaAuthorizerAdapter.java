package dev.cairn.broker.security.acl;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.Endpoint;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.utils.internals.SecurityUtils;
import org.apache.kafka.server.authorizer.AclCreateResult;
import org.apache.kafka.server.authorizer.AclDeleteResult;
import org.apache.kafka.server.authorizer.Action;
import org.apache.kafka.server.authorizer.AuthorizableRequestContext;
import org.apache.kafka.server.authorizer.AuthorizationResult;
import org.apache.kafka.server.authorizer.AuthorizerServerInfo;

/**
 * A kafka-clients {@code Authorizer} whose authorize() and acls() are Cairn's, so that Kafka's own default
 * authorizeByResourceType (in the kafka-clients interface) can be run over Cairn's bindings and compared with
 * {@link Authorizer#authorizeAny}.
 */
final class KafkaAuthorizerAdapter implements org.apache.kafka.server.authorizer.Authorizer {

    private final Authorizer cairn;

    KafkaAuthorizerAdapter(Authorizer cairn) {
        this.cairn = cairn;
    }

    /** Kafka's answer to authorizeByResourceType for a principal ("Type:name") at an IPv4 address. */
    boolean authorizeByResourceType(String principal, String host, AclOperation op, ResourceType type) {
        return authorizeByResourceType(context(principal, host), Acls.kafka(op), Acls.kafka(type))
                == AuthorizationResult.ALLOWED;
    }

    @Override
    public List<AuthorizationResult> authorize(AuthorizableRequestContext context, List<Action> actions) {
        List<AuthorizationResult> results = new ArrayList<>();
        for (Action action : actions) {
            boolean allowed = cairn.authorize(context.principal().toString(),
                    context.clientAddress().getHostAddress(),
                    AclOperation.fromCode(action.operation().code()).orElseThrow(),
                    ResourceType.fromCode(action.resourcePattern().resourceType().code()).orElseThrow(),
                    action.resourcePattern().name());
            results.add(allowed ? AuthorizationResult.ALLOWED : AuthorizationResult.DENIED);
        }
        return results;
    }

    @Override
    public Iterable<org.apache.kafka.common.acl.AclBinding> acls(AclBindingFilter filter) {
        List<org.apache.kafka.common.acl.AclBinding> found = new ArrayList<>();
        for (AclBinding binding : cairn.bindings()) {
            org.apache.kafka.common.acl.AclBinding theirs = Acls.toKafka(binding);
            if (filter.matches(theirs)) {
                found.add(theirs);
            }
        }
        return found;
    }

    @Override
    public Map<Endpoint, ? extends CompletionStage<Void>> start(AuthorizerServerInfo serverInfo) {
        throw new UnsupportedOperationException();
    }

    @Override
    public List<? extends CompletionStage<AclCreateResult>> createAcls(AuthorizableRequestContext context,
            List<org.apache.kafka.common.acl.AclBinding> bindings) {
        throw new UnsupportedOperationException();
    }

    @Override
    public List<? extends CompletionStage<AclDeleteResult>> deleteAcls(AuthorizableRequestContext context,
            List<AclBindingFilter> filters) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void configure(Map<String, ?> configs) {
    }

    @Override
    public void close() {
    }

    private static AuthorizableRequestContext context(String principal, String host) {
        KafkaPrincipal kafkaPrincipal = SecurityUtils.parseKafkaPrincipal(principal);
        InetAddress address = ipv4(host);
        return new AuthorizableRequestContext() {
            @Override
            public String listenerName() {
                return "PLAINTEXT";
            }

            @Override
            public SecurityProtocol securityProtocol() {
                return SecurityProtocol.PLAINTEXT;
            }

            @Override
            public KafkaPrincipal principal() {
                return kafkaPrincipal;
            }

            @Override
            public InetAddress clientAddress() {
                return address;
            }

            @Override
            public int requestType() {
                return 22;
            }

            @Override
            public int requestVersion() {
                return 0;
            }

            @Override
            public String clientId() {
                return "test";
            }

            @Override
            public int correlationId() {
                return 0;
            }
        };
    }

    /** The address of a dotted IPv4 literal, without any name lookup. */
    private static InetAddress ipv4(String host) {
        String[] parts = host.split("\\.");
        byte[] bytes = new byte[4];
        for (int i = 0; i < 4; i++) {
            bytes[i] = (byte) Integer.parseInt(parts[i]);
        }
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(host, e);
        }
    }
}
