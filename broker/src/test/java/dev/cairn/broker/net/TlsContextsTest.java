package dev.cairn.broker.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.broker.TestCertificates;
import dev.cairn.broker.config.BrokerConfig;
import dev.cairn.broker.config.ConfigException;
import dev.cairn.broker.config.TlsSettings;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslProvider;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLEngine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** ssl.engine: OpenSSL where it loads (the default), the JDK's engine on request, a clear error otherwise. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TlsContextsTest {
    @TempDir
    Path dir;

    private TlsSettings settings(TestCertificates certs, String engine) {
        Map<String, String> values = new HashMap<>(Map.of("listeners", "SSL://127.0.0.1:9095",
                "ssl.keystore.type", "PKCS12", "ssl.keystore.location", certs.brokerKeystore().toString(),
                "ssl.keystore.password", TestCertificates.PASSWORD, "ssl.truststore.type", "PKCS12",
                "ssl.truststore.location", certs.truststore().toString(),
                "ssl.truststore.password", TestCertificates.PASSWORD, "ssl.client.auth", "required"));
        if (engine != null) {
            values.put("ssl.engine", engine);
        }
        BrokerConfig config = BrokerConfig.fromMap(values);
        return TlsSettings.of(config, config.kafkaListener());
    }

    @Test
    void openSslLoadsOnTheBuildPlatformsAndIsTheDefault() throws Exception {
        // netty-tcnative-boringssl-static ships the native library for Linux, macOS and Windows on x86-64 and for
        // Linux and macOS on ARM: where the tests run, it must load, or auto would quietly fall back to the JDK.
        assertTrue(OpenSsl.isAvailable(), () -> "OpenSSL did not load: " + OpenSsl.unavailabilityCause());
        TestCertificates certs = TestCertificates.create(dir);
        TlsSettings defaults = settings(certs, null);
        assertEquals(TlsSettings.Engine.AUTO, defaults.engine());
        assertEquals(SslProvider.OPENSSL, TlsContexts.provider(defaults.engine()));
        SslContext context = TlsContexts.server(defaults);
        assertFalse(context instanceof JdkSslContext, "auto runs on OpenSSL: " + context);
        SSLEngine engine = context.newEngine(ByteBufAllocator.DEFAULT);
        assertTrue(engine.getNeedClientAuth(), "ssl.client.auth=required reaches the OpenSSL engine");
        assertTrue(java.util.Arrays.asList(engine.getEnabledProtocols()).contains("TLSv1.3"));
        assertEquals(SslProvider.OPENSSL, TlsContexts.provider(settings(certs, "OpenSSL").engine()));
    }

    @Test
    void theJdkEngineOnRequest() throws Exception {
        TestCertificates certs = TestCertificates.create(dir);
        SslContext context = TlsContexts.server(settings(certs, "jdk"));
        assertInstanceOf(JdkSslContext.class, context);
        assertTrue(context.newEngine(ByteBufAllocator.DEFAULT).getNeedClientAuth());
    }

    @Test
    void anUnknownEngineIsAConfigurationErrorNamingTheKey() throws Exception {
        TestCertificates certs = TestCertificates.create(dir);
        ConfigException e = assertThrows(ConfigException.class, () -> settings(certs, "gnutls"));
        assertTrue(e.getMessage().contains("ssl.engine=gnutls"), e.getMessage());
    }
}
