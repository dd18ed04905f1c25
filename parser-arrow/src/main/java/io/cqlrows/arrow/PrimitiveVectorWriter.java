package io.cqlrows.arrow;

import io.cqlrows.core.DoubleVector;
import io.cqlrows.core.FloatVector;
import io.cqlrows.core.IntVector;
import io.cqlrows.core.LongVector;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.complex.FixedSizeListVector;

/**
 * {@code vector<float|double|int|bigint, N>}: the fast path. A cell is copied from the frame into a
 * reused primitive array by the parser's bulk big-endian copy (the scalar or SIMD path of
 * cqlrows-core), then into the child's data buffer by one native-order bulk put; the child's
 * validity is set for the whole batch at once in {@link #finish}. Slots under a NULL cell are
 * zeroed, so a reused buffer never carries a previous batch's values into a file.
 */
abstract class PrimitiveVectorWriter extends ValueWriter {
  final FixedSizeListVector v;
  final BaseFixedWidthVector child;
  final int dimension;

  /** The child's data buffer {@code view} was made for. */
  private ArrowBuf data;

  PrimitiveVectorWriter(FixedSizeListVector v) {
    super(v);
    this.v = v;
    this.child = (BaseFixedWidthVector) v.getDataVector();
    this.dimension = v.getListSize();
  }

  /** Makes room for cell {@code index}, marks it valid, and renews the view if the buffer moved. */
  @SuppressWarnings("ReferenceEquality") // did Arrow reallocate the buffer?
  final void begin(int index) {
    while (index >= v.getValueCapacity()) {
      v.reAlloc();
    }
    ArrowBuf now = child.getDataBuffer();
    if (now != data) {
      data = now;
      ByteBuffer bytes = now.nioBuffer(0, (int) Math.min(now.capacity(), Integer.MAX_VALUE));
      newView(bytes.order(ByteOrder.nativeOrder()));
    }
    BitVectorHelper.setBit(v.getValidityBuffer(), index);
  }

  /** A typed view of the child's data buffer, in Arrow's (the platform's) byte order. */
  abstract void newView(ByteBuffer bytes);

  /**
   * A boxed cell: the element of a collection, UDT, tuple or vector, where no {@link #finish}
   * follows, so the child's validity is set here, element by element.
   */
  @Override
  final void write(int index, Object value) {
    begin(index);
    int at = index * dimension;
    putBoxed(at, value);
    ArrowBuf validity = child.getValidityBuffer();
    for (int i = 0; i < dimension; i++) {
      BitVectorHelper.setBit(validity, at + i);
    }
  }

  /** A nested vector cell, boxed: its primitive array (or a {@code List}). */
  abstract void putBoxed(int at, Object value);

  @Override
  final void writeNull(int index) {
    while (index >= v.getValueCapacity()) {
      v.reAlloc();
    }
    BitVectorHelper.unsetBit(v.getValidityBuffer(), index);
    int width = child.getTypeWidth();
    child.getDataBuffer().setZero((long) index * dimension * width, (long) dimension * width);
  }

  @Override
  final void reset() {
    v.getValidityBuffer().setZero(0, v.getValidityBuffer().capacity());
    v.setValueCount(0);
  }

  /** Every element of the batch is valid (a NULL cell is null in the list, not in the child). */
  @Override
  final void finish(int rows) {
    long elements = (long) rows * dimension;
    while (elements > child.getValueCapacity()) {
      child.reAlloc();
    }
    ArrowBuf validity = child.getValidityBuffer();
    validity.setOne(0L, (elements + 7) / 8);
  }

  static final class Floats extends PrimitiveVectorWriter {
    private java.nio.FloatBuffer view;
    private float[] scratch;

    Floats(FixedSizeListVector v) {
      super(v);
      scratch = new float[dimension];
    }

    @Override
    void newView(ByteBuffer bytes) {
      view = bytes.asFloatBuffer();
    }

    @Override
    void onFloatVector(int index, FloatVector value) {
      begin(index);
      value.copyTo(scratch, 0);
      view.put(index * dimension, scratch, 0, dimension);
    }

    @Override
    void putBoxed(int at, Object value) {
      if (value instanceof float[] a) {
        view.put(at, a, 0, dimension);
      } else {
        List<?> list = (List<?>) value;
        for (int i = 0; i < dimension; i++) {
          view.put(at + i, ((Number) list.get(i)).floatValue());
        }
      }
    }
  }

  static final class Doubles extends PrimitiveVectorWriter {
    private java.nio.DoubleBuffer view;
    private double[] scratch;

    Doubles(FixedSizeListVector v) {
      super(v);
      scratch = new double[dimension];
    }

    @Override
    void newView(ByteBuffer bytes) {
      view = bytes.asDoubleBuffer();
    }

    @Override
    void onDoubleVector(int index, DoubleVector value) {
      begin(index);
      value.copyTo(scratch, 0);
      view.put(index * dimension, scratch, 0, dimension);
    }

    @Override
    void putBoxed(int at, Object value) {
      if (value instanceof double[] a) {
        view.put(at, a, 0, dimension);
      } else {
        List<?> list = (List<?>) value;
        for (int i = 0; i < dimension; i++) {
          view.put(at + i, ((Number) list.get(i)).doubleValue());
        }
      }
    }
  }

  static final class Ints extends PrimitiveVectorWriter {
    private java.nio.IntBuffer view;
    private int[] scratch;

    Ints(FixedSizeListVector v) {
      super(v);
      scratch = new int[dimension];
    }

    @Override
    void newView(ByteBuffer bytes) {
      view = bytes.asIntBuffer();
    }

    @Override
    void onIntVector(int index, IntVector value) {
      begin(index);
      value.copyTo(scratch, 0);
      view.put(index * dimension, scratch, 0, dimension);
    }

    @Override
    void putBoxed(int at, Object value) {
      if (value instanceof int[] a) {
        view.put(at, a, 0, dimension);
      } else {
        List<?> list = (List<?>) value;
        for (int i = 0; i < dimension; i++) {
          view.put(at + i, ((Number) list.get(i)).intValue());
        }
      }
    }
  }

  static final class Longs extends PrimitiveVectorWriter {
    private java.nio.LongBuffer view;
    private long[] scratch;

    Longs(FixedSizeListVector v) {
      super(v);
      scratch = new long[dimension];
    }

    @Override
    void newView(ByteBuffer bytes) {
      view = bytes.asLongBuffer();
    }

    @Override
    void onLongVector(int index, LongVector value) {
      begin(index);
      value.copyTo(scratch, 0);
      view.put(index * dimension, scratch, 0, dimension);
    }

    @Override
    void putBoxed(int at, Object value) {
      if (value instanceof long[] a) {
        view.put(at, a, 0, dimension);
      } else {
        List<?> list = (List<?>) value;
        for (int i = 0; i < dimension; i++) {
          view.put(at + i, ((Number) list.get(i)).longValue());
        }
      }
    }
  }
}
