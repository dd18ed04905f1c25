package io.cqlrows.client.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.cqlrows.client.CqlClient;
import io.cqlrows.client.Credentials;
import io.cqlrows.netty.EventLoops;
import io.cqlrows.netty.TlsOptions;
import io.cqlrows.netty.frame.CqlServerError;
import io.cqlrows.testing.Corpus;
import io.netty.channel.EventLoopGroup;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link CqlClient} against the Cassandra with {@code PasswordAuthenticator}, which requires TLS
 * ({@link TlsCassandra#password()}, shared with the other TLS tests), in v4, v4 + LZ4, v5 and v5 +
 * LZ4: the default superuser's {@link Credentials} log in (SASL PLAIN, inside TLS) and the
 * connection then reads {@code system_auth.roles}; a wrong password fails the connection with the
 * server's Bad credentials error (0x0100); no credentials fail it with an {@link
 * IllegalStateException}.
 */
@Tag("live")
@Tag("tls")
class PasswordAuthLiveTest {
  private static TlsCassandra server;
  private static TlsOptions tls;
  private static EventLoopGroup group;
  private CqlClient client;

  @BeforeAll
  static void startTheServer() throws SSLException {
    group = EventLoops.nio(1);
    server = TlsCassandra.password();
    tls = TlsOptions.of(server.clientContext());
  }

  @AfterAll
  static void closeTheGroup() throws InterruptedException {
    if (group != null) {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
      group = null;
    }
  }

  @AfterEach
  void closeClient() {
    if (client != null) {
      LiveClients.get(client.close());
      client = null;
    }
  }

  private static CompletableFuture<CqlClient> connect(Combo combo, Credentials credentials) {
    return CqlClient.builder(server.host(), server.port())
        .protocolVersion(combo.version())
        .compression(combo.compression())
        .tls(tls)
        .credentials(credentials)
        .connect(group);
  }

  @ParameterizedTest
  @EnumSource(Combo.class)
  void theDefaultSuperuserLogsInAndQueries(Combo combo) {
    Credentials credentials =
        new Credentials(DefaultSuperuser.USER, DefaultSuperuser.PASSWORD.toCharArray());
    client = LiveClients.get(connect(combo, credentials));
    credentials.clear();
    assertEquals(combo.version(), client.protocolVersion());
    assertEquals(
        Corpus.json("[[\"cassandra\",true]]"),
        LiveClients.query(
                client,
                "SELECT role, is_superuser FROM system_auth.roles WHERE role = 'cassandra'",
                0)
            .get("rows"),
        combo.toString());
  }

  @ParameterizedTest
  @EnumSource(Combo.class)
  void aWrongPasswordIsBadCredentials(Combo combo) {
    ExecutionException e =
        assertThrows(
            ExecutionException.class,
            () ->
                connect(combo, new Credentials(DefaultSuperuser.USER, "wrong".toCharArray()))
                    .get(LiveClients.TIMEOUT_SECONDS, TimeUnit.SECONDS));
    CqlServerError error = assertInstanceOf(CqlServerError.class, e.getCause());
    assertEquals(0x0100, error.code(), error.getMessage());
    assertEquals("Bad credentials", error.codeName());
  }

  @ParameterizedTest
  @EnumSource(
      value = Combo.class,
      names = {"V4", "V5_LZ4"})
  void noCredentialsFailTheConnection(Combo combo) {
    ExecutionException e =
        assertThrows(
            ExecutionException.class,
            () -> connect(combo, null).get(LiveClients.TIMEOUT_SECONDS, TimeUnit.SECONDS));
    assertInstanceOf(IllegalStateException.class, e.getCause());
  }
}
