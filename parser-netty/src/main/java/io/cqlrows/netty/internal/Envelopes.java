package io.cqlrows.netty.internal;

import io.cqlrows.core.ParseLimits;
import io.cqlrows.netty.frame.Compression;
import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.netty.frame.CqlFrameException.Reason;
import io.cqlrows.netty.frame.Frame;
import io.cqlrows.netty.frame.FrameHead;
import io.cqlrows.netty.frame.FramePrelude;
import io.cqlrows.netty.frame.Opcode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * Turns one complete envelope (9-byte header and body; native_protocol_v4.spec sections 2, 4 and 5)
 * into a {@link Frame}: decompresses a v3/v4 body that has flag 0x01, then reads the prelude.
 * Shared by the v3/v4 frame decoder and the v5 segment-to-frame decoder.
 *
 * <p>Errors: a body that cannot be decompressed is connection-level (the compression stream is
 * broken); a body that declares more uncompressed bytes than the limits allow, an undefined opcode
 * or a malformed prelude is frame-local. All are thrown as {@link CqlFrameException}, which the
 * decoders fire.
 *
 * <p><b>Ownership.</b> The envelope is borrowed. The frame holds a retained slice of it, or of the
 * decompressed body, taken after the last check that can throw. Stateless.
 */
final class Envelopes {
  /** Header length: version, flags, stream, opcode, length. */
  static final int HEADER_LENGTH = 9;

  private Envelopes() {}

  /**
   * Decodes one envelope.
   *
   * @param envelope exactly one envelope from its reader index to its writer index. Borrowed.
   * @param offset connection offset of the header, or -1 when unknown (inside segments)
   * @param compression how a v3/v4 body with flag 0x01 is compressed; {@link Compression#NONE}
   *     makes such a body a connection-level error. Ignored for v5+, where the flag is deprecated.
   * @param limits bound a decompressed body ({@link #maxDecompressed})
   */
  static Frame decode(
      ByteBufAllocator alloc,
      ByteBuf envelope,
      long offset,
      Compression compression,
      ParseLimits limits) {
    int h = envelope.readerIndex();
    int versionByte = envelope.getUnsignedByte(h);
    int version = versionByte & 0x7F;
    int flags = envelope.getUnsignedByte(h + 1);
    int streamId = envelope.getShort(h + 2);
    int opcodeByte = envelope.getUnsignedByte(h + 4);
    Opcode opcode = Opcode.fromCode(opcodeByte);
    if (opcode == null) {
      throw FrameErrors.frameError(
          Reason.UNKNOWN_OPCODE,
          streamId,
          offset,
          String.format("opcode: 0x%02x (expected: an opcode of protocol v3-v5)", opcodeByte),
          null);
    }
    ByteBuf body = envelope.slice(h + HEADER_LENGTH, envelope.writerIndex() - h - HEADER_LENGTH);
    if ((flags & Frame.FLAG_COMPRESSION) != 0 && version < 5) {
      ByteBuf plain = decompress(alloc, body, offset, streamId, compression, limits);
      try {
        return withPrelude(version, versionByte, flags, streamId, opcode, plain, -1);
      } finally {
        plain.release(); // the frame holds its own retained slice
      }
    }
    long bodyOffset = offset < 0 ? -1 : offset + HEADER_LENGTH;
    return withPrelude(version, versionByte, flags, streamId, opcode, body, bodyOffset);
  }

  /**
   * Decompresses a v3/v4 body (borrowed) into a new buffer, which the caller owns and releases. A
   * body that declares more than {@link #maxDecompressed} is a frame-local {@link
   * Reason#DECOMPRESSED_TOO_LARGE} for {@code streamId}, found before anything is allocated; any
   * other fault of the compressed bytes is a connection-level {@link Reason#CORRUPT_COMPRESSION}.
   *
   * @param offset connection offset of the frame header, or -1
   * @param streamId the frame's stream id
   */
  static ByteBuf decompress(
      ByteBufAllocator alloc,
      ByteBuf body,
      long offset,
      int streamId,
      Compression compression,
      ParseLimits limits) {
    int max = maxDecompressed(limits);
    try {
      switch (compression) {
        case LZ4:
          return Decompressors.lz4Body(alloc, body, max);
        case SNAPPY:
          return Decompressors.snappyBody(alloc, body, max);
        default:
          throw FrameErrors.connectionError(
              Reason.UNEXPECTED_COMPRESSION,
              offset,
              "frame body is compressed (flag 0x01) but no compression was negotiated");
      }
    } catch (CompressionException e) {
      if (e.fault() == CompressionException.Fault.LENGTH_OVER_LIMIT) {
        String name =
            max == limits.maxDecompressedLength() ? "maxDecompressedLength" : "maxFrameBodyLength";
        throw FrameErrors.frameError(
            Reason.DECOMPRESSED_TOO_LARGE,
            streamId,
            offset,
            compression
                + " frame body: uncompressed length: "
                + e.declaredLength()
                + " (expected: <= "
                + max
                + ", ParseLimits."
                + name
                + ")",
            e);
      }
      throw FrameErrors.connectionError(
          Reason.CORRUPT_COMPRESSION,
          offset,
          "frame header",
          compression + " frame body: " + e.getMessage(),
          e);
    }
  }

  /**
   * The most a compressed v3/v4 body may decompress to: {@link
   * ParseLimits#maxDecompressedLength()}, and no more than {@link
   * ParseLimits#maxFrameBodyLength()}, which bounds every body.
   */
  static int maxDecompressed(ParseLimits limits) {
    return Math.min(limits.maxDecompressedLength(), limits.maxFrameBodyLength());
  }

  private static Frame withPrelude(
      int version,
      int versionByte,
      int flags,
      int streamId,
      Opcode opcode,
      ByteBuf body,
      long bodyOffset) {
    boolean response = (versionByte & 0x80) != 0;
    // [tracing_id][warnings][custom_payload] <here> message body
    PreludeReader reader = new PreludeReader(body, body.readerIndex(), body.writerIndex());
    FramePrelude prelude;
    try {
      prelude = reader.read(flags, response);
    } catch (PreludeReader.Malformed e) {
      throw FrameErrors.frameError(
          Reason.BAD_PRELUDE,
          streamId,
          bodyOffset < 0 ? -1 : bodyOffset + e.offset,
          "malformed frame prelude: " + e.getMessage(),
          e);
    }
    int from = reader.position();
    int skipped = from - body.readerIndex();
    // nothing below can throw: retain now
    ByteBuf message = body.retainedSlice(from, body.writerIndex() - from);
    return new Frame(
        version,
        response,
        flags,
        streamId,
        opcode,
        prelude,
        message,
        bodyOffset < 0 ? -1 : bodyOffset + skipped);
  }

  /** What {@link #streamStart} found: a head and the bytes it takes (header and prelude). */
  record StreamStart(FrameHead head, int length) {
    /** More bytes are needed to decide. */
    static final StreamStart WAIT = new StreamStart(null, 0);
  }

  /**
   * The head of the envelope at {@code h} if it is one to stream: a RESULT response with an
   * uncompressed body (v3/v4; any v5+ envelope) of at least {@code minBodyLength} bytes and at most
   * {@code maxBodyLength}, whose header and prelude are all in {@code [h, end)}. {@link
   * StreamStart#WAIT} if the prelude is not all there yet; {@code null} if the envelope is not one
   * to stream (including a malformed prelude: the whole-frame path reports it).
   *
   * @param offset connection offset of the header, or -1
   */
  static StreamStart streamStart(
      ByteBuf buf, int h, int end, long offset, int minBodyLength, int maxBodyLength) {
    if (end - h < HEADER_LENGTH) {
      return null;
    }
    int versionByte = buf.getUnsignedByte(h);
    int version = versionByte & 0x7F;
    int flags = buf.getUnsignedByte(h + 1);
    int bodyLength = buf.getInt(h + 5);
    if ((versionByte & 0x80) == 0
        || version < 3
        || version > 6
        || buf.getUnsignedByte(h + 4) != Opcode.RESULT.code()
        || ((flags & Frame.FLAG_COMPRESSION) != 0 && version < 5)
        || bodyLength < minBodyLength
        || bodyLength > maxBodyLength) {
      return null;
    }
    int bodyEnd = (int) Math.min(end, (long) h + HEADER_LENGTH + bodyLength);
    PreludeReader reader = new PreludeReader(buf, h + HEADER_LENGTH, bodyEnd);
    FramePrelude prelude;
    try {
      prelude = reader.read(flags, true);
    } catch (PreludeReader.Malformed e) {
      // a prelude cut by the end of what arrived: wait; one cut by its body: not one to stream
      return bodyEnd - h - HEADER_LENGTH < bodyLength ? StreamStart.WAIT : null;
    }
    int preludeLength = reader.position() - h - HEADER_LENGTH;
    if (preludeLength == bodyLength) {
      return null;
    }
    return new StreamStart(
        new FrameHead(
            version,
            true,
            flags,
            buf.getShort(h + 2),
            Opcode.RESULT,
            prelude,
            bodyLength - preludeLength,
            offset < 0 ? -1 : offset + HEADER_LENGTH + preludeLength),
        HEADER_LENGTH + preludeLength);
  }
}
