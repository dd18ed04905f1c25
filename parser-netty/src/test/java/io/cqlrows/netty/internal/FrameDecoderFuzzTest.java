package io.cqlrows.netty.internal;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.cqlrows.core.ParseLimits;
import io.cqlrows.core.ProtocolFeatures;
import io.cqlrows.core.ResultReader;
import io.cqlrows.core.RowSink;
import io.cqlrows.core.sink.ColumnarSink;
import io.cqlrows.core.sink.CountingSink;
import io.cqlrows.core.sink.JsonLinesSink;
import io.cqlrows.core.sink.RowsCollector;
import io.cqlrows.netty.CqlDecoders;
import io.cqlrows.netty.CqlPipeline;
import io.cqlrows.netty.TrackingAllocator;
import io.cqlrows.netty.frame.Compression;
import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.netty.frame.Frame;
import io.cqlrows.netty.rows.RowsFailure;
import io.cqlrows.netty.rows.RowsFrameHandler;
import io.cqlrows.netty.rows.RowsResponse;
import io.cqlrows.testing.CheckingSink;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Coverage-guided fuzzing of the framing layer, driven through an {@link EmbeddedChannel} exactly
 * as {@link CqlPipeline} installs it, with a {@link RowsFrameHandler} at the end parsing every
 * RESULT into a sink:
 *
 * <ul>
 *   <li>{@link #v4Frames}: a {@link BytesToFrameDecoder} without compression, with LZ4 or Snappy
 *       bodies, or detecting them ({@link CqlDecoders#detecting}), which also switches to v5
 *       segments after a v5 READY;
 *   <li>{@link #v5Segments}: a v5 connection after {@link CqlPipeline#switchToSegments} ({@link
 *       BytesToSegmentDecoder} and {@link SegmentToFrameDecoder}), uncompressed, LZ4 or detected.
 * </ul>
 *
 * <p><b>Input.</b> Two config bytes, then the inbound byte stream:
 *
 * <pre>
 * byte 0: bits 0-1  v4Frames: compression NONE, LZ4, SNAPPY, or detecting;
 *                   v5Segments: format UNCOMPRESSED, LZ4, DETECT (written uncompressed),
 *                   DETECT (written LZ4)
 *         bits 2-3  sink: CountingSink, RowsCollector, JsonLinesSink, ColumnarSink
 *         bits 4-7  read size: {@link #CHUNKS}[bits]
 * byte 1: bits 0-1  ResultReader protocol version 3 + (0-3)
 *         bit 2     ResultReader.rawCellsWithoutMetadata
 *         bit 3     ParseLimits.maxFrameBodyLength 1024 and maxDecompressedLength 512 (else the
 *                   defaults)
 *         bit 4     sinks registered with expect() for streams 0-3 (else default sinks only)
 *         bit 5     v5Segments: the harness writes correct CRC24/CRC32 into every segment
 *                   header and trailer it can find, so the fuzzer explores what lies behind
 *                   them; otherwise the bytes go in as they are
 *         bit 6     a ScyllaDB connection: every protocol extension on (metadata ids in v4
 *                   PREPARED results, tablet routing payloads decoded) and malformed text
 *                   replaced
 * </pre>
 *
 * <p><b>Checked:</b> the only exception that reaches the end of the pipeline is {@link
 * CqlFrameException} (a Netty {@code DecoderException} is one, so a wrapped foreign exception shows
 * up as itself); after a connection-level error no frame or response arrives any more; the sink
 * sees its event protocol ({@link CheckingSink}); and once the channel is closed and {@link
 * EmbeddedChannel#finishAndReleaseAll} ran, every buffer the pipeline allocated (the reads
 * included) has {@code refCnt() == 0} ({@link TrackingAllocator}).
 *
 * <p>Committed inputs: {@code src/test/resources/io/cqlrows/netty/frame/
 * FrameDecoderFuzzTestInputs/<method>/}; see docs/testing.md, "Fuzzing". With {@code
 * -Dcqlrows.fuzz.verbose=1} each input prints what it reached (frames, responses, failures).
 */
class FrameDecoderFuzzTest {
  /** Sizes of the simulated socket reads; 0 means the whole input in one read. */
  static final int[] CHUNKS = {0, 1, 2, 3, 5, 8, 13, 64, 100, 511, 1024, 4096, 9, 17, 4000, 0};

  private static final ParseLimits SMALL =
      ParseLimits.builder().maxFrameBodyLength(1024).maxDecompressedLength(512).build();
  private static final ProtocolFeatures SCYLLA =
      ProtocolFeatures.NONE
          .withExtension(ProtocolFeatures.SCYLLA_USE_METADATA_ID)
          .withExtension(ProtocolFeatures.SCYLLA_LWT_ADD_METADATA_MARK)
          .withExtension(ProtocolFeatures.TABLETS_ROUTING_V1)
          .withExtension(ProtocolFeatures.SCYLLA_RATE_LIMIT_ERROR);

  @FuzzTest(maxDuration = "5m")
  void v4Frames(byte[] input) {
    if (input.length < 2) {
      return;
    }
    Harness h = new Harness(input);
    int mode = input[0] & 3;
    if (mode == 3) {
      CqlDecoders.detecting(h.channel.pipeline(), h.limits);
      h.rows = new RowsFrameHandler(h.reader, h::sinkFor);
      h.channel.pipeline().addLast(CqlPipeline.ROWS_FRAME_HANDLER, h.rows);
    } else {
      Compression c =
          mode == 0 ? Compression.NONE : mode == 1 ? Compression.LZ4 : Compression.SNAPPY;
      int version = Math.min(h.reader.protocolVersion(), 4);
      if (version == 4) {
        h.rows = CqlPipeline.install(h.channel.pipeline(), 4, c, h.limits, h::sinkFor).rows();
      } else {
        CqlDecoders.install(h.channel.pipeline(), version, c, h.limits);
        h.rows = new RowsFrameHandler(h.reader, h::sinkFor);
        h.channel.pipeline().addLast(CqlPipeline.ROWS_FRAME_HANDLER, h.rows);
      }
    }
    h.run(Arrays.copyOfRange(input, 2, input.length));
  }

  @FuzzTest(maxDuration = "5m")
  void v5Segments(byte[] input) {
    if (input.length < 2) {
      return;
    }
    Harness h = new Harness(input);
    int mode = input[0] & 3;
    SegmentFormat format =
        mode == 0
            ? SegmentFormat.UNCOMPRESSED
            : mode == 1 ? SegmentFormat.LZ4 : SegmentFormat.DETECT;
    if (format == SegmentFormat.DETECT) {
      CqlDecoders.detectingSegments(h.channel.pipeline(), 0, h.limits);
      h.rows = new RowsFrameHandler(h.reader, h::sinkFor);
      h.channel.pipeline().addLast(CqlPipeline.ROWS_FRAME_HANDLER, h.rows);
    } else {
      CqlPipeline cql =
          CqlPipeline.install(
              h.channel.pipeline(),
              5,
              format == SegmentFormat.LZ4 ? Compression.LZ4 : Compression.NONE,
              h.limits,
              h::sinkFor);
      cql.switchToSegments();
      h.rows = cql.rows();
    }
    byte[] stream = Arrays.copyOfRange(input, 2, input.length);
    if ((input[1] & 0x20) != 0) {
      fixChecksums(stream, mode == 1 || mode == 3 ? 5 : 3);
    }
    h.run(stream);
  }

  /**
   * Writes the right CRC24 after every segment header and CRC32 after every payload, walking the
   * stream by the lengths in the headers; stops at the first segment that does not fit.
   */
  static void fixChecksums(byte[] s, int headerLength) {
    int p = 0;
    while (p + headerLength + 3 <= s.length) {
      byte[] header = Arrays.copyOfRange(s, p, p + headerLength);
      int crc24 = SegmentBuilder.crc24(header);
      for (int i = 0; i < 3; i++) {
        s[p + headerLength + i] = (byte) (crc24 >>> (8 * i));
      }
      int length = (header[0] & 0xFF) | (header[1] & 0xFF) << 8 | (header[2] & 0x01) << 16;
      int payload = p + headerLength + 3;
      if (payload + length + 4 > s.length) {
        return;
      }
      int crc32 = SegmentBuilder.crc32(Arrays.copyOfRange(s, payload, payload + length));
      for (int i = 0; i < 4; i++) {
        s[payload + length + i] = (byte) (crc32 >>> (8 * i));
      }
      p = payload + length + 4;
    }
  }

  /** One channel, its pipeline and the checks. */
  static final class Harness {
    final TrackingAllocator alloc = new TrackingAllocator();
    final EmbeddedChannel channel = new EmbeddedChannel();
    final ParseLimits limits;
    final ResultReader reader;
    final CheckingSink sink;
    final int chunk;
    final boolean register;
    final Tail tail = new Tail();
    RowsFrameHandler rows;

    Harness(byte[] input) {
      channel.config().setAllocator(alloc);
      int c0 = input[0] & 0xFF;
      int c1 = input[1] & 0xFF;
      boolean scylla = (c1 & 0x40) != 0;
      ParseLimits base = (c1 & 0x08) != 0 ? SMALL : ParseLimits.defaults();
      limits = scylla ? base.toBuilder().replaceMalformedText(true).build() : base;
      reader =
          new ResultReader(3 + (c1 & 3), limits, scylla ? SCYLLA : ProtocolFeatures.NONE)
              .rawCellsWithoutMetadata((c1 & 0x04) != 0);
      sink = new CheckingSink(sink((c0 >>> 2) & 3));
      chunk = CHUNKS[c0 >>> 4];
      register = (c1 & 0x10) != 0;
    }

    private static RowSink sink(int kind) {
      switch (kind) {
        case 0:
          return new CountingSink();
        case 1:
          return new RowsCollector();
        case 2:
          return new JsonLinesSink(new StringBuilder());
        default:
          return new ColumnarSink();
      }
    }

    RowSink sinkFor(Frame frame) {
      return sink;
    }

    /** Feeds the stream, closes the channel, and checks. */
    void run(byte[] stream) {
      channel.pipeline().addLast(tail);
      if (register) {
        for (int s = 0; s < 4; s++) {
          rows.expect(s, sink);
        }
      }
      try {
        int n = chunk == 0 ? Math.max(stream.length, 1) : chunk;
        for (int at = 0; at < stream.length; at += n) {
          int len = Math.min(n, stream.length - at);
          channel.writeInbound(channel.alloc().buffer(len).writeBytes(stream, at, len));
        }
        channel.close();
      } finally {
        channel.finishAndReleaseAll();
      }
      if (System.getProperty("cqlrows.fuzz.verbose") != null) {
        System.out.println(
            "frames "
                + tail.frames
                + ", responses "
                + tail.responses
                + ", failures "
                + tail.failures
                + ", frame errors "
                + tail.frameErrors
                + ", connection failed "
                + tail.connectionFailed);
      }
      tail.rethrowForeign();
      String unreleased = alloc.unreleased();
      if (unreleased != null) {
        throw new AssertionError("buffers not released: " + unreleased);
      }
    }
  }

  /** The end of the pipeline: takes every message and exception, and checks their kind. */
  static final class Tail extends ChannelInboundHandlerAdapter {
    private final List<Throwable> foreign = new ArrayList<>();
    private boolean connectionFailed;

    /** Messages and errors seen, for a look at what an input reaches. */
    int frames;

    int responses;
    int failures;
    int frameErrors;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      try {
        if (msg instanceof Frame || msg instanceof RowsResponse) {
          check(!connectionFailed, msg + " after a connection-level error");
          if (msg instanceof Frame) {
            frames++;
          } else {
            responses++;
          }
        } else if (msg instanceof RowsFailure f) {
          check(f.cause() != null, "RowsFailure without cause");
          failures++;
          if (System.getProperty("cqlrows.fuzz.verbose") != null) {
            System.out.println("failure: " + f.cause().getMessage());
          }
        } else {
          throw new AssertionError("unexpected message " + msg.getClass().getName());
        }
      } finally {
        ReferenceCountUtil.release(msg);
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      // recorded, not thrown: Netty would only log an exception thrown from here
      if (cause instanceof CqlFrameException e) {
        connectionFailed |= e.connectionLevel();
        frameErrors += e.connectionLevel() ? 0 : 1;
        if (e.getMessage() == null) {
          foreign.add(new AssertionError("CqlFrameException without message", e));
        }
      } else {
        foreign.add(cause);
      }
    }

    /** Throws the first exception that was not a CqlFrameException, as it was. */
    void rethrowForeign() {
      if (foreign.isEmpty()) {
        return;
      }
      Throwable t = foreign.get(0);
      for (int i = 1; i < foreign.size(); i++) {
        t.addSuppressed(foreign.get(i));
      }
      if (t instanceof RuntimeException r) {
        throw r;
      }
      if (t instanceof Error e) {
        throw e;
      }
      throw new AssertionError("checked exception in the pipeline", t);
    }
  }

  private static void check(boolean ok, String what) {
    if (!ok) {
      throw new AssertionError(what);
    }
  }
}
