package io.cqlrows.core;

import io.cqlrows.core.CqlParseException.Reason;
import io.cqlrows.core.type.VectorType;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * Deserializers for {@code vector<T, N>} (native_protocol_v5.spec section 5.25, as Cassandra's
 * {@code db/marshal/VectorType} writes it; see docs/protocol.md, "Vectors").
 *
 * <ul>
 *   <li>float, double, int, bigint elements: the fast path. The length is checked once against
 *       {@code N * width}; the sink gets a reusable view whose {@code copyTo} is one bulk
 *       big-endian copy ({@link BulkCopy}). No allocation per cell.
 *   <li>other fixed-width elements (boolean, timestamp, uuid, timeuuid, nested fixed vectors):
 *       packed at a stride, decoded to a {@code List}.
 *   <li>everything else: each element prefixed by an unsigned vint length; the value must be
 *       consumed exactly.
 * </ul>
 *
 * The choice is made once from {@link io.cqlrows.core.type.CqlType#fixedLengthInVector()}, an exact
 * per-type table, never by guessing.
 */
final class VectorDeserializers {
  private VectorDeserializers() {}

  static CqlParseException sizeMismatch(VectorType type, int index, long expected, int actual) {
    return CqlParseException.at(
        Reason.LENGTH_MISMATCH,
        "value",
        index,
        type,
        "expected "
            + expected
            + " bytes ("
            + type.dimension()
            + " x "
            + type.element().fixedLengthInVector()
            + "), got "
            + actual);
  }

  /**
   * Base of the four primitive fast paths: one length check per cell, then a view. The four
   * subclasses are alike but for their element type: each is the sink's view of its own interface
   * ({@link FloatVector}, {@link DoubleVector}, {@link IntVector}, {@link LongVector}), with an
   * unboxed {@code get} and a {@code copyTo} into its own array type, which no shared generic class
   * could offer without boxing.
   */
  abstract static class Primitive extends ValueDeserializer {
    final int dimension;
    final long expected;

    Primitive(VectorType type, int width) {
      super(type);
      this.dimension = type.dimension();
      this.expected = (long) width * dimension;
    }

    /** The cell being delivered; null outside {@link #deliver} (the view is borrowed). */
    ByteBuf buf;

    /** Index of the cell's first element in {@link #buf}. */
    int base;

    final void check(int index, int length) {
      if (length != expected) {
        throw sizeMismatch((VectorType) type, index, expected, length);
      }
    }

    @Override
    final void validate(ByteBuf buf, int index, int length) {
      check(index, length); // every bit pattern is an element
    }

    @Override
    final void deliver(ByteBuf buf, int index, int length, RowSink sink, int column) {
      check(index, length);
      this.buf = buf;
      this.base = index;
      try {
        emit(sink, column);
      } finally {
        this.buf = null; // the view is borrowed: make later use fail fast
      }
    }

    /** Hands this view to the sink's typed vector event. */
    abstract void emit(RowSink sink, int column);
  }

  static final class FloatVectorDeserializer extends Primitive implements FloatVector {
    FloatVectorDeserializer(VectorType type) {
      super(type, 4);
    }

    @Override
    void emit(RowSink sink, int column) {
      sink.onFloatVector(column, this);
    }

    @Override
    Object decode(ByteBuf buf, int index, int length) {
      check(index, length);
      float[] a = new float[dimension];
      BulkCopy.floats(buf, index, a, 0, dimension);
      return a;
    }

    @Override
    public int dimension() {
      return dimension;
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

  static final class DoubleVectorDeserializer extends Primitive implements DoubleVector {
    DoubleVectorDeserializer(VectorType type) {
      super(type, 8);
    }

    @Override
    void emit(RowSink sink, int column) {
      sink.onDoubleVector(column, this);
    }

    @Override
    Object decode(ByteBuf buf, int index, int length) {
      check(index, length);
      double[] a = new double[dimension];
      BulkCopy.doubles(buf, index, a, 0, dimension);
      return a;
    }

    @Override
    public int dimension() {
      return dimension;
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

  static final class IntVectorDeserializer extends Primitive implements IntVector {
    IntVectorDeserializer(VectorType type) {
      super(type, 4);
    }

    @Override
    void emit(RowSink sink, int column) {
      sink.onIntVector(column, this);
    }

    @Override
    Object decode(ByteBuf buf, int index, int length) {
      check(index, length);
      int[] a = new int[dimension];
      BulkCopy.ints(buf, index, a, 0, dimension);
      return a;
    }

    @Override
    public int dimension() {
      return dimension;
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

  static final class LongVectorDeserializer extends Primitive implements LongVector {
    LongVectorDeserializer(VectorType type) {
      super(type, 8);
    }

    @Override
    void emit(RowSink sink, int column) {
      sink.onLongVector(column, this);
    }

    @Override
    Object decode(ByteBuf buf, int index, int length) {
      check(index, length);
      long[] a = new long[dimension];
      BulkCopy.longs(buf, index, a, 0, dimension);
      return a;
    }

    @Override
    public int dimension() {
      return dimension;
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

  /** Other fixed-width elements, packed at a stride: a {@code List}. */
  static final class StrideVectorDeserializer extends ValueDeserializer.ToObject {
    private final ValueDeserializer element;
    private final int width;
    private final int dimension;

    StrideVectorDeserializer(VectorType type, ValueDeserializer element) {
      super(type);
      this.element = element;
      this.width = type.element().fixedLengthInVector();
      this.dimension = type.dimension();
    }

    @Override
    Object decode(ByteBuf buf, int index, int length) {
      long expected = (long) width * dimension;
      if (length != expected) {
        throw sizeMismatch((VectorType) type, index, expected, length);
      }
      List<Object> list = new ArrayList<>(dimension);
      for (int i = 0; i < dimension; i++) {
        list.add(element.decodeElement(buf, index + i * width, width));
      }
      return Collections.unmodifiableList(list);
    }
  }

  /** Variable-width elements, each after an unsigned vint length: a {@code List}. */
  static final class VintVectorDeserializer extends ValueDeserializer.ToObject {
    private final ValueDeserializer element;
    private final int dimension;

    VintVectorDeserializer(VectorType type, ValueDeserializer element) {
      super(type);
      this.element = element;
      this.dimension = type.dimension();
    }

    @Override
    Object decode(ByteBuf buf, int index, int length) {
      int end = index + length;
      // every element takes at least one byte (its vint): bound the list before allocating
      if (dimension > length) {
        throw CqlParseException.at(
            Reason.TRUNCATED,
            "value",
            index,
            type,
            dimension + " elements need at least " + dimension + " bytes, have " + length);
      }
      List<Object> list = new ArrayList<>(dimension);
      int p = index;
      for (int i = 0; i < dimension; i++) {
        int len = Vints.readLength(buf, p, end, type);
        p += Vints.sizeAt(buf, p);
        if (len > end - p) {
          throw CqlParseException.at(
              Reason.TRUNCATED,
              "vector element",
              p,
              type,
              "element " + i + " needs " + len + " bytes, have " + (end - p));
        }
        list.add(element.decodeElement(buf, p, len));
        p += len;
      }
      if (p != end) {
        throw CqlParseException.at(
            Reason.TRAILING_BYTES,
            "value",
            p,
            type,
            (end - p) + " bytes after " + dimension + " elements");
      }
      return Collections.unmodifiableList(list);
    }
  }
}
