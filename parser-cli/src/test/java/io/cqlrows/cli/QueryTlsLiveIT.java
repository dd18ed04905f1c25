package io.cqlrows.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.client.live.CassandraServer;
import io.cqlrows.client.live.DefaultSuperuser;
import io.cqlrows.client.live.TestCertificates;
import io.cqlrows.client.live.TlsCassandra;
import io.cqlrows.testing.Corpus;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code cqlrows query} over TLS, the packaged {@code target/cqlrows.jar} run as a process ({@link
 * JarProcess}), against the two Cassandra 5.0.6 servers that require TLS ({@link TlsCassandra}):
 * with {@code PasswordAuthenticator}, the password from {@code --password-env} logs in over TLS
 * ({@code --ssl-ca}) in v4 and v5, with and without LZ4, and a wrong one or none is one line and
 * exit 1; with {@code require_client_auth}, {@code --ssl-cert} and {@code --ssl-key} are let in.
 * Then each way the handshake fails is one line naming it, exit status 1, within {@code --timeout}:
 * an untrusted certificate, a certificate for another name, plaintext to a TLS server, TLS to the
 * plaintext server, no client certificate for the mutual-TLS server.
 */
@Tag("live")
@Tag("tls")
class QueryTlsLiveIT {
  /** The environment variable the password is passed in. */
  private static final String PASSWORD_ENV = "CQLROWS_LIVE_PASSWORD";

  private static final String ROLE =
      "SELECT role, is_superuser FROM system_auth.roles WHERE role = 'cassandra'";
  private static final String RELEASE = "SELECT release_version FROM system.local";

  @TempDir static Path dir;
  private static TestCertificates certs;

  @BeforeAll
  static void startTheServers() {
    certs = TestCertificates.get();
    TlsCassandra.both();
  }

  private static JarProcess.Result query(TlsCassandra server, String password, String... args)
      throws Exception {
    return query(server.host(), server.port(), password, args);
  }

  private static JarProcess.Result query(String host, int port, String password, String... args)
      throws Exception {
    List<String> all =
        new ArrayList<>(
            List.of("query", "--host", host, "--port", Integer.toString(port), "--timeout", "20"));
    all.addAll(List.of(args));
    return JarProcess.run(
        dir, List.of(), password == null ? Map.of() : Map.of(PASSWORD_ENV, password), all);
  }

  /** One line on stderr, exit status 1, nothing on stdout. */
  private static void assertOneLineError(JarProcess.Result r, String part) {
    assertEquals(1, r.status(), r.err());
    assertEquals(1, r.errLines().size(), r.err());
    assertTrue(r.err().startsWith("cqlrows: ") && r.err().contains(part), r.err());
    assertEquals("", r.text(), "nothing on stdout");
  }

  @ParameterizedTest
  @CsvSource({"4, none", "4, lz4", "5, none", "5, lz4"})
  void thePasswordLogsInOverTls(int protocol, String compression) throws Exception {
    JarProcess.Result r =
        query(
            TlsCassandra.password(),
            DefaultSuperuser.PASSWORD,
            "--ssl-ca",
            certs.caPem().toString(),
            "--user",
            DefaultSuperuser.USER,
            "--password-env",
            PASSWORD_ENV,
            "--protocol",
            Integer.toString(protocol),
            "--compression",
            compression,
            "--format",
            "jsonl",
            ROLE);
    assertEquals(0, r.status(), r.err());
    assertEquals(
        List.of(Corpus.json("{\"role\":\"cassandra\",\"is_superuser\":true}")),
        r.lines().stream().map(Corpus::json).toList());
    assertEquals(1, r.counts().size(), r.err());
  }

  @Test
  void aWrongPasswordIsBadCredentialsOnOneLine() throws Exception {
    JarProcess.Result r =
        query(
            TlsCassandra.password(),
            "not the password",
            "--ssl-ca",
            certs.caPem().toString(),
            "--user",
            DefaultSuperuser.USER,
            "--password-env",
            PASSWORD_ENV,
            ROLE);
    assertOneLineError(r, "Bad credentials: ");
  }

  @Test
  void noUserIsAnErrorOnOneLine() throws Exception {
    assertOneLineError(
        query(TlsCassandra.password(), null, "--ssl-ca", certs.caPem().toString(), ROLE),
        "requires authentication");
  }

  @ParameterizedTest
  @CsvSource({"4, lz4", "5, lz4"})
  void aClientCertificateIsLetIntoTheMutualTlsServer(int protocol, String compression)
      throws Exception {
    JarProcess.Result r =
        query(
            TlsCassandra.mutual(),
            null,
            "--ssl-ca",
            certs.caPem().toString(),
            "--ssl-cert",
            certs.client().certificateChain().toString(),
            "--ssl-key",
            certs.client().privateKey().toString(),
            "--protocol",
            Integer.toString(protocol),
            "--compression",
            compression,
            "--format",
            "csv",
            RELEASE);
    assertEquals(0, r.status(), r.err());
    assertEquals(List.of("release_version", "5.0.6"), r.lines());
  }

  /** A cqlshrc in a home folder of its own, {@code rw-------} unless {@code others} may read it. */
  private static Path cqlshrc(String name, boolean others, String... lines) throws IOException {
    Path home = Files.createDirectories(dir.resolve(name));
    Path file = Files.createDirectories(home.resolve(".cassandra")).resolve("cqlshrc");
    Files.writeString(file, String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
    Files.setPosixFilePermissions(
        file, PosixFilePermissions.fromString(others ? "rw-r--r--" : "rw-------"));
    return home;
  }

  private static JarProcess.Result fromHome(Path home, String... args)
      throws IOException, InterruptedException {
    List<String> all = new ArrayList<>(List.of("query"));
    all.addAll(List.of(args));
    return JarProcess.run(dir, List.of(), Map.of("HOME", home.toString()), all);
  }

  @Test
  void aCqlshrcGivesTheHostPortTlsCredentialsAndKeyspace() throws Exception {
    TlsCassandra server = TlsCassandra.password();
    Path home =
        cqlshrc(
            "home-password",
            false,
            "[connection]",
            "hostname = " + server.host(),
            "port = " + server.port(),
            "ssl = true",
            "timeout = 20",
            "[authentication]",
            "username = " + DefaultSuperuser.USER,
            "password = " + DefaultSuperuser.PASSWORD,
            "keyspace = system_auth",
            "[ssl]",
            "certfile = " + certs.caPem(),
            "validate = true");
    JarProcess.Result r =
        fromHome(
            home,
            "--format",
            "jsonl",
            "SELECT role, is_superuser FROM roles WHERE role = 'cassandra'");
    assertEquals(0, r.status(), r.err());
    assertEquals(
        List.of(Corpus.json("{\"role\":\"cassandra\",\"is_superuser\":true}")),
        r.lines().stream().map(Corpus::json).toList(),
        "connected, logged in and in the keyspace, all from the file");
    assertTrue(
        !r.err().replace(DefaultSuperuser.USER, "").contains(DefaultSuperuser.PASSWORD),
        "the password is never printed");

    // the command line wins: another port refuses the connection
    JarProcess.Result port = fromHome(home, "--port", "1", "--timeout", "5", ROLE);
    assertOneLineError(port, "cannot connect");
  }

  @Test
  void aPasswordInACqlshrcOthersCanReadIsNotUsed() throws Exception {
    TlsCassandra server = TlsCassandra.password();
    Path home =
        cqlshrc(
            "home-shared",
            true,
            "[connection]",
            "hostname = " + server.host(),
            "port = " + server.port(),
            "ssl = true",
            "[authentication]",
            "username = " + DefaultSuperuser.USER,
            "password = " + DefaultSuperuser.PASSWORD,
            "[ssl]",
            "certfile = " + certs.caPem());
    JarProcess.Result r = fromHome(home, "--timeout", "20", ROLE);
    assertEquals(2, r.status(), r.err());
    assertTrue(r.err().contains("the password is ignored"), r.err());
    assertTrue(
        r.err().contains("no password for " + DefaultSuperuser.USER), "no terminal to ask on");
    // the default superuser's password is its name: only the name may show
    assertTrue(
        !r.err().replace(DefaultSuperuser.USER, "").contains(DefaultSuperuser.PASSWORD),
        "the password is never printed");
  }

  @Test
  void aCqlshrcGivesTheClientCertificateForMutualTls() throws Exception {
    TlsCassandra server = TlsCassandra.mutual();
    Path home =
        cqlshrc(
            "home-mutual",
            false,
            "[connection]",
            "hostname = " + server.host(),
            "port = " + server.port(),
            "ssl = true",
            "[ssl]",
            "certfile = " + certs.caPem(),
            "usercert = " + certs.client().certificateChain(),
            "userkey = " + certs.client().privateKey());
    JarProcess.Result r = fromHome(home, "--timeout", "20", "--format", "csv", RELEASE);
    assertEquals(0, r.status(), r.err());
    assertEquals(List.of("release_version", "5.0.6"), r.lines());
  }

  @Test
  void anUntrustedCertificate() throws Exception {
    assertOneLineError(
        query(TlsCassandra.password(), null, "--ssl-ca", certs.wrongCaPem().toString(), RELEASE),
        "not signed by a trusted authority");
  }

  @Test
  void aCertificateForAnotherName() throws Exception {
    assertOneLineError(
        query(
            TlsCassandra.password(),
            null,
            "--ssl-ca",
            certs.caPem().toString(),
            "--ssl-server-name",
            "wrong.example",
            RELEASE),
        "is not for wrong.example");
  }

  @Test
  void plaintextToATlsServer() throws Exception {
    JarProcess.Result r = query(TlsCassandra.password(), null, RELEASE);
    assertOneLineError(r, "the connection");
    assertTrue(r.err().contains("try --ssl"), r.err());
  }

  @Test
  void tlsToThePlaintextServer() throws Exception {
    CassandraServer plain = CassandraServer.get();
    assertOneLineError(
        query(plain.host(), plain.port(), null, "--ssl-ca", certs.caPem().toString(), RELEASE),
        "does not speak TLS");
  }

  @Test
  void noClientCertificateForTheMutualTlsServer() throws Exception {
    assertOneLineError(
        query(TlsCassandra.mutual(), null, "--ssl-ca", certs.caPem().toString(), RELEASE),
        "requires a client certificate");
  }
}
