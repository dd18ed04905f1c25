package io.cqlrows.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.netty.live.PasswordAuthServer;
import io.cqlrows.testing.Corpus;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code cqlrows query --user}, the packaged {@code target/cqlrows.jar} run as a process ({@link
 * JarProcess}), against a Cassandra 5.0.6 started with {@code PasswordAuthenticator} ({@link
 * PasswordAuthServer}, started and stopped by this class). It checks that the password from
 * {@code --password-env} (an environment variable of the process) logs in, in v4 and v5, with and
 * without LZ4, and the statement then reads {@code system_auth.roles}; that a wrong password ends
 * the command with exit status 1 and one line {@code cqlrows: Bad credentials: ...}; and that no
 * {@code --user} ends it with exit status 1 and one line.
 */
@Tag("live")
class QueryAuthLiveIT {
  /** The environment variable the password is passed in. */
  private static final String PASSWORD_ENV = "CQLROWS_LIVE_PASSWORD";
  private static final String ROLE =
      "SELECT role, is_superuser FROM system_auth.roles WHERE role = 'cassandra'";

  @TempDir static Path dir;

  private static PasswordAuthServer server;

  @BeforeAll
  static void startTheServer() {
    server = PasswordAuthServer.start();
  }

  @AfterAll
  static void stopTheServer() {
    if (server != null) {
      server.close();
      server = null;
    }
  }

  private static JarProcess.Result query(String password, List<String> args) throws Exception {
    List<String> all = new ArrayList<>(List.of("query", "--host", server.host(), "--port",
        Integer.toString(server.port()), "--quiet"));
    all.addAll(args);
    return JarProcess.run(dir, List.of(), password == null ? Map.of()
        : Map.of(PASSWORD_ENV, password), all);
  }

  @ParameterizedTest
  @CsvSource({"4, none", "4, lz4", "5, none", "5, lz4"})
  void thePasswordFromTheEnvironmentLogsIn(int protocol, String compression) throws Exception {
    JarProcess.Result r = query(PasswordAuthServer.PASSWORD, List.of("--user",
        PasswordAuthServer.USER, "--password-env", PASSWORD_ENV, "--protocol",
        Integer.toString(protocol), "--compression", compression, "--format", "jsonl", ROLE));
    assertEquals(0, r.status(), r.err());
    assertEquals(List.of(Corpus.json("{\"role\":\"cassandra\",\"is_superuser\":true}")),
        r.lines().stream().map(Corpus::json).toList());
    assertEquals(1, r.counts().size(), r.err());
    assertEquals(1, r.counts().get(0)[0], r.err());
  }

  @Test
  void aWrongPasswordIsBadCredentialsOnOneLine() throws Exception {
    JarProcess.Result r = query("not the password", List.of("--user", PasswordAuthServer.USER,
        "--password-env", PASSWORD_ENV, ROLE));
    assertEquals(1, r.status(), r.err());
    assertEquals(1, r.errLines().size(), r.err());
    assertTrue(r.err().startsWith("cqlrows: Bad credentials: "), r.err());
    assertEquals("", r.text(), "nothing on stdout");
  }

  @Test
  void noUserIsAnErrorOnOneLine() throws Exception {
    JarProcess.Result r = query(null, List.of(ROLE));
    assertEquals(1, r.status(), r.err());
    assertEquals(1, r.errLines().size(), r.err());
    assertTrue(r.err().startsWith("cqlrows: "), r.err());
    assertEquals("", r.text(), "nothing on stdout");
  }
}
