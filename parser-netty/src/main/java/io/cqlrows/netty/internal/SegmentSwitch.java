package io.cqlrows.netty.internal;

import io.netty.channel.ChannelHandlerContext;

/**
 * Asked by a decoder that detects protocol switches (replay) to move a v5 connection to segments
 * after the response (or request) that starts them. The owner of the pipeline ({@code
 * io.cqlrows.netty.CqlPipeline}) implements it; decoders never touch the pipeline themselves.
 */
@FunctionalInterface
public interface SegmentSwitch {
  /**
   * Puts segment decoders in place of the decoder of {@code ctx}. Called from within its decode
   * step; the bytes it still holds go to the segment decoders once it is removed.
   *
   * @param ctx the frame decoder's context
   * @param offset offset in the connection's byte stream of the first segment
   * @param streamResultsFrom the frame decoder's streaming threshold, for the segment decoders
   */
  void switchToSegments(ChannelHandlerContext ctx, long offset, int streamResultsFrom);
}
