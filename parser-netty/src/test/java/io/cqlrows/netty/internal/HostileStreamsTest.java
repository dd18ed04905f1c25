package io.cqlrows.netty.internal;

import static io.cqlrows.netty.CqlTestFrames.frameBytes;
import static io.cqlrows.netty.internal.SegmentBuilder.concat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.core.ParseLimits;
import io.cqlrows.core.ResultReader;
import io.cqlrows.core.sink.CountingSink;
import io.cqlrows.netty.CqlDecoders;
import io.cqlrows.netty.CqlPipeline;
import io.cqlrows.netty.TrackingAllocator;
import io.cqlrows.netty.frame.Compression;
import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.netty.rows.RowsFailure;
import io.cqlrows.netty.rows.RowsFrameHandler;
import io.cqlrows.netty.rows.RowsResponse;
import io.cqlrows.testing.Allocations;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.compression.Snappy;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Hostile byte streams through the whole pipeline as {@link CqlPipeline} installs it: v5 CRC
 * mismatches, LZ4 length lies and decompression bombs (in v4 bodies and v5 segments), Snappy
 * garbage and bombs, bodies that are neither LZ4 nor Snappy, frame and envelope headers declaring 2
 * GiB. Each must be one typed connection-level {@link CqlFrameException}, after the response that
 * preceded it was delivered; then a client connection's pipeline closes the channel, and a replay's
 * decoder discards all further input (nothing more arrives, a later read is released); a bomb
 * allocates nothing near what it claims, and once the channel is finished every buffer the pipeline
 * allocated has been released.
 */
class HostileStreamsTest {
  /** Most the hostile read may allocate (bombs claim up to 2 GiB). */
  static final long CHEAP = 1 << 20;

  /** A VOID RESULT on stream 1, then the same on stream 2 (for after the error). */
  private static final byte[] VOID = {0, 0, 0, 1};

  static Stream<Arguments> streams() {
    byte[] block = SegmentBuilder.compress(new byte[4 << 20]); // 4 MiB of zeros, ~16 KiB
    byte[] garbage = new byte[300];
    new Random(7).nextBytes(garbage);
    return Stream.of(
        // ---- v4 bodies, LZ4 ----
        v4(
            Compression.LZ4,
            "LZ4 declared length 2^31-1",
            lz4Body(Integer.MAX_VALUE, SegmentBuilder.compress(new byte[100]))),
        v4(
            Compression.LZ4,
            "LZ4 declared 256 MiB from an 11-byte block",
            lz4Body(256 << 20, SegmentBuilder.compress(new byte[100]))),
        v4(Compression.LZ4, "LZ4 bomb (4 MiB of zeros) declaring 1000 bytes", lz4Body(1000, block)),
        v4(Compression.LZ4, "LZ4 bomb declaring more than the limit", lz4Body(300 << 20, block)),
        v4(
            Compression.LZ4,
            "LZ4 length lie (longer)",
            lz4Body(5000, SegmentBuilder.compress(new byte[4000]))),
        v4(Compression.LZ4, "LZ4 garbage block", lz4Body(5000, garbage)),
        v4(Compression.LZ4, "LZ4 body without its length", new byte[] {0, 1}),
        // ---- v4 bodies, Snappy ----
        v4(Compression.SNAPPY, "Snappy garbage", garbage),
        v4(
            Compression.SNAPPY,
            "Snappy preamble 2^28-1 (over the limit)",
            ByteBufUtil.decodeHexDump("ffffff7f" + "0061")),
        v4(
            Compression.SNAPPY,
            "Snappy declaring 200 MiB from 12 bytes",
            ByteBufUtil.decodeHexDump("80808064" + "0061" + "fe0100" + "fe0100")),
        v4(Compression.SNAPPY, "Snappy truncated block", Arrays.copyOf(snappy(sample()), 40)),
        v4(
            Compression.SNAPPY,
            "Snappy copy before the output",
            ByteBufUtil.decodeHexDump("0a" + "0061" + "1e0100")),
        // ---- detecting ----
        v4(null, "compressed body neither LZ4 nor Snappy", garbage),
        // ---- lengths over the limit (the frames after them are valid) ----
        v4Header(Compression.NONE, "frame header declaring 2 GiB"),
        v4Header(null, "frame header declaring 2 GiB (detecting)"),
        tooLarge(
            segments(
                SegmentFormat.UNCOMPRESSED,
                "envelope declaring 2 GiB in a self-contained segment",
                segment(SegmentFormat.UNCOMPRESSED, TWO_GIB_HEADER))),
        tooLarge(
            segments(
                SegmentFormat.LZ4,
                "envelope declaring 2 GiB in a slice",
                SegmentBuilder.lz4(concat(TWO_GIB_HEADER, new byte[1000]), false))),
        // ---- v5 segments ----
        v5(SegmentFormat.UNCOMPRESSED, "header CRC24 mismatch", s -> s[3] ^= 0x01),
        v5(SegmentFormat.UNCOMPRESSED, "payload CRC32 mismatch", s -> s[s.length - 1] ^= 0x01),
        v5(SegmentFormat.UNCOMPRESSED, "payload bit flip", s -> s[8] ^= 0x40),
        v5(SegmentFormat.LZ4, "header CRC24 mismatch", s -> s[5] ^= 0x01),
        v5(SegmentFormat.LZ4, "payload CRC32 mismatch", s -> s[s.length - 2] ^= 0x01),
        v5(SegmentFormat.DETECT, "header neither format", s -> s[4] ^= 0x01),
        segments(
            SegmentFormat.LZ4,
            "LZ4 segment lying about its length (131071)",
            SegmentBuilder.lz4Wire(SegmentBuilder.compress(new byte[5000]), 131071, true)),
        segments(
            SegmentFormat.LZ4,
            "LZ4 segment bomb (4 MiB of zeros) declaring 131071",
            SegmentBuilder.lz4Wire(Arrays.copyOf(block, 100_000), 131071, true)),
        segments(
            SegmentFormat.LZ4,
            "LZ4 segment of garbage",
            SegmentBuilder.lz4Wire(garbage, 1000, true)),
        segments(
            SegmentFormat.UNCOMPRESSED,
            "self-contained segment ending inside an envelope",
            SegmentBuilder.uncompressed(Arrays.copyOf(envelope(0x85, 3, VOID), 10), true)));
  }

  /** A v5 response header on stream 2 declaring a body of 2^31 - 1 bytes. */
  private static final byte[] TWO_GIB_HEADER =
      ByteBufUtil.decodeHexDump("85" + "00" + "0002" + "08" + "7fffffff");

  /** A v4 frame header on stream 2 declaring 2^31 - 1 bytes, and a few of them. */
  private static Arguments v4Header(Compression compression, String name) {
    byte[] hostile =
        concat(ByteBufUtil.decodeHexDump("84" + "00" + "0002" + "08" + "7fffffff"), new byte[100]);
    return tooLarge(
        Arguments.of(
            (compression == null ? "detecting" : compression) + ": " + name,
            (Consumer<Fixture>) f -> f.installV4(compression),
            frameBytes(0x84, 0, 1, 0x08, VOID),
            hostile,
            frameBytes(0x84, 0, 3, 0x08, VOID)));
  }

  /** The case, expected to fail with {@link CqlFrameException.Reason#FRAME_TOO_LARGE}. */
  private static Arguments tooLarge(Arguments arguments) {
    Object[] a = arguments.get();
    return Arguments.of(a[0], a[1], a[2], a[3], a[4], CqlFrameException.Reason.FRAME_TOO_LARGE);
  }

  private static Arguments v4(Compression compression, String name, byte[] compressedBody) {
    byte[] hostile = frameBytes(0x84, 0x01, 2, 0x08, compressedBody);
    return Arguments.of(
        (compression == null ? "detecting" : compression) + ": " + name,
        (Consumer<Fixture>) f -> f.installV4(compression),
        frameBytes(0x84, 0, 1, 0x08, VOID),
        hostile,
        frameBytes(0x84, 0, 3, 0x08, VOID),
        null);
  }

  /** A good segment, then a copy of it (stream 2) damaged by {@code damage}. */
  private static Arguments v5(SegmentFormat format, String name, Consumer<byte[]> damage) {
    SegmentFormat written = format == SegmentFormat.DETECT ? SegmentFormat.LZ4 : format;
    byte[] bad = segment(written, envelope(0x85, 2, VOID));
    damage.accept(bad);
    return segments(format, name, bad);
  }

  private static Arguments segments(SegmentFormat format, String name, byte[] hostile) {
    SegmentFormat written = format == SegmentFormat.DETECT ? SegmentFormat.LZ4 : format;
    return Arguments.of(
        format + ": " + name,
        (Consumer<Fixture>) f -> f.installV5(format),
        segment(written, envelope(0x85, 1, VOID)),
        hostile,
        segment(written, envelope(0x85, 3, VOID)),
        null);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("streams")
  void failsTheConnectionOnceDiscardsTheRestAndReleasesEverything(
      String name,
      Consumer<Fixture> install,
      byte[] good,
      byte[] hostile,
      byte[] later,
      CqlFrameException.Reason expected) {
    Fixture f = new Fixture();
    install.accept(f);
    f.rows.expect(1, new CountingSink());
    f.rows.expect(2, new CountingSink());
    f.rows.expect(3, new CountingSink());
    f.write(good);
    assertEquals(List.of("response 1"), f.recorder.events, name);
    long before = Allocations.current();
    f.write(hostile);
    long allocated = Allocations.current() - before;
    assertTrue(allocated < CHEAP, name + ": the hostile read allocated " + allocated + " bytes");
    // a client connection's pipeline closes the channel itself; a replay's reads on, unread
    assertEquals(f.closesItself, !f.channel.isOpen(), name);
    if (f.channel.isOpen()) {
      ByteBuf afterwards = f.channel.alloc().buffer().writeBytes(later);
      f.channel.writeInbound(afterwards);
      assertEquals(0, afterwards.refCnt(), name + ": a later read was not released");
    }
    f.channel.close();
    f.channel.finishAndReleaseAll();
    assertEquals(List.of(), f.recorder.foreign, name);
    assertEquals(
        1,
        f.recorder.connectionErrors.size(),
        name + ": connection-level errors " + f.recorder.connectionErrors);
    CqlFrameException e = f.recorder.connectionErrors.get(0);
    if (expected != null) {
      assertEquals(expected, e.reason(), name + ": " + e);
    }
    // a length over the limit names the stream of its header
    int stream = e.reason() == CqlFrameException.Reason.FRAME_TOO_LARGE ? 2 : -1;
    assertTrue(e.connectionLevel() && e.streamId() == stream, name + ": " + e);
    // the registered streams fail with it, in order; nothing was decoded after it
    assertEquals(
        List.of("response 1", "failure 2", "failure 3", "error"),
        f.recorder.events,
        name + ": " + e.getMessage());
    assertNull(f.alloc.unreleased(), name);
  }

  /** Decompression limit of {@link #failsOnlyTheResponseThatWouldDecompressOverTheLimit}. */
  static final int SMALL_LIMIT = 1 << 20;

  static Stream<Arguments> bombs() {
    byte[] over = new byte[4 * SMALL_LIMIT];
    over[3] = 1; // a VOID kind, then zeros
    return Stream.of(
        v4(
            Compression.LZ4,
            "LZ4 body of 4 MiB (16 KiB on the wire)",
            lz4Body(over.length, SegmentBuilder.compress(over))),
        v4(Compression.SNAPPY, "Snappy body of 4 MiB (200 KB on the wire)", snappy(over)),
        v4(
            null,
            "LZ4 body of 4 MiB, compression not yet detected",
            lz4Body(over.length, SegmentBuilder.compress(over))),
        segments(
            SegmentFormat.LZ4,
            "envelope of 4 MiB in LZ4 segments (17 KB on the wire)",
            DecompressionLimitTest.v5Slices(envelope(0x85, 2, over), SegmentBuilder.MAX_PAYLOAD)));
  }

  /**
   * A response whose compressed body would decompress to more than {@link
   * ParseLimits#maxDecompressedLength()} fails alone: its stream gets a failure, the responses
   * before and after it are delivered, the connection stays open, and every buffer is released. Its
   * bytes arrive in reads of 1 KiB: none of them allocates much (v5 decompresses each segment, at
   * most 128 KiB), and the segment decoder never holds more than the limit.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("bombs")
  void failsOnlyTheResponseThatWouldDecompressOverTheLimit(
      String name,
      Consumer<Fixture> install,
      byte[] good,
      byte[] hostile,
      byte[] later,
      CqlFrameException.Reason unused) {
    Fixture f = new Fixture(ParseLimits.builder().maxDecompressedLength(SMALL_LIMIT).build());
    install.accept(f);
    f.rows.expect(1, new CountingSink());
    f.rows.expect(2, new CountingSink());
    f.rows.expect(3, new CountingSink());
    f.write(good);
    SegmentToFrameDecoder segments = f.channel.pipeline().get(SegmentToFrameDecoder.class);
    for (int at = 0; at < hostile.length; at += 1024) {
      long before = Allocations.current();
      f.write(Arrays.copyOfRange(hostile, at, Math.min(hostile.length, at + 1024)));
      long allocated = Allocations.current() - before;
      assertTrue(allocated < CHEAP, name + ": a read allocated " + allocated + " bytes");
      if (segments != null) {
        assertTrue(
            segments.bufferedBytes() <= SMALL_LIMIT, name + ": held " + segments.bufferedBytes());
      }
    }
    f.write(later);
    assertEquals(List.of("response 1", "failure 2", "response 3"), f.recorder.events, name);
    assertEquals(
        CqlFrameException.Reason.DECOMPRESSED_TOO_LARGE, f.recorder.failures.get(0).reason(), name);
    assertTrue(f.channel.isOpen(), name);
    f.channel.close();
    f.channel.finishAndReleaseAll();
    assertEquals(List.of(), f.recorder.foreign, name);
    assertEquals(List.of(), f.recorder.connectionErrors, name);
    assertNull(f.alloc.unreleased(), name);
  }

  /** A channel with the pipeline, a tracking allocator and a recorder at the end. */
  static final class Fixture {
    final TrackingAllocator alloc = new TrackingAllocator();
    final EmbeddedChannel channel = new EmbeddedChannel();
    final Recorder recorder = new Recorder();
    final ParseLimits limits;
    RowsFrameHandler rows;

    /** Whether the pipeline is a client connection's, which closes the channel on an error. */
    boolean closesItself;

    Fixture() {
      this(ParseLimits.defaults());
    }

    Fixture(ParseLimits limits) {
      this.limits = limits;
      channel.config().setAllocator(alloc);
    }

    void installV4(Compression compression) {
      if (compression == null) {
        CqlDecoders.detecting(channel.pipeline(), limits);
        rows = new RowsFrameHandler(new ResultReader(4, limits));
        channel.pipeline().addLast(CqlPipeline.ROWS_FRAME_HANDLER, rows);
      } else {
        rows = CqlPipeline.install(channel.pipeline(), 4, compression, limits, null).rows();
      }
      closesItself = compression != null;
      channel.pipeline().addLast(recorder);
    }

    void installV5(SegmentFormat format) {
      if (format == SegmentFormat.DETECT) {
        CqlDecoders.detectingSegments(channel.pipeline(), 0, limits);
        rows = new RowsFrameHandler(new ResultReader(5, limits));
        channel.pipeline().addLast(CqlPipeline.ROWS_FRAME_HANDLER, rows);
      } else {
        CqlPipeline cql =
            CqlPipeline.install(
                channel.pipeline(),
                5,
                format == SegmentFormat.LZ4 ? Compression.LZ4 : Compression.NONE,
                limits,
                null);
        cql.switchToSegments();
        rows = cql.rows();
        closesItself = true;
      }
      channel.pipeline().addLast(recorder);
    }

    void write(byte[] bytes) {
      channel.writeInbound(channel.alloc().buffer(bytes.length).writeBytes(bytes));
    }
  }

  /** Records what reaches the end of the pipeline, in order. */
  static final class Recorder extends ChannelInboundHandlerAdapter {
    final List<String> events = new ArrayList<>();
    final List<CqlFrameException> connectionErrors = new ArrayList<>();
    final List<CqlFrameException> failures = new ArrayList<>();
    final List<Throwable> foreign = new ArrayList<>();

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (msg instanceof RowsResponse r) {
        events.add("response " + r.streamId());
      } else if (msg instanceof RowsFailure r) {
        events.add("failure " + r.streamId());
        failures.add(r.cause());
      } else {
        events.add("message " + msg);
      }
      ReferenceCountUtil.release(msg);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      if (cause instanceof CqlFrameException e && e.connectionLevel()) {
        connectionErrors.add(e);
        events.add("error");
      } else {
        foreign.add(cause);
      }
    }
  }

  // ---- bytes ----

  static byte[] envelope(int versionByte, int stream, byte[] body) {
    return frameBytes(versionByte, 0, stream, 0x08, body);
  }

  static byte[] segment(SegmentFormat format, byte[] payload) {
    return format == SegmentFormat.LZ4
        ? SegmentBuilder.lz4(payload, true)
        : SegmentBuilder.uncompressed(payload, true);
  }

  /** A v4 LZ4 body: the 4-byte big-endian uncompressed length, then the block. */
  static byte[] lz4Body(int declared, byte[] block) {
    byte[] out = new byte[4 + block.length];
    out[0] = (byte) (declared >>> 24);
    out[1] = (byte) (declared >>> 16);
    out[2] = (byte) (declared >>> 8);
    out[3] = (byte) declared;
    System.arraycopy(block, 0, out, 4, block.length);
    return out;
  }

  static byte[] snappy(byte[] data) {
    ByteBuf out = Unpooled.buffer();
    try {
      new Snappy().encode(Unpooled.wrappedBuffer(data), out, data.length);
      return ByteBufUtil.getBytes(out);
    } finally {
      out.release();
    }
  }

  private static byte[] sample() {
    byte[] b = new byte[2000];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) (i % 7);
    }
    return b;
  }
}
