package io.cqlrows.client.live;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.client.tls.ConnectionTrace;
import io.cqlrows.client.tls.TlsClients;
import io.cqlrows.client.tls.TlsTestServer;
import io.cqlrows.netty.EventLoops;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.ssl.SslProvider;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.KeyStore;
import java.security.SignatureException;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.security.auth.x500.X500Principal;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link TestCertificates}: the certificates carry the extensions, issuers and validity the TLS
 * tests rely on, the stores hold the chains Cassandra reads, and Netty's {@link SslContextBuilder}
 * takes the PEM files for a mutual-TLS handshake on 127.0.0.1. No Cassandra.
 */
class TestCertificatesTest {
  private static final String CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";
  private static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
  private static TestCertificates certs;
  private static EventLoopGroup group;

  @BeforeAll
  static void make() {
    certs = TestCertificates.get();
    group = EventLoops.nio(1);
  }

  @AfterAll
  static void stop() throws InterruptedException {
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
  }

  @Test
  void theCasAreSelfSignedCas() throws Exception {
    for (TestCertificates.Pem pem : List.of(certs.ca(), certs.wrongCa())) {
      List<X509Certificate> chain = TestCertificates.readCertificates(pem.certificateChain());
      assertEquals(1, chain.size());
      X509Certificate ca = chain.get(0);
      assertEquals(ca.getSubjectX500Principal(), ca.getIssuerX500Principal());
      ca.verify(ca.getPublicKey());
      assertTrue(ca.getBasicConstraints() >= 0, "basicConstraints CA");
      assertTrue(ca.getKeyUsage()[5], "keyCertSign");
    }
    assertEquals(
        TestCertificates.readCertificates(certs.caPem()),
        TestCertificates.readCertificates(certs.ca().certificateChain()));
  }

  @Test
  void theServerCertificatesNameTheLoopbackAndTheTestHost() throws Exception {
    X509Certificate ca = TestCertificates.readCertificates(certs.caPem()).get(0);
    X509Certificate wrongCa = TestCertificates.readCertificates(certs.wrongCaPem()).get(0);
    Set<List<?>> names =
        Set.of(
            List.of(7, "127.0.0.1"),
            List.of(2, "localhost"),
            List.of(2, TestCertificates.SERVER_DNS));
    for (TestCertificates.Pem pem :
        List.of(certs.server(), certs.expiredServer(), certs.wrongCaServer())) {
      List<X509Certificate> chain = TestCertificates.readCertificates(pem.certificateChain());
      assertEquals(2, chain.size(), pem.toString());
      X509Certificate leaf = chain.get(0);
      assertEquals(names, Set.copyOf(leaf.getSubjectAlternativeNames()), pem.toString());
      assertEquals(-1, leaf.getBasicConstraints());
      assertTrue(leaf.getExtendedKeyUsage().contains(SERVER_AUTH));
      boolean wrongCaServer = pem.equals(certs.wrongCaServer());
      X509Certificate issuer = wrongCaServer ? wrongCa : ca;
      assertEquals(issuer, chain.get(1));
      leaf.verify(issuer.getPublicKey());
      X509Certificate other = wrongCaServer ? ca : wrongCa;
      assertThrows(SignatureException.class, () -> leaf.verify(other.getPublicKey()));
    }
    Instant now = Instant.now();
    X509Certificate expired =
        TestCertificates.readCertificates(certs.expiredServer().certificateChain()).get(0);
    assertTrue(expired.getNotAfter().toInstant().isBefore(now), "expired " + expired.getNotAfter());
    X509Certificate server =
        TestCertificates.readCertificates(certs.server().certificateChain()).get(0);
    assertTrue(
        server.getNotBefore().toInstant().isBefore(now)
            && server.getNotAfter().toInstant().isAfter(now));
  }

  @Test
  void theClientCertificateIsForClientAuth() throws Exception {
    List<X509Certificate> chain =
        TestCertificates.readCertificates(certs.client().certificateChain());
    X509Certificate client = chain.get(0);
    assertEquals(
        new X500Principal("CN=" + TestCertificates.CLIENT_CN + ", O=cqlrows test"),
        client.getSubjectX500Principal());
    assertTrue(client.getExtendedKeyUsage().contains(CLIENT_AUTH));
    client.verify(TestCertificates.readCertificates(certs.caPem()).get(0).getPublicKey());
  }

  @Test
  void keysArePkcs8PemAndStoresHoldTheChains() throws Exception {
    for (TestCertificates.Pem pem :
        List.of(
            certs.server(),
            certs.client(),
            certs.ca(),
            certs.expiredServer(),
            certs.wrongCaServer())) {
      List<String> lines = Files.readAllLines(pem.privateKey(), StandardCharsets.US_ASCII);
      assertEquals("-----BEGIN PRIVATE KEY-----", lines.get(0));
      assertEquals("-----END PRIVATE KEY-----", lines.get(lines.size() - 1));
    }
    char[] password = TestCertificates.PASSWORD.toCharArray();
    KeyStore server = KeyStore.getInstance("PKCS12");
    try (var in = Files.newInputStream(certs.serverKeystore())) {
      server.load(in, password);
    }
    assertEquals(List.of(TestCertificates.SERVER_ALIAS), Collections.list(server.aliases()));
    assertTrue(server.isKeyEntry(TestCertificates.SERVER_ALIAS));
    Certificate[] chain = server.getCertificateChain(TestCertificates.SERVER_ALIAS);
    assertArrayEquals(
        TestCertificates.readCertificates(certs.server().certificateChain())
            .toArray(new Certificate[0]),
        chain);
    assertNotNull(server.getKey(TestCertificates.SERVER_ALIAS, password));

    KeyStore trust = KeyStore.getInstance("PKCS12");
    try (var in = Files.newInputStream(certs.truststore())) {
      trust.load(in, password);
    }
    assertEquals(List.of("ca"), Collections.list(trust.aliases()));
    assertTrue(trust.isCertificateEntry("ca"));
    assertEquals(
        TestCertificates.readCertificates(certs.caPem()).get(0), trust.getCertificate("ca"));
  }

  /**
   * Netty reads the PEM files: a server requiring a client certificate and a client verifying the
   * server's name 127.0.0.1 (JDK provider) handshake, and bytes echo through.
   */
  @Test
  void nettyTakesThePemFilesForMutualTls() throws Exception {
    SslContext serverContext =
        SslContextBuilder.forServer(
                certs.server().certificateChain().toFile(), certs.server().privateKey().toFile())
            .sslProvider(SslProvider.JDK)
            .trustManager(certs.caPem().toFile())
            .clientAuth(ClientAuth.REQUIRE)
            .build();
    SslContext clientContext =
        TlsClients.context(
            certs.caPem(), certs.client().certificateChain(), certs.client().privateKey());
    try (TlsTestServer server = TlsTestServer.start(serverContext)) {
      ConnectionTrace trace = new ConnectionTrace();
      Channel channel =
          new Bootstrap()
              .group(group)
              .channel(NioSocketChannel.class)
              .handler(
                  new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                      ch.pipeline()
                          .addLast(
                              TlsClients.handler(
                                  clientContext, ch.alloc(), server.host(), server.port()));
                      ch.pipeline().addLast(trace);
                    }
                  })
              .connect(server.host(), server.port())
              .sync()
              .channel();
      try {
        SslHandshakeCompletionEvent handshake = trace.handshake().get(10, TimeUnit.SECONDS);
        assertTrue(handshake.isSuccess(), trace.describe());
        channel.writeAndFlush(Unpooled.copiedBuffer("ping", StandardCharsets.US_ASCII)).sync();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (trace.totalBytesRead() < 4 && System.nanoTime() < deadline) {
          Thread.sleep(10);
        }
        assertEquals("ping", new String(trace.bytesRead(), StandardCharsets.US_ASCII));
        assertEquals(Optional.empty(), server.handshakes().poll(10, TimeUnit.SECONDS));
        assertEquals(
            Optional.empty(),
            server.serverNames().poll(10, TimeUnit.SECONDS),
            "no SNI for an IP address");
        assertNull(trace.exceptions().stream().findFirst().orElse(null), trace.describe());
      } finally {
        channel.close().sync();
      }
    }
  }
}
