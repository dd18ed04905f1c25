package io.cqlrows.client.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
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
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.handler.ssl.SslProvider;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What TLS failures look like to a Netty client pipeline: a JDK-provider {@link SslHandler}
 * verifying the host name ({@link TlsClients}), then a {@link ConnectionTrace}, against the {@link
 * TlsCassandra} servers (Cassandra 5.0.6, whose side is OpenSSL: netty-tcnative BoringSSL; TLSv1.3
 * and TLSv1.2 enabled, TLSv1.3 negotiated), the plaintext {@link CassandraServer}, and a {@link
 * TlsTestServer} on 127.0.0.1. Plain Netty only, so that what is pinned here holds for any client
 * built on it.
 *
 * <ul>
 *   <li>A certificate the client rejects (wrong CA, host-name mismatch, expired): the {@link
 *       SslHandshakeCompletionEvent} fails with an {@link SSLHandshakeException} (caused by a
 *       {@link CertPathBuilderException}, a {@link CertificateException}, a {@link
 *       CertificateExpiredException} under a {@link CertPathValidatorException}), then {@code
 *       exceptionCaught} gets a {@link DecoderException} around the same exception, and the handler
 *       closes the channel; within about 100 ms.
 *   <li>Plaintext to a TLS-only Cassandra: nothing comes back; the server resets the connection
 *       (RST: {@code exceptionCaught} with a {@link SocketException}) as soon as it reads the first
 *       bytes, or after 10 s of silence (its TLS handshake timeout).
 *   <li>TLS to the plaintext Cassandra: it takes the ClientHello's first byte (0x16) for a protocol
 *       version, answers a v5 ERROR frame (stream 0, Protocol error 0x000A: "Invalid or unsupported
 *       protocol version (22)") and keeps the connection open; the client's handshake fails with a
 *       {@link NotSslRecordException} whose message holds those bytes in hex, and the handler
 *       closes the channel.
 *   <li>No client certificate to the mutual-TLS Cassandra: with TLSv1.2 the handshake fails ({@code
 *       Received fatal alert: handshake_failure}); with TLSv1.3 the handshake <em>succeeds</em> on
 *       the client, and the server's alert ({@code certificate_required}) arrives right after as an
 *       {@code exceptionCaught} {@link DecoderException} around an {@link SSLHandshakeException},
 *       then the channel closes: a client must not take a completed handshake for an accepted
 *       connection.
 *   <li>SNI: a JDK client sends none for an IP address (nor for a name without a dot, such as
 *       {@code localhost}), and sends a DNS name such as {@value TestCertificates#SERVER_DNS}.
 * </ul>
 */
@Tag("live")
@Tag("tls")
class TlsFailuresLiveTest {
  /** Version 4 request, no flags, stream 0, opcode OPTIONS (0x05), empty body. */
  private static final byte[] OPTIONS = {0x04, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0x00};

  private static final long WAIT_SECONDS = 10;
  private static EventLoopGroup group;
  private static TestCertificates certs;
  private static TlsCassandra password;
  private static TlsCassandra mutual;

  @BeforeAll
  static void start() {
    certs = TestCertificates.get();
    group = EventLoops.nio(1);
    List<TlsCassandra> servers = TlsCassandra.both();
    password = servers.get(0);
    mutual = servers.get(1);
  }

  @AfterAll
  static void stop() throws InterruptedException {
    if (group != null) {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
    }
  }

  /** A connection: its trace, its channel and its TLS handler (null for plaintext). */
  private record Probe(ConnectionTrace trace, Channel channel, SslHandler tls) {
    void close() throws InterruptedException {
      channel.close().sync();
    }

    SslHandshakeCompletionEvent handshake() throws Exception {
      return trace.handshake().get(WAIT_SECONDS, TimeUnit.SECONDS);
    }
  }

  /** Connects, with {@code tls} first in the pipeline when not null, and the trace last. */
  private static Probe connect(String host, int port, Function<Channel, SslHandler> tls)
      throws InterruptedException {
    ConnectionTrace trace = new ConnectionTrace();
    SslHandler[] handler = new SslHandler[1];
    trace.start();
    Channel channel =
        new Bootstrap()
            .group(group)
            .channel(NioSocketChannel.class)
            .handler(
                new ChannelInitializer<Channel>() {
                  @Override
                  protected void initChannel(Channel ch) {
                    if (tls != null) {
                      handler[0] = tls.apply(ch);
                      ch.pipeline().addLast("tls", handler[0]);
                    }
                    ch.pipeline().addLast("trace", trace);
                  }
                })
            .connect(host, port)
            .sync()
            .channel();
    return new Probe(trace, channel, handler[0]);
  }

  private static Function<Channel, SslHandler> tls(SslContext context, String peerHost, int port) {
    return ch -> TlsClients.handler(context, ch.alloc(), peerHost, port);
  }

  /**
   * Asserts a handshake that the client failed with an {@link SSLHandshakeException}: the same
   * exception then reaches {@code exceptionCaught} in a {@link DecoderException}, the channel
   * closes, nothing is read. Returns the exception.
   */
  private static SSLHandshakeException assertClientRejects(Probe probe) throws Exception {
    SslHandshakeCompletionEvent handshake = probe.handshake();
    String trace = probe.trace().describe();
    assertNotNull(handshake, trace);
    SSLHandshakeException cause =
        assertInstanceOf(SSLHandshakeException.class, handshake.cause(), trace);
    assertTrue(probe.trace().awaitInactive(WAIT_SECONDS), trace);
    List<Throwable> caught = probe.trace().exceptions();
    assertEquals(1, caught.size(), probe.trace().describe());
    assertSame(cause, assertInstanceOf(DecoderException.class, caught.get(0)).getCause());
    assertEquals(0, probe.trace().totalBytesRead());
    return cause;
  }

  @Test
  void aCertificateOfAnotherCaFailsTheHandshake() throws Exception {
    SslContext trustsOnlyTheWrongCa = TlsClients.context(certs.wrongCaPem(), null, null);
    Probe probe =
        connect(
            password.host(),
            password.port(),
            tls(trustsOnlyTheWrongCa, "127.0.0.1", password.port()));
    SSLHandshakeException e = assertClientRejects(probe);
    assertTrue(
        ConnectionTrace.chainTypes(e).stream()
            .anyMatch(CertPathBuilderException.class::isAssignableFrom),
        ConnectionTrace.chain(e));
  }

  @Test
  void aHostNameNotInTheCertificateFailsTheHandshake() throws Exception {
    SslContext context = password.clientContext();
    Probe probe =
        connect(password.host(), password.port(), tls(context, "wrong.example", password.port()));
    SSLHandshakeException e = assertClientRejects(probe);
    assertSame(CertificateException.class, e.getCause().getClass(), ConnectionTrace.chain(e));
  }

  @Test
  void anExpiredCertificateFailsTheHandshake() throws Exception {
    try (TlsTestServer server = TlsTestServer.start(serverContext(certs.expiredServer()))) {
      Probe probe =
          connect(
              server.host(),
              server.port(),
              tls(password.clientContext(), "127.0.0.1", server.port()));
      SSLHandshakeException e = assertClientRejects(probe);
      List<Class<?>> chain = ConnectionTrace.chainTypes(e);
      assertTrue(chain.contains(CertPathValidatorException.class), ConnectionTrace.chain(e));
      assertSame(CertificateExpiredException.class, chain.get(chain.size() - 1));
      // the client's alert fails the server's side of the handshake too
      Optional<Throwable> serverSide = server.handshakes().poll(WAIT_SECONDS, TimeUnit.SECONDS);
      assertNotNull(serverSide);
      assertInstanceOf(SSLHandshakeException.class, serverSide.orElseThrow());
    }
  }

  @Test
  void aCertificateOfTheWrongCaFailsTheHandshake() throws Exception {
    try (TlsTestServer server = TlsTestServer.start(serverContext(certs.wrongCaServer()))) {
      Probe probe =
          connect(
              server.host(),
              server.port(),
              tls(password.clientContext(), "127.0.0.1", server.port()));
      SSLHandshakeException e = assertClientRejects(probe);
      assertTrue(
          ConnectionTrace.chainTypes(e).stream()
              .anyMatch(CertPathBuilderException.class::isAssignableFrom),
          ConnectionTrace.chain(e));
    }
  }

  @Test
  void plaintextToTheTlsServerIsResetWithoutAnAnswer() throws Exception {
    Probe probe = connect(password.host(), password.port(), null);
    probe
        .channel()
        .writeAndFlush(Unpooled.wrappedBuffer(OPTIONS.clone()))
        .await(WAIT_SECONDS, TimeUnit.SECONDS);
    assertTrue(probe.trace().awaitInactive(WAIT_SECONDS), probe.trace().describe());
    assertEquals(0, probe.trace().totalBytesRead(), probe.trace().describe());
    List<Throwable> caught = probe.trace().exceptions();
    assertEquals(1, caught.size(), probe.trace().describe());
    assertInstanceOf(SocketException.class, caught.get(0)); // Connection reset
  }

  @Test
  void tlsToThePlaintextServerGetsAProtocolErrorFrame() throws Exception {
    CassandraServer plain = CassandraServer.get();
    Probe probe =
        connect(
            plain.host(), plain.port(), tls(password.clientContext(), "127.0.0.1", plain.port()));
    SslHandshakeCompletionEvent handshake = probe.handshake();
    assertNotNull(handshake, probe.trace().describe());
    assertInstanceOf(NotSslRecordException.class, handshake.cause());
    assertTrue(probe.trace().awaitInactive(WAIT_SECONDS), probe.trace().describe());
    assertInstanceOf(
        NotSslRecordException.class,
        assertInstanceOf(DecoderException.class, probe.trace().exceptions().get(0)).getCause());

    // What the server sent: the first bytes of a ClientHello, on a plaintext connection.
    Probe raw = connect(plain.host(), plain.port(), null);
    try {
      byte[] hello = new byte[64];
      System.arraycopy(
          new byte[] {0x16, 0x03, 0x01, 0x00, 0x3b, 0x01, 0x00, 0x00, 0x37, 0x03, 0x03},
          0,
          hello,
          0,
          11);
      raw.channel().writeAndFlush(Unpooled.wrappedBuffer(hello)).sync();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
      while (raw.trace().totalBytesRead() < 13 && System.nanoTime() - deadline < 0) {
        Thread.sleep(20);
      }
      ByteBuffer frame = ByteBuffer.wrap(raw.trace().bytesRead());
      assertTrue(frame.remaining() >= 13, raw.trace().describe());
      assertEquals(0x85, frame.get() & 0xFF, "a v5 response");
      frame.get(); // flags
      assertEquals(0, frame.getShort(), "stream");
      assertEquals(0x00, frame.get(), "opcode ERROR");
      assertEquals(frame.remaining() - 4, frame.getInt(), "body length");
      assertEquals(0x000A, frame.getInt(), "Protocol error");
      assertFalse(raw.trace().awaitInactive(1), "the server keeps the connection open");
    } finally {
      raw.close();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"TLSv1.3", "TLSv1.2"})
  void noClientCertificateIsRefusedByTheMutualTlsServer(String protocol) throws Exception {
    SslContext noCertificate = TlsClients.context(certs.caPem(), null, null, protocol);
    Probe probe =
        connect(mutual.host(), mutual.port(), tls(noCertificate, "127.0.0.1", mutual.port()));
    SslHandshakeCompletionEvent handshake = probe.handshake();
    String trace = probe.trace().describe();
    assertNotNull(handshake, trace);
    assertTrue(probe.trace().awaitInactive(WAIT_SECONDS), trace);
    List<Throwable> caught = probe.trace().exceptions();
    assertEquals(1, caught.size(), probe.trace().describe());
    SSLHandshakeException alert =
        assertInstanceOf(
            SSLHandshakeException.class,
            assertInstanceOf(DecoderException.class, caught.get(0)).getCause());
    if (protocol.equals("TLSv1.3")) {
      // the client's part of the handshake is done before the server checks the certificate
      assertTrue(handshake.isSuccess(), trace);
      assertEquals("TLSv1.3", probe.tls().engine().getSession().getProtocol());
    } else {
      assertSame(alert, handshake.cause(), trace); // Received fatal alert: handshake_failure
    }
    assertEquals(0, probe.trace().totalBytesRead());
  }

  @Test
  void theMutualTlsServerAnswersAClientWithTheCertificate() throws Exception {
    Probe probe =
        connect(
            mutual.host(), mutual.port(), tls(mutual.clientContext(), "127.0.0.1", mutual.port()));
    try {
      assertTrue(probe.handshake().isSuccess(), probe.trace().describe());
      assertEquals("TLSv1.3", probe.tls().engine().getSession().getProtocol());
      probe.channel().writeAndFlush(Unpooled.wrappedBuffer(OPTIONS.clone())).sync();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
      while (probe.trace().totalBytesRead() < 9 && System.nanoTime() - deadline < 0) {
        Thread.sleep(20);
      }
      byte[] read = probe.trace().bytesRead();
      assertTrue(read.length >= 9, probe.trace().describe());
      assertEquals(0x84, read[0] & 0xFF);
      assertEquals(0x06, read[4], "SUPPORTED");
    } finally {
      probe.close();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"127.0.0.1", "localhost", TestCertificates.SERVER_DNS})
  void sniCarriesDnsNamesWithADotOnly(String peerHost) throws Exception {
    try (TlsTestServer server = TlsTestServer.start(serverContext(certs.server()))) {
      Probe probe =
          connect(
              server.host(), server.port(), tls(password.clientContext(), peerHost, server.port()));
      try {
        assertTrue(probe.handshake().isSuccess(), probe.trace().describe());
        Optional<String> expected =
            peerHost.equals(TestCertificates.SERVER_DNS) ? Optional.of(peerHost) : Optional.empty();
        assertEquals(expected, server.serverNames().poll(WAIT_SECONDS, TimeUnit.SECONDS));
      } finally {
        probe.close();
      }
    }
  }

  private static SslContext serverContext(TestCertificates.Pem pem) throws Exception {
    Path chain = pem.certificateChain();
    return SslContextBuilder.forServer(chain.toFile(), pem.privateKey().toFile())
        .sslProvider(SslProvider.JDK)
        .build();
  }
}
