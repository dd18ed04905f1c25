package io.cqlrows.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.client.live.TestCertificates;
import io.cqlrows.client.live.TestCertificates.Pem;
import io.cqlrows.core.sink.RowsCollector;
import io.cqlrows.netty.CqlPipeline;
import io.cqlrows.netty.EventLoops;
import io.cqlrows.netty.TlsOptions;
import io.cqlrows.netty.frame.Compression;
import io.cqlrows.netty.frame.CqlConnectionException;
import io.cqlrows.netty.frame.CqlConnectionException.Reason;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link CqlClient} over TLS to a {@link FakeCqlServer} with a server {@code SslHandler} and the
 * test certificates: queries in v4 and v5 with LZ4; the host name checked by default against the
 * address or {@link TlsOptions#serverName}, and SNI sent for a name only; each kind of failed
 * handshake a {@link CqlConnectionException} with its reason, well within the connect timeout; and
 * nothing, the password least of all, written in clear before the handshake completes.
 */
class CqlClientTlsTest {
  private static final long TIMEOUT_SECONDS = 30;
  private static final String PASSWORD = "S3cr3t-Hunter2";
  private static EventLoopGroup group;
  private static TestCertificates certs;
  private FakeCqlServer server;
  private CqlClient client;

  @BeforeAll
  static void startGroup() {
    group = EventLoops.nio(2);
    certs = TestCertificates.get();
  }

  @AfterAll
  static void stopGroup() throws InterruptedException {
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
  }

  @AfterEach
  void closeConnections() throws Exception {
    if (client != null) {
      client.close().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }
    if (server != null) {
      server.close();
    }
  }

  private void serve(int version, Compression compression, Pem serverCert, ClientAuth clientAuth)
      throws Exception {
    server = new FakeCqlServer(group, version, compression);
    server.tls =
        SslContextBuilder.forServer(
                serverCert.certificateChain().toFile(), serverCert.privateKey().toFile())
            .sslProvider(SslProvider.JDK)
            .trustManager(certs.caPem().toFile())
            .clientAuth(clientAuth)
            .build();
  }

  private static SslContext trusting(java.nio.file.Path ca) throws Exception {
    return SslContextBuilder.forClient()
        .sslProvider(SslProvider.JDK)
        .trustManager(ca.toFile())
        .build();
  }

  private CqlClient.Builder builder(int version, Compression compression, TlsOptions tls) {
    return CqlClient.builder("127.0.0.1", server.port())
        .protocolVersion(version)
        .compression(compression)
        .tls(tls)
        .connectTimeout(Duration.ofSeconds(10));
  }

  private static <T> T get(CompletableFuture<T> future) throws Exception {
    return future.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
  }

  private static CqlConnectionException connectFailure(CompletableFuture<?> future, Reason reason) {
    ExecutionException e =
        assertThrows(ExecutionException.class, () -> future.get(TIMEOUT_SECONDS, TimeUnit.SECONDS));
    CqlConnectionException c = assertInstanceOf(CqlConnectionException.class, e.getCause());
    assertEquals(reason, c.reason(), c.getMessage());
    return c;
  }

  @ParameterizedTest
  @CsvSource({"4, LZ4", "5, LZ4", "5, NONE"})
  void queriesOverTlsWithTheAddressChecked(int version, Compression compression) throws Exception {
    serve(version, compression, certs.server(), ClientAuth.NONE);
    client =
        get(builder(version, compression, TlsOptions.of(trusting(certs.caPem()))).connect(group));
    RowsCollector rows = new RowsCollector();
    get(client.query("SELECT over tls", rows, 0, null));
    assertEquals("SELECT over tls", rows.rows().get(0).getString("query"));
    SslHandler ssl = CqlPipeline.get(client.channel()).tlsHandler();
    assertTrue(ssl.engine().getSession().getProtocol().startsWith("TLS"));
    assertEquals(ssl, client.channel().pipeline().first(), "TLS is first");
    assertEquals(List.of(""), server.serverNames, "no SNI for an address");
    String wire = new String(server.rawReceived(), StandardCharsets.ISO_8859_1);
    assertFalse(wire.contains("SELECT over tls"), "the query crossed the wire in clear");
  }

  @Test
  void aServerNameIsSentAsSniAndCheckedInsteadOfTheHost() throws Exception {
    serve(4, Compression.NONE, certs.server(), ClientAuth.NONE);
    client =
        get(
            builder(
                    4,
                    Compression.NONE,
                    TlsOptions.of(trusting(certs.caPem())).serverName(TestCertificates.SERVER_DNS))
                .connect(group));
    get(client.query("SELECT 1", new RowsCollector(), 0, null));
    assertEquals(List.of(TestCertificates.SERVER_DNS), server.serverNames);
  }

  @Test
  void aCertificateForAnotherNameIsAHostMismatchUnlessTheCheckIsOff() throws Exception {
    serve(4, Compression.NONE, certs.server(), ClientAuth.NONE);
    TlsOptions other = TlsOptions.of(trusting(certs.caPem())).serverName("wrong.example");
    connectFailure(builder(4, Compression.NONE, other).connect(group), Reason.TLS_HOST_MISMATCH);
    client = get(builder(4, Compression.NONE, other.withoutHostnameVerification()).connect(group));
    get(client.query("SELECT 1", new RowsCollector(), 0, null));
  }

  @Test
  void aCertificateFromAnotherAuthorityIsUntrusted() throws Exception {
    serve(5, Compression.LZ4, certs.wrongCaServer(), ClientAuth.NONE);
    long start = System.nanoTime();
    connectFailure(
        builder(5, Compression.LZ4, TlsOptions.of(trusting(certs.caPem()))).connect(group),
        Reason.TLS_UNTRUSTED);
    assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(10), "within the timeout");
    assertEquals(0, server.queries().size());
  }

  @Test
  void anExpiredCertificateIsExpired() throws Exception {
    serve(4, Compression.NONE, certs.expiredServer(), ClientAuth.NONE);
    connectFailure(
        builder(4, Compression.NONE, TlsOptions.of(trusting(certs.caPem()))).connect(group),
        Reason.TLS_EXPIRED);
  }

  @Test
  void aServerThatRequiresAClientCertificateGetsOneOrRefuses() throws Exception {
    serve(5, Compression.LZ4, certs.server(), ClientAuth.REQUIRE);
    connectFailure(
        builder(5, Compression.LZ4, TlsOptions.of(trusting(certs.caPem()))).connect(group),
        Reason.TLS_CLIENT_CERT_REQUIRED);
    Pem mine = certs.client();
    SslContext withCertificate =
        SslContextBuilder.forClient()
            .sslProvider(SslProvider.JDK)
            .trustManager(certs.caPem().toFile())
            .keyManager(mine.certificateChain().toFile(), mine.privateKey().toFile())
            .build();
    client = get(builder(5, Compression.LZ4, TlsOptions.of(withCertificate)).connect(group));
    get(client.query("SELECT 1", new RowsCollector(), 0, null));
  }

  /** The password goes inside the TLS session: the socket never carries it in clear. */
  @Test
  void credentialsCrossTheWireOnlyInsideTls() throws Exception {
    serve(4, Compression.NONE, certs.server(), ClientAuth.NONE);
    server.password = PASSWORD;
    Credentials credentials = new Credentials("cassandra", PASSWORD.toCharArray());
    client =
        get(
            builder(4, Compression.NONE, TlsOptions.of(trusting(certs.caPem())))
                .credentials(credentials)
                .connect(group));
    get(client.query("SELECT 1", new RowsCollector(), 0, null));
    assertEquals(1, server.authTokens.size(), "the server authenticated the client");
    String wire = new String(server.rawReceived(), StandardCharsets.ISO_8859_1);
    assertFalse(wire.contains(PASSWORD), "the password crossed the wire in clear");
    assertFalse(wire.contains("cassandra"), "the user name crossed the wire in clear");
  }

  /**
   * A peer that accepts the connection and never answers the ClientHello: the connect timeout ends
   * the attempt, and nothing but the ClientHello was written (no OPTIONS, no credentials).
   */
  @Test
  void aSilentPeerEndsAtTheConnectTimeoutHavingReceivedOnlyTheClientHello() throws Exception {
    try (ServerSocket silent = new ServerSocket(0, 4, InetAddress.getByName("127.0.0.1"))) {
      silent.setSoTimeout(10_000);
      Credentials credentials = new Credentials("cassandra", PASSWORD.toCharArray());
      long start = System.nanoTime();
      CompletableFuture<CqlClient> connecting =
          CqlClient.builder("127.0.0.1", silent.getLocalPort())
              .tls(
                  TlsOptions.of(
                          SslContextBuilder.forClient()
                              .trustManager(InsecureTrustManagerFactory.INSTANCE)
                              .build())
                      .withoutHostnameVerification())
              .credentials(credentials)
              .connectTimeout(Duration.ofMillis(800))
              .connect(group);
      ByteArrayOutputStream received = new ByteArrayOutputStream();
      try (Socket s = silent.accept()) {
        s.setSoTimeout(5_000);
        InputStream in = s.getInputStream();
        byte[] buf = new byte[4096];
        for (int n = in.read(buf); n > 0; n = in.read(buf)) { // until the client closes
          received.write(buf, 0, n);
        }
      }
      connectFailure(connecting, Reason.CONNECT_TIMEOUT);
      long millis = (System.nanoTime() - start) / 1_000_000;
      assertTrue(millis < 800 + 1_000, "failed " + millis + " ms after it began");
      byte[] bytes = received.toByteArray();
      assertTrue(bytes.length > 5, "a ClientHello");
      assertEquals(0x16, bytes[0], "a TLS handshake record");
      String wire = new String(bytes, StandardCharsets.ISO_8859_1);
      assertFalse(wire.contains(PASSWORD) || wire.contains("cassandra"), "credentials written");
    }
  }

  @Test
  void aClientContextIsRequired() throws Exception {
    SslContext serverContext =
        SslContextBuilder.forServer(
                certs.server().certificateChain().toFile(), certs.server().privateKey().toFile())
            .build();
    assertThrows(IllegalArgumentException.class, () -> TlsOptions.of(serverContext));
    assertThrows(
        IllegalArgumentException.class,
        () -> TlsOptions.of(trusting(certs.caPem())).serverName(" "));
  }
}
