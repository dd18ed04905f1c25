package io.cqlrows.netty.internal;

import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.netty.internal.CompressionException;
import io.cqlrows.netty.internal.Decompressors;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;

/**
 * Splits the bytes of a v5 connection (after READY or AUTHENTICATE) into {@link Segment}s
 * (native_protocol_v5.spec sections 2.1 and 2.2; Cassandra's {@code FrameDecoderCrc} and {@code
 * FrameDecoderLZ4}).
 *
 * <pre>
 * uncompressed: header(3 LE: length 17 bits, self-contained bit 17) crc24(3 LE) payload crc32(4 LE)
 * LZ4:          header(5 LE: compressed 17, uncompressed 17, self-contained bit 34) crc24(3 LE)
 *               payload (raw LZ4 block; stored as is when uncompressed length is 0) crc32(4 LE)
 * </pre>
 *
 * <p>The header CRC24 is verified before the length is trusted, and the payload's seeded CRC32
 * before it is used; LZ4 payloads are decompressed with a safe decompressor to exactly the
 * declared length (at most 128 KiB, so nothing large is ever allocated from a header).
 *
 * <p><b>Errors.</b> A CRC mismatch, a corrupt LZ4 block or a length lie is connection-level: a
 * {@link CqlFrameException} is thrown once, and the decoder is broken from then on: it releases all
 * further input and emits nothing.
 *
 * <p><b>Reads.</b> A segment of 64 KiB or more that arrives in several reads is copied once into
 * a buffer of its length (see {@link FrameCumulator}), not into buffers that double as they
 * fill. Smaller segments are merged as Netty does.
 *
 * <p><b>Ownership.</b> Input buffers are released as usual for a {@code ByteToMessageDecoder}.
 * Each segment holds a retained slice of the input or a new decompressed buffer: Ownership
 * transferred (the next handler releases the segment).
 *
 * <p><b>Threading.</b> One instance per channel; not thread-safe, not {@code @Sharable}.
 */
public final class BytesToSegmentDecoder extends ByteToMessageDecoder {
  private static final int TRAILER_LENGTH = 4;
  private static final int LENGTH_MASK = 0x1FFFF;

  private SegmentFormat format;
  /** Offset in the connection's byte stream of the next segment header. */
  private long offset;
  /** Segments decoded so far (for error messages). */
  private long segments;
  private boolean broken;
  /** Copies the reads of a large segment once (see {@link FrameCumulator}). */
  private final FrameCumulator cumulator = new FrameCumulator();

  /**
   * A decoder for one v5 connection.
   *
   * @param format the header format ({@link SegmentFormat#DETECT} to tell it from the first
   *     header's CRC24, for replay)
   * @param startOffset offset of the first segment in the connection's byte stream, for error
   *     messages (0 if unknown)
   */
  public BytesToSegmentDecoder(SegmentFormat format, long startOffset) {
    this.format = java.util.Objects.requireNonNull(format, "format");
    this.offset = startOffset;
    setCumulator(cumulator);
  }

  /** The header format in use ({@link SegmentFormat#DETECT} until the first header arrived). */
  public SegmentFormat format() {
    return format;
  }

  /** True after a connection-level error: all further input is discarded. */
  public boolean isBroken() {
    return broken;
  }

  /** Offset in the connection's byte stream of the next segment header. */
  public long consumedBytes() {
    return offset;
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
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
    if (broken) {
      in.skipBytes(in.readableBytes());
      return;
    }
    try {
      cumulator.merge(); // until a large incomplete segment says otherwise
      Segment segment = decodeSegment(ctx, in);
      if (segment != null) {
        out.add(segment);
      }
    } catch (CqlFrameException e) {
      cumulator.merge();
      broken = true;
      in.skipBytes(in.readableBytes());
      throw e;
    }
  }

  private Segment decodeSegment(ChannelHandlerContext ctx, ByteBuf in) {
    if (format == SegmentFormat.DETECT) {
      if (in.readableBytes() < SegmentFormat.DETECT.headerLength()) {
        return null;
      }
      format = detect(in);
    }
    int headerLength = format.headerLength();
    if (in.readableBytes() < headerLength) {
      return null;
    }
    int h = in.readerIndex();
    int wordBytes = headerLength - 3;
    long word = wordBytes == 3
        ? in.getUnsignedMediumLE(h)
        : in.getUnsignedIntLE(h) | ((long) in.getUnsignedByte(h + 4) << 32);
    int crc24 = in.getUnsignedMediumLE(h + wordBytes);
    int computed = Crc.crc24(in, h, wordBytes);
    if (crc24 != computed) {
      throw error(String.format("header CRC24 mismatch: 0x%06x (computed: 0x%06x)",
          crc24, computed));
    }
    int payloadLength = (int) (word & LENGTH_MASK);
    int uncompressedLength = wordBytes == 3 ? 0 : (int) ((word >>> 17) & LENGTH_MASK);
    boolean selfContained = ((word >>> (wordBytes == 3 ? 17 : 34)) & 1) != 0;
    int total = headerLength + payloadLength + TRAILER_LENGTH;
    if (in.readableBytes() < total) {
      cumulator.expect(total);
      return null;
    }
    int p = h + headerLength;
    int crc32 = in.getIntLE(p + payloadLength);
    int computed32 = Crc.crc32(in, p, payloadLength);
    if (crc32 != computed32) {
      throw error(String.format("payload CRC32 mismatch: 0x%08x (computed: 0x%08x)",
          crc32, computed32));
    }
    ByteBuf payload = uncompressedLength == 0
        ? in.retainedSlice(p, payloadLength)
        : decompress(ctx, in.slice(p, payloadLength), uncompressedLength);
    in.skipBytes(total);
    offset += total;
    segments++;
    return new Segment(payload, selfContained);
  }

  private ByteBuf decompress(ChannelHandlerContext ctx, ByteBuf block, int length) {
    try {
      return Decompressors.lz4Block(ctx.alloc(), block, length);
    } catch (CompressionException e) {
      throw error("LZ4 payload: " + e.getMessage());
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
    throw error("header CRC24 matches neither the uncompressed nor the LZ4 segment format");
  }

  private CqlFrameException error(String detail) {
    return CqlFrameException.connectionError(offset,
        detail + " in segment " + segments, "segment header");
  }

  @Override
  protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out)
      throws Exception {
    super.decodeLast(ctx, in, out);
    if (broken || !in.isReadable()) {
      return;
    }
    int have = in.readableBytes();
    broken = true;
    in.skipBytes(have);
    throw error("input ends inside a segment, after " + have + " bytes");
  }
}
