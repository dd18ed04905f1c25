package io.cqlrows.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.cqlrows.core.sink.RowsCollector;
import io.cqlrows.netty.EventLoops;
import io.cqlrows.netty.frame.Compression;
import io.cqlrows.netty.frame.CqlServerError;
import io.cqlrows.netty.frame.Opcode;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link CqlClient} against a {@link FakeCqlServer} that asks for {@code PasswordAuthenticator}:
 * SASL PLAIN in one AUTH_RESPONSE, AUTH_SUCCESS completing the connection (v5 in segments from
 * AUTHENTICATE on), bad credentials failing it with the server's error, and no credentials failing
 * it before anything is sent.
 */
class CqlClientAuthTest {
  private static final long TIMEOUT_SECONDS = 10;
  private static io.netty.channel.EventLoopGroup group;
  private FakeCqlServer server;
  private CqlClient client;

  @BeforeAll
  static void startGroup() {
    group = EventLoops.nio(2);
  }

  @AfterAll
  static void stopGroup() throws InterruptedException {
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
  }

  @AfterEach
  void close() throws Exception {
    if (client != null) {
      client.close().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }
    if (server != null) {
      server.close();
    }
  }

  private CqlClient connect(int version, Compression compression, Credentials credentials)
      throws Exception {
    server = new FakeCqlServer(group, version, compression);
    server.password = "s3cret";
    return CqlClient.connect(
            "127.0.0.1", server.port(), version, compression, credentials, group, p -> {})
        .get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
  }

  @ParameterizedTest
  @CsvSource({"4, NONE", "4, LZ4", "5, NONE", "5, LZ4"})
  void theRightPasswordAuthenticatesAndQueriesWork(int version, Compression compression)
      throws Exception {
    client = connect(version, compression, new Credentials("cassandra", "s3cret".toCharArray()));
    RowsCollector rows = new RowsCollector();
    client
        .query("SELECT stream, query FROM ks.t", rows, 0, null)
        .get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    assertEquals("SELECT stream, query FROM ks.t", rows.rows().get(0).getString("query"));
    assertEquals(1, server.authTokens.size());
    assertArrayEquals(
        "\0cassandra\0s3cret".getBytes(StandardCharsets.UTF_8), server.authTokens.get(0));
    assertEquals(Opcode.QUERY, server.requests.get(2).opcode(), "OPTIONS, STARTUP, then QUERY");
  }

  @ParameterizedTest
  @CsvSource({"4, LZ4", "5, NONE"})
  void aWrongPasswordFailsTheConnectionWithTheServersError(int version, Compression compression) {
    ExecutionException e =
        assertThrows(
            ExecutionException.class,
            () ->
                connect(version, compression, new Credentials("cassandra", "nope".toCharArray())));
    CqlServerError error = assertInstanceOf(CqlServerError.class, e.getCause());
    assertEquals(0x0100, error.code());
  }

  @Test
  void withoutCredentialsTheConnectionFailsAtAuthenticate() {
    ExecutionException e =
        assertThrows(ExecutionException.class, () -> connect(4, Compression.NONE, null));
    assertInstanceOf(IllegalStateException.class, e.getCause());
    assertEquals(0, server.authTokens.size());
  }

  @Test
  void credentialsNeverShowThePassword() {
    Credentials c = new Credentials("app", "hunter2".toCharArray());
    assertFalse(c.toString().contains("hunter2"));
    c.clear();
    assertArrayEquals(new char[7], c.password());
  }
}
