package io.cqlrows.core.sink;

import io.cqlrows.core.CellKind;
import io.cqlrows.core.ColumnSpec;
import io.cqlrows.core.DoubleVector;
import io.cqlrows.core.FloatVector;
import io.cqlrows.core.IntVector;
import io.cqlrows.core.LongVector;
import io.cqlrows.core.RowSink;
import io.cqlrows.core.RowsMetadata;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * Collects one ROWS result column by column into primitive arrays: the fast path for analytics and
 * embeddings. Each {@code vector<float, N>} column becomes one row-major {@code float[rows * N]}
 * matrix filled by a bulk big-endian copy straight from the frame (an embedding matrix straight
 * from the wire); likewise {@code vector<double|int|bigint, N>}.
 *
 * <table>
 *   <caption>Column storage by the {@link CellKind} of the column's type</caption>
 *   <tr><th>kind</th><th>{@link Column} accessor</th></tr>
 *   <tr><td>INT, SMALLINT, TINYINT, DATE (epoch days)</td><td>{@link Column#ints()}</td></tr>
 *   <tr><td>BIGINT, TIMESTAMP (ms), TIME (ns)</td><td>{@link Column#longs()}</td></tr>
 *   <tr><td>UUID</td><td>{@link Column#longs()}: msb, lsb pairs (2 per row)</td></tr>
 *   <tr><td>FLOAT / DOUBLE / BOOLEAN</td><td>{@link Column#floats()} / {@link Column#doubles()}
 *       / {@link Column#booleans()}</td></tr>
 *   <tr><td>FLOAT_VECTOR, DOUBLE_VECTOR, INT_VECTOR, LONG_VECTOR</td>
 *       <td>the same arrays, N per row</td></tr>
 *   <tr><td>TEXT, BLOB, OBJECT</td>
 *       <td>{@link Column#objects()} (as {@link RowSink#onObject})</td></tr>
 * </table>
 *
 * <p>A row without a value (NULL, not set, empty) has its bit set in {@link Column#nulls()} and
 * zeros in the primitive slots. Arrays grow as values arrive, so they never hold more than about
 * twice what the frame carried, and are trimmed to {@code rowCount * width} slots at the end; only
 * when a result ends with so many rows without values that padding them would exceed 2^20 slots
 * beyond that do the arrays stay shorter (index them only for rows that are not null). Each result
 * replaces the previous one. Not thread-safe.
 */
public final class ColumnarSink implements RowSink {
  /** One entry per column of the last result; null for a column that was not selected. */
  private final List<ColumnArrays> columns = new ArrayList<>();

  /** Whether a result reuses the arrays of the previous one (see {@link #reuseArrays}). */
  private boolean reuse;

  private ColumnSelection selection = ColumnSelection.ALL;

  /** The selection in force for the current result; null for all. */
  private BitSet resultSelection;

  private int rowCount;
  private int row;

  @Override
  public void onResultStart(RowsMetadata metadata, int rowCount) {
    this.rowCount = 0;
    resultSelection = selection.resolve(metadata.columns());
    List<ColumnSpec> specs = metadata.columns().specs();
    for (int i = 0; i < specs.size(); i++) {
      ColumnSpec spec = specs.get(i);
      ColumnArrays previous = i < columns.size() ? columns.get(i) : null;
      if (!wantsColumn(i)) {
        if (i < columns.size()) {
          columns.set(i, null);
        } else {
          columns.add(null);
        }
      } else if (reuse && previous != null && previous.spec.type().equals(spec.type())) {
        columns.set(i, previous.reset(spec, rowCount));
      } else if (i < columns.size()) {
        columns.set(i, new ColumnArrays(spec, rowCount));
      } else {
        columns.add(new ColumnArrays(spec, rowCount));
      }
    }
    while (columns.size() > specs.size()) {
      columns.remove(columns.size() - 1);
    }
  }

  /**
   * Opt in to reusing arrays across results: a column of the same type keeps its arrays when they
   * are large enough, so paging through a table copies every vector straight into the same matrix
   * with no allocation. The arrays may then be longer than {@code rowCount() * width} (index them
   * up to that), and they are overwritten by the next result: copy what you keep.
   *
   * @return this sink
   */
  public ColumnarSink reuseArrays(boolean enabled) {
    this.reuse = enabled;
    return this;
  }

  /**
   * Collects only these columns, by zero-based index, from the next result on; the parser skips the
   * others undecoded (see {@link #wantsColumn}), and {@link #column} rejects them. Indexes past a
   * result's last column are ignored. Selecting only primitive columns (and primitive vectors) with
   * {@link #reuseArrays} makes paging allocate nothing per row.
   *
   * @return this sink
   * @throws IllegalArgumentException if an index is negative
   */
  public ColumnarSink selectColumns(int... columnIndexes) {
    this.selection = ColumnSelection.ofIndexes(columnIndexes);
    return this;
  }

  /**
   * Collects only the columns with these exact names (internal form) from the next result on; names
   * a result does not have are ignored. Replaces any selection by index.
   *
   * @return this sink
   */
  public ColumnarSink selectColumnsByName(String... names) {
    this.selection = ColumnSelection.ofNames(names);
    return this;
  }

  /**
   * Collects every column (the default) from the next result on.
   *
   * @return this sink
   */
  public ColumnarSink selectAllColumns() {
    this.selection = ColumnSelection.ALL;
    return this;
  }

  /** True for the selected columns of the current result (all by default). */
  @Override
  public boolean wantsColumn(int column) {
    return resultSelection == null || resultSelection.get(column);
  }

  /**
   * Pre-sizes every column for the rows that can have a value: all of them for scalars, and for a
   * vector column as many as the remaining bytes could hold ({@code 4 + N x width} each), so a page
   * of vectors is copied straight into its final matrix.
   */
  @Override
  public void onRowsContentLength(int bytes) {
    for (ColumnArrays c : columns) {
      if (c != null) {
        c.presize(bytes);
      }
    }
  }

  @Override
  public void onRowStart(int row) {
    this.row = row;
  }

  @Override
  public void onRowEnd(int row) {
    rowCount = row + 1;
  }

  @Override
  public void onResultEnd(int rowCount) {
    if (reuse) {
      return; // arrays stay at their capacity, to serve the next result
    }
    for (ColumnArrays c : columns) {
      if (c != null) {
        c.trim(rowCount);
      }
    }
  }

  @Override
  public void onNull(int column) {
    columns.get(column).noValue(row);
  }

  @Override
  public void onNotSet(int column) {
    columns.get(column).noValue(row);
  }

  @Override
  public void onEmpty(int column) {
    columns.get(column).noValue(row);
  }

  /** The arrays of {@code column}, with room for the current row. */
  private ColumnArrays arraysFor(int column) {
    ColumnArrays c = columns.get(column);
    c.ensure(row);
    return c;
  }

  @Override
  public void onObject(int column, Object value) {
    arraysFor(column).objects[row] = value;
  }

  @Override
  public void onBoolean(int column, boolean value) {
    arraysFor(column).booleans[row] = value;
  }

  @Override
  public void onTinyint(int column, byte value) {
    onInt(column, value);
  }

  @Override
  public void onSmallint(int column, short value) {
    onInt(column, value);
  }

  @Override
  public void onInt(int column, int value) {
    arraysFor(column).ints[row] = value;
  }

  @Override
  public void onDate(int column, int epochDays) {
    onInt(column, epochDays);
  }

  @Override
  public void onBigint(int column, long value) {
    arraysFor(column).longs[row] = value;
  }

  @Override
  public void onTimestamp(int column, long epochMillis) {
    onBigint(column, epochMillis);
  }

  @Override
  public void onTime(int column, long nanosOfDay) {
    onBigint(column, nanosOfDay);
  }

  @Override
  public void onUuid(int column, long mostSigBits, long leastSigBits) {
    ColumnArrays c = arraysFor(column);
    c.longs[2 * row] = mostSigBits;
    c.longs[2 * row + 1] = leastSigBits;
  }

  @Override
  public void onFloat(int column, float value) {
    arraysFor(column).floats[row] = value;
  }

  @Override
  public void onDouble(int column, double value) {
    arraysFor(column).doubles[row] = value;
  }

  @Override
  public void onFloatVector(int column, FloatVector value) {
    ColumnArrays c = arraysFor(column);
    value.copyTo(c.floats, row * c.width);
  }

  @Override
  public void onDoubleVector(int column, DoubleVector value) {
    ColumnArrays c = arraysFor(column);
    value.copyTo(c.doubles, row * c.width);
  }

  @Override
  public void onIntVector(int column, IntVector value) {
    ColumnArrays c = arraysFor(column);
    value.copyTo(c.ints, row * c.width);
  }

  @Override
  public void onLongVector(int column, LongVector value) {
    ColumnArrays c = arraysFor(column);
    value.copyTo(c.longs, row * c.width);
  }

  /** Rows in the last result. */
  public int rowCount() {
    return rowCount;
  }

  /**
   * Column {@code i} of the last result.
   *
   * @throws IllegalArgumentException if the column was not selected (see {@link #isSelected})
   * @throws IndexOutOfBoundsException if the result has no column {@code i}
   */
  public Column column(int i) {
    ColumnArrays c = columns.get(i);
    if (c == null) {
      throw new IllegalArgumentException("column " + i + " was not selected");
    }
    return c.view;
  }

  /** Whether column {@code i} of the last result was collected (see {@link #selectColumns}). */
  public boolean isSelected(int i) {
    return columns.get(i) != null;
  }

  /** Number of columns of the last result, selected or not. */
  public int columnCount() {
    return columns.size();
  }

  /**
   * One column's values. Exactly one of the array accessors is non-null, chosen by the column's
   * type (see {@link ColumnarSink}); the arrays are the sink's own, valid until the next result.
   */
  public static final class Column {
    private final ColumnArrays arrays;

    Column(ColumnArrays arrays) {
      this.arrays = arrays;
    }

    /** The column's spec. */
    public ColumnSpec spec() {
      return arrays.spec;
    }

    /** Values per row in the primitive array: N for vectors, 2 for uuids, else 1. */
    public int width() {
      return arrays.width;
    }

    /** Rows that have no value (NULL, not set or empty). */
    public BitSet nulls() {
      return arrays.nulls;
    }

    /** Whether row {@code r} has no value. */
    public boolean isNull(int r) {
      return arrays.nulls.get(r);
    }

    /** int-like values, or {@code null} for other types. */
    public int[] ints() {
      return arrays.ints;
    }

    /** long-like values, or {@code null} for other types. */
    public long[] longs() {
      return arrays.longs;
    }

    /** float values (row-major {@code rows x N} for vectors), or {@code null}. */
    public float[] floats() {
      return arrays.floats;
    }

    /** double values (row-major for vectors), or {@code null}. */
    public double[] doubles() {
      return arrays.doubles;
    }

    /** boolean values, or {@code null}. */
    public boolean[] booleans() {
      return arrays.booleans;
    }

    /** Boxed values for every other type, or {@code null}. */
    public Object[] objects() {
      return arrays.objects;
    }
  }
}
