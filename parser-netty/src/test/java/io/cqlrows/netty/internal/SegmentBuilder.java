package io.cqlrows.netty.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.zip.CRC32;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;

/**
 * Writes v5 segments (native_protocol_v5.spec sections 2.1 and 2.2) for tests: the little-endian
 * header word, its CRC24, the payload and the payload's seeded CRC32. The checksums are computed
 * here, independently of {@link Crc}.
 */
public final class SegmentBuilder {
  /** Largest payload the 17-bit length field can describe. */
  static final int MAX_PAYLOAD = 131071;

  private static final LZ4Compressor LZ4 = LZ4Factory.fastestInstance().fastCompressor();
  private static final byte[] SEED = {(byte) 0xFA, 0x2D, 0x55, (byte) 0xCA};

  private SegmentBuilder() {}

  /** An uncompressed segment: 3-byte header, CRC24, payload, CRC32. */
  public static byte[] uncompressed(byte[] payload, boolean selfContained) {
    long word = payload.length | (selfContained ? 1L << 17 : 0);
    return segment(word, 3, payload);
  }

  /**
   * An LZ4 segment as Cassandra's encoder writes it: compressed when that makes it smaller, else
   * stored with uncompressed length 0.
   */
  public static byte[] lz4(byte[] payload, boolean selfContained) {
    byte[] block = compress(payload);
    return block.length < payload.length
        ? lz4Wire(block, payload.length, selfContained)
        : lz4Wire(payload, 0, selfContained);
  }

  /**
   * An LZ4 segment with the given on-wire payload and declared uncompressed length (0: stored),
   * with valid checksums whatever the payload holds.
   */
  static byte[] lz4Wire(byte[] wire, int uncompressedLength, boolean selfContained) {
    long word = wire.length | ((long) uncompressedLength << 17) | (selfContained ? 1L << 34 : 0);
    return segment(word, 5, wire);
  }

  /** One raw LZ4 block (no length prefix). */
  static byte[] compress(byte[] data) {
    return LZ4.compress(data);
  }

  /** The header and its CRC24, payload, and CRC32 trailer. */
  private static byte[] segment(long word, int wordBytes, byte[] payload) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(wordBytes + 7 + payload.length);
    byte[] header = new byte[wordBytes];
    for (int i = 0; i < wordBytes; i++) {
      header[i] = (byte) (word >>> (8 * i));
    }
    out.writeBytes(header);
    writeLe(out, crc24(header), 3);
    out.writeBytes(payload);
    writeLe(out, crc32(payload), 4);
    return out.toByteArray();
  }

  private static void writeLe(ByteArrayOutputStream out, long value, int bytes) {
    for (int i = 0; i < bytes; i++) {
      out.write((int) (value >>> (8 * i)));
    }
  }

  /** CRC24 (init 0x875060, poly 0x1974F0B) of the bytes, in order. */
  static int crc24(byte[] bytes) {
    int crc = 0x875060;
    for (byte b : bytes) {
      crc ^= (b & 0xFF) << 16;
      for (int i = 0; i < 8; i++) {
        crc <<= 1;
        if ((crc & 0x1000000) != 0) {
          crc ^= 0x1974F0B;
        }
      }
    }
    return crc & 0xFFFFFF;
  }

  /** IEEE CRC32 of the bytes, after the seed bytes FA 2D 55 CA. */
  static int crc32(byte[] bytes) {
    CRC32 crc = new CRC32();
    crc.update(SEED);
    crc.update(bytes);
    return (int) crc.getValue();
  }

  /** The arrays one after the other. */
  public static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] part : parts) {
      out.writeBytes(part);
    }
    return out.toByteArray();
  }

  /** A copy with {@code bytes[index] ^= mask}. */
  static byte[] flip(byte[] bytes, int index, int mask) {
    byte[] copy = Arrays.copyOf(bytes, bytes.length);
    copy[index] ^= (byte) mask;
    return copy;
  }

  /**
   * The parts in one buffer from the default allocator, which the leak check tracks. Ownership
   * transferred (caller releases, or hands it to a channel).
   */
  static ByteBuf tracked(byte[]... parts) {
    ByteBuf buf = ByteBufAllocator.DEFAULT.buffer();
    for (byte[] part : parts) {
      buf.writeBytes(part);
    }
    return buf;
  }
}
