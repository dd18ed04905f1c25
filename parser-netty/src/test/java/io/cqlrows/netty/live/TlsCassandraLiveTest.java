package io.cqlrows.netty.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.cqlrows.netty.EventLoops;
import io.cqlrows.netty.client.CqlClient;
import io.cqlrows.netty.client.Credentials;
import io.cqlrows.netty.tls.TlsClients;
import io.cqlrows.testing.Corpus;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.SslHandler;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link CqlClient} over TLS (an {@link SslHandler} added first by the connect customizer) to
 * the {@link TlsCassandra} servers, in v4, v4 + LZ4, v5 and v5 + LZ4: the superuser logs in to
 * the password server and reads {@code system_auth.roles}; a client with the test certificate
 * reads {@code system.local} from the mutual-TLS server. TLSv1.3 is negotiated.
 */
@Tag("live")
class TlsCassandraLiveTest {
  private static EventLoopGroup group;
  private CqlClient client;

  @BeforeAll
  static void startTheServers() {
    group = EventLoops.nio(1);
    TlsCassandra.both();
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

  @ParameterizedTest
  @EnumSource(Combo.class)
  void theSuperuserLogsInOverTls(Combo combo) throws Exception {
    TlsCassandra server = TlsCassandra.password();
    Credentials credentials = new Credentials(PasswordAuthServer.USER,
        PasswordAuthServer.PASSWORD.toCharArray());
    client = LiveClients.get(CqlClient.connect(server.host(), server.port(), combo.version(),
        combo.compression(), credentials, group,
        TlsClients.first(server.clientContext(), server.host(), server.port())));
    credentials.clear();
    assertEquals(combo.version(), client.protocolVersion());
    assertEquals("TLSv1.3", tls(client).engine().getSession().getProtocol());
    assertEquals(Corpus.json("[[\"cassandra\",true]]"), LiveClients.query(client,
        "SELECT role, is_superuser FROM system_auth.roles WHERE role = 'cassandra'", 0)
        .get("rows"), combo.toString());
  }

  @ParameterizedTest
  @EnumSource(Combo.class)
  void aClientWithTheCertificateQueriesTheMutualTlsServer(Combo combo) throws Exception {
    TlsCassandra server = TlsCassandra.mutual();
    client = LiveClients.get(CqlClient.connect(server.host(), server.port(), combo.version(),
        combo.compression(), group,
        TlsClients.first(server.clientContext(), server.host(), server.port())));
    assertEquals(combo.version(), client.protocolVersion());
    assertEquals("TLSv1.3", tls(client).engine().getSession().getProtocol());
    assertEquals(Corpus.json("[[\"5.0.6\"]]"), LiveClients.query(client,
        "SELECT release_version FROM system.local", 0).get("rows"), combo.toString());
  }

  private static SslHandler tls(CqlClient client) {
    return assertInstanceOf(SslHandler.class, client.channel().pipeline().get("tls"));
  }
}
