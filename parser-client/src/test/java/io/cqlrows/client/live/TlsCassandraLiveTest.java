package io.cqlrows.client.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.client.CqlClient;
import io.cqlrows.client.tls.TlsClients;
import io.cqlrows.core.RowsResult;
import io.cqlrows.core.sink.RowsCollector;
import io.cqlrows.netty.CqlPipeline;
import io.cqlrows.netty.EventLoops;
import io.cqlrows.netty.TlsOptions;
import io.cqlrows.netty.frame.CqlConnectionException;
import io.cqlrows.netty.frame.CqlConnectionException.Reason;
import io.cqlrows.netty.rows.RowsResponse;
import io.cqlrows.testing.Corpus;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslHandler;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * TLS against the {@link TlsCassandra} servers, which require it, in v4, v4 + LZ4, v5 and v5 + LZ4
 * (TLSv1.3 negotiated): {@link CqlClient} reads with a client certificate from the mutual-TLS
 * server ({@link PasswordAuthLiveTest} logs in over TLS with a password); {@link CqlPipeline} alone
 * (its builder's TLS, {@code startup()}, {@code send()}) does the same. Then each way a handshake
 * fails against a real server, each a {@link CqlConnectionException} with its reason, well within
 * the connect timeout: an untrusted certificate, a host name the certificate does not name,
 * plaintext to the TLS server (which resets the connection), TLS to the plaintext server (which
 * answers with a CQL error frame: not TLS), and no client certificate for the mutual-TLS server.
 */
@Tag("live")
@Tag("tls")
class TlsCassandraLiveTest {
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
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

  private static CqlClient.Builder builder(TlsCassandra server, Combo combo, TlsOptions tls) {
    return CqlClient.builder(server.host(), server.port())
        .protocolVersion(combo.version())
        .compression(combo.compression())
        .tls(tls)
        .connectTimeout(CONNECT_TIMEOUT);
  }

  @ParameterizedTest
  @EnumSource(Combo.class)
  void aClientWithTheCertificateQueriesTheMutualTlsServer(Combo combo) throws Exception {
    TlsCassandra server = TlsCassandra.mutual();
    client =
        LiveClients.get(
            builder(
                    server,
                    combo,
                    TlsOptions.of(server.clientContext()).serverName(TestCertificates.SERVER_DNS))
                .connect(group));
    assertEquals(combo.version(), client.protocolVersion());
    assertEquals("TLSv1.3", tls(client).engine().getSession().getProtocol());
    assertEquals(
        Corpus.json("[[\"5.0.6\"]]"),
        LiveClients.query(client, "SELECT release_version FROM system.local", 0).get("rows"),
        combo.toString());
  }

  /** The pipeline without the example client: TLS, STARTUP, one request through send(). */
  @ParameterizedTest
  @EnumSource(
      value = Combo.class,
      names = {"V4_LZ4", "V5_LZ4"})
  void thePipelineAloneSpeaksTls(Combo combo) throws Exception {
    TlsCassandra server = TlsCassandra.mutual();
    TlsOptions tls = TlsOptions.of(server.clientContext());
    CompletableFuture<CqlPipeline> installed = new CompletableFuture<>();
    RowsCollector rows = new RowsCollector();
    CompletableFuture<RowsResponse> response = new CompletableFuture<>();
    Channel channel =
        new Bootstrap()
            .group(group)
            .channel(NioSocketChannel.class)
            .handler(
                new ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel ch) {
                    CqlPipeline cql =
                        CqlPipeline.builder(combo.version(), combo.compression())
                            .tls(tls, server.host(), server.port())
                            .requestTimeout(Duration.ofSeconds(30))
                            .install(ch.pipeline());
                    installed.complete(cql);
                    ch.pipeline()
                        .addLast(
                            new ChannelInboundHandlerAdapter() {
                              @Override
                              public void channelActive(ChannelHandlerContext ctx) {
                                cql.startup()
                                    .thenCompose(
                                        ready ->
                                            cql.send(
                                                cql.requests()
                                                    .query(
                                                        ctx.alloc(),
                                                        0,
                                                        "SELECT release_version FROM system.local"),
                                                rows))
                                    .whenComplete(
                                        (r, e) -> {
                                          if (e != null) {
                                            response.completeExceptionally(e);
                                          } else {
                                            response.complete(r);
                                          }
                                        });
                                ctx.fireChannelActive();
                              }
                            });
                  }
                })
            .connect(server.host(), server.port())
            .sync()
            .channel();
    try {
      RowsResponse r = LiveClients.get(response);
      assertEquals(1, assertInstanceOf(RowsResult.class, r.result()).rowCount());
      assertEquals("5.0.6", rows.rows().get(0).getString("release_version"));
      SslHandler ssl = LiveClients.get(installed).tlsHandler();
      assertEquals(ssl, channel.pipeline().first());
      assertEquals("TLSv1.3", ssl.engine().getSession().getProtocol());
    } finally {
      channel.close().sync();
    }
  }

  @Test
  void anUntrustedCertificate() throws Exception {
    TlsCassandra server = TlsCassandra.password();
    TestCertificates certs = TestCertificates.get();
    fails(
        builder(
            server,
            Combo.V5_LZ4,
            TlsOptions.of(TlsClients.context(certs.wrongCaPem(), null, null))),
        Reason.TLS_UNTRUSTED);
  }

  @Test
  void aCertificateForAnotherHostName() throws Exception {
    TlsCassandra server = TlsCassandra.password();
    fails(
        builder(
            server,
            Combo.V5_LZ4,
            TlsOptions.of(server.clientContext()).serverName("wrong.example")),
        Reason.TLS_HOST_MISMATCH);
  }

  /** Cassandra resets a connection whose first bytes are not a TLS record. */
  @Test
  void plaintextToTheTlsServer() {
    TlsCassandra server = TlsCassandra.password();
    CqlConnectionException e = fails(builder(server, Combo.V5_LZ4, null), null);
    assertTrue(
        e.reason() == Reason.RESET || e.reason() == Reason.CLOSED_BY_SERVER,
        e.reason() + ": " + e.getMessage());
  }

  /** Cassandra answers a ClientHello with a protocol error frame, which is not TLS. */
  @Test
  void tlsToThePlaintextServer() throws Exception {
    CassandraServer plain = CassandraServer.get();
    TlsOptions tls = TlsOptions.of(TlsCassandra.password().clientContext());
    fails(
        CqlClient.builder(plain.host(), plain.port()).tls(tls).connectTimeout(CONNECT_TIMEOUT),
        Reason.TLS_NOT_TLS);
  }

  @Test
  void noClientCertificateForTheMutualTlsServer() throws Exception {
    TlsCassandra server = TlsCassandra.mutual();
    fails(
        builder(server, Combo.V5_LZ4, TlsOptions.of(TlsCassandra.password().clientContext())),
        Reason.TLS_CLIENT_CERT_REQUIRED);
  }

  /**
   * Connects, expecting a failure with {@code reason} (any reason when null) within the connect
   * timeout and a second.
   */
  private static CqlConnectionException fails(CqlClient.Builder builder, Reason reason) {
    long start = System.nanoTime();
    CompletableFuture<CqlClient> connecting = builder.connect(group);
    ExecutionException e =
        assertThrows(
            ExecutionException.class,
            () -> connecting.get(CONNECT_TIMEOUT.toSeconds() + 1, TimeUnit.SECONDS));
    long millis = (System.nanoTime() - start) / 1_000_000;
    CqlConnectionException c = assertInstanceOf(CqlConnectionException.class, e.getCause());
    if (reason != null) {
      assertEquals(reason, c.reason(), c.getMessage());
    }
    assertTrue(millis <= CONNECT_TIMEOUT.toMillis() + 1_000, "failed after " + millis + " ms");
    return c;
  }

  private static SslHandler tls(CqlClient client) {
    return CqlPipeline.get(client.channel()).tlsHandler();
  }
}
