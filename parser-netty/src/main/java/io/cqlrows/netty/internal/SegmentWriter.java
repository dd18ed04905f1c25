package io.cqlrows.netty.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.Objects;

/**
 * Writes one v5 segment (native_protocol_v5.spec sections 2.1 and 2.2; Cassandra's {@code
 * FrameEncoderCrc} and {@code FrameEncoderLZ4}): the inverse of {@link BytesToSegmentDecoder}.
 *
 * <pre>
 * uncompressed: header(3 LE: length 17 bits, self-contained bit 17) crc24(3 LE) payload crc32(4 LE)
 * LZ4:          header(5 LE: on-wire length 17, uncompressed length 17, self-contained bit 34)
 *               crc24(3 LE) payload crc32(4 LE)
 * </pre>
 *
 * <p>An LZ4 payload is a raw block when that is shorter than the payload, else the payload is
 * stored as is with uncompressed length 0, as Cassandra's encoder does. The CRC32 (seeded with
 * {@code FA 2D 55 CA}) covers the on-wire payload.
 *
 * <p><b>Ownership.</b> The payload is borrowed; the returned segment belongs to the caller, which
 * releases it or writes it to a channel. Stateless and thread-safe.
 */
public final class SegmentWriter {
  /** The largest payload a segment can carry: the 17-bit length field's maximum. */
  public static final int MAX_PAYLOAD_LENGTH = (1 << 17) - 1;

  private static final int TRAILER_LENGTH = 4;

  private SegmentWriter() {}

  /**
   * One segment carrying {@code payload}.
   *
   * @param payload the bytes from the reader index to the writer index, at most {@link
   *     #MAX_PAYLOAD_LENGTH}: whole envelopes if {@code selfContained}, else one slice of a large
   *     envelope. Borrowed.
   * @param selfContained whether the payload holds whole envelopes only
   * @param format {@link SegmentFormat#UNCOMPRESSED} or {@link SegmentFormat#LZ4}
   * @return the segment, a new buffer that the caller owns and releases (or writes to a channel,
   *     which releases it)
   * @throws IllegalArgumentException if the payload is too long or the format is {@code DETECT}
   */
  public static ByteBuf encode(
      ByteBufAllocator alloc, ByteBuf payload, boolean selfContained, SegmentFormat format) {
    Objects.requireNonNull(format, "format");
    int length = payload.readableBytes();
    if (length > MAX_PAYLOAD_LENGTH) {
      throw new IllegalArgumentException(
          "payload length: " + length + " (expected: <= " + MAX_PAYLOAD_LENGTH + ")");
    }
    switch (format) {
      case UNCOMPRESSED:
        return uncompressed(alloc, payload, selfContained);
      case LZ4:
        return lz4(alloc, payload, selfContained);
      default:
        throw new IllegalArgumentException(
            "format: " + format + " (expected: UNCOMPRESSED or LZ4)");
    }
  }

  private static ByteBuf uncompressed(ByteBufAllocator alloc, ByteBuf payload, boolean self) {
    int length = payload.readableBytes();
    int headerLength = SegmentFormat.UNCOMPRESSED.headerLength();
    ByteBuf out = alloc.buffer(headerLength + length + TRAILER_LENGTH);
    out.writeMediumLE(length | (self ? 1 << 17 : 0));
    out.writeMediumLE(Crc.crc24(out, 0, 3));
    out.writeBytes(payload, payload.readerIndex(), length);
    out.writeIntLE(Crc.crc32(out, headerLength, length));
    return out;
  }

  private static ByteBuf lz4(ByteBufAllocator alloc, ByteBuf payload, boolean self) {
    int length = payload.readableBytes();
    int headerLength = SegmentFormat.LZ4.headerLength();
    ByteBuf out =
        alloc.buffer(headerLength + Compressors.maxLz4BlockLength(length) + TRAILER_LENGTH);
    boolean ok = false;
    try {
      out.writerIndex(headerLength);
      int wire = Compressors.lz4Block(payload, out);
      int uncompressedLength = length;
      if (wire >= length) {
        // LZ4 does not shrink it: store it, uncompressed length 0
        out.writerIndex(headerLength);
        out.writeBytes(payload, payload.readerIndex(), length);
        wire = length;
        uncompressedLength = 0;
      }
      long word = wire | ((long) uncompressedLength << 17) | (self ? 1L << 34 : 0);
      out.setIntLE(0, (int) word);
      out.setByte(4, (int) (word >>> 32));
      out.setMediumLE(5, Crc.crc24(out, 0, 5));
      out.writeIntLE(Crc.crc32(out, headerLength, wire));
      ok = true;
      return out;
    } finally {
      if (!ok) {
        out.release();
      }
    }
  }
}
