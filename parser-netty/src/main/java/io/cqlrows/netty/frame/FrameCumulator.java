package io.cqlrows.netty.frame;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.handler.codec.ByteToMessageDecoder;

/**
 * How {@link BytesToFrameDecoder} and {@link BytesToSegmentDecoder} accumulate the reads of the
 * frame (or segment) they wait for. Netty's default, {@link
 * ByteToMessageDecoder#MERGE_CUMULATOR}, copies every read into a buffer that doubles as it
 * fills: a 1.2 MiB frame in 64 KiB reads was copied about 2.6 times over (3.2 MiB of copies) into
 * buffers that the allocator also had to zero. The decoder tells this cumulator, each time it
 * waits for more bytes, how long the incomplete unit at the reader index is:
 *
 * <ul>
 *   <li><b>Small units</b> ({@link #merge}): Netty's merge, one copy of a few bytes.
 *   <li><b>Large units read as they are</b> ({@link #gather}: an uncompressed frame or segment of
 *       at least {@link #LARGE} bytes): the reads are gathered into a {@link CompositeByteBuf}
 *       without copying, and the unit is a slice of it. Only reads of at least {@link
 *       #MIN_GATHERED_READ} bytes that fill at least half of their buffer are gathered (and the
 *       read that completes the unit); at the first other one the unit falls back to one copy
 *       into a buffer of its length, as below, so a peer sending tiny reads costs one copy, not
 *       a component (and a buffer's capacity) per read.
 *   <li><b>Large units that will be decompressed</b> ({@link #presize}): the decompressor needs
 *       contiguous bytes, so the reads are copied once into one buffer of the unit's length.
 * </ul>
 *
 * <p>Once a gathered unit is decoded, the few bytes left after it (the start of the next unit)
 * are copied out of the composite at the next read, so small units are never read through it.
 *
 * <p><b>Ownership.</b> As for any {@link ByteToMessageDecoder.Cumulator}: the cumulation and the
 * input are Ownership transferred; the returned cumulation is the decoder's.
 *
 * <p><b>Threading.</b> One per decoder; not thread-safe.
 */
final class FrameCumulator implements ByteToMessageDecoder.Cumulator {
  /** Units of at least this many bytes (header included) are gathered or presized. */
  static final int LARGE = 64 * 1024;
  /** The smallest read gathered as a component. */
  static final int MIN_GATHERED_READ = 8 * 1024;

  private enum Mode { MERGE, GATHER, PRESIZE }

  private Mode mode = Mode.MERGE;
  /** Length of the unit at the cumulation's reader index (GATHER and PRESIZE). */
  private int length;

  /** The unit waited for is small (or unknown): merge. */
  void merge() {
    mode = Mode.MERGE;
  }

  /**
   * The unit waited for, {@code length} bytes from the reader index, will be used as it is read:
   * gather if it is {@link #LARGE}, else merge.
   */
  void gather(int length) {
    this.mode = length >= LARGE ? Mode.GATHER : Mode.MERGE;
    this.length = length;
  }

  /**
   * The unit waited for, {@code length} bytes from the reader index, will be decompressed:
   * copy it into one buffer of its length if it is {@link #LARGE}, else merge.
   */
  void presize(int length) {
    this.mode = length >= LARGE ? Mode.PRESIZE : Mode.MERGE;
    this.length = length;
  }

  @Override
  public ByteBuf cumulate(ByteBufAllocator alloc, ByteBuf cumulation, ByteBuf in) {
    if (cumulation != in && cumulation.isReadable()) {
      switch (mode) {
        case GATHER:
          if (holdsUnit(cumulation, in)) {
            return append(cumulation, in); // a unit that fell back to one copy stays there
          }
          if (gatherable(in) || cumulation.readableBytes() + (long) in.readableBytes() >= length) {
            return ByteToMessageDecoder.COMPOSITE_CUMULATOR.cumulate(alloc, cumulation, in);
          }
          return presized(alloc, cumulation, in); // a small read: one copy for the whole unit
        case PRESIZE:
          return holdsUnit(cumulation, in) ? append(cumulation, in)
              : presized(alloc, cumulation, in);
        default:
          if (cumulation instanceof CompositeByteBuf) {
            // what follows a gathered unit: out of the composite, into one small buffer
            int total = cumulation.readableBytes() + in.readableBytes();
            return copy(alloc, cumulation, in, alloc.calculateNewCapacity(total, Integer.MAX_VALUE));
          }
      }
    }
    return ByteToMessageDecoder.MERGE_CUMULATOR.cumulate(alloc, cumulation, in);
  }

  /**
   * Large enough to be a component, and not mostly empty capacity. (A read that completes the
   * unit is gathered whatever its size: it is the last one.)
   */
  private static boolean gatherable(ByteBuf in) {
    int n = in.readableBytes();
    return n >= MIN_GATHERED_READ && n >= in.capacity() / 2;
  }

  /** Whether the cumulation is ours alone and can take {@code in} and the rest of the unit. */
  private boolean holdsUnit(ByteBuf cumulation, ByteBuf in) {
    return cumulation.refCnt() == 1 && !(cumulation instanceof CompositeByteBuf)
        && !cumulation.isReadOnly() && cumulation.writableBytes() >= in.readableBytes()
        && (long) cumulation.readableBytes() + cumulation.writableBytes() >= length;
  }

  /** Copies {@code in} into the cumulation's room; releases {@code in}. */
  private static ByteBuf append(ByteBuf cumulation, ByteBuf in) {
    try {
      cumulation.writeBytes(in, in.readerIndex(), in.readableBytes());
      in.readerIndex(in.writerIndex());
      return cumulation;
    } finally {
      in.release();
    }
  }

  /** Copies the cumulation and {@code in} into one new buffer that can hold the whole unit. */
  private ByteBuf presized(ByteBufAllocator alloc, ByteBuf cumulation, ByteBuf in) {
    long total = (long) cumulation.readableBytes() + in.readableBytes();
    return copy(alloc, cumulation, in, (int) Math.min(Integer.MAX_VALUE, Math.max(length, total)));
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
