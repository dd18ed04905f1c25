package io.cqlrows.netty.internal;

import static io.cqlrows.netty.CqlTestFrames.frameBytes;
import static io.cqlrows.netty.internal.SegmentBuilder.concat;
import static io.cqlrows.netty.internal.SegmentBuilder.tracked;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.cqlrows.core.ParseLimits;
import io.cqlrows.netty.CqlDecoders;
import io.cqlrows.netty.CqlPipeline;
import io.cqlrows.netty.frame.Compression;
import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.netty.frame.Frame;
import io.cqlrows.testing.Corpus;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.compression.Snappy;
import java.lang.management.ManagementFactory;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The switch from unframed envelopes to v5 segments after READY (native_protocol_v5.spec section
 * 2.3.1): by a detecting decoder, by a client's pipeline when READY arrives, and by a call to
 * {@link CqlPipeline#switchToSegments} where READY is not decoded (a server's side); and v4
 * compressed bodies, where no switch happens.
 */
class SwitchToSegmentsTest {
  private static final byte[] READY = frameBytes(0x85, 0, 0, 0x02, new byte[0]);
  private static final byte[] VOID_BODY = {0, 0, 0, 1};

  @ParameterizedTest
  @EnumSource(
      value = SegmentFormat.class,
      names = {"UNCOMPRESSED", "LZ4"})
  void detectingDecoderSwitchesAfterAV5ReadyInTheSameBuffer(SegmentFormat format) {
    byte[] segments = resultSegments(format);
    EmbeddedChannel channel = detectingChannel();
    ByteBuf in = tracked(READY, segments);
    assertTrue(channel.writeInbound(in));
    assertEquals(List.of("0/READY", "1/RESULT", "2/RESULT", "3/RESULT"), readAll(channel));
    assertSwitched(channel.pipeline());
    BytesToSegmentDecoder segmentDecoder = channel.pipeline().get(BytesToSegmentDecoder.class);
    assertEquals(format, segmentDecoder.format());
    assertEquals(
        READY.length + segments.length,
        segmentDecoder.consumedBytes(),
        "segment offsets continue after READY");
    assertEquals(0, in.refCnt());
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void detectingDecoderSwitchesAfterAV5Authenticate() {
    byte[] authenticate = frameBytes(0x85, 0, 0, 0x03, new byte[] {0, 3, 'A', 'u', 't'});
    EmbeddedChannel channel = detectingChannel();
    channel.writeInbound(tracked(authenticate, resultSegments(SegmentFormat.UNCOMPRESSED)));
    assertEquals(List.of("0/AUTHENTICATE", "1/RESULT", "2/RESULT", "3/RESULT"), readAll(channel));
    assertSwitched(channel.pipeline());
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void detectingDecoderSwitchesAfterAV5StartupRequest() {
    byte[] startup = frameBytes(0x05, 0, 0, 0x01, new byte[] {0, 0});
    byte[] query = frameBytes(0x05, 0, 1, 0x07, VOID_BODY);
    EmbeddedChannel channel = detectingChannel();
    channel.writeInbound(tracked(startup, SegmentBuilder.lz4(query, true)));
    assertEquals(List.of("0/STARTUP", "1/QUERY"), readAll(channel));
    assertSwitched(channel.pipeline());
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void detectingDecoderDoesNotSwitchOnV4() {
    EmbeddedChannel channel = detectingChannel();
    channel.writeInbound(
        tracked(
            frameBytes(0x84, 0, 0, 0x02, new byte[0]), frameBytes(0x84, 0, 1, 0x08, VOID_BODY)));
    assertEquals(List.of("0/READY", "1/RESULT"), readAll(channel));
    assertNotNull(channel.pipeline().get(CqlPipeline.BYTES_TO_FRAME_DECODER));
    assertNull(channel.pipeline().get(CqlPipeline.BYTES_TO_SEGMENT_DECODER));
    assertFalse(channel.finishAndReleaseAll());
  }

  @ParameterizedTest
  @CsvSource({"UNCOMPRESSED, true", "LZ4, true", "UNCOMPRESSED, false", "LZ4, false"})
  void aClientPipelineSwitchesOnReadyByItself(SegmentFormat format, boolean sameBuffer) {
    EmbeddedChannel channel = new EmbeddedChannel();
    CqlPipeline cql = CqlPipeline.install(channel.pipeline(), 5, compression(format));
    Driver driver = new Driver();
    channel.pipeline().addLast("driver", driver);
    byte[] segments = resultSegments(format);
    if (sameBuffer) {
      channel.writeInbound(tracked(READY, segments));
    } else {
      channel.writeInbound(tracked(READY));
      assertSwitched(channel.pipeline());
      channel.writeInbound(tracked(segments));
    }
    assertEquals(List.of("0/READY", "1/RESULT", "2/RESULT", "3/RESULT"), driver.frames);
    assertSwitched(channel.pipeline());
    assertEquals(
        READY.length + segments.length,
        channel.pipeline().get(BytesToSegmentDecoder.class).consumedBytes());
    assertThrows(IllegalStateException.class, cql::switchToSegments, "already switched");
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void aClientPipelineSwitchesWhileTheRestOfTheSegmentIsStillToCome() {
    byte[] segments = resultSegments(SegmentFormat.LZ4);
    EmbeddedChannel channel = new EmbeddedChannel();
    CqlPipeline.install(channel.pipeline(), 5, Compression.LZ4);
    Driver driver = new Driver();
    channel.pipeline().addLast("driver", driver);
    channel.writeInbound(tracked(READY, Arrays.copyOf(segments, 3)));
    assertEquals(List.of("0/READY"), driver.frames);
    channel.writeInbound(tracked(Arrays.copyOfRange(segments, 3, segments.length)));
    assertEquals(List.of("0/READY", "1/RESULT", "2/RESULT", "3/RESULT"), driver.frames);
    assertFalse(channel.finishAndReleaseAll());
  }

  /** The handler that sees READY writes its first request: it goes out in a segment. */
  @ParameterizedTest
  @EnumSource(
      value = SegmentFormat.class,
      names = {"UNCOMPRESSED", "LZ4"})
  void requestsWrittenOnReadyGoOutInSegments(SegmentFormat format) {
    byte[] query = frameBytes(0x05, 0, 1, 0x07, VOID_BODY);
    EmbeddedChannel channel = new EmbeddedChannel();
    CqlPipeline.install(channel.pipeline(), 5, compression(format));
    channel
        .pipeline()
        .addLast(
            new ChannelInboundHandlerAdapter() {
              @Override
              public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ((Frame) msg).release();
                ctx.writeAndFlush(Unpooled.wrappedBuffer(query));
              }
            });
    channel.writeInbound(tracked(READY));
    assertNotNull(channel.pipeline().get(CqlPipeline.SEGMENT_ENCODER));
    ByteBuf written = channel.readOutbound();
    EmbeddedChannel server = new EmbeddedChannel(new BytesToSegmentDecoder(format, 0));
    server.writeInbound(written);
    Segment segment = server.readInbound();
    assertTrue(segment.selfContained());
    assertEquals(ByteBufUtil.hexDump(query), ByteBufUtil.hexDump(segment.content()));
    segment.release();
    assertFalse(server.finishAndReleaseAll());
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void aClientPipelineSwitchesOnAuthenticate() {
    byte[] authenticate = frameBytes(0x85, 0, 0, 0x03, new byte[] {0, 3, 'A', 'u', 't'});
    EmbeddedChannel channel = new EmbeddedChannel();
    CqlPipeline.install(channel.pipeline(), 5, Compression.NONE);
    Driver driver = new Driver();
    channel.pipeline().addLast(driver);
    channel.writeInbound(tracked(authenticate, resultSegments(SegmentFormat.UNCOMPRESSED)));
    assertEquals(List.of("0/AUTHENTICATE", "1/RESULT", "2/RESULT", "3/RESULT"), driver.frames);
    assertSwitched(channel.pipeline());
    assertFalse(channel.finishAndReleaseAll());
  }

  /** A server reads STARTUP and must answer READY unframed: its owner switches after writing. */
  @Test
  void aPipelineThatReadsAStartupRequestDoesNotSwitchByItself() {
    byte[] startup = frameBytes(0x05, 0, 0, 0x01, new byte[] {0, 0});
    EmbeddedChannel channel = new EmbeddedChannel();
    CqlPipeline cql = CqlPipeline.install(channel.pipeline(), 5, Compression.LZ4);
    Driver driver = new Driver();
    channel.pipeline().addLast(driver);
    channel.writeInbound(tracked(startup));
    assertEquals(List.of("0/STARTUP"), driver.frames);
    assertNotNull(channel.pipeline().get(CqlPipeline.BYTES_TO_FRAME_DECODER));
    assertNull(channel.pipeline().get(CqlPipeline.SEGMENT_ENCODER));
    cql.switchToSegments();
    assertSwitched(channel.pipeline());
    assertNotNull(channel.pipeline().get(CqlPipeline.SEGMENT_ENCODER));
    assertFalse(channel.finishAndReleaseAll());
  }

  /** The v5 captures: the server's side switches after READY, the client's after STARTUP. */
  @ParameterizedTest
  @CsvSource({"c-v5-lz4, s2c", "c-v5-lz4, c2s", "b-v5, s2c", "b-v5, c2s", "e-v5-paging, s2c"})
  void replaysV5CapturesWithTheDetectingDecoder(String capture, String direction) {
    byte[] bytes = Corpus.bytes(capture, "conn-01." + direction + ".bin");
    List<String> expected = corpusFrames(capture, direction);
    List<String> whole = decodeInPieces(bytes, new int[] {bytes.length});
    assertEquals(expected, headers(whole));
  }

  @Test
  void replaysAV5LZ4CaptureIdenticallyBytewiseAndInRandomSplits() {
    byte[] bytes = Corpus.bytes("c-v5-lz4", "conn-01.s2c.bin");
    List<String> whole = decodeInPieces(bytes, new int[] {bytes.length});
    assertEquals(40, whole.size());
    int[] ones = new int[bytes.length];
    Arrays.fill(ones, 1);
    assertEquals(whole, decodeInPieces(bytes, ones), "one byte at a time");
    for (long seed : new long[] {1, 2, 3}) {
      assertEquals(
          whole,
          decodeInPieces(bytes, randomSplits(bytes.length, seed)),
          "random splits, seed " + seed);
    }
  }

  @Test
  void decodesAV4Lz4CaptureWithLz4() {
    byte[] bytes = Corpus.bytes("d-v4-lz4", "conn-01.s2c.bin");
    EmbeddedChannel channel =
        new EmbeddedChannel(new BytesToFrameDecoder(ParseLimits.defaults(), Compression.LZ4));
    ByteBuf in = tracked(bytes);
    channel.writeInbound(in);
    List<String> frames = readAll(channel);
    assertEquals(corpusFrames("d-v4-lz4", "s2c"), frames);
    assertEquals(34, frames.size());
    assertEquals(0, in.refCnt());
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void detectsLz4InAV4Capture() {
    byte[] bytes = Corpus.bytes("d-v4-lz4", "conn-01.s2c.bin");
    EmbeddedChannel channel = detectingChannel();
    channel.writeInbound(tracked(bytes));
    assertEquals(corpusFrames("d-v4-lz4", "s2c"), readAll(channel));
    BytesToFrameDecoder decoder = channel.pipeline().get(BytesToFrameDecoder.class);
    assertEquals(Compression.LZ4, decoder.compression());
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void rejectsAV4Lz4CaptureWithoutCompression() {
    byte[] bytes = Corpus.bytes("d-v4-lz4", "conn-01.s2c.bin");
    EmbeddedChannel channel =
        new EmbeddedChannel(new BytesToFrameDecoder(ParseLimits.defaults(), Compression.NONE));
    ByteBuf in = tracked(bytes);
    CqlFrameException e = assertThrows(CqlFrameException.class, () -> channel.writeInbound(in));
    assertTrue(e.connectionLevel());
    assertEquals(CqlFrameException.Reason.UNEXPECTED_COMPRESSION, e.reason());
    assertEquals(0, e.offset(), "the first frame, READY, is compressed");
    assertNull(channel.readInbound());
    assertEquals(0, in.refCnt());
    ByteBuf later = tracked(bytes);
    assertFalse(channel.writeInbound(later));
    assertEquals(0, later.refCnt());
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void decodesAndDetectsSnappyBodies() {
    byte[] body = new byte[300];
    Arrays.fill(body, 4, 300, (byte) 'x');
    body[3] = 1;
    // an empty body is the preamble 0 alone, as Cassandra's and the drivers' Snappy write it
    byte[] stream =
        concat(
            frameBytes(0x84, 0x01, 0, 0x02, new byte[] {0}),
            frameBytes(0x84, 0x01, 1, 0x08, snappy(body)),
            frameBytes(0x84, 0, 2, 0x08, VOID_BODY));
    for (EmbeddedChannel channel :
        List.of(
            detectingChannel(),
            new EmbeddedChannel(
                new BytesToFrameDecoder(ParseLimits.defaults(), Compression.SNAPPY)))) {
      channel.writeInbound(tracked(stream));
      Frame ready = channel.readInbound();
      assertEquals(0, ready.body().readableBytes());
      ready.release();
      Frame result = channel.readInbound();
      assertEquals(ByteBufUtil.hexDump(body), ByteBufUtil.hexDump(result.body()));
      assertTrue(result.release());
      Frame plain = channel.readInbound();
      assertEquals(2, plain.streamId());
      plain.release();
      assertEquals(
          Compression.SNAPPY, channel.pipeline().get(BytesToFrameDecoder.class).compression());
      assertFalse(channel.finishAndReleaseAll());
    }
  }

  @Test
  void detectsASmallSnappyBodyWithoutAllocatingForAnLz4Reading() {
    // the first compressed body; read as LZ4, "05 10 68 65" would declare 85 MB
    byte[] stream =
        concat(
            frameBytes(0x84, 0, 0, 0x02, new byte[0]),
            frameBytes(0x84, 0x01, 1, 0x08, new byte[] {5, 0x10, 'h', 'e', 'l', 'l', 'o'}));
    detectingChannel().finishAndReleaseAll(); // load the classes outside the measurement
    EmbeddedChannel channel = detectingChannel();
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long before = threads.getCurrentThreadAllocatedBytes();
    channel.writeInbound(tracked(stream));
    long allocated = threads.getCurrentThreadAllocatedBytes() - before;
    assertTrue(allocated < 1024 * 1024, allocated + " bytes allocated");
    assertEquals(List.of("0/READY", "1/RESULT"), readAll(channel));
    assertEquals(
        Compression.SNAPPY, channel.pipeline().get(BytesToFrameDecoder.class).compression());
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void rejectsACorruptLz4BodyAtItsFrameOffset() {
    byte[] good = frameBytes(0x84, 0, 1, 0x08, VOID_BODY);
    byte[] corrupt = frameBytes(0x84, 0x01, 2, 0x08, new byte[] {0, 0, 0, 20, 0x7F, 1, 2});
    EmbeddedChannel channel =
        new EmbeddedChannel(new BytesToFrameDecoder(ParseLimits.defaults(), Compression.LZ4));
    ByteBuf in = tracked(good, corrupt);
    CqlFrameException e = assertThrows(CqlFrameException.class, () -> channel.writeInbound(in));
    assertTrue(e.connectionLevel());
    assertEquals(CqlFrameException.Reason.CORRUPT_COMPRESSION, e.reason());
    assertEquals(good.length, e.offset());
    Frame first = channel.readInbound();
    assertTrue(first.release());
    assertEquals(0, in.refCnt());
    assertFalse(channel.finishAndReleaseAll());
  }

  /** Records each frame as "stream/OPCODE" and releases it; the pipeline switches on READY. */
  private static final class Driver extends ChannelInboundHandlerAdapter {
    final List<String> frames = new ArrayList<>();

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      Frame frame = (Frame) msg;
      try {
        frames.add(frame.streamId() + "/" + frame.opcode());
      } finally {
        frame.release();
      }
    }
  }

  /** Two segments: one self-contained with RESULTs 1 and 2, RESULT 3 in two slices. */
  private static byte[] resultSegments(SegmentFormat format) {
    byte[] big = frameBytes(0x85, 0, 3, 0x08, concat(VOID_BODY, new byte[400]));
    byte[] self =
        concat(frameBytes(0x85, 0, 1, 0x08, VOID_BODY), frameBytes(0x85, 0, 2, 0x08, VOID_BODY));
    byte[] slice1 = Arrays.copyOf(big, 200);
    byte[] slice2 = Arrays.copyOfRange(big, 200, big.length);
    return format == SegmentFormat.LZ4
        ? concat(
            SegmentBuilder.lz4(self, true),
            SegmentBuilder.lz4(slice1, false),
            SegmentBuilder.lz4(slice2, false))
        : concat(
            SegmentBuilder.uncompressed(self, true),
            SegmentBuilder.uncompressed(slice1, false),
            SegmentBuilder.uncompressed(slice2, false));
  }

  private static void assertSwitched(ChannelPipeline pipeline) {
    assertNull(pipeline.get(CqlPipeline.BYTES_TO_FRAME_DECODER));
    assertTrue(pipeline.get(CqlPipeline.BYTES_TO_SEGMENT_DECODER) instanceof BytesToSegmentDecoder);
    assertTrue(pipeline.get(CqlPipeline.SEGMENT_TO_FRAME_DECODER) instanceof SegmentToFrameDecoder);
    List<String> names = pipeline.names();
    assertTrue(
        names.indexOf(CqlPipeline.BYTES_TO_SEGMENT_DECODER)
            < names.indexOf(CqlPipeline.SEGMENT_TO_FRAME_DECODER),
        names.toString());
  }

  private static EmbeddedChannel detectingChannel() {
    EmbeddedChannel channel = new EmbeddedChannel();
    CqlDecoders.detecting(channel.pipeline(), ParseLimits.defaults());
    return channel;
  }

  private static Compression compression(SegmentFormat format) {
    return format == SegmentFormat.LZ4 ? Compression.LZ4 : Compression.NONE;
  }

  /** The frames read so far as "stream/OPCODE", each released. */
  private static List<String> readAll(EmbeddedChannel channel) {
    List<String> out = new ArrayList<>();
    for (Frame f; (f = channel.readInbound()) != null; ) {
      out.add(f.streamId() + "/" + f.opcode());
      f.release();
    }
    return out;
  }

  /** "stream/OPCODE" of conn 1's frames in one direction, from the capture's frames.jsonl. */
  private static List<String> corpusFrames(String capture, String direction) {
    List<String> out = new ArrayList<>();
    for (JsonNode f : Corpus.jsonLines(capture, "frames.jsonl")) {
      if (f.get("conn").asInt() == 1 && f.get("dir").asText().equals(direction)) {
        out.add(f.get("stream").asInt() + "/" + f.get("opcode").asText());
      }
    }
    return out;
  }

  private static List<String> headers(List<String> digests) {
    return digests.stream().map(d -> d.substring(0, d.indexOf(' '))).toList();
  }

  /** Feeds the capture in pieces through a detecting decoder; a digest line per frame. */
  private static List<String> decodeInPieces(byte[] capture, int[] sizes) {
    EmbeddedChannel channel = detectingChannel();
    channel.config().setAllocator(new UnpooledByteBufAllocator(false, true));
    List<String> digests = new ArrayList<>();
    int at = 0;
    for (int size : sizes) {
      channel.writeInbound(Unpooled.wrappedBuffer(capture, at, size));
      at += size;
      for (Frame f; (f = channel.readInbound()) != null; ) {
        digests.add(digest(f));
        f.release();
        assertEquals(0, f.refCnt());
      }
    }
    assertSwitched(channel.pipeline());
    assertFalse(channel.finishAndReleaseAll());
    return digests;
  }

  private static String digest(Frame f) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      sha.update(ByteBufUtil.getBytes(f.body()));
      return f.streamId()
          + "/"
          + f.opcode()
          + " "
          + f.flags()
          + "/"
          + f.warnings()
          + "/"
          + f.tracingId()
          + "/"
          + ByteBufUtil.hexDump(sha.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  private static int[] randomSplits(int n, long seed) {
    Random random = new Random(seed);
    List<Integer> sizes = new ArrayList<>();
    for (int left = n; left > 0; ) {
      int size =
          Math.min(
              left, random.nextInt(8) == 0 ? 1 + random.nextInt(20_000) : 1 + random.nextInt(32));
      sizes.add(size);
      left -= size;
    }
    return sizes.stream().mapToInt(Integer::intValue).toArray();
  }

  private static byte[] snappy(byte[] data) {
    ByteBuf out = Unpooled.buffer();
    new Snappy().encode(Unpooled.wrappedBuffer(data), out, data.length);
    byte[] bytes = ByteBufUtil.getBytes(out);
    out.release();
    return bytes;
  }
}
