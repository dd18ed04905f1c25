package io.cqlrows.netty.internal;

import io.cqlrows.netty.frame.Opcode;
import io.netty.buffer.ByteBuf;

/**
 * Finds where a byte stream captured from the middle of a connection can be decoded from: the first
 * offset that provably starts a frame or a segment (native_protocol_v4.spec section 2,
 * native_protocol_v5.spec sections 2.1 and 2.2).
 *
 * <ul>
 *   <li>A v5 segment is proved by its header CRC24 and its payload CRC32 (a false match is about
 *       one in 2^56); only a self-contained one is taken, since a slice of a large envelope cannot
 *       be decoded without its beginning.
 *   <li>An unframed envelope (v3/v4) is proved by a plausible header (version, flags, opcode,
 *       length) followed by two more plausible headers where its length says, or by ending exactly
 *       where the capture ends.
 * </ul>
 *
 * Stateless; the buffer is borrowed and its indices are not moved.
 */
public final class StreamSync {
  private static final int ENVELOPE_CHAIN = 3;

  private StreamSync() {}

  /**
   * Where decoding can start.
   *
   * @param offset the index, relative to the buffer's reader index
   * @param segments the segment format if segments start there, or {@code null} for envelopes
   */
  public record Start(int offset, SegmentFormat segments) {}

  /**
   * Scans {@code bytes} from its reader index for the first provable start.
   *
   * @param maxBodyLength the largest envelope body to believe in a header
   * @return the start, or {@code null} if none is found in the readable bytes
   */
  public static Start find(ByteBuf bytes, int maxBodyLength) {
    int from = bytes.readerIndex();
    int end = bytes.writerIndex();
    for (int i = from; i < end; i++) {
      SegmentFormat segments = segmentAt(bytes, i, end);
      if (segments != null) {
        return new Start(i - from, segments);
      }
      if (envelopeChainAt(bytes, i, end, maxBodyLength)) {
        return new Start(i - from, null);
      }
    }
    return null;
  }

  private static SegmentFormat segmentAt(ByteBuf b, int i, int end) {
    if (end - i >= 10 && Crc.crc24(b, i, 3) == b.getUnsignedMediumLE(i + 3)) {
      long word = b.getUnsignedMediumLE(i);
      if (provenSegment(b, i, end, 6, (int) (word & 0x1FFFF), ((word >>> 17) & 1) != 0)) {
        return SegmentFormat.UNCOMPRESSED;
      }
    }
    if (end - i >= 12 && Crc.crc24(b, i, 5) == b.getUnsignedMediumLE(i + 5)) {
      long word = b.getUnsignedIntLE(i) | ((long) b.getUnsignedByte(i + 4) << 32);
      if (provenSegment(b, i, end, 8, (int) (word & 0x1FFFF), ((word >>> 34) & 1) != 0)) {
        return SegmentFormat.LZ4;
      }
    }
    return null;
  }

  private static boolean provenSegment(
      ByteBuf b, int i, int end, int header, int payload, boolean selfContained) {
    int total = header + payload + 4;
    return selfContained
        && total <= end - i
        && Crc.crc32(b, i + header, payload) == b.getIntLE(i + header + payload);
  }

  private static boolean envelopeChainAt(ByteBuf b, int i, int end, int maxBodyLength) {
    int p = i;
    for (int n = 0; n < ENVELOPE_CHAIN; n++) {
      if (p == end && n > 0) {
        return true; // the last envelope ends exactly where the capture ends
      }
      long length = plausibleHeader(b, p, end, maxBodyLength);
      if (length < 0) {
        return false;
      }
      p += 9 + (int) length;
      if (p > end) {
        return n > 0; // an envelope cut by the end of the capture, after a proved one
      }
    }
    return true;
  }

  /** The body length of a plausible envelope header at {@code p}, or -1. */
  private static long plausibleHeader(ByteBuf b, int p, int end, int maxBodyLength) {
    if (end - p < 9) {
      return -1;
    }
    int version = b.getUnsignedByte(p) & 0x7F;
    int flags = b.getUnsignedByte(p + 1);
    int length = b.getInt(p + 5);
    if (version < 3
        || version > 6
        || (flags & ~0x1F) != 0
        || Opcode.fromCode(b.getUnsignedByte(p + 4)) == null
        || length < 0
        || length > maxBodyLength) {
      return -1;
    }
    return length;
  }
}
