package io.cqlrows.netty.internal;

import io.cqlrows.core.ParseLimits;
import io.cqlrows.netty.compression.Compression;
import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.netty.frame.Frame;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageDecoder;
import io.netty.handler.codec.TooLongFrameException;
import java.util.List;

/**
 * Turns v5 {@link Segment}s into {@link Frame}s (native_protocol_v5.spec section 1): a
 * self-contained segment holds one or more whole envelopes, each decoded in turn; a large envelope
 * arrives as consecutive non-self-contained slices, gathered without copying into a {@link
 * CompositeByteBuf} until the length in its header is reached.
 *
 * <p><b>Limits.</b> A gathered envelope whose body exceeds {@link
 * ParseLimits#maxFrameBodyLength()} is not gathered: its slices are released as they come, and a
 * frame-local {@link CqlFrameException} (cause: Netty's {@link TooLongFrameException}) is fired for
 * its stream once they are all skipped. An envelope over the limit inside a self-contained segment
 * is skipped and reported the same way.
 *
 * <p><b>Errors.</b> Segments that contradict the envelopes in them (a self-contained segment that
 * ends inside an envelope, slices that run past their envelope, a self-contained segment while an
 * envelope is incomplete, a bad version byte) are connection-level: thrown once, then all further
 * segments are released unread. A bad opcode or prelude is frame-local and fired with {@code
 * ctx.fireExceptionCaught}, in order with the frames.
 *
 * <p><b>Ownership.</b> Segments are released after decoding (by {@link MessageToMessageDecoder});
 * slices kept for gathering are retained and released once the envelope is decoded. Frames are
 * fired directly, in order: Ownership transferred (the next handler releases them).
 *
 * <p><b>Threading.</b> One instance per channel; not thread-safe, not {@code @Sharable}.
 */
public final class SegmentToFrameDecoder extends MessageToMessageDecoder<Segment> {
  /** Above this many slices the composite consolidates, bounding per-slice overhead. */
  private static final int MAX_COMPONENTS = 1024;

  private final int maxBodyLength;
  /** Slices of the envelope being gathered, or null. */
  private CompositeByteBuf pending;
  /** 9 + body length of the envelope being gathered, or -1 while its header is incomplete. */
  private long target = -1;
  /** Bytes still to skip of an envelope over the limit. */
  private long discarding;
  private int discardStream;
  private long discardBodyLength;
  private boolean broken;
  /** RESULT bodies of at least this many bytes are streamed; 0: never. */
  private int streamFrom;
  /** Bytes still to come of the body being streamed; 0 when none is. */
  private long streamLeft;
  /** Stream id of the body being streamed. */
  private int streamingId;

  /** A decoder with {@link ParseLimits#defaults()}. */
  public SegmentToFrameDecoder() {
    this(ParseLimits.defaults());
  }

  /**
   * A decoder for one connection.
   *
   * @param limits {@link ParseLimits#maxFrameBodyLength()} bounds an envelope's body
   */
  public SegmentToFrameDecoder(ParseLimits limits) {
    super(Segment.class);
    this.maxBodyLength = limits.maxFrameBodyLength();
  }

  /**
   * Streams large results, as {@link BytesToFrameDecoder#streamResultsFrom}: a RESULT envelope
   * split across segments whose body has at least {@code minBodyBytes} bytes is emitted as a
   * {@link FrameHead} from its first segment, then one {@link FrameChunk} per segment (a
   * retained slice of its payload, decompressed if the segments are), instead of being
   * gathered.
   *
   * @param minBodyBytes the smallest body streamed; 0 turns streaming off (the default)
   * @return this decoder
   */
  public SegmentToFrameDecoder streamResultsFrom(int minBodyBytes) {
    if (minBodyBytes < 0) {
      throw new IllegalArgumentException("minBodyBytes: " + minBodyBytes + " (expected: >= 0)");
    }
    this.streamFrom = minBodyBytes;
    return this;
  }

  /** True after a connection-level error: all further segments are discarded. */
  public boolean isBroken() {
    return broken;
  }

  /** Bytes of an incomplete large envelope held so far. */
  public int bufferedBytes() {
    return pending == null ? 0 : pending.readableBytes();
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, Segment segment, List<Object> out) {
    if (broken) {
      return;
    }
    try {
      if (segment.selfContained()) {
        selfContained(ctx, segment.payload());
      } else {
        slice(ctx, segment.payload());
      }
    } catch (CqlFrameException e) {
      if (e.connectionLevel()) {
        broken = true;
        releasePending();
      }
      throw e;
    }
  }

  private void selfContained(ChannelHandlerContext ctx, ByteBuf p) {
    if (pending != null || discarding > 0 || streamLeft > 0) {
      throw CqlFrameException.connectionError(-1, "self-contained segment while a large "
          + "envelope is incomplete (" + bufferedBytes() + " bytes of it gathered, "
          + streamLeft + " bytes of a streamed body missing)");
    }
    int i = p.readerIndex();
    int end = p.writerIndex();
    while (i < end) {
      if (end - i < Envelopes.HEADER_LENGTH) {
        throw CqlFrameException.connectionError(-1,
            "self-contained segment ends inside an envelope header");
      }
      long body = bodyLength(p, i);
      long length = Envelopes.HEADER_LENGTH + body;
      if (length > end - i) {
        throw CqlFrameException.connectionError(-1, "envelope of " + length
            + " bytes runs past its self-contained segment (" + (end - i) + " bytes left)");
      }
      if (body > maxBodyLength) {
        ctx.fireExceptionCaught(tooLong(p.getShort(i + 2), body));
      } else {
        emit(ctx, p.slice(i, (int) length));
      }
      i += (int) length;
    }
  }

  private void slice(ChannelHandlerContext ctx, ByteBuf p) {
    if (discarding > 0) {
      skip(ctx, p.readableBytes());
      return;
    }
    if (streamLeft > 0) {
      chunk(ctx, p, p.readerIndex(), p.readableBytes());
      return;
    }
    if (pending == null && streamFrom > 0) {
      Envelopes.StreamStart s = Envelopes.streamStart(p, p.readerIndex(), p.writerIndex(), -1,
          streamFrom, maxBodyLength);
      if (s != null && s != Envelopes.StreamStart.WAIT) {
        bodyLength(p, p.readerIndex()); // the version checks every envelope gets
        streamLeft = s.head().bodyLength();
        streamingId = s.head().streamId();
        ctx.fireChannelRead(s.head());
        int rest = p.readableBytes() - s.length();
        if (rest > 0) {
          chunk(ctx, p, p.readerIndex() + s.length(), rest);
        }
        return;
      }
      // WAIT: a prelude longer than the first slice; gathered like any envelope
    }
    if (pending == null) {
      pending = ctx.alloc().compositeBuffer(MAX_COMPONENTS);
      target = -1;
    }
    pending.addComponent(true, p.retainedSlice());
    if (target < 0 && pending.readableBytes() >= Envelopes.HEADER_LENGTH) {
      long body = bodyLength(pending, 0);
      if (body > maxBodyLength) {
        discardStream = pending.getShort(2);
        discardBodyLength = body;
        long seen = pending.readableBytes();
        releasePending();
        discarding = Envelopes.HEADER_LENGTH + body;
        skip(ctx, seen);
        return;
      }
      target = Envelopes.HEADER_LENGTH + body;
    }
    if (target >= 0 && pending.readableBytes() >= target) {
      if (pending.readableBytes() > target) {
        throw CqlFrameException.connectionError(-1, "slices of " + pending.readableBytes()
            + " bytes run past their envelope of " + target + " bytes");
      }
      try {
        emit(ctx, pending);
      } finally {
        releasePending();
      }
    }
  }

  /** Fires {@code n} bytes of the streamed body as a chunk. */
  private void chunk(ChannelHandlerContext ctx, ByteBuf p, int index, int n) {
    if (n > streamLeft) {
      throw CqlFrameException.connectionError(-1,
          "slices run past their envelope by " + (n - streamLeft) + " bytes");
    }
    streamLeft -= n;
    ctx.fireChannelRead(new FrameChunk(streamingId, p.retainedSlice(index, n), streamLeft == 0));
  }

  /** Skips {@code n} bytes of an envelope over the limit; reports it once it is all skipped. */
  private void skip(ChannelHandlerContext ctx, long n) {
    discarding -= n;
    if (discarding < 0) {
      throw CqlFrameException.connectionError(-1,
          "slices run past their envelope by " + (-discarding) + " bytes");
    }
    if (discarding == 0) {
      ctx.fireExceptionCaught(tooLong(discardStream, discardBodyLength));
    }
  }

  /** The frame-local error for an envelope whose body is over the limit. */
  private CqlFrameException tooLong(int streamId, long bodyLength) {
    return CqlFrameException.frameError(streamId, -1,
        "body length: " + bodyLength + " (expected: <= " + maxBodyLength
            + ", ParseLimits.maxFrameBodyLength); frame skipped",
        new TooLongFrameException("frame body of " + bodyLength + " bytes"));
  }

  /** Checks the version byte, then returns the envelope's signed body length. */
  private static long bodyLength(ByteBuf buf, int header) {
    int versionByte = buf.getUnsignedByte(header);
    int version = versionByte & 0x7F;
    if (version < 5 || version > 6) {
      throw CqlFrameException.connectionError(-1, String.format(
          "version byte in segment: 0x%02x (expected: 0x05, 0x06, 0x85 or 0x86)", versionByte));
    }
    int length = buf.getInt(header + 5);
    if (length < 0) {
      throw CqlFrameException.connectionError(-1,
          "body length in segment: " + length + " (expected: >= 0)");
    }
    return length;
  }

  private void emit(ChannelHandlerContext ctx, ByteBuf envelope) {
    Frame frame;
    try {
      frame = Envelopes.decode(ctx.alloc(), envelope, -1, Compression.NONE, maxBodyLength);
    } catch (CqlFrameException e) {
      if (e.connectionLevel()) {
        throw e;
      }
      ctx.fireExceptionCaught(e);
      return;
    }
    ctx.fireChannelRead(frame);
  }

  private void releasePending() {
    if (pending != null) {
      pending.release();
      pending = null;
    }
    target = -1;
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) throws Exception {
    releasePending();
    super.handlerRemoved(ctx);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    boolean incomplete = (pending != null || discarding > 0 || streamLeft > 0) && !broken;
    int held = bufferedBytes();
    releasePending();
    if (incomplete) {
      broken = true;
      ctx.fireExceptionCaught(CqlFrameException.connectionError(-1,
          "input ends inside an envelope split across segments, after " + held + " bytes"));
    }
    super.channelInactive(ctx);
  }
}
