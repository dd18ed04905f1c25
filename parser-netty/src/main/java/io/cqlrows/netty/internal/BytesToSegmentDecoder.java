package io.cqlrows.netty.internal;

import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.netty.frame.CqlFrameException.Reason;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import java.util.List;
import java.util.Objects;

/**
 * Splits the bytes of a v5 connection (after READY or AUTHENTICATE) into {@link Segment}s
 * (native_protocol_v5.spec section 2; Cassandra's {@code FrameDecoderCrc} and {@code
 * FrameDecoderLZ4}).
 *
 * <pre>
 * uncompressed: header(3 LE: length 17 bits, self-contained bit 17) crc24(3 LE) payload crc32(4 LE)
 * LZ4:          header(5 LE: compressed 17, uncompressed 17, self-contained bit 34) crc24(3 LE)
 *               payload (raw LZ4 block; stored as is when uncompressed length is 0) crc32(4 LE)
 * </pre>
 *
 * <p><b>States.</b> {@code HEADER}: the header's CRC24 is verified before its length is trusted
 * (with {@link SegmentFormat#DETECT}, the first header also tells the format). {@code PAYLOAD}: the
 * whole segment is awaited, its seeded CRC32 verified before the payload is used, and an LZ4
 * payload decompressed with a safe decompressor to exactly the declared length (at most 128 KiB, so
 * nothing large is ever allocated from a header).
 *
 * <p><b>Errors.</b> A CRC mismatch, a corrupt LZ4 block or input that ends inside a segment is a
 * connection-level {@link CqlFrameException}, after which the decoder is broken (see {@link
 * ConnectionDecoder}).
 *
 * <p><b>Reads.</b> A segment of 64 KiB or more that arrives in several reads is kept in those reads
 * if it is stored uncompressed, and copied once into a buffer of its length if it is LZ4 (see
 * {@link FrameCumulator}).
 *
 * <p><b>Ownership.</b> Each segment holds a retained slice of the input or a new decompressed
 * buffer. The next handler owns the segment and releases it.
 *
 * <p><b>Threading.</b> One instance per channel; not thread-safe, not {@code @Sharable}.
 */
public final class BytesToSegmentDecoder extends ConnectionDecoder {
  private static final int TRAILER_LENGTH = 4;
  private static final int LENGTH_MASK = 0x1FFFF;

  /** The structure of an error in the header itself (its CRC24). */
  static final String HEADER = "segment header";

  /** The structure of an error in a segment's payload or at its end. */
  static final String SEGMENT = "segment";

  private enum State {
    HEADER,
    PAYLOAD
  }

  private SegmentFormat format;
  private State state = State.HEADER;

  /** Segments decoded so far (for error messages). */
  private long segments;

  /** The segment whose header was read: its offset, lengths and flag. */
  private long headerOffset;

  private int payloadLength;
  private int uncompressedLength;
  private boolean selfContained;

  /**
   * A decoder for one v5 connection.
   *
   * @param format the header format ({@link SegmentFormat#DETECT} to tell it from the first
   *     header's CRC24, for replay)
   * @param startOffset offset of the first segment in the connection's byte stream, for error
   *     messages (0 if unknown)
   */
  public BytesToSegmentDecoder(SegmentFormat format, long startOffset) {
    super(startOffset);
    this.format = Objects.requireNonNull(format, "format");
  }

  /** The header format in use ({@link SegmentFormat#DETECT} until the first header arrived). */
  public SegmentFormat format() {
    return format;
  }

  @Override
  Object state() {
    return state;
  }

  @Override
  void decodeStep(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    switch (state) {
      case HEADER -> decodeHeader(in);
      case PAYLOAD -> decodePayload(ctx, in, out);
      default -> throw new AssertionError(state);
    }
  }

  private void decodeHeader(ByteBuf in) {
    cumulator.merge();
    if (format == SegmentFormat.DETECT) {
      if (in.readableBytes() < SegmentFormat.DETECT.headerLength()) {
        return;
      }
      headerOffset = offsetOf(in.readerIndex());
      format = detect(in);
    }
    int headerLength = format.headerLength();
    if (in.readableBytes() < headerLength) {
      return;
    }
    int h = in.readerIndex();
    headerOffset = offsetOf(h);
    int wordBytes = headerLength - 3;
    long word =
        wordBytes == 3
            ? in.getUnsignedMediumLE(h)
            : in.getUnsignedIntLE(h) | ((long) in.getUnsignedByte(h + 4) << 32);
    int crc24 = in.getUnsignedMediumLE(h + wordBytes);
    int computed = Crc.crc24(in, h, wordBytes);
    if (crc24 != computed) {
      throw error(
          Reason.CRC24_MISMATCH,
          HEADER,
          String.format("header CRC24 mismatch: 0x%06x (computed: 0x%06x)", crc24, computed),
          null);
    }
    payloadLength = (int) (word & LENGTH_MASK);
    uncompressedLength = wordBytes == 3 ? 0 : (int) ((word >>> 17) & LENGTH_MASK);
    selfContained = ((word >>> (wordBytes == 3 ? 17 : 34)) & 1) != 0;
    state = State.PAYLOAD;
  }

  private void decodePayload(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    int headerLength = format.headerLength();
    int total = headerLength + payloadLength + TRAILER_LENGTH;
    if (in.readableBytes() < total) {
      if (uncompressedLength == 0) {
        cumulator.gather(total); // checked and handed on in place
      } else {
        cumulator.expect(total); // decompressed whole, from one buffer
      }
      return;
    }
    cumulator.merge();
    int p = in.readerIndex() + headerLength;
    int crc32 = in.getIntLE(p + payloadLength);
    int computed = Crc.crc32(in, p, payloadLength);
    if (crc32 != computed) {
      throw error(
          Reason.CRC32_MISMATCH,
          SEGMENT,
          String.format("payload CRC32 mismatch: 0x%08x (computed: 0x%08x)", crc32, computed),
          null);
    }
    ByteBuf payload =
        uncompressedLength == 0
            ? in.retainedSlice(p, payloadLength)
            : decompress(ctx, in.slice(p, payloadLength));
    in.skipBytes(total);
    segments++;
    state = State.HEADER;
    out.add(new Segment(payload, selfContained, payloadLength, headerOffset));
  }

  private ByteBuf decompress(ChannelHandlerContext ctx, ByteBuf block) {
    try {
      return Decompressors.lz4Block(ctx.alloc(), block, uncompressedLength);
    } catch (CompressionException e) {
      throw error(Reason.CORRUPT_COMPRESSION, SEGMENT, "LZ4 payload: " + e.getMessage(), e);
    }
  }

  /** Tells the format from the CRC24 of the first header. */
  private SegmentFormat detect(ByteBuf in) {
    int h = in.readerIndex();
    if (Crc.crc24(in, h, 3) == in.getUnsignedMediumLE(h + 3)) {
      return SegmentFormat.UNCOMPRESSED;
    }
    if (Crc.crc24(in, h, 5) == in.getUnsignedMediumLE(h + 5)) {
      return SegmentFormat.LZ4;
    }
    throw error(
        Reason.CRC24_MISMATCH,
        HEADER,
        "header CRC24 matches neither the uncompressed nor the LZ4 segment format",
        null);
  }

  /**
   * A connection-level error in the segment at {@code headerOffset}: {@code structure} is {@link
   * #HEADER} for the header's own faults, {@link #SEGMENT} for its payload or its end.
   */
  private CqlFrameException error(Reason reason, String structure, String detail, Throwable cause) {
    return FrameErrors.connectionError(
        reason, headerOffset, structure, detail + " in segment " + segments, cause);
  }

  @Override
  CqlFrameException endOfInput(ByteBuf in) {
    if (!in.isReadable()) {
      return null;
    }
    headerOffset = offsetOf(in.readerIndex());
    return error(
        Reason.TRUNCATED,
        SEGMENT,
        "input ends inside a segment, after " + in.readableBytes() + " bytes",
        null);
  }
}
