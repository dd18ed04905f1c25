package io.cqlrows.core;

import io.netty.buffer.ByteBuf;
import java.util.Objects;

/**
 * The vector views {@link LazyRow} hands out: a cell of a {@link LazyPage}, read in place. Each is
 * made per call and holds no state besides where the cell is, so a view can be kept as long as the
 * page is.
 */
final class PageVectors {
  private PageVectors() {}

  /**
   * A view of {@code dimension} elements of {@code width} bytes from {@code base} of {@code buf}.
   */
  abstract static class View {
    final ByteBuf buf;
    final int base;
    final int dimension;

    View(ByteBuf buf, int base, int dimension) {
      this.buf = buf;
      this.base = base;
      this.dimension = dimension;
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
