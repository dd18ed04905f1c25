package io.cqlrows.netty.frame;

import io.cqlrows.core.CqlParseException;
import io.cqlrows.core.ParseLimits;
import io.cqlrows.netty.CqlFrameException;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.TooLongFrameException;
import java.nio.ByteOrder;
import java.util.List;

/**
 * Splits a connection's inbound bytes into {@link Frame}s: protocol v3/v4 framing, and the
 * unframed handshake envelopes of v5/v6 (SPEC §1.1-1.2). The version byte may be 3 to 6 in either
 * direction, so the same decoder reads captures of either side.
 *
 * <pre>
 * version(1) flags(1) stream(2) opcode(1) length(4) | [tracing_id][warnings][custom_payload] body
 * </pre>
 *
 * <p><b>Errors.</b> The header is checked before its length is trusted: a version byte outside
 * 3-6, a negative length, or the compression flag 0x01 on v3/v4 (compression is not negotiated
 * through this decoder) is a connection-level {@link CqlFrameException}. After one, the decoder is
 * broken: it releases all further input and emits nothing more. Frame-local problems are fired
 * with {@code ctx.fireExceptionCaught} as a {@link CqlFrameException} for the frame's stream, and
 * decoding continues with the next frame: a malformed prelude, an undefined opcode, and a body
 * longer than {@link ParseLimits#maxFrameBodyLength()} (the frame is skipped in Netty's discard
 * mode; the cause is Netty's {@link TooLongFrameException}). Input that ends inside a frame is a
 * connection-level error when the channel closes.
 *
 * <p><b>Ownership.</b> Input buffers are released as usual for a {@code ByteToMessageDecoder}.
 * Each emitted frame holds a retained slice of the input: Ownership transferred (the next handler
 * releases the frame).
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

  /** A decoder with {@link ParseLimits#defaults()}. */
  public BytesToFrameDecoder() {
    this(ParseLimits.defaults());
  }

  /**
   * A decoder for one connection.
   *
   * @param limits its {@link ParseLimits#maxFrameBodyLength()} bounds the frame body (prelude
   *     included)
   */
  public BytesToFrameDecoder(ParseLimits limits) {
    super(
        (int) Math.min(Integer.MAX_VALUE, (long) limits.maxFrameBodyLength() + HEADER_LENGTH),
        LENGTH_FIELD_OFFSET,
        LENGTH_FIELD_LENGTH,
        0,
        0,
        true);
    this.maxBodyLength = limits.maxFrameBodyLength();
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

  @Override
  protected Frame decode(ChannelHandlerContext ctx, ByteBuf in) throws Exception {
    int start = in.readerIndex();
    callStart = start;
    try {
      if (broken) {
        in.skipBytes(in.readableBytes());
        return null;
      }
      ByteBuf raw = (ByteBuf) super.decode(ctx, in);
      return raw == null ? null : toFrame(ctx, raw);
    } catch (TooLongFrameException e) {
      ctx.fireExceptionCaught(tooLong(e));
      return null;
    } catch (CqlFrameException e) {
      // only connection-level errors are thrown; frame-local ones are fired
      broken = true;
      in.skipBytes(in.readableBytes());
      throw e;
    } finally {
      consumed += in.readerIndex() - start;
    }
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
    if ((buf.getUnsignedByte(header + 1) & Frame.FLAG_COMPRESSION) != 0 && version < 5) {
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

  /** Decodes the prelude of a complete frame; null (and an error fired) if it is unusable. */
  private Frame toFrame(ChannelHandlerContext ctx, ByteBuf raw) {
    int h = raw.readerIndex();
    int versionByte = raw.getUnsignedByte(h);
    boolean response = (versionByte & 0x80) != 0;
    int flags = raw.getUnsignedByte(h + 1);
    int streamId = raw.getShort(h + 2);
    int opcodeByte = raw.getUnsignedByte(h + 4);
    long bodyStart = headerOffset + HEADER_LENGTH;
    Opcode opcode = Opcode.fromCode(opcodeByte);
    if (opcode == null) {
      ctx.fireExceptionCaught(CqlFrameException.frameError(streamId, headerOffset,
          String.format("opcode: 0x%02x (expected: an opcode of protocol v3-v5)", opcodeByte),
          null));
      return null;
    }
    // <header> <here> [tracing_id][warnings][custom_payload] body
    PreludeReader reader = new PreludeReader(raw, h + HEADER_LENGTH, raw.writerIndex());
    FramePrelude prelude;
    try {
      prelude = reader.read(flags, response);
    } catch (CqlParseException e) {
      ctx.fireExceptionCaught(CqlFrameException.frameError(
          streamId, bodyStart + Math.max(0, e.offset()), "malformed frame prelude: "
              + e.getMessage(), e));
      return null;
    }
    int from = reader.position();
    // nothing below can throw: retain now
    ByteBuf body = raw.retainedSlice(from, raw.writerIndex() - from);
    return new Frame(versionByte & 0x7F, response, flags, streamId, opcode, prelude, body,
        bodyStart + (from - h - HEADER_LENGTH));
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
