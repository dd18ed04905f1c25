package io.cqlrows.core.sink;

import io.cqlrows.core.CellKind;
import io.cqlrows.core.ResultColumns;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.util.Arrays;
import java.util.UUID;

/**
 * The rows of one result as {@link RowsCollector} keeps them: a few arrays for the whole page
 * instead of objects per cell, read through {@link Row} views.
 *
 * <p>Per cell a state byte ({@link #states}, row-major). Columns of the fixed-width {@link
 * CellKind}s keep their values as {@code long} words ({@link #words}: {@link #wordsOf} per column),
 * every other column one reference ({@link #objects}); {@link #slots} gives a column's place in its
 * row's words or references. A value that does not fit its column's storage (a sink event of
 * another type than the column's, which the parser never sends) is kept boxed in {@link #boxed},
 * one reference per cell, made when first needed.
 *
 * <p>Rows below {@link #rows} are complete and never change again; the arrays may be replaced by
 * larger copies while rows are added, so readers load them from here on every access. Not
 * thread-safe.
 */
final class RowsPage {
  // Cell states. NULL is 0, the state of a cell no event reached.
  static final byte NULL = 0;
  static final byte NOT_SET = 1;
  static final byte EMPTY = 2;

  /** The value is in the row's words. */
  static final byte WORDS = 3;

  /** The value is the stored object (the column's reference, or its {@link #boxed} cell). */
  static final byte OBJECT = 4;

  /** The stored object is a {@code byte[]}, handed out in a {@code ByteBuffer}. */
  static final byte BLOB = 5;

  final ResultColumns columns;

  /** Number of columns. */
  final int width;

  /** Per column, the {@link CellKind} of its type. */
  final CellKind[] kinds;

  /** Per column, whether its values are kept as references (else in words). */
  final boolean[] refs;

  /** Per column, its first word in a row's words, or its reference in a row's references. */
  final int[] slots;

  final int wordsPerRow;
  final int refsPerRow;

  /** Index of this page's first row among all rows of its collector. */
  final int first;

  byte[] states;
  long[] words;
  Object[] objects;

  /** Per cell, a value kept boxed; null until one is. */
  Object[] boxed;

  /** Rows the arrays have room for. */
  int capacity;

  /** Complete rows. */
  int rows;

  RowsPage(ResultColumns columns, int first) {
    this.columns = columns;
    this.first = first;
    this.width = columns.size();
    this.kinds = new CellKind[width];
    this.refs = new boolean[width];
    this.slots = new int[width];
    int w = 0;
    int r = 0;
    for (int c = 0; c < width; c++) {
      CellKind kind = CellKind.of(columns.get(c).type());
      int words = wordsOf(kind);
      kinds[c] = kind;
      refs[c] = words == 0;
      if (words == 0) {
        slots[c] = r++;
      } else {
        slots[c] = w;
        w += words;
      }
    }
    this.wordsPerRow = w;
    this.refsPerRow = r;
    this.states = new byte[0];
    this.words = new long[0];
    this.objects = new Object[0];
  }

  /** The words a value of {@code kind} takes in a row, or 0 if it is kept as a reference. */
  static int wordsOf(CellKind kind) {
    return switch (kind) {
      case BOOLEAN, TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE, TIMESTAMP, DATE, TIME -> 1;
      case UUID -> 2; // the most, then the least significant bits
      case TEXT, BLOB, FLOAT_VECTOR, DOUBLE_VECTOR, INT_VECTOR, LONG_VECTOR, OBJECT -> 0;
    };
  }

  /**
   * Makes room for at least {@code rowCapacity} rows.
   *
   * @param rowCapacity at most the rows the page's result can hold, so at most its bytes / 4
   */
  void ensureCapacity(int rowCapacity) {
    if (rowCapacity <= capacity) {
      return;
    }
    states = Arrays.copyOf(states, Math.multiplyExact(rowCapacity, width));
    words = Arrays.copyOf(words, Math.multiplyExact(rowCapacity, wordsPerRow));
    objects = Arrays.copyOf(objects, Math.multiplyExact(rowCapacity, refsPerRow));
    if (boxed != null) {
      boxed = Arrays.copyOf(boxed, states.length);
    }
    capacity = rowCapacity;
  }

  /** The {@link #boxed} cells, made on first use. */
  Object[] boxed() {
    if (boxed == null) {
      boxed = new Object[states.length];
    }
    return boxed;
  }

  /** Forgets what a row that was started and never completed stored. */
  void clearRow(int row) {
    int cell = row * width;
    Arrays.fill(states, cell, cell + width, NULL);
    Arrays.fill(objects, row * refsPerRow, (row + 1) * refsPerRow, null);
    if (boxed != null) {
      Arrays.fill(boxed, cell, cell + width, null);
    }
  }

  /** The stored object of a cell in {@link #OBJECT} or {@link #BLOB} state. */
  Object stored(int row, int column) {
    return refs[column] ? objects[row * refsPerRow + slots[column]] : boxed[row * width + column];
  }

  /** The value of a cell, boxed as {@link io.cqlrows.core.RowSink}'s default events box it. */
  Object object(int row, int column) {
    CellKind kind = kinds[column]; // first: checks the column index
    switch (states[row * width + column]) {
      case WORDS:
        return boxWords(kind, row * wordsPerRow + slots[column]);
      case OBJECT:
        return stored(row, column);
      case BLOB:
        // as the default onBlob boxes it: a buffer over a copy of its own
        return ByteBuffer.wrap(((byte[]) stored(row, column)).clone());
      default:
        return null;
    }
  }

  private Object boxWords(CellKind kind, int at) {
    long w = words[at];
    return switch (kind) {
      case BOOLEAN -> w != 0;
      case TINYINT -> (byte) w;
      case SMALLINT -> (short) w;
      case INT -> (int) w;
      case BIGINT -> w;
      case FLOAT -> Float.intBitsToFloat((int) w);
      case DOUBLE -> Double.longBitsToDouble(w);
      case TIMESTAMP -> Instant.ofEpochMilli(w);
      case DATE -> LocalDate.ofEpochDay(w);
      case TIME -> LocalTime.ofNanoOfDay(w);
      case UUID -> new UUID(w, words[at + 1]);
      case TEXT, BLOB, FLOAT_VECTOR, DOUBLE_VECTOR, INT_VECTOR, LONG_VECTOR, OBJECT ->
          throw new AssertionError(kind);
    };
  }
}
