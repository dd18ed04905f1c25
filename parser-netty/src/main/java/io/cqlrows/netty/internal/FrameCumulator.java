package io.cqlrows.netty.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.handler.codec.ByteToMessageDecoder;

/**
 * How {@link BytesToFrameDecoder} and {@link BytesToSegmentDecoder} accumulate the reads of the
 * frame (or segment) they wait for, so that a large unit is copied at most once. The decoder tells
 * this cumulator, each time it waits for more bytes, how long the incomplete unit at the reader
 * index is, and how its bytes will be read. (Netty's default, {@link
 * ByteToMessageDecoder#MERGE_CUMULATOR}, copies each read into a buffer that doubles whenever it is
 * full: six buffers, from 128 KiB to 2 MiB and each zeroed by the allocator, and 3.2 MB of copies
 * for a 1.2 MB frame in 64 KiB reads.)
 *
 * <p><b>Gathered units</b> ({@link #gather(int)}): a unit of at least {@link #LARGE} bytes that is
 * read in place (an uncompressed frame body, an uncompressed segment payload) keeps the reads it
 * arrives in, without copying them: they become the components of a {@link CompositeByteBuf}, and
 * the unit is a slice of it. The parser reads such a body buffer by buffer, so it runs as fast as
 * over one buffer, and nothing of the unit's size is allocated, zeroed or copied. A read that would
 * pin much more memory than it holds (fewer than {@link #MIN_SHARED_READ} bytes, or less than half
 * of its buffer) is copied into a buffer of its own size first; once reads are being copied into a
 * buffer sized for the unit (below), they go on that way.
 *
 * <p><b>Copied units</b> ({@link #expect(int)}): a unit of at least {@link #LARGE} bytes that must
 * be contiguous (a compressed body, given whole to the decompressor), or whose first reads are
 * small, is copied into a buffer sized for the whole unit, so each byte is copied once.
 *
 * <p><b>Untrusted lengths.</b> The length comes from a header the peer wrote. A copy buffer is
 * never larger than {@link #MAX_AHEAD} times the bytes that have arrived, so a header that
 * announces a large frame and stops costs at most that many times what was sent (a 1.2 MB frame in
 * 64 KiB reads gets its final buffer at the second read; a 64 MiB one in three steps). A gathered
 * unit holds only what arrived.
 *
 * <p>Smaller units ({@link #merge}) are merged as Netty does. Copy buffers come from the channel's
 * allocator's {@code buffer()} (direct by default), not from the heap: a heap buffer of a megabyte
 * or more is a humongous array for the JVM, which costs more than the copy.
 *
 * <p><b>Ownership.</b> As for any {@link ByteToMessageDecoder.Cumulator}: the cumulation and the
 * input passed in belong to this cumulator, which releases them or hands them on; the returned
 * cumulation is the decoder's.
 *
 * <p><b>Threading.</b> One per decoder; not thread-safe.
 */
final class FrameCumulator implements ByteToMessageDecoder.Cumulator {
  /** Units of at least this many bytes (header included) are gathered or copied once. */
  static final int LARGE = 64 * 1024;

  /** A copy buffer holds at most this many times the bytes received so far. */
  static final int MAX_AHEAD = 16;

  /** Reads of fewer bytes are copied, not kept, when a unit is gathered. */
  static final int MIN_SHARED_READ = 8 * 1024;

  /** {@link #LARGE}, or smaller in tests. */
  private int large = LARGE;

  /** {@link #MIN_SHARED_READ}, or smaller in tests. */
  private int minSharedRead = MIN_SHARED_READ;

  /** Length of the unit at the cumulation's reader index, or 0 to merge. */
  private int length;

  /** Whether that unit's reads are kept as they are rather than copied. */
  private boolean gather;

  /**
   * Tests only: other thresholds than {@link #LARGE} and {@link #MIN_SHARED_READ}, so that small
   * inputs reach the paths of large units.
   */
  FrameCumulator thresholds(int large, int minSharedRead) {
    this.large = Math.max(1, large);
    this.minSharedRead = Math.max(0, minSharedRead);
    return this;
  }

  /** The unit waited for is small, or its length unknown: merge as Netty does. */
  void merge() {
    length = 0;
    gather = false;
  }

  /**
   * The unit waited for is {@code length} bytes from the reader index (header included) and must be
   * one contiguous buffer.
   */
  void expect(int length) {
    this.length = length >= large ? length : 0;
    this.gather = false;
  }

  /**
   * The unit waited for is {@code length} bytes from the reader index (header included) and may
   * span several buffers.
   */
  void gather(int length) {
    this.length = length >= large ? length : 0;
    this.gather = this.length != 0;
  }

  @Override
  @SuppressWarnings("ReferenceEquality") // is the cumulation the very buffer read?
  public ByteBuf cumulate(ByteBufAllocator alloc, ByteBuf cumulation, ByteBuf in) {
    if (cumulation == in || !cumulation.isReadable()) {
      return ByteToMessageDecoder.MERGE_CUMULATOR.cumulate(alloc, cumulation, in);
    }
    if (length == 0) {
      if (cumulation instanceof CompositeByteBuf) {
        // the rest of a gathered unit, and small units after it: one contiguous buffer again
        long total = (long) cumulation.readableBytes() + in.readableBytes();
        return copy(
            alloc,
            cumulation,
            in,
            alloc.calculateNewCapacity(
                (int) Math.min(Integer.MAX_VALUE, total), Integer.MAX_VALUE));
      }
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
    if (gather && (shared(in) || cumulation instanceof CompositeByteBuf)) {
      return gather(alloc, cumulation, in);
    }
    long total = (long) cumulation.readableBytes() + in.readableBytes();
    long capacity = Math.max(total, Math.min(length, MAX_AHEAD * total));
    return copy(alloc, cumulation, in, (int) Math.min(Integer.MAX_VALUE, capacity));
  }

  /** Whether bytes may be written into the cumulation's free room: nobody else sees it. */
  private static boolean owned(ByteBuf cumulation) {
    return cumulation.refCnt() == 1
        && !cumulation.isReadOnly()
        && !(cumulation instanceof CompositeByteBuf);
  }

  /** Whether a read may be kept as it is: it fills a good part of a buffer of some size. */
  private boolean shared(ByteBuf in) {
    int n = in.readableBytes();
    return n >= minSharedRead && 2L * n >= in.capacity();
  }

  /**
   * The cumulation's readable bytes then {@code in}'s, as components of a composite: the cumulation
   * itself when it is a composite nobody else holds, else a new one over its components. Releases
   * (or hands on) both.
   */
  private ByteBuf gather(ByteBufAllocator alloc, ByteBuf cumulation, ByteBuf in) {
    CompositeByteBuf composite;
    if (cumulation instanceof CompositeByteBuf c
        && c.refCnt() == 1
        && c.writerIndex() == c.capacity()) {
      composite = c;
    } else {
      try {
        composite = alloc.compositeBuffer(Integer.MAX_VALUE);
      } catch (RuntimeException | Error e) {
        cumulation.release();
        in.release();
        throw e;
      }
      try {
        // ownership of the cumulation passes to the composite, which releases it on failure
        composite.addFlattenedComponents(true, cumulation);
      } catch (RuntimeException | Error e) {
        composite.release();
        in.release();
        throw e;
      }
    }
    ByteBuf part = in;
    if (!shared(in)) {
      try {
        part = copyOf(alloc, in);
      } catch (RuntimeException | Error e) {
        composite.release();
        throw e;
      }
    }
    // ownership of the part passes to the composite, which releases it on failure
    composite.addComponent(true, part);
    return composite;
  }

  /** A buffer of {@code in}'s size holding its readable bytes; releases {@code in}. */
  private static ByteBuf copyOf(ByteBufAllocator alloc, ByteBuf in) {
    try {
      int n = in.readableBytes();
      ByteBuf out = alloc.buffer(n, n);
      try {
        return out.writeBytes(in, in.readerIndex(), n);
      } catch (RuntimeException | Error e) {
        out.release();
        throw e;
      }
    } finally {
      in.release();
    }
  }

  /** A new cumulation of {@code capacity} holding both; releases both. */
  private static ByteBuf copy(
      ByteBufAllocator alloc, ByteBuf cumulation, ByteBuf in, int capacity) {
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
