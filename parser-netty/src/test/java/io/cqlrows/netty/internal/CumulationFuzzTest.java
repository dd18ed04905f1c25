package io.cqlrows.netty.internal;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.cqlrows.core.ParseLimits;
import io.cqlrows.netty.TrackingAllocator;
import io.cqlrows.netty.frame.Compression;
import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.netty.frame.Frame;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Coverage-guided differential fuzzing of how the connection decoders accumulate reads ({@link
 * FrameCumulator}): a byte stream fed to {@link BytesToFrameDecoder} or {@link
 * BytesToSegmentDecoder} in reads the fuzzer chooses must give the same frames or segments, and the
 * same errors at the same offsets, as the whole stream in one read. The cumulator's thresholds are
 * lowered (a unit is large from a few bytes on), so short inputs go through every path of large
 * units: reads kept as components of a composite, reads copied because they are short or mostly
 * empty, a composite handed over to a unit that is copied, and the rest of a composite merged
 * again.
 *
 * <p><b>Input</b> (read with a {@link FuzzedDataProvider}): the decoder (v4 frames without
 * compression or with LZ4 bodies; uncompressed or LZ4 v5 segments), the two thresholds, up to 32
 * read sizes and spare capacities (applied in turn until the stream ends), whether the harness
 * writes correct CRC24/CRC32 into the segments it finds (as {@link FrameDecoderFuzzTest} does, to
 * get behind them), then the stream.
 *
 * <p><b>Checked:</b> the digests (frame header fields and body bytes; segment flag and payload
 * bytes; error reason, offset and level) agree, only {@link CqlFrameException} comes out, and every
 * buffer either run allocated, the reads included, is released.
 */
class CumulationFuzzTest {
  @FuzzTest(maxDuration = "5m")
  void decodesAlikeInAnyReads(FuzzedDataProvider data) {
    int kind = data.consumeInt(0, 3);
    int large = data.consumeInt(1, 600);
    int minShared = data.consumeInt(0, 300);
    int[] sizes = new int[data.consumeInt(1, 32)];
    int[] spare = new int[sizes.length];
    for (int i = 0; i < sizes.length; i++) {
      sizes[i] = data.consumeInt(1, 700);
      spare[i] = data.consumeInt(0, 3) * sizes[i];
    }
    boolean fixChecksums = data.consumeBoolean();
    byte[] stream = data.consumeRemainingAsBytes();
    if (kind >= 2 && fixChecksums) {
      FrameDecoderFuzzTest.fixChecksums(stream, kind == 3 ? 5 : 3);
    }

    List<String> whole =
        decode(kind, large, minShared, stream, new int[] {stream.length + 1}, new int[1]);
    List<String> pieces = decode(kind, large, minShared, stream, sizes, spare);
    if (!whole.equals(pieces)) {
      throw new AssertionError(
          "whole stream: "
              + whole
              + "\nin reads "
              + Arrays.toString(sizes)
              + " (spare "
              + Arrays.toString(spare)
              + "): "
              + pieces);
    }
  }

  /** Feeds the stream in reads, closes the channel; the digest of everything that came out. */
  private static List<String> decode(
      int kind, int large, int minShared, byte[] stream, int[] sizes, int[] spare) {
    TrackingAllocator alloc = new TrackingAllocator();
    ConnectionDecoder decoder =
        switch (kind) {
          case 0 -> new BytesToFrameDecoder(ParseLimits.defaults(), Compression.NONE);
          case 1 -> new BytesToFrameDecoder(ParseLimits.defaults(), Compression.LZ4);
          case 2 -> new BytesToSegmentDecoder(SegmentFormat.UNCOMPRESSED, 0);
          default -> new BytesToSegmentDecoder(SegmentFormat.LZ4, 0);
        };
    decoder.cumulator.thresholds(large, minShared);
    Digests out = new Digests();
    EmbeddedChannel channel = new EmbeddedChannel();
    channel.config().setAllocator(alloc);
    channel.pipeline().addLast(decoder, out);
    try {
      for (int at = 0, i = 0; at < stream.length; i = (i + 1) % sizes.length) {
        int n = Math.min(sizes[i], stream.length - at);
        ByteBuf read = alloc.buffer(n + spare[i]).writeBytes(stream, at, n);
        at += n;
        channel.writeInbound(read);
      }
      channel.close();
    } finally {
      channel.finishAndReleaseAll();
    }
    out.rethrowForeign();
    String unreleased = alloc.unreleased();
    if (unreleased != null) {
      throw new AssertionError("buffers not released: " + unreleased);
    }
    return out.digests;
  }

  /** Takes every message and error, records its digest, releases it. */
  private static final class Digests extends ChannelInboundHandlerAdapter {
    final List<String> digests = new ArrayList<>();
    private final List<Throwable> foreign = new ArrayList<>();

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      try {
        if (msg instanceof Frame f) {
          digests.add(
              "frame "
                  + f.version()
                  + "/"
                  + f.flags()
                  + "/"
                  + f.streamId()
                  + "/"
                  + f.opcode()
                  + "/"
                  + f.bodyOffset()
                  + "/"
                  + hash(f.body()));
        } else if (msg instanceof Segment s) {
          digests.add("segment " + s.selfContained() + "/" + hash(s.payload()));
        } else {
          foreign.add(new AssertionError("unexpected message " + msg.getClass().getName()));
        }
      } finally {
        ReferenceCountUtil.release(msg);
      }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      if (cause instanceof CqlFrameException e) {
        digests.add("error " + e.reason() + "/" + e.offset() + "/" + e.connectionLevel());
      } else {
        foreign.add(cause);
      }
    }

    void rethrowForeign() {
      if (!foreign.isEmpty()) {
        AssertionError e = new AssertionError("not a CqlFrameException", foreign.get(0));
        foreign.stream().skip(1).forEach(e::addSuppressed);
        throw e;
      }
    }
  }

  private static String hash(ByteBuf buf) {
    byte[] bytes = ByteBufUtil.getBytes(buf);
    return bytes.length + ":" + Integer.toHexString(Arrays.hashCode(bytes));
  }
}
