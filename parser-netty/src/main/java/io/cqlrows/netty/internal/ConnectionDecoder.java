package io.cqlrows.netty.internal;

import io.cqlrows.netty.frame.CqlFrameException;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;

/**
 * What the decoders of a connection's raw bytes share ({@link BytesToFrameDecoder}, {@link
 * BytesToSegmentDecoder}): the offset of every byte in the connection's stream, the cumulation of
 * large units ({@link FrameCumulator}), one way to break ({@link Breakage}), and the report of
 * input that ends inside a unit.
 *
 * <p><b>Steps.</b> A subclass is a small state machine: {@link #decodeStep} looks at its state,
 * either consumes bytes, changes state, or returns because it needs more bytes. This class calls it
 * until it needs more, emits something, or breaks; at most one message leaves per call, so a
 * frame-local error fired by a step reaches the next handler in order with the messages.
 * Connection-level errors are thrown by the steps and turned into a {@link #fail} here.
 *
 * <p><b>Ownership.</b> Input buffers are released as usual for a {@code ByteToMessageDecoder};
 * after a failure they are released unread.
 */
abstract class ConnectionDecoder extends ByteToMessageDecoder {
  /** Copies the reads of a large unit once. */
  final FrameCumulator cumulator = new FrameCumulator();

  private final Breakage breakage = new Breakage();

  /** Offset in the connection's stream of the byte at the reader index when decode began. */
  private long consumed;

  /** Reader index of the input when the current decode call began. */
  private int callStart;

  ConnectionDecoder(long startOffset) {
    this.consumed = startOffset;
    setCumulator(cumulator);
  }

  /** True after a connection-level error: all further input is discarded. */
  public final boolean isBroken() {
    return breakage.isBroken();
  }

  /** Offset in the connection's stream of the next byte to decode. */
  public final long consumedBytes() {
    return consumed;
  }

  @Override
  public final void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
    if (!breakage.dropped(msg)) {
      super.channelRead(ctx, msg);
    }
  }

  @Override
  protected final void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (breakage.isBroken()) {
      in.skipBytes(in.readableBytes());
      return;
    }
    callStart = in.readerIndex();
    try {
      int emitted = out.size();
      while (!breakage.isBroken() && out.size() == emitted) {
        int before = in.readableBytes();
        Object state = state();
        decodeStep(ctx, in, out);
        if (in.readableBytes() == before && state() == state) {
          return; // needs more bytes
        }
      }
    } catch (CqlFrameException e) {
      fail(ctx, in, e);
    } finally {
      consumed += in.readerIndex() - callStart;
      callStart = in.readerIndex();
    }
  }

  /** The step's current state (compared by identity to tell progress). */
  abstract Object state();

  /**
   * One step: consume bytes, or change state, or neither when more bytes are needed. It may add one
   * message to {@code out}, or fire a frame-local error (not both); a connection-level error is
   * thrown.
   */
  abstract void decodeStep(ChannelHandlerContext ctx, ByteBuf in, List<Object> out);

  /**
   * The error for input that ends now, leaving {@code in}'s bytes undecoded (or a unit unfinished);
   * {@code null} if nothing is incomplete.
   */
  abstract CqlFrameException endOfInput(ByteBuf in);

  /** Offset in the connection's stream of the byte at {@code index} of the current input. */
  final long offsetOf(int index) {
    return consumed + (index - callStart);
  }

  /** Breaks the decoder: the rest of {@code in} and all later input is discarded. */
  final void fail(ChannelHandlerContext ctx, ByteBuf in, CqlFrameException e) {
    cumulator.merge();
    in.skipBytes(in.readableBytes());
    breakage.fail(ctx, e);
  }

  /** Reports input that ends inside a unit, once the whole units before it are decoded. */
  @Override
  protected final void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out)
      throws Exception {
    super.decodeLast(ctx, in, out);
    if (breakage.isBroken()) {
      return;
    }
    CqlFrameException incomplete = endOfInput(in);
    if (incomplete != null) {
      // what the last decode emitted goes first, as it would had the input gone on
      for (Object msg : out) {
        ctx.fireChannelRead(msg);
      }
      out.clear();
      fail(ctx, in, incomplete);
    }
  }
}
