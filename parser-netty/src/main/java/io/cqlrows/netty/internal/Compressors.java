package io.cqlrows.netty.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.ByteBuffer;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Factory;

/**
 * LZ4 compression for what a client sends: v3/v4 frame bodies (native_protocol_v4.spec section 5: a
 * 4-byte uncompressed length, big-endian as Cassandra's {@code transport/Compressor} writes it,
 * then one raw block) and v5 segment payloads (native_protocol_v5.spec section 2.2: a raw block).
 * The inverse of {@link Decompressors}; uses lz4-java's fast compressor, as the Java driver does.
 *
 * <p><b>Ownership.</b> Inputs are borrowed: read from the reader index to the writer index, indices
 * unchanged. Returned buffers belong to the caller, which releases them. Thread-safe (stateless;
 * lz4-java compressors are thread-safe).
 */
public final class Compressors {
  private static final LZ4Compressor LZ4 = LZ4Factory.fastestInstance().fastCompressor();

  private Compressors() {}

  /** The largest raw block {@link #lz4Block} can write for {@code length} input bytes. */
  public static int maxLz4BlockLength(int length) {
    return LZ4.maxCompressedLength(length);
  }

  /**
   * A v3/v4 LZ4 frame body: the uncompressed length as a big-endian {@code [int]}, then one raw LZ4
   * block.
   *
   * @param in the uncompressed body. Borrowed.
   * @return the compressed body, a new buffer that the caller owns and releases
   */
  public static ByteBuf lz4Body(ByteBufAllocator alloc, ByteBuf in) {
    int length = in.readableBytes();
    ByteBuf out = alloc.buffer(4 + maxLz4BlockLength(length));
    boolean ok = false;
    try {
      out.writeInt(length);
      lz4Block(in, out);
      ok = true;
      return out;
    } finally {
      if (!ok) {
        out.release();
      }
    }
  }

  /**
   * Appends one raw LZ4 block (no length prefix) of {@code in} to {@code out}, growing it as
   * needed.
   *
   * @param in the bytes to compress. Borrowed.
   * @param out receives the block at its writer index, which advances. Borrowed.
   * @return the length of the block
   */
  public static int lz4Block(ByteBuf in, ByteBuf out) {
    int length = in.readableBytes();
    int max = maxLz4BlockLength(length);
    out.ensureWritable(max);
    ByteBuffer src = in.nioBuffer(in.readerIndex(), length);
    int at = out.writerIndex();
    int n;
    if (out.nioBufferCount() == 1) {
      ByteBuffer dst = out.nioBuffer(at, max);
      n = LZ4.compress(src, src.position(), length, dst, dst.position(), max);
    } else {
      // a composite target: compress into a scratch array, then copy
      byte[] scratch = new byte[max];
      n = LZ4.compress(src, src.position(), length, ByteBuffer.wrap(scratch), 0, max);
      out.setBytes(at, scratch, 0, n);
    }
    out.writerIndex(at + n);
    return n;
  }
}
