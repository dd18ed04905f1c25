package io.cqlrows.core;

import io.cqlrows.core.CqlParseException.Reason;
import io.cqlrows.core.type.VectorType;
import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

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
   * Base of the four primitive fast paths: one length check per cell, then a view. Each holds one
   * {@link PageVectors} view of its element type, pointed at the cell being delivered and handed to
   * the sink's typed vector event; it points nowhere outside {@link #deliver}, as the view is
   * borrowed.
   */
  abstract static class Primitive extends ValueDeserializer {
    final int dimension;
    final long expected;

    Primitive(VectorType type, int width) {
      super(type);
      this.dimension = type.dimension();
      this.expected = (long) width * dimension;
    }

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
      PageVectors.View view = view();
      view.point(buf, index);
      try {
        emit(sink, column);
      } finally {
        view.point(null, 0); // the view is borrowed: make later use fail fast
      }
    }

    /** The reused view. */
    abstract PageVectors.View view();

    /** Hands the view to the sink's typed vector event. */
    abstract void emit(RowSink sink, int column);
  }

  static final class FloatVectorDeserializer extends Primitive {
    private final PageVectors.Floats view;

    FloatVectorDeserializer(VectorType type) {
      super(type, 4);
      view = new PageVectors.Floats(null, 0, dimension);
    }

    @Override
    PageVectors.View view() {
      return view;
    }

    @Override
    void emit(RowSink sink, int column) {
      sink.onFloatVector(column, view);
    }

    @Override
    Object decode(ByteBuf buf, int index, int length) {
      check(index, length);
      float[] a = new float[dimension];
      BulkCopy.floats(buf, index, a, 0, dimension);
      return a;
    }
  }

  static final class DoubleVectorDeserializer extends Primitive {
    private final PageVectors.Doubles view;

    DoubleVectorDeserializer(VectorType type) {
      super(type, 8);
      view = new PageVectors.Doubles(null, 0, dimension);
    }

    @Override
    PageVectors.View view() {
      return view;
    }

    @Override
    void emit(RowSink sink, int column) {
      sink.onDoubleVector(column, view);
    }

    @Override
    Object decode(ByteBuf buf, int index, int length) {
      check(index, length);
      double[] a = new double[dimension];
      BulkCopy.doubles(buf, index, a, 0, dimension);
      return a;
    }
  }

  static final class IntVectorDeserializer extends Primitive {
    private final PageVectors.Ints view;

    IntVectorDeserializer(VectorType type) {
      super(type, 4);
      view = new PageVectors.Ints(null, 0, dimension);
    }

    @Override
    PageVectors.View view() {
      return view;
    }

    @Override
    void emit(RowSink sink, int column) {
      sink.onIntVector(column, view);
    }

    @Override
    Object decode(ByteBuf buf, int index, int length) {
      check(index, length);
      int[] a = new int[dimension];
      BulkCopy.ints(buf, index, a, 0, dimension);
      return a;
    }
  }

  static final class LongVectorDeserializer extends Primitive {
    private final PageVectors.Longs view;

    LongVectorDeserializer(VectorType type) {
      super(type, 8);
      view = new PageVectors.Longs(null, 0, dimension);
    }

    @Override
    PageVectors.View view() {
      return view;
    }

    @Override
    void emit(RowSink sink, int column) {
      sink.onLongVector(column, view);
    }

    @Override
    Object decode(ByteBuf buf, int index, int length) {
      check(index, length);
      long[] a = new long[dimension];
      BulkCopy.longs(buf, index, a, 0, dimension);
      return a;
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
