package io.cqlrows.netty.internal;

import io.cqlrows.core.ParseLimits;
import io.cqlrows.netty.compression.Compression;
import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.netty.frame.CqlFrameException.Reason;
import io.cqlrows.netty.frame.Frame;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageDecoder;
import io.netty.handler.codec.TooLongFrameException;
import java.util.List;

/**
 * Turns v5 {@link Segment}s into {@link Frame}s (native_protocol_v5.spec section 2): a
 * self-contained segment holds one or more whole envelopes, each decoded in turn; a large
 * envelope arrives as consecutive non-self-contained slices.
 *
 * <p><b>States.</b> {@code IDLE}: between envelopes. {@code GATHER}: the slices of a large
 * envelope are gathered without copying into a {@link CompositeByteBuf} until the length in its
 * header is reached. {@code STREAM}: a large RESULT body goes on as {@link FrameChunk}s, one per
 * slice ({@link #streamResultsFrom}). {@code SKIP}: the slices of an envelope whose body is over
 * {@link ParseLimits#maxFrameBodyLength()} are released as they come, and a frame-local {@link
 * CqlFrameException} (cause: Netty's {@link TooLongFrameException}) is fired for its stream once
 * they are all skipped. An envelope over the limit inside a self-contained segment is skipped and
 * reported the same way.
 *
 * <p><b>Errors.</b> Segments that contradict the envelopes in them (a self-contained segment that
 * ends inside an envelope, slices that run past their envelope, a self-contained segment while an
 * envelope is incomplete) and a bad version byte or length are connection-level: fired once, then
 * all further segments are released unread ({@link Breakage}). A bad opcode or prelude is
 * frame-local and fired in order with the frames.
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

  private enum State { IDLE, GATHER, STREAM, SKIP }

  private final int maxBodyLength;
  private final Breakage breakage = new Breakage();
  private final BodyStreaming streaming = new BodyStreaming();
  private State state = State.IDLE;
  /** Slices of the envelope being gathered (GATHER), or null. */
  private CompositeByteBuf pending;
  /** 9 + body length of the envelope being gathered, or -1 while its header is incomplete. */
  private long target = -1;
  /** Bytes still to skip of an envelope over the limit (SKIP), its stream and body length. */
  private long skipLeft;
  private int skipStream;
  private long skipBodyLength;

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
    streaming.threshold(minBodyBytes);
    return this;
  }

  /** True after a connection-level error: all further segments are discarded. */
  public boolean isBroken() {
    return breakage.isBroken();
  }

  /** Bytes of an incomplete large envelope held so far. */
  public int bufferedBytes() {
    return pending == null ? 0 : pending.readableBytes();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
    if (!breakage.dropped(msg)) {
      super.channelRead(ctx, msg);
    }
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, Segment segment, List<Object> out) {
    try {
      ByteBuf p = segment.payload();
      if (segment.selfContained()) {
        selfContained(ctx, p);
        return;
      }
      switch (state) {
        case IDLE -> firstSlice(ctx, p);
        case GATHER -> gather(ctx, p);
        case STREAM -> chunk(ctx, p, p.readerIndex(), p.readableBytes());
        case SKIP -> skip(ctx, p.readableBytes());
        default -> throw new AssertionError(state);
      }
    } catch (CqlFrameException e) {
      // the steps throw only connection-level errors; frame-local ones are fired in order
      reset();
      breakage.fail(ctx, e);
    }
  }

  private void selfContained(ChannelHandlerContext ctx, ByteBuf p) {
    if (state != State.IDLE) {
      throw mismatch("self-contained segment while a large envelope is incomplete ("
          + bufferedBytes() + " bytes of it gathered, " + streaming.left()
          + " bytes of a streamed body missing)");
    }
    int i = p.readerIndex();
    int end = p.writerIndex();
    while (i < end) {
      if (end - i < Envelopes.HEADER_LENGTH) {
        throw mismatch("self-contained segment ends inside an envelope header");
      }
      long body = bodyLength(p, i);
      long length = Envelopes.HEADER_LENGTH + body;
      if (length > end - i) {
        throw mismatch("envelope of " + length + " bytes runs past its self-contained segment ("
            + (end - i) + " bytes left)");
      }
      if (body > maxBodyLength) {
        ctx.fireExceptionCaught(tooLong(p.getShort(i + 2), body));
      } else {
        emit(ctx, p.slice(i, (int) length));
      }
      i += (int) length;
    }
  }

  /** The first slice of a large envelope: streamed, or gathered. */
  private void firstSlice(ChannelHandlerContext ctx, ByteBuf p) {
    if (streaming.threshold() > 0) {
      Envelopes.StreamStart s = Envelopes.streamStart(p, p.readerIndex(), p.writerIndex(), -1,
          streaming.threshold(), maxBodyLength);
      if (s != null && s != Envelopes.StreamStart.WAIT) {
        bodyLength(p, p.readerIndex()); // the version checks every envelope gets
        ctx.fireChannelRead(streaming.start(s.head()));
        state = State.STREAM;
        int rest = p.readableBytes() - s.length();
        if (rest > 0) {
          chunk(ctx, p, p.readerIndex() + s.length(), rest);
        }
        return;
      }
      // WAIT: a prelude longer than the first slice; gathered like any envelope
    }
    pending = ctx.alloc().compositeBuffer(MAX_COMPONENTS);
    target = -1;
    state = State.GATHER;
    gather(ctx, p);
  }

  private void gather(ChannelHandlerContext ctx, ByteBuf p) {
    pending.addComponent(true, p.retainedSlice());
    if (target < 0 && pending.readableBytes() >= Envelopes.HEADER_LENGTH) {
      long body = bodyLength(pending, 0);
      if (body > maxBodyLength) {
        skipStream = pending.getShort(2);
        skipBodyLength = body;
        long seen = pending.readableBytes();
        releasePending();
        skipLeft = Envelopes.HEADER_LENGTH + body;
        state = State.SKIP;
        skip(ctx, seen);
        return;
      }
      target = Envelopes.HEADER_LENGTH + body;
    }
    if (target >= 0 && pending.readableBytes() >= target) {
      if (pending.readableBytes() > target) {
        throw mismatch("slices of " + pending.readableBytes() + " bytes run past their envelope"
            + " of " + target + " bytes");
      }
      try {
        emit(ctx, pending);
      } finally {
        releasePending();
        state = State.IDLE;
      }
    }
  }

  /** Fires {@code n} bytes of the streamed body as a chunk. */
  private void chunk(ChannelHandlerContext ctx, ByteBuf p, int index, int n) {
    if (n > streaming.left()) {
      throw mismatch("slices run past their envelope by " + (n - streaming.left()) + " bytes");
    }
    ctx.fireChannelRead(streaming.chunk(p, index, n));
    if (!streaming.active()) {
      state = State.IDLE;
    }
  }

  /** Skips {@code n} bytes of an envelope over the limit; reports it once it is all skipped. */
  private void skip(ChannelHandlerContext ctx, long n) {
    skipLeft -= n;
    if (skipLeft < 0) {
      throw mismatch("slices run past their envelope by " + (-skipLeft) + " bytes");
    }
    if (skipLeft == 0) {
      state = State.IDLE;
      ctx.fireExceptionCaught(tooLong(skipStream, skipBodyLength));
    }
  }

  /** The frame-local error for an envelope whose body is over the limit. */
  private CqlFrameException tooLong(int streamId, long bodyLength) {
    return CqlFrameException.frameError(Reason.FRAME_TOO_LARGE, streamId, -1,
        "body length: " + bodyLength + " (expected: <= " + maxBodyLength
            + ", ParseLimits.maxFrameBodyLength); frame skipped",
        new TooLongFrameException("frame body of " + bodyLength + " bytes"));
  }

  private static CqlFrameException mismatch(String detail) {
    return CqlFrameException.connectionError(Reason.SEGMENT_MISMATCH, -1, null, detail, null);
  }

  /** Checks the version byte, then returns the envelope's signed body length. */
  private static long bodyLength(ByteBuf buf, int header) {
    int versionByte = buf.getUnsignedByte(header);
    int version = versionByte & 0x7F;
    if (version < 5 || version > 6) {
      throw CqlFrameException.connectionError(Reason.BAD_VERSION, -1, null, String.format(
          "version byte in segment: 0x%02x (expected: 0x05, 0x06, 0x85 or 0x86)", versionByte),
          null);
    }
    int length = buf.getInt(header + 5);
    if (length < 0) {
      throw CqlFrameException.connectionError(Reason.BAD_LENGTH, -1, null,
          "body length in segment: " + length + " (expected: >= 0)", null);
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

  /** Back to IDLE, nothing held. */
  private void reset() {
    releasePending();
    state = State.IDLE;
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) throws Exception {
    releasePending();
    super.handlerRemoved(ctx);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    boolean incomplete = state != State.IDLE && !breakage.isBroken();
    int held = bufferedBytes();
    reset();
    if (incomplete) {
      breakage.fail(ctx, CqlFrameException.connectionError(Reason.TRUNCATED, -1, null,
          "input ends inside an envelope split across segments, after " + held + " bytes",
          null));
    }
    super.channelInactive(ctx);
  }
}
