package io.cqlrows.netty.internal;

import io.cqlrows.core.ParseLimits;
import io.cqlrows.netty.CqlPipeline;
import io.cqlrows.netty.compression.Compression;
import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.netty.frame.Frame;
import io.cqlrows.netty.frame.Opcode;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.TooLongFrameException;
import java.nio.ByteOrder;
import java.util.List;

/**
 * Splits a connection's inbound bytes into {@link Frame}s: protocol v3/v4 framing, with the body
 * compression the connection negotiated (native_protocol_v4.spec sections 2 and 5), and the
 * unframed handshake envelopes of v5/v6 (native_protocol_v5.spec sections 2.3.1 and 2.4). The
 * version byte may be 3 to 6 in either direction, so the same decoder reads captures of either
 * side.
 *
 * <pre>
 * version(1) flags(1) stream(2) opcode(1) length(4) | [tracing_id][warnings][custom_payload] body
 * </pre>
 *
 * <p><b>v5.</b> After the server's READY or AUTHENTICATE a v5 connection switches to segments: a
 * driver calls {@link io.cqlrows.netty.CqlPipeline#switchToSegments} when it sees that response.
 * A decoder made by {@link #detecting} does it by itself (replay), and also tells LZ4 from
 * Snappy on the first compressed v3/v4 body.
 *
 * <p><b>Errors.</b> The header is checked before its length is trusted: a version byte outside
 * 3-6, a negative length, the compression flag 0x01 on v3/v4 when no compression was negotiated,
 * or a body that does not decompress is a connection-level {@link CqlFrameException}. After one,
 * the decoder is broken: it releases all further input and emits nothing more. Frame-local
 * problems are fired with {@code ctx.fireExceptionCaught} as a {@link CqlFrameException} for the
 * frame's stream, and decoding continues with the next frame: a malformed prelude, an undefined
 * opcode, and a body longer than {@link ParseLimits#maxFrameBodyLength()} (the frame is skipped in
 * Netty's discard mode; the cause is Netty's {@link TooLongFrameException}). Input that ends
 * inside a frame is a connection-level error when the channel closes.
 *
 * <p><b>Reads.</b> A frame of 64 KiB or more that arrives in several reads is copied once into a
 * buffer of its length (grown to it in bounded steps: see {@link FrameCumulator}), not into
 * buffers that double as they fill. Smaller frames are merged as Netty does.
 *
 * <p><b>Ownership.</b> Input buffers are released as usual for a {@code ByteToMessageDecoder}.
 * Each emitted frame holds a retained slice of the input (or of its decompressed body): Ownership
 * transferred (the next handler releases the frame).
 *
 * <p><b>Threading.</b> One instance per channel; not thread-safe, not {@code @Sharable}.
 */
public final class BytesToFrameDecoder extends LengthFieldBasedFrameDecoder {
  /** Header length: version, flags, stream, opcode, length. */
  public static final int HEADER_LENGTH = 9;

  private static final int LENGTH_FIELD_OFFSET = 5;
  private static final int LENGTH_FIELD_LENGTH = 4;
  private static final int MIN_VERSION = 3;
  private static final int MAX_VERSION = 6;

  /** Largest body accepted, prelude included. */
  private final int maxBodyLength;
  private final ParseLimits limits;
  /** Bytes of the connection's stream consumed before the current decode call. */
  private long consumed;
  /** Reader index of the input when the current decode call began. */
  private int callStart;
  /** Connection offset of the header being decoded, or -1. */
  private long headerOffset = -1;
  /** Stream id of the header being decoded. */
  private int headerStreamId = -1;
  /** Body length of the header being decoded. */
  private int headerBodyLength;
  /** Set by a connection-level error: all further input is released unread. */
  private boolean broken;
  /** How v3/v4 bodies with flag 0x01 are compressed; null while detecting. */
  private Compression compression;
  /** Whether to switch to segments by itself after a v5 READY, AUTHENTICATE or STARTUP. */
  private final boolean detecting;
  /** RESULT bodies of at least this many bytes are streamed; 0: never. */
  private int streamFrom;
  /** Bytes still to come of the body being streamed; 0 when none is. */
  private int streamLeft;
  /** Stream id of the body being streamed. */
  private int streamingId;
  /** Bytes Netty still discards of a frame over the limit: they are no header to stream. */
  private long discardLeft;
  /** Copies the reads of a large frame once (see {@link FrameCumulator}). */
  private final FrameCumulator cumulator = new FrameCumulator();

  /** A decoder without compression, with {@link ParseLimits#defaults()}. */
  public BytesToFrameDecoder() {
    this(ParseLimits.defaults());
  }

  /** A decoder for a connection without compression. */
  public BytesToFrameDecoder(ParseLimits limits) {
    this(limits, Compression.NONE);
  }

  /**
   * A decoder for one connection.
   *
   * @param limits its {@link ParseLimits#maxFrameBodyLength()} bounds the frame body (prelude
   *     included), compressed and decompressed
   * @param compression what the STARTUP negotiated; applies to v3/v4 bodies with flag 0x01
   */
  public BytesToFrameDecoder(ParseLimits limits, Compression compression) {
    this(limits, java.util.Objects.requireNonNull(compression, "compression"), false);
  }

  /**
   * A decoder for a capture whose settings are unknown (replay): it tells LZ4 from Snappy on the
   * first compressed v3/v4 body, and after a v5 READY or AUTHENTICATE response (or a v5 STARTUP
   * request, in a client-to-server capture) it replaces itself with the segment decoders, telling
   * their header format from the first segment's CRC24.
   */
  public static BytesToFrameDecoder detecting(ParseLimits limits) {
    return new BytesToFrameDecoder(limits, null, true);
  }

  private BytesToFrameDecoder(ParseLimits limits, Compression compression, boolean detecting) {
    super(
        (int) Math.min(Integer.MAX_VALUE, (long) limits.maxFrameBodyLength() + HEADER_LENGTH),
        LENGTH_FIELD_OFFSET,
        LENGTH_FIELD_LENGTH,
        0,
        0,
        true);
    this.maxBodyLength = limits.maxFrameBodyLength();
    this.limits = limits;
    this.compression = compression;
    this.detecting = detecting;
    setCumulator(cumulator);
  }

  /**
   * Streams large results: an uncompressed RESULT response whose body (prelude included) has at
   * least {@code minBodyBytes} bytes is emitted as a {@link FrameHead} as soon as its header and
   * prelude are in, then as {@link FrameChunk}s carrying the body's bytes as they arrive, instead
   * of one {@link Frame} once it is complete; the decoder then holds no more than the bytes of
   * one read. {@link io.cqlrows.netty.rows.RowsFrameHandler} turns them back into rows (or into
   * a whole {@link Frame} for the handlers after it). Compressed v3/v4 bodies are never streamed
   * (they decompress whole); the segment decoders this decoder switches to inherit the setting
   * (v5 envelopes split across segments stream, compressed or not).
   *
   * @param minBodyBytes the smallest body streamed, at least 1; 0 turns streaming off (the
   *     default)
   * @return this decoder
   */
  public BytesToFrameDecoder streamResultsFrom(int minBodyBytes) {
    if (minBodyBytes < 0) {
      throw new IllegalArgumentException("minBodyBytes: " + minBodyBytes + " (expected: >= 0)");
    }
    this.streamFrom = minBodyBytes;
    return this;
  }

  /** The v3/v4 body compression in use; null while a detecting decoder has not seen one. */
  public Compression compression() {
    return compression;
  }

  /** Bytes of the inbound stream consumed so far: the offset of the next frame header. */
  public long consumedBytes() {
    return consumed;
  }

  /** Bytes received but not yet decoded: the start of an incomplete frame. */
  public int bufferedBytes() {
    return actualReadableBytes();
  }

  /** True after a connection-level error: all further input is discarded. */
  public boolean isBroken() {
    return broken;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
    if (broken && msg instanceof ByteBuf discarded) {
      discarded.release();
      return;
    }
    super.channelRead(ctx, msg);
  }

  /** Returns a {@link Frame}, or when streaming a {@link FrameHead} or {@link FrameChunk}. */
  @Override
  protected Object decode(ChannelHandlerContext ctx, ByteBuf in) throws Exception {
    int start = in.readerIndex();
    callStart = start;
    boolean wasDiscarding = discardLeft > 0;
    try {
      if (broken) {
        in.skipBytes(in.readableBytes());
        return null;
      }
      if (streamLeft > 0) {
        int n = Math.min(in.readableBytes(), streamLeft);
        if (n == 0) {
          return null;
        }
        streamLeft -= n;
        return new FrameChunk(streamingId, in.readRetainedSlice(n), streamLeft == 0);
      }
      if (streamFrom > 0 && !wasDiscarding) {
        Envelopes.StreamStart s = Envelopes.streamStart(in, start, in.writerIndex(), consumed,
            streamFrom, maxBodyLength);
        if (s == Envelopes.StreamStart.WAIT) {
          cumulator.merge(); // only the prelude is awaited
          return null;
        }
        if (s != null) {
          cumulator.merge(); // the body is handed on read by read: nothing large accumulates
          in.skipBytes(s.length());
          streamLeft = s.head().bodyLength();
          streamingId = s.head().streamId();
          return s.head();
        }
      }
      ByteBuf raw = (ByteBuf) super.decode(ctx, in);
      if (raw == null) {
        planCumulation(in);
        return null;
      }
      cumulator.merge();
      Frame frame = toFrame(ctx, raw);
      if (frame != null && detecting && startsSegments(frame)) {
        switchToSegments(ctx, SegmentFormat.DETECT, consumed + (in.readerIndex() - start));
      }
      return frame;
    } catch (TooLongFrameException e) {
      // Netty discards the rest of the frame over the next reads
      discardLeft = HEADER_LENGTH + (long) headerBodyLength - (in.readerIndex() - start);
      wasDiscarding = false;
      cumulator.merge();
      ctx.fireExceptionCaught(tooLong(e));
      return null;
    } catch (CqlFrameException e) {
      // only connection-level errors are thrown; frame-local ones are fired
      cumulator.merge();
      broken = true;
      in.skipBytes(in.readableBytes());
      throw e;
    } finally {
      consumed += in.readerIndex() - start;
      if (wasDiscarding) {
        discardLeft = Math.max(0, discardLeft - (in.readerIndex() - start));
      }
    }
  }

  /**
   * Tells the cumulator about the frame the decoder waits for. When the length decoder returns
   * nothing and a whole header is buffered, that header was checked (a frame too long for the
   * limit was skipped and its bytes are gone): the frame at the reader index is incomplete.
   */
  private void planCumulation(ByteBuf in) {
    if (in.readableBytes() < HEADER_LENGTH) {
      cumulator.merge();
      return;
    }
    cumulator.expect((int) Math.min(Integer.MAX_VALUE,
        HEADER_LENGTH + (long) in.getInt(in.readerIndex() + LENGTH_FIELD_OFFSET)));
  }

  /**
   * Checks the header before the length is trusted (the driver's {@code BytesToSegmentDecoder}
   * does the same with its CRC). The length is a signed {@code [int]}: Netty would read it
   * unsigned.
   */
  @Override
  protected long getUnadjustedFrameLength(ByteBuf buf, int offset, int length, ByteOrder order) {
    int header = offset - LENGTH_FIELD_OFFSET;
    headerOffset = consumed + (header - callStart);
    int versionByte = buf.getUnsignedByte(header);
    int version = versionByte & 0x7F;
    if (version < MIN_VERSION || version > MAX_VERSION) {
      throw CqlFrameException.connectionError(headerOffset, String.format(
          "version byte: 0x%02x (expected: protocol version %d-%d, 0x03-0x06 or 0x83-0x86)",
          versionByte, MIN_VERSION, MAX_VERSION));
    }
    if ((buf.getUnsignedByte(header + 1) & Frame.FLAG_COMPRESSION) != 0 && version < 5
        && compression == Compression.NONE) {
      throw CqlFrameException.connectionError(headerOffset,
          "frame body is compressed (flag 0x01) but no compression was negotiated");
    }
    int bodyLength = buf.getInt(offset);
    if (bodyLength < 0) {
      throw CqlFrameException.connectionError(headerOffset,
          "body length: " + bodyLength + " (expected: >= 0)");
    }
    headerStreamId = buf.getShort(header + 2);
    headerBodyLength = bodyLength;
    return bodyLength;
  }

  /**
   * Not retained: the slice never escapes {@link #decode}, which retains only the body, once the
   * prelude has been checked.
   */
  @Override
  protected ByteBuf extractFrame(ChannelHandlerContext ctx, ByteBuf buffer, int index, int length) {
    return buffer.slice(index, length);
  }

  /**
   * Decompresses and reads the prelude of a complete frame; null (and an error fired) if the frame
   * is unusable. Connection-level errors are thrown.
   */
  private Frame toFrame(ChannelHandlerContext ctx, ByteBuf raw) {
    try {
      if (compression == null && isCompressed(raw)) {
        compression = detectCompression(ctx, raw);
      }
      Compression c = compression == null ? Compression.NONE : compression;
      return Envelopes.decode(ctx.alloc(), raw, headerOffset, c, maxBodyLength);
    } catch (CqlFrameException e) {
      if (e.connectionLevel()) {
        throw e;
      }
      ctx.fireExceptionCaught(e);
      return null;
    }
  }

  private static boolean isCompressed(ByteBuf raw) {
    int h = raw.readerIndex();
    return (raw.getUnsignedByte(h + 1) & Frame.FLAG_COMPRESSION) != 0
        && (raw.getUnsignedByte(h) & 0x7F) < 5;
  }

  /** The compression of the first compressed body: whichever of LZ4 and Snappy decodes it. */
  private Compression detectCompression(ChannelHandlerContext ctx, ByteBuf raw) {
    ByteBuf body = raw.slice(raw.readerIndex() + HEADER_LENGTH, raw.readableBytes() - HEADER_LENGTH);
    for (Compression c : new Compression[] {Compression.LZ4, Compression.SNAPPY}) {
      try {
        Envelopes.decompress(ctx.alloc(), body, headerOffset, c, maxBodyLength).release();
        return c;
      } catch (CqlFrameException e) {
        // not this one
      }
    }
    throw CqlFrameException.connectionError(headerOffset,
        "compressed frame body (flag 0x01) is neither LZ4 nor Snappy");
  }

  /** Whether segments follow this frame on a v5 connection (native_protocol_v5.spec 2.3.1). */
  private static boolean startsSegments(Frame frame) {
    if (frame.version() < 5) {
      return false;
    }
    return frame.isResponse()
        ? frame.opcode() == Opcode.READY || frame.opcode() == Opcode.AUTHENTICATE
        : frame.opcode() == Opcode.STARTUP;
  }

  /**
   * Replaces this decoder with a {@link BytesToSegmentDecoder} and a {@link
   * SegmentToFrameDecoder}; the bytes it still holds go to the new decoders. Call from the
   * channel's event loop, e.g. from the handler that received READY.
   *
   * @param format the segment header format ({@link SegmentFormat#LZ4} if LZ4 was negotiated)
   */
  public void switchToSegments(ChannelHandlerContext ctx, SegmentFormat format) {
    switchToSegments(ctx, format, consumed);
  }

  private void switchToSegments(ChannelHandlerContext ctx, SegmentFormat format, long offset) {
    ChannelPipeline p = ctx.pipeline();
    p.addAfter(ctx.name(), CqlPipeline.BYTES_TO_SEGMENT_DECODER,
        new BytesToSegmentDecoder(format, offset));
    p.addAfter(CqlPipeline.BYTES_TO_SEGMENT_DECODER, CqlPipeline.SEGMENT_TO_FRAME_DECODER,
        new SegmentToFrameDecoder(limits).streamResultsFrom(streamFrom));
    p.remove(this);
  }

  private CqlFrameException tooLong(TooLongFrameException e) {
    return CqlFrameException.frameError(headerStreamId, headerOffset,
        "body length: " + headerBodyLength + " (expected: <= " + maxBodyLength
            + ", ParseLimits.maxFrameBodyLength); frame skipped", e);
  }

  /** Reports input that ends inside a frame, once the whole frames before it are decoded. */
  @Override
  protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out)
      throws Exception {
    super.decodeLast(ctx, in, out);
    if (!broken && streamLeft > 0 && !in.isReadable()) {
      broken = true;
      throw CqlFrameException.connectionError(consumed, "input ends inside a streamed frame "
          + "body, " + streamLeft + " bytes before its end", "end of input");
    }
    if (broken || !in.isReadable()) {
      return;
    }
    int have = in.readableBytes();
    long at = consumed;
    String of = have >= HEADER_LENGTH && headerOffset == at
        ? " of its " + (HEADER_LENGTH + (long) headerBodyLength) : "";
    broken = true;
    in.skipBytes(have);
    consumed += have;
    throw CqlFrameException.connectionError(at,
        "input ends inside a frame, after " + have + of + " bytes");
  }
}
