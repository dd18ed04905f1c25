package io.cqlrows.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code query} takes what applies from a cqlsh configuration file; the command line wins. */
class CqlshrcTest {
  @TempDir Path dir;

  private Path write(String name, String permissions, String... lines) throws IOException {
    Path file = dir.resolve(name);
    Files.createDirectories(file.getParent());
    Files.writeString(file, String.join("\n", lines) + "\n");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(permissions));
    return file;
  }

  private QueryOptions parse(Path rc, String... args) throws Exception {
    String[] all = new String[args.length + 3];
    all[0] = "query";
    all[1] = "--cqlshrc";
    all[2] = rc.toString();
    System.arraycopy(args, 0, all, 3, args.length);
    return QueryOptions.parse(all, Map.of());
  }

  @Test
  void everySupportedKeyReachesTheOptions() throws Exception {
    Path rc =
        write(
            "cqlshrc",
            "rw-------",
            "; a comment",
            "[Connection]",
            "hostname = 127.0.0.2",
            "port: 19042",
            "ssl = true",
            "timeout = 7.5",
            "[authentication]",
            "username = alice",
            "password = s3cret",
            "keyspace = ks1",
            "[ssl]",
            "certfile = ca.pem",
            "validate = true",
            "userkey = ~/client.key",
            "usercert = client.pem",
            "[ui]",
            "color = on");
    QueryOptions o = parse(rc, "SELECT 1");
    assertEquals("127.0.0.2", o.host());
    assertEquals(19042, o.port());
    assertEquals(8, o.timeoutSeconds(), "a fraction of a second is rounded up");
    assertEquals("alice", o.user());
    assertEquals("s3cret", o.cqlshrcPassword());
    assertEquals("ks1", o.keyspace());
    assertEquals(dir.resolve("ca.pem"), o.tls().ca(), "relative to the file's folder");
    assertEquals(dir.resolve("client.pem"), o.tls().cert());
    assertTrue(o.tls().key().toString().endsWith("client.key"));
    assertFalse(o.tls().insecure());
    assertTrue(o.cqlshrc().warnings().isEmpty());
    assertFalse(o.cqlshrc().toString().contains("s3cret"), "the password is never printed");
    assertFalse(o.toString().contains("s3cret"), "the password is never printed");
  }

  @Test
  void theCommandLineWins() throws Exception {
    Path rc =
        write(
            "cqlshrc",
            "rw-------",
            "[connection]",
            "hostname = 127.0.0.2",
            "port = 19042",
            "timeout = 30",
            "[authentication]",
            "username = alice",
            "password = s3cret",
            "keyspace = ks1");
    QueryOptions o =
        parse(
            rc,
            "--host",
            "127.0.0.3",
            "--port",
            "9043",
            "--timeout",
            "5",
            "--user",
            "bob",
            "--keyspace",
            "ks2",
            "--password-env",
            "PW",
            "SELECT 1");
    assertEquals("127.0.0.3", o.host());
    assertEquals(9043, o.port());
    assertEquals(5, o.timeoutSeconds());
    assertEquals("bob", o.user());
    assertEquals("ks2", o.keyspace());
    assertNull(o.cqlshrcPassword(), "the file's password is alice's, not bob's");
    assertNull(o.tls(), "no TLS without ssl = true or an --ssl option");
  }

  @Test
  void aPasswordInAFileOthersCanReadIsIgnoredWithAWarning() throws Exception {
    Path rc =
        write("cqlshrc", "rw-r--r--", "[authentication]", "username = alice", "password = s3cret");
    QueryOptions o = parse(rc, "SELECT 1");
    assertEquals("alice", o.user(), "the username is still taken");
    assertNull(o.cqlshrcPassword());
    assertEquals(1, o.cqlshrc().warnings().size());
    assertFalse(o.cqlshrc().warnings().get(0).contains("s3cret"));
  }

  @Test
  void aCredentialsFileGivesTheUsernameAndPassword() throws Exception {
    write("creds", "rw-------", "[PlainTextAuthProvider]", "username = carol", "password = pw");
    Path rc = write("cqlshrc", "rw-r--r--", "[authentication]", "credentials = creds");
    QueryOptions o = parse(rc, "SELECT 1");
    assertEquals("carol", o.user());
    assertEquals("pw", o.cqlshrcPassword(), "the credentials file is the owner's alone");
    Files.setPosixFilePermissions(
        dir.resolve("creds"), PosixFilePermissions.fromString("rw-rw----"));
    QueryOptions shared = parse(rc, "SELECT 1");
    assertNull(shared.cqlshrcPassword());
    assertEquals(1, shared.cqlshrc().warnings().size());
  }

  @Test
  void validateFalseTrustsAnyCertificateAndSslOnTheCommandLineReadsTheSection() throws Exception {
    Path rc = write("cqlshrc", "rw-------", "[ssl]", "validate = false");
    assertNull(parse(rc, "SELECT 1").tls(), "[ssl] alone does not turn TLS on");
    QueryOptions o = parse(rc, "--ssl", "SELECT 1");
    assertTrue(o.tls().insecure());
    Path ca = write("ca.pem", "rw-r--r--", "not read here");
    QueryOptions withCa = parse(rc, "--ssl-ca", ca.toString(), "SELECT 1");
    assertFalse(withCa.tls().insecure(), "--ssl-ca on the command line wins over validate");
    assertEquals(ca, withCa.tls().ca());
  }

  @Test
  void theDefaultFileIsInHomeAndNoCqlshrcSkipsIt() throws Exception {
    write(".cassandra/cqlshrc", "rw-------", "[connection]", "port = 19999");
    Map<String, String> env = Map.of("HOME", dir.toString());
    assertEquals(19999, QueryOptions.parse(new String[] {"query", "SELECT 1"}, env).port());
    QueryOptions none = QueryOptions.parse(new String[] {"query", "--no-cqlshrc", "SELECT 1"}, env);
    assertEquals(QueryOptions.DEFAULT_PORT, none.port());
    assertSame(Cqlshrc.NONE, none.cqlshrc());
    Map<String, String> elsewhere = Map.of("HOME", dir.resolve("nobody").toString());
    assertSame(
        Cqlshrc.NONE,
        QueryOptions.parse(new String[] {"query", "SELECT 1"}, elsewhere).cqlshrc(),
        "no file, no configuration");
  }

  @Test
  void aFileThatIsNotValidIsAUsageError() throws Exception {
    Path noSection = write("a", "rw-------", "hostname = x");
    Path noValue = write("b", "rw-------", "[connection]", "hostname");
    Path badPort = write("c", "rw-------", "[connection]", "port = 99999");
    Path badBool = write("d", "rw-------", "[connection]", "ssl = maybe");
    for (Path rc : new Path[] {noSection, noValue, badPort, badBool, dir.resolve("missing")}) {
      assertThrows(Usage.Mistake.class, () -> parse(rc, "SELECT 1"), rc.toString());
    }
    Path big = dir.resolve("big");
    Files.write(big, new byte[Cqlshrc.MAX_BYTES + 1]);
    assertThrows(Usage.Mistake.class, () -> parse(big, "SELECT 1"));
  }
}
