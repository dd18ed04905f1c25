package io.cqlrows.netty.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.handler.codec.ByteToMessageDecoder;

/**
 * How {@link BytesToFrameDecoder} and {@link BytesToSegmentDecoder} accumulate the reads of the
 * frame (or segment) they wait for. Netty's default, {@link
 * ByteToMessageDecoder#MERGE_CUMULATOR}, copies each read into a buffer that doubles whenever it
 * is full: a 1.2 MB frame in 64 KiB reads took six buffers (128 KiB to 2 MiB, each zeroed by the
 * allocator) and 3.2 MB of copies. The decoder tells this cumulator, each time it waits for more
 * bytes, how long the incomplete unit at the reader index is ({@link #expect}); from {@link
 * #LARGE} bytes on, the reads are copied into a buffer sized for the whole unit, so each byte is
 * copied once and the parser reads one contiguous buffer.
 *
 * <p><b>Untrusted lengths.</b> The length comes from a header the peer wrote. A buffer is never
 * larger than {@link #MAX_AHEAD} times the bytes that have arrived, so a header that announces a
 * large frame and stops costs at most that many times what was sent (a 1.2 MB frame in 64 KiB
 * reads gets its final buffer at the second read; a 64 MiB one in three steps).
 *
 * <p>Smaller units ({@link #merge}) are merged as Netty does. Reads are not gathered into a
 * {@link CompositeByteBuf} either: that saves the copy, but the parser then reads every cell
 * through the composite, which made a page of small scalar cells a third slower than copying.
 * The buffer comes from the channel's allocator's {@code buffer()} (direct by default): a heap
 * buffer of a megabyte or more is a humongous array for the JVM, which cost more than the copy.
 *
 * <p><b>Ownership.</b> As for any {@link ByteToMessageDecoder.Cumulator}: the cumulation and the
 * input are Ownership transferred; the returned cumulation is the decoder's.
 *
 * <p><b>Threading.</b> One per decoder; not thread-safe.
 */
final class FrameCumulator implements ByteToMessageDecoder.Cumulator {
  /** Units of at least this many bytes (header included) get a buffer sized for them. */
  static final int LARGE = 64 * 1024;
  /** A cumulation holds at most this many times the bytes received so far. */
  static final int MAX_AHEAD = 16;

  /** Length of the unit at the cumulation's reader index, or 0 to merge. */
  private int length;

  /** The unit waited for is small, or its length unknown: merge as Netty does. */
  void merge() {
    length = 0;
  }

  /** The unit waited for is {@code length} bytes from the reader index (header included). */
  void expect(int length) {
    this.length = length >= LARGE ? length : 0;
  }

  @Override
  public ByteBuf cumulate(ByteBufAllocator alloc, ByteBuf cumulation, ByteBuf in) {
    if (length == 0 || cumulation == in || !cumulation.isReadable()) {
      return ByteToMessageDecoder.MERGE_CUMULATOR.cumulate(alloc, cumulation, in);
    }
    if (owned(cumulation) && cumulation.writableBytes() >= in.readableBytes()) {
      try {
        cumulation.writeBytes(in, in.readerIndex(), in.readableBytes());
        in.readerIndex(in.writerIndex());
        return cumulation;
      } finally {
        in.release();
      }
    }
    long total = (long) cumulation.readableBytes() + in.readableBytes();
    long capacity = Math.max(total, Math.min(length, MAX_AHEAD * total));
    return copy(alloc, cumulation, in, (int) Math.min(Integer.MAX_VALUE, capacity));
  }

  /** Whether bytes may be written into the cumulation's free room: nobody else sees it. */
  private static boolean owned(ByteBuf cumulation) {
    return cumulation.refCnt() == 1 && !cumulation.isReadOnly()
        && !(cumulation instanceof CompositeByteBuf);
  }

  /** A new cumulation of {@code capacity} holding both; releases both. */
  private static ByteBuf copy(ByteBufAllocator alloc, ByteBuf cumulation, ByteBuf in,
      int capacity) {
    ByteBuf out = alloc.buffer(capacity);
    ByteBuf toRelease = out;
    try {
      out.writeBytes(cumulation, cumulation.readerIndex(), cumulation.readableBytes())
          .writeBytes(in, in.readerIndex(), in.readableBytes());
      in.readerIndex(in.writerIndex());
      toRelease = cumulation;
      return out;
    } finally {
      toRelease.release();
      in.release();
    }
  }
}
