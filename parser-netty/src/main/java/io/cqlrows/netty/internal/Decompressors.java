package io.cqlrows.netty.internal;

import io.cqlrows.netty.internal.CompressionException.Fault;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.compression.Snappy;
import java.nio.ByteBuffer;
import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;

/**
 * Decompression of v3/v4 frame bodies (native_protocol_v4.spec section 5) and v5 LZ4 segment
 * payloads (native_protocol_v5.spec section 2.2).
 *
 * <p>Every declared uncompressed length is checked <em>before</em> anything is allocated: first
 * against the largest expansion of the format, since a longer one proves the bytes a lie ({@link
 * Fault#IMPOSSIBLE_RATIO}), then against the caller's limit ({@link Fault#LENGTH_OVER_LIMIT}). The
 * output buffer cannot grow beyond the declared length, and the result must be exactly that length:
 * a decompression bomb or a lying length is a {@link CompressionException}, never an {@code
 * OutOfMemoryError}. LZ4 uses lz4-java's <em>safe</em> decompressor, which bounds-checks every read
 * and write of a hostile block.
 *
 * <p><b>Ownership.</b> Inputs are borrowed. The returned buffer belongs to the caller, which
 * releases it; on failure nothing is left allocated. Thread-safe (stateless).
 */
public final class Decompressors {
  private static final LZ4SafeDecompressor LZ4 = LZ4Factory.fastestInstance().safeDecompressor();

  /** No LZ4 block decompresses to this many times its own length or more. */
  private static final long MAX_LZ4_RATIO = 255;

  /** No Snappy block decompresses to this many times its own length or more. */
  private static final long MAX_SNAPPY_RATIO = 22;

  /** Longest Snappy varint preamble read: 5 bytes declare up to 2^35 - 1. */
  private static final int MAX_SNAPPY_PREAMBLE_BYTES = 5;

  private Decompressors() {}

  /**
   * A v3/v4 LZ4 frame body: a 4-byte big-endian uncompressed length, then one raw LZ4 block. The
   * length is read unsigned: one with its top bit set declares 2 GiB or more.
   *
   * @param in the compressed body, reader index to writer index. Borrowed.
   * @param maxLength the largest uncompressed length accepted
   */
  public static ByteBuf lz4Body(ByteBufAllocator alloc, ByteBuf in, int maxLength) {
    if (in.readableBytes() < 4) {
      throw new CompressionException(
          Fault.NO_LENGTH,
          -1,
          "LZ4 body of " + in.readableBytes() + " bytes has no 4-byte uncompressed length",
          null);
    }
    long length = in.getUnsignedInt(in.readerIndex());
    ByteBuf block = in.slice(in.readerIndex() + 4, in.readableBytes() - 4);
    checkLz4Ratio(block, length);
    checkLimit("LZ4", length, maxLength);
    return lz4Block(alloc, block, (int) length);
  }

  /**
   * One raw LZ4 block whose uncompressed length is known (v5 segments; the v4 body after its
   * length).
   *
   * @param in the block, reader index to writer index. Borrowed.
   * @param length the exact uncompressed length, already checked against a limit
   */
  public static ByteBuf lz4Block(ByteBufAllocator alloc, ByteBuf in, int length) {
    checkLz4Ratio(in, length);
    ByteBuf out = alloc.heapBuffer(length, length);
    boolean ok = false;
    try {
      ByteBuffer src = in.nioBuffer(in.readerIndex(), in.readableBytes());
      ByteBuffer dst = out.nioBuffer(0, length);
      int n = LZ4.decompress(src, src.position(), src.remaining(), dst, dst.position(), length);
      if (n != length) {
        throw new CompressionException(
            Fault.LENGTH_MISMATCH,
            length,
            "LZ4 block decompressed to " + n + " bytes (expected: " + length + " as declared)",
            null);
      }
      out.writerIndex(length);
      ok = true;
      return out;
    } catch (LZ4Exception e) {
      throw new CompressionException(
          Fault.CORRUPT, length, "corrupt LZ4 block: " + e.getMessage(), e);
    } finally {
      if (!ok) {
        out.release();
      }
    }
  }

  /**
   * A v3/v4 Snappy frame body: a raw Snappy block, whose varint preamble declares the uncompressed
   * length.
   *
   * @param in the compressed body. Borrowed.
   * @param maxLength the largest uncompressed length accepted
   */
  public static ByteBuf snappyBody(ByteBufAllocator alloc, ByteBuf in, int maxLength) {
    long declared = snappyPreamble(in);
    // the longest element, a 3-byte copy, makes 64 bytes: a block expands less than 22 times,
    // and a longer declared length is a lie, rejected before its buffer is allocated
    if (declared > MAX_SNAPPY_RATIO * in.readableBytes()) {
      throw new CompressionException(
          Fault.IMPOSSIBLE_RATIO,
          declared,
          "Snappy block of "
              + in.readableBytes()
              + " bytes cannot decompress to "
              + declared
              + " bytes (expected: at most "
              + MAX_SNAPPY_RATIO
              + " times as many)",
          null);
    }
    checkLimit("Snappy", declared, maxLength);
    int length = (int) declared;
    ByteBuf out = alloc.heapBuffer(length, length);
    boolean ok = false;
    try {
      ByteBuf src = in.duplicate();
      new Snappy().decode(src, out);
      if (out.readableBytes() != length) {
        throw new CompressionException(
            Fault.LENGTH_MISMATCH,
            length,
            "Snappy block decompressed to "
                + out.readableBytes()
                + " bytes (expected: "
                + length
                + " as declared)",
            null);
      }
      // Netty's decoder stops at a declared length of 0 and waits for more input after an
      // incomplete element: either way bytes are left over
      if (src.isReadable()) {
        throw new CompressionException(
            Fault.LENGTH_MISMATCH,
            length,
            "Snappy block has "
                + src.readableBytes()
                + " bytes left over after its declared "
                + length
                + " bytes",
            null);
      }
      ok = true;
      return out;
    } catch (CompressionException e) {
      throw e;
    } catch (RuntimeException e) {
      // Netty's Snappy throws DecompressionException, and index errors on some corrupt input
      throw new CompressionException(
          Fault.CORRUPT, length, "corrupt Snappy block: " + e.getMessage(), e);
    } finally {
      if (!ok) {
        out.release();
      }
    }
  }

  /**
   * Rejects an uncompressed length that no LZ4 block of {@code in}'s length can reach: a match
   * length byte stands for at most 255 bytes, so a block expands less than 255 times.
   */
  private static void checkLz4Ratio(ByteBuf in, long length) {
    if (length > MAX_LZ4_RATIO * in.readableBytes()) {
      throw new CompressionException(
          Fault.IMPOSSIBLE_RATIO,
          length,
          "LZ4 block of "
              + in.readableBytes()
              + " bytes cannot decompress to "
              + length
              + " bytes (expected: at most "
              + MAX_LZ4_RATIO
              + " times as many)",
          null);
    }
  }

  /** Rejects a declared uncompressed length over the caller's limit. */
  private static void checkLimit(String format, long length, int maxLength) {
    if (length > maxLength) {
      throw new CompressionException(
          Fault.LENGTH_OVER_LIMIT,
          length,
          format + " uncompressed length: " + length + " (expected: <= " + maxLength + ")",
          null);
    }
  }

  /** The little-endian base-128 varint that starts a Snappy block. */
  private static long snappyPreamble(ByteBuf in) {
    long result = 0;
    int i = in.readerIndex();
    for (int shift = 0, n = 0; n < MAX_SNAPPY_PREAMBLE_BYTES; n++, shift += 7) {
      if (i + n >= in.writerIndex()) {
        throw new CompressionException(
            Fault.NO_LENGTH, -1, "Snappy body ends inside its length preamble", null);
      }
      int b = in.getUnsignedByte(i + n);
      result |= (long) (b & 0x7F) << shift;
      if ((b & 0x80) == 0) {
        return result;
      }
    }
    throw new CompressionException(
        Fault.NO_LENGTH, -1, "Snappy length preamble longer than 5 bytes", null);
  }
}
