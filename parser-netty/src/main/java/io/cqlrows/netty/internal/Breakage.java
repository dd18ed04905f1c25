package io.cqlrows.netty.internal;

import io.cqlrows.netty.frame.CqlFrameException;
import io.netty.channel.ChannelHandlerContext;
import io.netty.util.ReferenceCountUtil;

/**
 * How a connection's decoders break, written once: after a connection-level {@link
 * CqlFrameException} nothing later in the byte stream can be trusted, so the decoder reports the
 * error downstream once ({@code fireExceptionCaught}) and then releases every further input unread,
 * emitting nothing. Errors are fired rather than thrown: Netty would wrap a thrown one in its own
 * {@code DecoderException}.
 *
 * <p>One instance per decoder; not thread-safe.
 */
final class Breakage {
  private boolean broken;

  /** True after {@link #fail}. */
  boolean isBroken() {
    return broken;
  }

  /** Breaks the decoder and reports {@code e} downstream, unless it is broken already. */
  void fail(ChannelHandlerContext ctx, CqlFrameException e) {
    if (!broken) {
      broken = true;
      ctx.fireExceptionCaught(e);
    }
  }

  /**
   * Releases an input the broken decoder must not read.
   *
   * @param msg the input; released here when this returns true, otherwise still the caller's to
   *     decode and release
   * @return whether the decoder is broken and {@code msg} was released
   */
  boolean dropped(Object msg) {
    if (!broken) {
      return false;
    }
    ReferenceCountUtil.release(msg);
    return true;
  }
}
