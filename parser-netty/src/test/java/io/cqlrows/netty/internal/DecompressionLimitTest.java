package io.cqlrows.netty.internal;

import static io.cqlrows.netty.CqlTestFrames.frameBytes;
import static io.cqlrows.netty.internal.HostileStreamsTest.lz4Body;
import static io.cqlrows.netty.internal.HostileStreamsTest.snappy;
import static io.cqlrows.netty.internal.SegmentBuilder.concat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.core.ParseLimits;
import io.cqlrows.netty.TrackingAllocator;
import io.cqlrows.netty.frame.Compression;
import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.netty.frame.CqlFrameException.Reason;
import io.cqlrows.netty.frame.Frame;
import io.netty.channel.ChannelHandler;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link ParseLimits#maxDecompressedLength()} in the decoders: a compressed body that declares more
 * is a frame-local {@link Reason#DECOMPRESSED_TOO_LARGE} for its stream, found before anything of
 * that size is allocated, and the frame after it decodes; one of exactly the limit decodes.
 */
class DecompressionLimitTest {
  private static final int LIMIT = 1 << 20;
  private static final ParseLimits LIMITS =
      ParseLimits.builder().maxDecompressedLength(LIMIT).build();
  private static final byte[] VOID_BODY = {0, 0, 0, 1};

  private final TrackingAllocator alloc = new TrackingAllocator();

  @ParameterizedTest
  @EnumSource(names = {"LZ4", "SNAPPY"})
  void decodesABodyOfExactlyTheLimit(Compression compression) {
    EmbeddedChannel channel = channel(new BytesToFrameDecoder(LIMITS, compression));
    write(channel, v4(compression, 2, LIMIT));
    Frame frame = channel.readInbound();
    assertEquals(2, frame.streamId());
    assertEquals(LIMIT, frame.body().readableBytes());
    assertTrue(frame.release());
    finish(channel);
  }

  @ParameterizedTest
  @EnumSource(names = {"LZ4", "SNAPPY"})
  void failsOnlyTheFrameOfABodyOneByteOverTheLimit(Compression compression) {
    byte[] before = frameBytes(0x84, 0, 1, 0x08, VOID_BODY);
    byte[] over = v4(compression, 2, LIMIT + 1);
    EmbeddedChannel channel = channel(new BytesToFrameDecoder(LIMITS, compression));
    CqlFrameException e =
        assertThrows(
            CqlFrameException.class,
            () -> write(channel, concat(before, over, frameBytes(0x84, 0, 3, 0x08, VOID_BODY))));
    assertTooLarge(e, 2, before.length);
    assertTrue(alloc.largestCapacity() < LIMIT, "allocated " + alloc.largestCapacity());
    assertStreams(channel, 1, 3);
    assertFalse(channel.pipeline().get(BytesToFrameDecoder.class).isBroken());
    finish(channel);
  }

  /** The smaller of the two limits bounds a decompressed body. */
  @Test
  void boundsADecompressedBodyByTheFrameLimitWhenThatIsSmaller() {
    ParseLimits limits =
        ParseLimits.builder().maxFrameBodyLength(LIMIT).maxDecompressedLength(4 * LIMIT).build();
    EmbeddedChannel channel = channel(new BytesToFrameDecoder(limits, Compression.LZ4));
    CqlFrameException e =
        assertThrows(
            CqlFrameException.class, () -> write(channel, v4(Compression.LZ4, 2, LIMIT + 1)));
    assertTooLarge(e, 2, 0);
    finish(channel);
  }

  /**
   * A detecting decoder does not decompress a first compressed body over the limit on trial: it
   * reports it for its stream (not as neither LZ4 nor Snappy) and detects on the next one.
   */
  @ParameterizedTest
  @EnumSource(names = {"LZ4", "SNAPPY"})
  void detectsTheCompressionOnTheBodyAfterOneOverTheLimit(Compression compression) {
    BytesToFrameDecoder decoder = BytesToFrameDecoder.detecting(LIMITS, (ctx, r, o, s) -> {});
    EmbeddedChannel channel = channel(decoder);
    byte[] over = v4(compression, 2, 4 * LIMIT);
    CqlFrameException e = assertThrows(CqlFrameException.class, () -> write(channel, over));
    assertTooLarge(e, 2, 0);
    assertEquals(
        Compression.NONE, decoder.compression(), "not known from a body it did not decompress");
    assertTrue(alloc.largestCapacity() < LIMIT, "allocated " + alloc.largestCapacity());
    write(channel, v4(compression, 3, 1000));
    assertEquals(compression, decoder.compression());
    assertStreams(channel, 3);
    finish(channel);
  }

  /**
   * v5: an envelope gathered from LZ4 segments of zeros that gain less than the limit from
   * decompression (the limit's worth of zeros, less their compressed bytes) decodes; one of twice
   * as many zeros fails for its stream, and the envelope after it decodes. The exact boundary,
   * slice by slice, is {@code SegmentToFrameDecoderTest}'s.
   */
  @Test
  void boundsWhatAnEnvelopeGainsFromItsLz4Segments() {
    EmbeddedChannel channel = v5Channel(LIMITS);
    // the 9-byte header is in the first slice and counts: a body of LIMIT - 9 bytes
    write(channel, v5Slices(v5Envelope(2, new byte[LIMIT - 9]), LIMIT / 16));
    Frame frame = channel.readInbound();
    assertEquals(LIMIT - 9, frame.body().readableBytes());
    assertTrue(frame.release());

    byte[] over = v5Slices(v5Envelope(3, new byte[2 * LIMIT]), LIMIT / 16);
    byte[] next = SegmentBuilder.lz4(v5Envelope(4, VOID_BODY), true);
    CqlFrameException e =
        assertThrows(CqlFrameException.class, () -> write(channel, concat(over, next)));
    assertEquals(Reason.DECOMPRESSED_TOO_LARGE, e.reason());
    assertFalse(e.connectionLevel());
    assertEquals(3, e.streamId());
    assertEquals(
        frameBytesOf(channel) - over.length - next.length,
        e.offset(),
        "the segment the envelope starts in");
    assertStreams(channel, 4);
    finish(channel);
  }

  /**
   * Segments LZ4 stores as they are (random bytes do not shrink) add nothing: their bytes came over
   * the wire, bounded by the frame limit.
   */
  @Test
  void doesNotCountSegmentsStoredUncompressed() {
    byte[] body = new byte[4 * LIMIT];
    new java.util.Random(1).nextBytes(body);
    EmbeddedChannel channel = v5Channel(LIMITS);
    write(channel, v5Slices(v5Envelope(2, body), SegmentBuilder.MAX_PAYLOAD));
    Frame frame = channel.readInbound();
    assertEquals(body.length, frame.body().readableBytes());
    assertTrue(frame.release());
    finish(channel);
  }

  private EmbeddedChannel v5Channel(ParseLimits limits) {
    return channel(
        new BytesToSegmentDecoder(SegmentFormat.LZ4, 0), new SegmentToFrameDecoder(limits));
  }

  /** Bytes the channel's segment decoder has consumed. */
  private static long frameBytesOf(EmbeddedChannel channel) {
    return channel.pipeline().get(BytesToSegmentDecoder.class).consumedBytes();
  }

  /** A v5 RESULT envelope on {@code stream}. */
  static byte[] v5Envelope(int stream, byte[] body) {
    return frameBytes(0x85, 0, stream, 0x08, body);
  }

  /**
   * An envelope cut into LZ4 slices of {@code size} bytes, each compressed when that makes it
   * smaller, as Cassandra's encoder writes them.
   */
  static byte[] v5Slices(byte[] envelope, int size) {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    for (int at = 0; at < envelope.length; at += size) {
      byte[] slice =
          java.util.Arrays.copyOfRange(envelope, at, Math.min(envelope.length, at + size));
      out.writeBytes(SegmentBuilder.lz4(slice, false));
    }
    return out.toByteArray();
  }

  private static void assertTooLarge(CqlFrameException e, int streamId, long offset) {
    assertEquals(Reason.DECOMPRESSED_TOO_LARGE, e.reason());
    assertFalse(e.connectionLevel());
    assertEquals(streamId, e.streamId());
    assertEquals(offset, e.offset(), "the frame's header");
    assertInstanceOf(CompressionException.class, e.getCause());
  }

  /** The frames that came out, in order, have these streams; each is released. */
  private static void assertStreams(EmbeddedChannel channel, int... streams) {
    for (int s : streams) {
      Frame frame = channel.readInbound();
      assertEquals(s, frame.streamId());
      assertTrue(frame.release());
    }
    assertNull(channel.readInbound());
  }

  /**
   * A v4 RESULT frame on {@code stream} whose body is compressed and decompresses to {@code length}
   * bytes: a VOID kind, then zeros.
   */
  static byte[] v4(Compression compression, int stream, int length) {
    byte[] plain = new byte[length];
    plain[3] = 1;
    byte[] body =
        compression == Compression.LZ4
            ? lz4Body(length, SegmentBuilder.compress(plain))
            : snappy(plain);
    return frameBytes(0x84, Frame.FLAG_COMPRESSION, stream, 0x08, body);
  }

  private EmbeddedChannel channel(ChannelHandler... handlers) {
    EmbeddedChannel channel = new EmbeddedChannel(handlers);
    channel.config().setAllocator(alloc);
    return channel;
  }

  private static void write(EmbeddedChannel channel, byte[] bytes) {
    channel.writeInbound(channel.alloc().buffer(bytes.length).writeBytes(bytes));
  }

  private void finish(EmbeddedChannel channel) {
    assertFalse(channel.finishAndReleaseAll());
    assertNull(alloc.unreleased());
  }
}
