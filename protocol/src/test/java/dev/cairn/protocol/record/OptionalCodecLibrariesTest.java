package dev.cairn.protocol.record;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cairn.protocol.record.compression.Compression;
import dev.cairn.protocol.record.compression.CompressionType;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The codec libraries are optional dependencies: loads the protocol module's classes in a class loader that
 * sees only them and the JDK (no snappy-java, lz4-java or zstd-jni), and checks that everything works until a
 * batch actually uses a missing codec, which then fails with an error naming the artifact to add.
 */
class OptionalCodecLibrariesTest {
    private static final long NOW_MS = 1_700_000_000_000L;

    private URLClassLoader jdkOnly;

    @BeforeEach
    void loadProtocolClassesWithoutCodecLibraries() {
        URL protocolClasses = Compression.class.getProtectionDomain().getCodeSource().getLocation();
        jdkOnly = new URLClassLoader(new URL[] {protocolClasses}, ClassLoader.getPlatformClassLoader());
    }

    @AfterEach
    void close() throws Exception {
        jdkOnly.close();
    }

    @Test
    void onlyTheJdkCodecsAreAvailable() throws Exception {
        for (CompressionType compressionType : CompressionType.values()) {
            boolean available = (boolean) call("dev.cairn.protocol.record.compression.Compression", "isAvailable",
                    new Class<?>[] {isolated(CompressionType.class)}, isolatedEnum(compressionType));
            assertEquals(compressionType == CompressionType.NONE || compressionType == CompressionType.GZIP,
                    available, compressionType::toString);
        }
    }

    @Test
    void gzipBatchIsValidatedAndZstdBatchGetsUnsupportedCompressionType() throws Exception {
        assertEquals("NONE", validateInIsolation(batch(CompressionType.GZIP)));
        assertEquals("UNSUPPORTED_COMPRESSION_TYPE", validateInIsolation(batch(CompressionType.ZSTD)));
        assertEquals("UNSUPPORTED_COMPRESSION_TYPE", validateInIsolation(batch(CompressionType.LZ4)));
        assertEquals("UNSUPPORTED_COMPRESSION_TYPE", validateInIsolation(batch(CompressionType.SNAPPY)));
    }

    @Test
    void readingAZstdBatchNamesTheMissingArtifact() throws Exception {
        Object batch = call("dev.cairn.protocol.record.RecordBatch", "of", new Class<?>[] {ByteBuffer.class},
                batch(CompressionType.ZSTD));
        Method records = batch.getClass().getMethod("records");
        InvocationTargetException thrown = assertThrows(InvocationTargetException.class, () -> records.invoke(batch));
        assertEquals("dev.cairn.protocol.record.compression.CodecUnavailableException",
                thrown.getCause().getClass().getName());
        assertTrue(thrown.getCause().getMessage().contains("com.github.luben:zstd-jni"),
                thrown.getCause().getMessage());
        // The isolated loader really lacks the library; the normal test classpath has it.
        assertThrows(ClassNotFoundException.class, () -> jdkOnly.loadClass("com.github.luben.zstd.Zstd"));
        assertFalse(isolated(CompressionType.class) == CompressionType.class);
    }

    private String validateInIsolation(ByteBuffer payload) throws Exception {
        Class<?> config = isolated(BatchValidationConfig.class);
        Object defaults = config.getField("DEFAULTS").get(null);
        Object result = call("dev.cairn.protocol.record.ProduceBatchValidator", "validate",
                new Class<?>[] {ByteBuffer.class, short.class, config, long.class}, payload, (short) 9, defaults,
                NOW_MS);
        return result.getClass().getMethod("errorCode").invoke(result).toString();
    }

    private Object call(String className, String method, Class<?>[] types, Object... args) throws Exception {
        return jdkOnly.loadClass(className).getMethod(method, types).invoke(null, args);
    }

    private Class<?> isolated(Class<?> type) throws ClassNotFoundException {
        return jdkOnly.loadClass(type.getName());
    }

    private Object isolatedEnum(Enum<?> value) throws Exception {
        return isolated(value.getDeclaringClass()).getField(value.name()).get(null);
    }

    private static ByteBuffer batch(CompressionType compressionType) {
        return new RecordBatchBuilder(compressionType)
                .append(NOW_MS, "k".getBytes(StandardCharsets.UTF_8), "v".getBytes(StandardCharsets.UTF_8))
                .build();
    }
}
