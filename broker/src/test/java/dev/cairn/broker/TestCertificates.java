package dev.cairn.broker;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throw-away certificate authority for TLS tests, made with the JDK's keytool: a CA, a broker certificate for
 * 127.0.0.1 and localhost signed by it, a client certificate signed by it (mutual TLS), and a truststore holding the
 * CA. Every store is PKCS12 with the password {@link #PASSWORD}.
 */
public final class TestCertificates {
    public static final String PASSWORD = "test-secret";
    /** The client certificate's subject, as the broker reports it (RFC 2253). */
    public static final String CLIENT_SUBJECT = "CN=client-1,O=cairn-test";
    private static final long KEYTOOL_SECONDS_MAX = 60;

    private final Path dir;

    private TestCertificates(Path dir) {
        this.dir = dir;
    }

    /** Creates the CA and the stores under {@code dir}. */
    public static TestCertificates create(Path dir) throws IOException, InterruptedException {
        TestCertificates certs = new TestCertificates(dir);
        certs.keytool("-genkeypair", "-alias", "ca", "-dname", "CN=cairn-test-ca", "-ext", "bc:c", "-keyalg", "EC",
                "-groupname", "secp256r1", "-validity", "2", "-keystore", "ca.p12");
        certs.keytool("-exportcert", "-rfc", "-alias", "ca", "-keystore", "ca.p12", "-file", "ca.pem");
        certs.keytool("-importcert", "-noprompt", "-alias", "ca", "-file", "ca.pem", "-keystore", "truststore.p12");
        certs.signed("broker", "CN=localhost,O=cairn-test", "SAN=ip:127.0.0.1,dns:localhost");
        certs.signed("client", CLIENT_SUBJECT, null);
        return certs;
    }

    private void signed(String name, String subject, String san) throws IOException, InterruptedException {
        String store = name + ".p12";
        keytool("-genkeypair", "-alias", name, "-dname", subject, "-keyalg", "EC", "-groupname", "secp256r1",
                "-validity", "2", "-keystore", store);
        keytool("-certreq", "-alias", name, "-keystore", store, "-file", name + ".csr");
        List<String> gencert = new ArrayList<>(List.of("-gencert", "-alias", "ca", "-keystore", "ca.p12", "-infile",
                name + ".csr", "-outfile", name + ".crt", "-rfc", "-validity", "2"));
        if (san != null) {
            gencert.addAll(List.of("-ext", san));
        }
        keytool(gencert.toArray(String[]::new));
        keytool("-importcert", "-noprompt", "-alias", "ca", "-file", "ca.pem", "-keystore", store);
        keytool("-importcert", "-alias", name, "-file", name + ".crt", "-keystore", store);
    }

    /**
     * One more key and certificate signed by this CA, in {@code NAME.p12}, with the subject alternative names
     * {@code san} (keytool's syntax, e.g. {@code dns:elsewhere.invalid}): a broker certificate for another host.
     */
    public Path signedKeystore(String name, String subject, String san) throws IOException, InterruptedException {
        signed(name, subject, "SAN=" + san);
        return dir.resolve(name + ".p12");
    }

    public Path brokerKeystore() {
        return dir.resolve("broker.p12");
    }

    public Path clientKeystore() {
        return dir.resolve("client.p12");
    }

    /** The CA certificate in PEM, for clients that take a CA file (librdkafka's ssl.ca.location). */
    public Path caPem() {
        return dir.resolve("ca.pem");
    }

    public Path truststore() {
        return dir.resolve("truststore.p12");
    }

    private void keytool(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        command.addAll(List.of("-storetype", "PKCS12", "-storepass", PASSWORD));
        Path log = dir.resolve("keytool.log");
        Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.to(log.toFile())).start();
        if (!process.waitFor(KEYTOOL_SECONDS_MAX, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IOException("keytool " + args[0] + " did not finish within " + KEYTOOL_SECONDS_MAX + " s");
        }
        if (process.exitValue() != 0) {
            throw new IOException("keytool " + String.join(" ", args) + " failed: "
                    + java.nio.file.Files.readString(log, StandardCharsets.UTF_8));
        }
    }
}
