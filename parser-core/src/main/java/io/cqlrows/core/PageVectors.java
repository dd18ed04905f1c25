package io.cqlrows.core;

import io.netty.buffer.ByteBuf;
import java.util.Objects;

/**
 * Views of a {@code vector<float|double|int|bigint, N>} cell, read in place from big-endian bytes.
 * {@link LazyRow} makes one per call, over a cell of its page, valid as long as the page is; each
 * primitive vector deserializer keeps one, pointed at the cell it delivers to a sink and at nothing
 * after the call (its later use fails fast).
 */
final class PageVectors {
  private PageVectors() {}

  /**
   * A view of {@code dimension} elements of {@code width} bytes from {@code base} of {@code buf}.
   */
  abstract static class View {
    ByteBuf buf;
    int base;
    final int dimension;

    View(ByteBuf buf, int base, int dimension) {
      this.buf = buf;
      this.base = base;
      this.dimension = dimension;
    }

    /** Points the view at the cell of {@code buf} whose first element is at {@code base}. */
    final void point(ByteBuf buf, int base) {
      this.buf = buf;
      this.base = base;
    }

    public final int dimension() {
      return dimension;
    }
  }

  static final class Floats extends View implements FloatVector {
    Floats(ByteBuf buf, int base, int dimension) {
      super(buf, base, dimension);
    }

    @Override
    public float get(int i) {
      return buf.getFloat(base + 4 * Objects.checkIndex(i, dimension));
    }

    @Override
    public void copyTo(float[] dst, int dstOffset) {
      Objects.checkFromIndexSize(dstOffset, dimension, dst.length);
      BulkCopy.floats(buf, base, dst, dstOffset, dimension);
    }
  }

  static final class Doubles extends View implements DoubleVector {
    Doubles(ByteBuf buf, int base, int dimension) {
      super(buf, base, dimension);
    }

    @Override
    public double get(int i) {
      return buf.getDouble(base + 8 * Objects.checkIndex(i, dimension));
    }

    @Override
    public void copyTo(double[] dst, int dstOffset) {
      Objects.checkFromIndexSize(dstOffset, dimension, dst.length);
      BulkCopy.doubles(buf, base, dst, dstOffset, dimension);
    }
  }

  static final class Ints extends View implements IntVector {
    Ints(ByteBuf buf, int base, int dimension) {
      super(buf, base, dimension);
    }

    @Override
    public int get(int i) {
      return buf.getInt(base + 4 * Objects.checkIndex(i, dimension));
    }

    @Override
    public void copyTo(int[] dst, int dstOffset) {
      Objects.checkFromIndexSize(dstOffset, dimension, dst.length);
      BulkCopy.ints(buf, base, dst, dstOffset, dimension);
    }
  }

  static final class Longs extends View implements LongVector {
    Longs(ByteBuf buf, int base, int dimension) {
      super(buf, base, dimension);
    }

    @Override
    public long get(int i) {
      return buf.getLong(base + 8 * Objects.checkIndex(i, dimension));
    }

    @Override
    public void copyTo(long[] dst, int dstOffset) {
      Objects.checkFromIndexSize(dstOffset, dimension, dst.length);
      BulkCopy.longs(buf, base, dst, dstOffset, dimension);
    }
  }
}
