package io.cqlrows.client.fault;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.util.zip.CRC32;
import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4Factory;

/**
 * v5 segments for {@link FaultProxy} and its tests, written independently of the library's
 * decoders: header words, CRC24, the seeded CRC32, LZ4 blocks (lz4-java). Both formats:
 * uncompressed (6-byte header: 17-bit payload length, self-contained bit 17; CRC24) and LZ4 (8-byte
 * header: 17-bit compressed length, 17-bit uncompressed length, self-contained bit 34; CRC24; an
 * uncompressed length of 0 means the payload is stored as is); then the payload and its CRC32, all
 * little-endian. Stateless; thread-safe.
 */
public final class Segments {
  /** The largest payload a segment header can declare. */
  public static final int MAX_PAYLOAD = 0x1FFFF;

  private static final int CRC24_INIT = 0x875060;
  private static final int CRC24_POLY = 0x1974F0B;
  private static final byte[] CRC32_SEED = {(byte) 0xFA, (byte) 0x2D, (byte) 0x55, (byte) 0xCA};
  private static final LZ4Factory LZ4 = LZ4Factory.fastestJavaInstance();

  private Segments() {}

  /** The header length of a format: 8 for LZ4, 6 for uncompressed. */
  public static int headerLength(boolean lz4) {
    return lz4 ? 8 : 6;
  }

  /** CRC24 of {@code length} bytes at {@code index}, in wire order. */
  public static int crc24(ByteBuf buf, int index, int length) {
    int crc = CRC24_INIT;
    for (int i = 0; i < length; i++) {
      crc ^= buf.getUnsignedByte(index + i) << 16;
      for (int bit = 0; bit < 8; bit++) {
        crc <<= 1;
        if ((crc & 0x1000000) != 0) {
          crc ^= CRC24_POLY;
        }
      }
    }
    return crc & 0xFFFFFF;
  }

  /** The seeded CRC32 of {@code length} bytes of {@code bytes} at {@code offset}. */
  public static int crc32(byte[] bytes, int offset, int length) {
    CRC32 crc = new CRC32();
    crc.update(CRC32_SEED);
    crc.update(bytes, offset, length);
    return (int) crc.getValue();
  }

  /** A parsed segment header. */
  public record Header(
      int payloadLength, int uncompressedLength, boolean selfContained, boolean crcMatches) {}

  /**
   * Reads the header at {@code index} (which must have {@link #headerLength} readable bytes); its
   * CRC24 is checked, not enforced.
   */
  public static Header header(ByteBuf buf, int index, boolean lz4) {
    if (lz4) {
      long word = buf.getUnsignedIntLE(index) | ((long) buf.getUnsignedByte(index + 4) << 32);
      return new Header(
          (int) (word & MAX_PAYLOAD),
          (int) ((word >>> 17) & MAX_PAYLOAD),
          ((word >>> 34) & 1) != 0,
          crc24(buf, index, 5) == buf.getUnsignedMediumLE(index + 5));
    }
    int word = buf.getUnsignedMediumLE(index);
    return new Header(
        word & MAX_PAYLOAD,
        0,
        ((word >>> 17) & 1) != 0,
        crc24(buf, index, 3) == buf.getUnsignedMediumLE(index + 3));
  }

  /**
   * Writes a segment holding {@code payload} (plain bytes) to a new buffer: in the LZ4 format
   * compressed when that makes it smaller, else stored; the caller releases the buffer.
   *
   * @param compress for the LZ4 format: try to compress (false: always store)
   */
  public static ByteBuf encode(
      ByteBufAllocator alloc,
      byte[] payload,
      boolean selfContained,
      boolean lz4,
      boolean compress) {
    if (payload.length > MAX_PAYLOAD) {
      throw new IllegalArgumentException("payload of " + payload.length + " bytes");
    }
    byte[] wire = payload;
    int uncompressed = 0;
    if (lz4 && compress && payload.length > 0) {
      byte[] block = LZ4.fastCompressor().compress(payload);
      if (block.length < payload.length) {
        wire = block;
        uncompressed = payload.length;
      }
    }
    ByteBuf out = alloc.buffer(headerLength(lz4) + wire.length + 4);
    int h = out.writerIndex();
    if (lz4) {
      long word = wire.length | ((long) uncompressed << 17) | ((selfContained ? 1L : 0L) << 34);
      out.writeIntLE((int) word).writeByte((int) (word >>> 32));
      out.writeMediumLE(crc24(out, h, 5));
    } else {
      out.writeMediumLE(wire.length | (selfContained ? 1 << 17 : 0));
      out.writeMediumLE(crc24(out, h, 3));
    }
    out.writeBytes(wire);
    out.writeIntLE(crc32(wire, 0, wire.length));
    return out;
  }

  /**
   * The plain payload of the segment whose on-wire payload is {@code wire}: decompressed when
   * {@code uncompressedLength > 0} (LZ4), else {@code wire} itself.
   *
   * @throws IllegalArgumentException if the LZ4 block is corrupt
   */
  public static byte[] plain(byte[] wire, int uncompressedLength) {
    if (uncompressedLength == 0) {
      return wire;
    }
    try {
      byte[] out = new byte[uncompressedLength];
      int n = LZ4.safeDecompressor().decompress(wire, 0, wire.length, out, 0);
      if (n != uncompressedLength) {
        throw new IllegalArgumentException(
            "LZ4 block of " + n + " bytes, header says " + uncompressedLength);
      }
      return out;
    } catch (LZ4Exception e) {
      throw new IllegalArgumentException("corrupt LZ4 block: " + e.getMessage(), e);
    }
  }
}
