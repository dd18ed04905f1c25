package io.cqlrows.netty.internal;

import io.cqlrows.core.ParseLimits;
import io.cqlrows.netty.frame.Compression;
import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.netty.frame.CqlFrameException.Reason;
import io.cqlrows.netty.frame.Frame;
import io.cqlrows.netty.frame.FrameChunk;
import io.cqlrows.netty.frame.FrameHead;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageDecoder;
import io.netty.handler.codec.TooLongFrameException;
import java.util.List;

/**
 * Turns v5 {@link Segment}s into {@link Frame}s (native_protocol_v5.spec section 2): a
 * self-contained segment holds one or more whole envelopes, each decoded in turn; a large envelope
 * arrives as consecutive non-self-contained slices.
 *
 * <p><b>States.</b> {@code IDLE}: between envelopes. {@code GATHER}: the slices of a large envelope
 * are gathered without copying into a {@link CompositeByteBuf} until the length in its header is
 * reached. {@code STREAM}: a large RESULT body goes on as {@link FrameChunk}s, one per slice
 * ({@link #streamResultsFrom}). {@code DISCARD}: the rest of the slices of an envelope that
 * decompressed to too much (below) are released as they come.
 *
 * <p><b>Decompression.</b> LZ4 segments can make an envelope gathered from them far larger than its
 * bytes on the wire (2,000 segments of 600 bytes make 256 MB). What decompression added to each
 * slice ({@link Segment#gain()}: its length less its compressed length) is added up per envelope,
 * as each slice arrives and before it is kept; above {@link ParseLimits#maxDecompressedLength()}
 * the slices gathered are released, a frame-local {@link CqlFrameException} ({@link
 * CqlFrameException.Reason#DECOMPRESSED_TOO_LARGE}) is fired for the envelope's stream at once, and
 * the rest of its slices, which the segments delimit, are discarded; the connection goes on. A
 * slice stored uncompressed adds nothing, and a compressed one adds only what it gained: the bytes
 * that came over the wire are the peer's to send, and {@link ParseLimits#maxFrameBodyLength()}
 * bounds them. Envelopes inside one self-contained segment are not counted (a segment's payload is
 * at most 128 KiB), nor are streamed bodies, whose slices are passed on one at a time: the decoder
 * holds none of them, and what the handlers after it keep of a streamed body is bounded by the body
 * length alone.
 *
 * <p><b>Errors.</b> Segments that contradict the envelopes in them (a self-contained segment that
 * ends inside an envelope, slices that run past their envelope, a self-contained segment while an
 * envelope is incomplete), a bad version byte, a negative length, and a length over {@link
 * ParseLimits#maxFrameBodyLength()} (for the envelope's stream; the cause is Netty's {@link
 * TooLongFrameException}) are connection-level: fired once, then all further segments are released
 * unread ({@link Breakage}). The segments' CRCs vouch for their bytes, but inside them envelopes
 * are delimited by their lengths alone, so the decoder does not skip an envelope whose length it
 * does not believe. A bad opcode or prelude is frame-local and fired in order with the frames.
 * Errors name the segment they were found in by its offset ({@link Segment#offset()}).
 *
 * <p><b>Ownership.</b> Segments are released after decoding (by {@link MessageToMessageDecoder});
 * slices kept for gathering are retained and released once the envelope is decoded. Frames are
 * fired directly, in order; the next handler owns each frame and releases it.
 *
 * <p><b>Threading.</b> One instance per channel; not thread-safe, not {@code @Sharable}.
 */
public final class SegmentToFrameDecoder extends MessageToMessageDecoder<Segment> {
  /** Above this many slices the composite consolidates, bounding per-slice overhead. */
  private static final int MAX_COMPONENTS = 1024;

  /** The structure of an error in an envelope's header. */
  static final String ENVELOPE = "envelope in segment";

  private enum State {
    IDLE,
    GATHER,
    STREAM,
    DISCARD
  }

  private final ParseLimits limits;
  private final int maxBodyLength;
  private final int maxDecompressed;
  private final Breakage breakage = new Breakage();
  private final BodyStreaming streaming = new BodyStreaming();
  private State state = State.IDLE;

  /** Slices of the envelope being gathered (GATHER), or null. */
  private CompositeByteBuf pending;

  /** 9 + body length of the envelope being gathered, or -1 while its header is incomplete. */
  private long target = -1;

  /** Offset of the segment being decoded, or -1. */
  private long segmentOffset = -1;

  /** Offset of the segment the envelope being gathered starts in, or -1. */
  private long envelopeOffset = -1;

  /** Stream id of the envelope being gathered, once its header is in. */
  private int envelopeStream;

  /** Bytes decompression added to the slices of the envelope being gathered. */
  private long decompressed;

  /** Bytes still to come of an envelope that decompressed to too much (DISCARD). */
  private long discardLeft;

  /** A decoder with {@link ParseLimits#defaults()}. */
  public SegmentToFrameDecoder() {
    this(ParseLimits.defaults());
  }

  /**
   * A decoder for one connection.
   *
   * @param limits {@link ParseLimits#maxFrameBodyLength()} bounds an envelope's body, {@link
   *     ParseLimits#maxDecompressedLength()} what an envelope gathered from slices may gain from
   *     LZ4
   */
  public SegmentToFrameDecoder(ParseLimits limits) {
    super(Segment.class);
    this.limits = limits;
    this.maxBodyLength = limits.maxFrameBodyLength();
    this.maxDecompressed = limits.maxDecompressedLength();
  }

  /**
   * Streams large results, as {@link BytesToFrameDecoder#streamResultsFrom}: a RESULT envelope
   * split across segments whose body has at least {@code minBodyBytes} bytes is emitted as a {@link
   * FrameHead} from its first segment, then one {@link FrameChunk} per segment (a retained slice of
   * its payload, decompressed if the segments are), instead of being gathered.
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
      segmentOffset = segment.offset();
      if (segment.selfContained()) {
        selfContained(ctx, p);
        return;
      }
      switch (state) {
        case IDLE -> firstSlice(ctx, segment);
        case GATHER -> gather(ctx, segment);
        case STREAM -> chunk(ctx, p, p.readerIndex(), p.readableBytes());
        case DISCARD -> discard(p.readableBytes());
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
      throw mismatch(
          "self-contained segment while a large envelope is incomplete (" + incomplete() + ")");
    }
    int i = p.readerIndex();
    int end = p.writerIndex();
    while (i < end) {
      if (end - i < Envelopes.HEADER_LENGTH) {
        throw mismatch("self-contained segment ends inside an envelope header");
      }
      long length = Envelopes.HEADER_LENGTH + bodyLength(p, i, segmentOffset);
      if (length > end - i) {
        throw mismatch(
            "envelope of "
                + length
                + " bytes runs past its self-contained segment ("
                + (end - i)
                + " bytes left)");
      }
      emit(ctx, p.slice(i, (int) length));
      i += (int) length;
    }
  }

  /** The first slice of a large envelope: streamed, or gathered. */
  @SuppressWarnings("ReferenceEquality") // WAIT is a sentinel instance
  private void firstSlice(ChannelHandlerContext ctx, Segment segment) {
    ByteBuf p = segment.payload();
    if (streaming.threshold() > 0) {
      Envelopes.StreamStart s =
          Envelopes.streamStart(
              p, p.readerIndex(), p.writerIndex(), -1, streaming.threshold(), maxBodyLength);
      if (s != null && s != Envelopes.StreamStart.WAIT) {
        bodyLength(p, p.readerIndex(), segmentOffset); // the checks every envelope gets
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
    envelopeOffset = segmentOffset;
    decompressed = 0;
    state = State.GATHER;
    gather(ctx, segment);
  }

  /**
   * Keeps a slice of the envelope being gathered, unless the envelope's decompressed slices would
   * then be over the limit; emits the envelope once its slices reach its length.
   */
  private void gather(ChannelHandlerContext ctx, Segment segment) {
    ByteBuf p = segment.payload();
    decompressed += segment.gain();
    boolean kept = false;
    if (target < 0) {
      // the slices so far hold less than the 9-byte header: keep this one to read it
      pending.addComponent(true, p.retainedSlice());
      kept = true;
      if (pending.readableBytes() < Envelopes.HEADER_LENGTH) {
        return;
      }
      target = Envelopes.HEADER_LENGTH + bodyLength(pending, 0, envelopeOffset);
      envelopeStream = pending.getShort(2);
    }
    long held = (long) pending.readableBytes() + (kept ? 0 : p.readableBytes());
    if (held > target) {
      throw mismatch(
          "slices of " + held + " bytes run past their envelope of " + target + " bytes");
    }
    if (decompressed > maxDecompressed) {
      long body = target - Envelopes.HEADER_LENGTH;
      discardLeft = target - held;
      releasePending();
      state = discardLeft == 0 ? State.IDLE : State.DISCARD;
      ctx.fireExceptionCaught(decompressedTooLarge(body));
      return;
    }
    if (!kept) {
      pending.addComponent(true, p.retainedSlice());
    }
    if (held == target) {
      try {
        emit(ctx, pending);
      } finally {
        releasePending();
        state = State.IDLE;
      }
    }
  }

  /** Releases {@code n} more bytes of an envelope that decompressed to too much. */
  private void discard(int n) {
    if (n > discardLeft) {
      throw mismatch("slices run past their envelope by " + (n - discardLeft) + " bytes");
    }
    discardLeft -= n;
    if (discardLeft == 0) {
      state = State.IDLE;
    }
  }

  /** The frame-local error for the envelope being gathered: its slices decompress to too much. */
  private CqlFrameException decompressedTooLarge(long bodyLength) {
    return FrameErrors.frameError(
        Reason.DECOMPRESSED_TOO_LARGE,
        envelopeStream,
        envelopeOffset,
        "body of "
            + bodyLength
            + " bytes in LZ4 segments: "
            + decompressed
            + " bytes added by decompression so far (expected: <= "
            + maxDecompressed
            + ", ParseLimits.maxDecompressedLength)",
        null);
  }

  /** What there is of the envelope being gathered, streamed or discarded, for messages. */
  private String incomplete() {
    return switch (state) {
      case GATHER -> bufferedBytes() + " bytes of it gathered";
      case STREAM -> streaming.left() + " bytes of its streamed body missing";
      case DISCARD -> discardLeft + " bytes of a failed one to discard";
      default -> "nothing of it";
    };
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

  /** A connection-level error in the segment being decoded. */
  private CqlFrameException mismatch(String detail) {
    return FrameErrors.connectionError(
        Reason.SEGMENT_MISMATCH, segmentOffset, BytesToSegmentDecoder.SEGMENT, detail, null);
  }

  /**
   * Checks the header of the envelope at {@code header}, then returns its body length: a version
   * byte of 5 or 6, a length from 0 to the limit.
   *
   * @param at offset of the segment the header is in, or -1
   */
  private long bodyLength(ByteBuf buf, int header, long at) {
    int versionByte = buf.getUnsignedByte(header);
    int version = versionByte & 0x7F;
    if (version < 5 || version > 6) {
      throw FrameErrors.connectionError(
          Reason.BAD_VERSION,
          at,
          ENVELOPE,
          String.format(
              "version byte in segment: 0x%02x (expected: 0x05, 0x06, 0x85 or 0x86)", versionByte),
          null);
    }
    int length = buf.getInt(header + 5);
    if (length < 0) {
      throw FrameErrors.connectionError(
          Reason.BAD_LENGTH,
          at,
          ENVELOPE,
          "body length in segment: " + length + " (expected: >= 0)",
          null);
    }
    if (length > maxBodyLength) {
      throw FrameErrors.connectionError(
          Reason.FRAME_TOO_LARGE,
          buf.getShort(header + 2),
          at,
          ENVELOPE,
          "body length in segment: "
              + length
              + " (expected: <= "
              + maxBodyLength
              + ", ParseLimits.maxFrameBodyLength)",
          new TooLongFrameException("frame body of " + length + " bytes"));
    }
    return length;
  }

  private void emit(ChannelHandlerContext ctx, ByteBuf envelope) {
    Frame frame;
    try {
      frame = Envelopes.decode(ctx.alloc(), envelope, -1, Compression.NONE, limits);
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
    discardLeft = 0;
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
    String what = incomplete();
    reset();
    if (incomplete) {
      breakage.fail(
          ctx,
          FrameErrors.connectionError(
              Reason.TRUNCATED,
              -1,
              null,
              "input ends inside an envelope split across segments (" + what + ")",
              null));
    }
    super.channelInactive(ctx);
  }
}
