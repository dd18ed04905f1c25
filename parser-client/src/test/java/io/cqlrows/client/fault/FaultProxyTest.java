package io.cqlrows.client.fault;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.netty.internal.BytesToSegmentDecoder;
import io.cqlrows.netty.internal.Segment;
import io.cqlrows.netty.internal.SegmentFormat;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link FaultProxy} between a plain-socket client and a scripted upstream server on 127.0.0.1, no
 * Cassandra: bytes pass unchanged both ways without a fault (v4 frames; v5 envelopes then segments,
 * uncompressed and LZ4, self-contained and sliced), and each fault lands on its response as
 * documented. Rewritten v5 segments are checked with the library's own segment decoder, so their
 * CRCs are checked independently of the proxy's.
 */
class FaultProxyTest {
  private static final int TIMEOUT_MILLIS = 10_000;
  private static final Random RANDOM = new Random(42);

  private FaultProxy proxy;
  private ServerSocket upstream;
  private final List<Socket> sockets = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    upstream = new ServerSocket(0, 10, InetAddress.getByName("127.0.0.1"));
    upstream.setSoTimeout(TIMEOUT_MILLIS);
    proxy = FaultProxy.start("127.0.0.1", upstream.getLocalPort());
  }

  @AfterEach
  void stop() throws IOException {
    for (Socket s : sockets) {
      s.close();
    }
    proxy.close();
    upstream.close();
    assertEquals(0, proxy.openConnections());
  }

  /** A connection through the proxy: the client's socket and the server's. */
  private record Pair(Socket client, Socket server) {
    InputStream clientIn() throws IOException {
      return client.getInputStream();
    }

    void serverWrites(byte[]... chunks) throws IOException {
      OutputStream out = server.getOutputStream();
      for (byte[] chunk : chunks) {
        out.write(chunk);
        out.flush();
      }
    }
  }

  private Pair connect() throws IOException {
    Socket client = new Socket("127.0.0.1", proxy.port());
    sockets.add(client);
    client.setSoTimeout(TIMEOUT_MILLIS);
    Socket server = upstream.accept();
    sockets.add(server);
    server.setSoTimeout(TIMEOUT_MILLIS);
    return new Pair(client, server);
  }

  /** A frame or envelope: version byte, flags 0, stream, opcode, body length, body. */
  static byte[] frame(int version, int stream, int opcode, byte[] body) {
    return ByteBuffer.allocate(9 + body.length)
        .put((byte) version)
        .put((byte) 0)
        .putShort((short) stream)
        .put((byte) opcode)
        .putInt(body.length)
        .put(body)
        .array();
  }

  static byte[] body(int length) {
    byte[] b = new byte[length];
    RANDOM.nextBytes(b);
    return b;
  }

  static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }

  static byte[] segment(byte[] payload, boolean selfContained, boolean lz4) {
    ByteBuf buf =
        Segments.encode(UnpooledByteBufAllocator.DEFAULT, payload, selfContained, lz4, true);
    try {
      return ByteBufUtil.getBytes(buf);
    } finally {
      buf.release();
    }
  }

  /** The client's v5 OPTIONS and STARTUP, asking for LZ4 or not. */
  static byte[] v5Handshake(boolean lz4) {
    ByteBuffer map = ByteBuffer.allocate(128);
    map.putShort((short) (lz4 ? 2 : 1));
    for (String s :
        lz4
            ? List.of("CQL_VERSION", "3.0.0", "COMPRESSION", "lz4")
            : List.of("CQL_VERSION", "3.0.0")) {
      byte[] b = s.getBytes(StandardCharsets.UTF_8);
      map.putShort((short) b.length).put(b);
    }
    return concat(
        frame(0x05, 0, 0x05, new byte[0]),
        frame(0x05, 1, 0x01, Arrays.copyOf(map.array(), map.position())));
  }

  private static byte[] read(InputStream in, int n) throws IOException {
    byte[] bytes = in.readNBytes(n);
    assertEquals(n, bytes.length, "bytes before the end of the stream");
    return bytes;
  }

  /** Writes {@code bytes} in pieces of random sizes, 1 to 700 bytes. */
  private static byte[][] pieces(byte[] bytes) {
    List<byte[]> out = new ArrayList<>();
    for (int p = 0; p < bytes.length; ) {
      int n = Math.min(bytes.length - p, 1 + RANDOM.nextInt(700));
      out.add(Arrays.copyOfRange(bytes, p, p + n));
      p += n;
    }
    return out.toArray(new byte[0][]);
  }

  /** Segments decoded by the library's decoder: [plain payload, self-contained (1) or not]. */
  private static List<byte[]> decodeSegments(byte[] bytes, boolean lz4) {
    EmbeddedChannel channel =
        new EmbeddedChannel(
            new BytesToSegmentDecoder(lz4 ? SegmentFormat.LZ4 : SegmentFormat.UNCOMPRESSED, 0));
    try {
      channel.writeInbound(Unpooled.wrappedBuffer(bytes));
      List<byte[]> payloads = new ArrayList<>();
      for (Segment s = channel.readInbound(); s != null; s = channel.readInbound()) {
        payloads.add(
            concat(
                ByteBufUtil.getBytes(s.payload()),
                new byte[] {(byte) (s.selfContained() ? 1 : 0)}));
        s.release();
      }
      return payloads;
    } finally {
      channel.finishAndReleaseAll();
    }
  }

  @Test
  void v4BytesPassUnchangedBothWays() throws Exception {
    Pair pair = connect();
    byte[] request = frame(0x04, 0, 0x05, new byte[0]);
    pair.client().getOutputStream().write(request);
    assertArrayEquals(request, read(pair.server().getInputStream(), request.length));
    byte[] responses =
        concat(
            frame(0x84, 0, 0x06, body(40)),
            frame(0x84, 1, 0x02, new byte[0]),
            frame(0x84, 2, 0x08, body(300_000)),
            frame(0x84, 3, 0x08, body(1)),
            frame(0x84, -1, 0x0C, body(20)));
    pair.serverWrites(pieces(responses));
    assertArrayEquals(responses, read(pair.clientIn(), responses.length));
    pair.server().close();
    assertEquals(-1, pair.clientIn().read(), "the server's FIN reaches the client");
    assertEquals(5, proxy.responsesSeen());
    assertEquals(responses.length, proxy.bytesToClient());
    assertEquals(request.length, proxy.bytesToServer());
    assertEquals(1, proxy.connectionsAccepted());
  }

  /** SUPPORTED and READY unframed, then segments: three envelopes, a sliced one, one more. */
  private static byte[] v5Responses(boolean lz4) {
    byte[] sliced = frame(0x85, 4, 0x08, body(200_000));
    return concat(
        frame(0x85, 0, 0x06, body(30)),
        frame(0x85, 1, 0x02, new byte[0]),
        segment(
            concat(
                frame(0x85, 1, 0x08, body(50)),
                frame(0x85, 2, 0x08, body(60)),
                frame(0x85, 3, 0x08, new byte[100])),
            true,
            lz4),
        segment(Arrays.copyOfRange(sliced, 0, 131_060), false, lz4),
        segment(Arrays.copyOfRange(sliced, 131_060, sliced.length), false, lz4),
        segment(frame(0x85, 5, 0x08, new byte[1000]), true, lz4));
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void v5BytesPassUnchanged(boolean lz4) throws Exception {
    Pair pair = connect();
    byte[] handshake = v5Handshake(lz4);
    pair.client().getOutputStream().write(handshake);
    assertArrayEquals(handshake, read(pair.server().getInputStream(), handshake.length));
    byte[] responses = v5Responses(lz4);
    pair.serverWrites(pieces(responses));
    assertArrayEquals(responses, read(pair.clientIn(), responses.length));
    assertEquals(7, proxy.responsesSeen(), "SUPPORTED, READY, 3, the sliced one, 1");
  }

  /** Frames A (10-byte body), B (100) and C (20): the fault targets B. */
  private static final byte[] A = frame(0x84, 1, 0x08, body(10));

  private static final byte[] B = frame(0x84, 2, 0x08, body(100));
  private static final byte[] C = frame(0x84, 3, 0x08, body(20));

  @Test
  void cutClosesAfterTheHeaderAndHalfTheBody() throws Exception {
    Fault cut = Fault.cutAfterResponses(1);
    proxy.faultNextConnection(cut);
    Pair pair = connect();
    pair.serverWrites(concat(A, B, C));
    assertArrayEquals(concat(A, Arrays.copyOf(B, 9 + 50)), read(pair.clientIn(), A.length + 59));
    assertEquals(-1, pair.clientIn().read(), "FIN");
    Fault.Fired fired = cut.fired().get(5, TimeUnit.SECONDS);
    assertEquals(1, fired.response());
    assertEquals(2, fired.streamId());
    assertEquals(0x08, fired.opcode());
  }

  @Test
  void resetSendsRstAfterTheHalfResponse() throws Exception {
    proxy.faultNextConnection(Fault.resetAfterResponses(1));
    Pair pair = connect();
    pair.serverWrites(concat(A, B, C));
    assertArrayEquals(concat(A, Arrays.copyOf(B, 59)), read(pair.clientIn(), A.length + 59));
    assertThrows(SocketException.class, () -> pair.clientIn().read(), "a reset, not an EOF");
  }

  @Test
  void stallHoldsTheRestButKeepsBothConnectionsOpen() throws Exception {
    Fault stall = Fault.stallAfterResponses(1);
    proxy.faultNextConnection(stall);
    Pair pair = connect();
    pair.serverWrites(concat(A, B));
    assertArrayEquals(concat(A, Arrays.copyOf(B, 59)), read(pair.clientIn(), A.length + 59));
    pair.client().setSoTimeout(300);
    assertThrows(SocketTimeoutException.class, () -> pair.clientIn().read());
    pair.serverWrites(C);
    assertThrows(SocketTimeoutException.class, () -> pair.clientIn().read());
    byte[] request = frame(0x04, 7, 0x07, body(5));
    pair.client().getOutputStream().write(request);
    assertArrayEquals(
        request,
        read(pair.server().getInputStream(), request.length),
        "the client's bytes still reach the server");
    assertEquals(1, proxy.openConnections());
    assertTrue(stall.hasFired());
  }

  @Test
  void dripSendsTheRestByteByByte() throws Exception {
    proxy.faultNextConnection(Fault.dripAfterResponses(1, 1, Duration.ofMillis(5)));
    Pair pair = connect();
    pair.serverWrites(concat(A, B));
    assertArrayEquals(A, read(pair.clientIn(), A.length));
    long start = System.nanoTime();
    int reads = 0;
    ByteArrayOutputStream got = new ByteArrayOutputStream();
    byte[] buffer = new byte[1024];
    while (got.size() < B.length && reads < 10 * B.length) {
      int n = pair.clientIn().read(buffer);
      assertTrue(n > 0);
      got.write(buffer, 0, n);
      reads++;
    }
    long millis = (System.nanoTime() - start) / 1_000_000;
    assertArrayEquals(B, got.toByteArray());
    assertTrue(millis >= (B.length - 1) * 5L, millis + " ms for " + reads + " reads");
  }

  @Test
  void dropTakesOutOneFrame() throws Exception {
    Fault drop = Fault.dropAfterResponses(1);
    proxy.faultNextConnection(drop);
    Pair pair = connect();
    pair.serverWrites(pieces(concat(A, B, C)));
    assertArrayEquals(concat(A, C), read(pair.clientIn(), A.length + C.length));
    pair.server().close();
    assertEquals(-1, pair.clientIn().read());
    assertEquals(2, drop.fired().get(5, TimeUnit.SECONDS).streamId());
  }

  @Test
  void oversizeRewritesTheBodyLength() throws Exception {
    proxy.faultNextConnection(Fault.oversizeAfterResponses(1));
    Pair pair = connect();
    pair.serverWrites(concat(A, B, C));
    byte[] changed = B.clone();
    ByteBuffer.wrap(changed).putInt(5, Fault.OVERSIZE_LENGTH);
    assertArrayEquals(concat(A, changed, C), read(pair.clientIn(), A.length + B.length + C.length));
  }

  @Test
  void bitflipOnV4ChangesOneBodyBit() throws Exception {
    proxy.faultNextConnection(Fault.bitflipAfterResponses(1));
    Pair pair = connect();
    pair.serverWrites(concat(A, B, C));
    byte[] changed = B.clone();
    changed[9 + 50] ^= 0x10;
    assertArrayEquals(concat(A, changed, C), read(pair.clientIn(), A.length + B.length + C.length));
  }

  /** Connects, passes the v5 handshake and returns the client's bytes after READY. */
  private byte[] v5Through(Fault fault, boolean lz4, byte[] segments) throws Exception {
    proxy.faultNextConnection(fault);
    Pair pair = connect();
    pair.client().getOutputStream().write(v5Handshake(lz4));
    byte[] handshake = concat(frame(0x85, 0, 0x06, body(30)), frame(0x85, 1, 0x02, new byte[0]));
    pair.serverWrites(handshake, segments);
    assertArrayEquals(handshake, read(pair.clientIn(), handshake.length));
    pair.server().shutdownOutput();
    return pair.clientIn().readAllBytes();
  }

  private static final byte[] E1 = frame(0x85, 10, 0x08, body(50));
  private static final byte[] E2 = frame(0x85, 11, 0x08, body(60));
  private static final byte[] E3 = frame(0x85, 12, 0x08, new byte[100]);

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void dropTakesAnEnvelopeOutOfItsSegment(boolean lz4) throws Exception {
    byte[] after =
        v5Through(Fault.dropAfterResponses(3), lz4, segment(concat(E1, E2, E3), true, lz4));
    List<byte[]> decoded = decodeSegments(after, lz4);
    assertEquals(1, decoded.size());
    assertArrayEquals(concat(E1, E3, new byte[] {1}), decoded.get(0));
  }

  @Test
  void dropOfASlicedEnvelopeTakesAllItsSegments() throws Exception {
    byte[] sliced = frame(0x85, 4, 0x08, body(200_000));
    byte[] after =
        v5Through(
            Fault.dropAfterResponses(3),
            false,
            concat(
                segment(E1, true, false),
                segment(Arrays.copyOfRange(sliced, 0, 131_060), false, false),
                segment(Arrays.copyOfRange(sliced, 131_060, sliced.length), false, false),
                segment(E3, true, false)));
    assertArrayEquals(concat(segment(E1, true, false), segment(E3, true, false)), after);
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void oversizeRewritesTheEnvelopeLengthWithValidCrcs(boolean lz4) throws Exception {
    byte[] after =
        v5Through(Fault.oversizeAfterResponses(3), lz4, segment(concat(E1, E2, E3), true, lz4));
    List<byte[]> decoded = decodeSegments(after, lz4);
    assertEquals(1, decoded.size());
    byte[] changed = E2.clone();
    ByteBuffer.wrap(changed).putInt(5, Fault.OVERSIZE_LENGTH);
    assertArrayEquals(concat(E1, changed, E3, new byte[] {1}), decoded.get(0));
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void bitflipOnV5FailsThePayloadCrc(boolean lz4) throws Exception {
    byte[] segment = segment(concat(E1, E2, E3), true, lz4);
    byte[] after = v5Through(Fault.bitflipAfterResponses(2), lz4, segment);
    assertEquals(segment.length, after.length);
    int differing = 0;
    for (int i = 0; i < after.length; i++) {
      differing += Integer.bitCount((after[i] ^ segment[i]) & 0xFF);
    }
    assertEquals(1, differing, "bits changed");
    CqlFrameException e = assertThrows(CqlFrameException.class, () -> decodeSegments(after, lz4));
    assertEquals(CqlFrameException.Reason.CRC32_MISMATCH, e.reason(), e.getMessage());
  }

  @Test
  void cutOnV5FallsInTheEnvelope() throws Exception {
    byte[] segment = segment(concat(E1, E2, E3), true, false);
    byte[] after = v5Through(Fault.cutAfterResponses(3), false, segment);
    // header 6, E1 (59 bytes), E2's header and half its 60-byte body
    assertArrayEquals(Arrays.copyOf(segment, 6 + E1.length + 9 + 30), after);
  }

  @Test
  void aFaultArmedAtRunTimeCountsFromThen() throws Exception {
    Pair pair = connect();
    pair.serverWrites(A, B);
    assertArrayEquals(concat(A, B), read(pair.clientIn(), A.length + B.length));
    Fault cut = Fault.cutAfterResponses(0);
    proxy.fault(cut); // returns once armed on the open connection
    pair.serverWrites(C);
    assertArrayEquals(Arrays.copyOf(C, 9 + 10), read(pair.clientIn(), 19));
    assertEquals(-1, pair.clientIn().read());
    assertEquals(2, cut.fired().get(5, TimeUnit.SECONDS).response());
  }

  @Test
  void aKilledProxyProcessEndsTheConnectionMidResponse() throws Exception {
    try (ProxyProcess child =
        ProxyProcess.start("127.0.0.1", upstream.getLocalPort(), Fault.Kind.STALL, 1)) {
      Socket client = new Socket("127.0.0.1", child.port());
      sockets.add(client);
      client.setSoTimeout(TIMEOUT_MILLIS);
      Socket server = upstream.accept();
      sockets.add(server);
      server.getOutputStream().write(concat(A, B));
      assertArrayEquals(
          concat(A, Arrays.copyOf(B, 59)), read(client.getInputStream(), A.length + 59));
      assertEquals(1L, child.fired().get(TIMEOUT_MILLIS, TimeUnit.MILLISECONDS));
      assertTrue(child.kill());
      int last;
      try {
        last = client.getInputStream().read();
      } catch (SocketException e) {
        last = -2; // reset
      }
      assertTrue(last == -1 || last == -2, "EOF or reset, not " + last);
      assertEquals(-1, server.getInputStream().read(), "the server's side ends too");
    }
  }

  @Test
  void closeEndsTheOpenConnections() throws Exception {
    Pair pair = connect();
    pair.serverWrites(A);
    assertArrayEquals(A, read(pair.clientIn(), A.length));
    proxy.close();
    assertEquals(-1, pair.clientIn().read());
    assertEquals(-1, pair.server().getInputStream().read());
    assertEquals(0, proxy.openConnections());
    assertThrows(IOException.class, this::connect, "nothing listens any more");
  }
}
