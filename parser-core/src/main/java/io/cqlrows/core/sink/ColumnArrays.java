package io.cqlrows.core.sink;

import io.cqlrows.core.CellKind;
import io.cqlrows.core.ColumnSpec;
import io.cqlrows.core.type.VectorType;
import java.util.Arrays;
import java.util.BitSet;

/**
 * The storage of one column that {@link ColumnarSink} collects: one array, of the primitive type
 * that holds the column's values (or of objects, see {@link ColumnarSink}), {@link #width} slots
 * per row, and the rows without a value. The sink writes the arrays directly; {@link
 * ColumnarSink.Column} is their public, read-only view.
 *
 * <p>The arrays start empty and grow as values arrive, at most to the result's row count, so they
 * never hold more than about twice what the frame carried; {@link #presize} sizes them at once for
 * the rows the frame's bytes can hold, and {@link #trim} to the row count at the end.
 */
final class ColumnArrays {
  /** The column's spec in the current result. */
  ColumnSpec spec;

  private final Kind kind;

  /** Slots per row: N for vectors, 2 for uuids, else 1. */
  final int width;

  private int maxRows;
  private int capacity;
  final BitSet nulls = new BitSet();
  int[] ints;
  long[] longs;
  float[] floats;
  double[] doubles;
  boolean[] booleans;
  Object[] objects;

  /** The public view of this column, the same for as long as the arrays serve. */
  final ColumnarSink.Column view = new ColumnarSink.Column(this);

  /** The array a column's values are kept in. */
  private enum Kind {
    INT,
    LONG,
    FLOAT,
    DOUBLE,
    BOOLEAN,
    OBJECT
  }

  /** Padding for trailing rows without values that is always allowed: 2^20 slots. */
  static final long MAX_PADDING_SLOTS = 1L << 20;

  ColumnArrays(ColumnSpec spec, int maxRows) {
    this.spec = spec;
    CellKind cell = CellKind.of(spec.type());
    this.kind = arrayOf(cell);
    this.width =
        switch (cell) {
          case FLOAT_VECTOR, DOUBLE_VECTOR, INT_VECTOR, LONG_VECTOR ->
              ((VectorType) spec.type()).dimension();
          case UUID -> 2;
          default -> 1;
        };
    this.maxRows = maxRows;
    allocate(0); // grown as values arrive: never more than twice what the frame carried
  }

  /** The array that holds the values of a {@link CellKind}. */
  private static Kind arrayOf(CellKind cell) {
    return switch (cell) {
      case TINYINT, SMALLINT, INT, DATE, INT_VECTOR -> Kind.INT;
      case BIGINT, TIMESTAMP, TIME, UUID, LONG_VECTOR -> Kind.LONG;
      case FLOAT, FLOAT_VECTOR -> Kind.FLOAT;
      case DOUBLE, DOUBLE_VECTOR -> Kind.DOUBLE;
      case BOOLEAN -> Kind.BOOLEAN;
      case TEXT, BLOB, OBJECT -> Kind.OBJECT;
    };
  }

  private void allocate(int rows) {
    capacity = rows;
    int slots = Math.multiplyExact(rows, width);
    switch (kind) {
      case INT:
        ints = ints == null ? new int[slots] : Arrays.copyOf(ints, slots);
        break;
      case LONG:
        longs = longs == null ? new long[slots] : Arrays.copyOf(longs, slots);
        break;
      case FLOAT:
        floats = floats == null ? new float[slots] : Arrays.copyOf(floats, slots);
        break;
      case DOUBLE:
        doubles = doubles == null ? new double[slots] : Arrays.copyOf(doubles, slots);
        break;
      case BOOLEAN:
        booleans = booleans == null ? new boolean[slots] : Arrays.copyOf(booleans, slots);
        break;
      default:
        objects = objects == null ? new Object[rows] : Arrays.copyOf(objects, rows);
    }
  }

  /** Prepares a column of the same type for a new result, keeping its arrays. */
  ColumnArrays reset(ColumnSpec spec, int maxRows) {
    this.spec = spec;
    this.maxRows = maxRows;
    nulls.clear();
    return this;
  }

  /** Row {@code r} has no value: flagged, and its slots zeroed (they may hold older values). */
  void noValue(int r) {
    nulls.set(r);
    if (r >= capacity) {
      return;
    }
    int from = r * width;
    switch (kind) {
      case INT:
        Arrays.fill(ints, from, from + width, 0);
        break;
      case LONG:
        Arrays.fill(longs, from, from + width, 0L);
        break;
      case FLOAT:
        Arrays.fill(floats, from, from + width, 0f);
        break;
      case DOUBLE:
        Arrays.fill(doubles, from, from + width, 0d);
        break;
      case BOOLEAN:
        booleans[r] = false;
        break;
      default:
        objects[r] = null;
    }
  }

  /** Allocates for the rows that {@code bytes} of cells can give a value to. */
  void presize(int bytes) {
    long perValue = 4 + (long) width * elementBytes();
    int rows = (int) Math.min(maxRows, bytes / perValue);
    if (rows > capacity) {
      allocate(rows);
    }
  }

  private int elementBytes() {
    switch (kind) {
      case LONG:
      case DOUBLE:
        return 8;
      case INT:
      case FLOAT:
        return 4;
      default:
        return 1; // booleans; object slots are references, sized by row count
    }
  }

  /** Grows the arrays, if need be, to hold row {@code row}. */
  void ensure(int row) {
    if (row >= capacity) {
      allocate(Math.min(maxRows, Math.max(Math.max(row + 1, 16), capacity * 2)));
    }
  }

  /**
   * Sizes the arrays to exactly {@code rows}, unless padding trailing rows without values would
   * take more than {@link #MAX_PADDING_SLOTS} slots beyond twice what was filled: then the arrays
   * stop at the capacity they grew to, so NULL cells can never make the sink allocate more than the
   * frame carried.
   */
  void trim(int rows) {
    if (rows == capacity) {
      return;
    }
    long wanted = (long) rows * width;
    long allowed = Math.max(2L * capacity * width, MAX_PADDING_SLOTS);
    if (rows < capacity || wanted <= allowed) {
      allocate(rows);
    }
  }
}
