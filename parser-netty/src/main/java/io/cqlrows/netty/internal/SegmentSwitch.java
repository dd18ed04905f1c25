package io.cqlrows.netty.internal;

import io.netty.channel.ChannelHandlerContext;

/**
 * Asked by a frame decoder to move a v5 connection to segments after the frame that starts them:
 * the server's READY or AUTHENTICATE response, or (in a client-to-server capture) the client's
 * STARTUP request. The owner of the pipeline ({@code io.cqlrows.netty.CqlPipeline}) implements it;
 * decoders never touch the pipeline themselves.
 */
@FunctionalInterface
public interface SegmentSwitch {
  /**
   * Puts segment decoders in place of the decoder of {@code ctx}. Called from within its decode
   * step; the bytes it still holds go to the segment decoders once it is removed.
   *
   * @param ctx the frame decoder's context
   * @param afterResponse true after a response (READY, AUTHENTICATE), false after a request
   *     (STARTUP)
   * @param offset offset in the connection's byte stream of the first segment
   * @param streamResultsFrom the frame decoder's streaming threshold, for the segment decoders
   */
  void switchToSegments(
      ChannelHandlerContext ctx, boolean afterResponse, long offset, int streamResultsFrom);
}
