package io.cqlrows.netty;

import static io.cqlrows.netty.CqlPipeline.BYTES_TO_FRAME_DECODER;
import static io.cqlrows.netty.CqlPipeline.BYTES_TO_SEGMENT_DECODER;
import static io.cqlrows.netty.CqlPipeline.SEGMENT_ENCODER;
import static io.cqlrows.netty.CqlPipeline.SEGMENT_TO_FRAME_DECODER;

import io.cqlrows.core.ParseLimits;
import io.cqlrows.netty.frame.Compression;
import io.cqlrows.netty.internal.BytesToFrameDecoder;
import io.cqlrows.netty.internal.BytesToSegmentDecoder;
import io.cqlrows.netty.internal.SegmentEncoder;
import io.cqlrows.netty.internal.SegmentFormat;
import io.cqlrows.netty.internal.SegmentSwitch;
import io.cqlrows.netty.internal.SegmentToFrameDecoder;
import io.netty.channel.ChannelPipeline;

/**
 * The changes {@link CqlPipeline} makes to a pipeline after installing it: the move of a v5
 * connection from unframed envelopes to segments (native_protocol_v5.spec section 2.3.1). Runs on
 * the event loop, from a decoder's step or the owner's call.
 */
final class Rewiring {
  private Rewiring() {}

  /**
   * What a client's frame decoder ({@link CqlPipeline}, {@link CqlDecoders#install}) calls after a
   * v5 response that starts segments (READY, AUTHENTICATE): both directions move to the segments of
   * {@code compression}. After a request (a server reads STARTUP) nothing changes: the server's
   * READY must go out unframed, and its owner switches once it is written.
   */
  static SegmentSwitch onResponse(
      ChannelPipeline pipeline, Compression compression, ParseLimits limits) {
    return (ctx, afterResponse, offset, streamFrom) -> {
      if (afterResponse) {
        segments(pipeline, compression, limits, offset, streamFrom);
      }
    };
  }

  /** What a detecting frame decoder (replay) calls: inbound only, the format detected. */
  static SegmentSwitch detected(ParseLimits limits) {
    return (ctx, afterResponse, offset, streamFrom) ->
        replaceFrameDecoder(ctx.pipeline(), SegmentFormat.DETECT, offset, limits, streamFrom);
  }

  /**
   * Moves both directions to segments: a {@link SegmentEncoder} where the cqlrows handlers begin,
   * and segment decoders in place of the frame decoder.
   *
   * @param offset the connection offset of the first inbound segment
   */
  static void segments(
      ChannelPipeline pipeline,
      Compression compression,
      ParseLimits limits,
      long offset,
      int streamFrom) {
    SegmentFormat format = format(compression);
    pipeline.addBefore(BYTES_TO_FRAME_DECODER, SEGMENT_ENCODER, new SegmentEncoder(format));
    replaceFrameDecoder(pipeline, format, offset, limits, streamFrom);
  }

  /**
   * Puts the segment decoders after the frame decoder, then removes it: the bytes it holds go to
   * them on removal, after the frame it was decoding has been handed on.
   */
  private static void replaceFrameDecoder(
      ChannelPipeline p, SegmentFormat format, long offset, ParseLimits limits, int streamFrom) {
    p.addAfter(
        BYTES_TO_FRAME_DECODER,
        BYTES_TO_SEGMENT_DECODER,
        new BytesToSegmentDecoder(format, offset));
    p.addAfter(
        BYTES_TO_SEGMENT_DECODER,
        SEGMENT_TO_FRAME_DECODER,
        new SegmentToFrameDecoder(limits).streamResultsFrom(streamFrom));
    p.remove(BYTES_TO_FRAME_DECODER);
  }

  private static SegmentFormat format(Compression compression) {
    return compression == Compression.LZ4 ? SegmentFormat.LZ4 : SegmentFormat.UNCOMPRESSED;
  }

  /** Sets the smallest streamed RESULT body on whichever frame decoder the pipeline has now. */
  static void streamResultsFrom(ChannelPipeline pipeline, int minBodyBytes) {
    if (minBodyBytes < 0) {
      throw new IllegalArgumentException("minBodyBytes: " + minBodyBytes + " (expected: >= 0)");
    }
    if (pipeline.get(BYTES_TO_FRAME_DECODER) instanceof BytesToFrameDecoder d) {
      d.streamResultsFrom(minBodyBytes);
    }
    if (pipeline.get(SEGMENT_TO_FRAME_DECODER) instanceof SegmentToFrameDecoder d) {
      d.streamResultsFrom(minBodyBytes);
    }
  }
}
