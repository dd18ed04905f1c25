package io.cqlrows.core.sink;

import io.cqlrows.core.ResultColumns;
import io.cqlrows.core.RowSink;
import io.cqlrows.core.type.CqlType;
import io.cqlrows.core.value.CqlDuration;
import io.cqlrows.core.value.TupleValue;
import io.cqlrows.core.value.UdtValue;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/**
 * One materialised row, built by {@link RowsCollector}. Getters take a column index or a column
 * name (exact, internal form: {@code "Id"}, {@code "with space"}).
 *
 * <p>Like the Java driver, primitive getters return {@code 0} / {@code false} for a NULL, not-set
 * or empty cell; check {@link #isNull}, {@link #isNotSet} or {@link #isEmpty} to tell them apart.
 * Object getters return {@code null} for those cells. A getter that does not fit the column's
 * type throws {@link IllegalArgumentException} naming the column and type. Immutable (byte
 * buffers are returned as read-only duplicates).
 */
public final class Row {
  /**
   * Stands in {@code values} for a cell without a value that is not NULL; NULL is {@code null}, so
   * a row needs no second array of states.
   */
  enum Marker {
    NOT_SET,
    EMPTY
  }

  private final ResultColumns columns;
  private final Object[] values;

  /** @param values the cells: a value, {@code null} for NULL, or a {@link Marker}. Owned. */
  Row(ResultColumns columns, Object[] values) {
    this.columns = columns;
    this.values = values;
  }

  /** The columns of this row's result. */
  public ResultColumns columns() {
    return columns;
  }

  /** Number of columns. */
  public int size() {
    return values.length;
  }

  /** Index of a column by exact name; throws {@link IllegalArgumentException} if absent. */
  public int indexOf(String name) {
    int i = columns.indexOf(name);
    if (i < 0) {
      throw new IllegalArgumentException("no column '" + name + "' in " + columns);
    }
    return i;
  }

  /** True if the cell was NULL (wire length -1). Cells of skipped columns are also NULL. */
  public boolean isNull(int i) {
    return values[i] == null;
  }

  /** See {@link #isNull(int)}. */
  public boolean isNull(String name) {
    return isNull(indexOf(name));
  }

  /** True if the cell was "not set" (wire length -2). */
  public boolean isNotSet(int i) {
    return values[i] == Marker.NOT_SET;
  }

  /** True if the cell was empty (length 0) for a type whose empty value is not a normal value. */
  public boolean isEmpty(int i) {
    return values[i] == Marker.EMPTY;
  }

  /** The decoded value as delivered to {@link RowSink#onObject} (boxed), or {@code null}. */
  public Object getObject(int i) {
    Object v = values[i];
    return v instanceof Marker ? null : v;
  }

  /** See {@link #getObject(int)}. */
  public Object getObject(String name) {
    return getObject(indexOf(name));
  }

  private <T> T get(int i, Class<T> type) {
    Object v = getObject(i);
    if (v == null) {
      return null;
    }
    if (!type.isInstance(v)) {
      CqlType t = columns.get(i).type();
      throw new IllegalArgumentException("column " + i + " '" + columns.get(i).name() + "' is "
          + t + " (" + v.getClass().getSimpleName() + "), not " + type.getSimpleName());
    }
    return type.cast(v);
  }

  /** boolean. */
  public boolean getBoolean(int i) {
    Boolean v = get(i, Boolean.class);
    return v != null && v;
  }

  /** See {@link #getBoolean(int)}. */
  public boolean getBoolean(String name) {
    return getBoolean(indexOf(name));
  }

  /** tinyint. */
  public byte getByte(int i) {
    Byte v = get(i, Byte.class);
    return v == null ? 0 : v;
  }

  /** smallint. */
  public short getShort(int i) {
    Short v = get(i, Short.class);
    return v == null ? 0 : v;
  }

  /** int. */
  public int getInt(int i) {
    Integer v = get(i, Integer.class);
    return v == null ? 0 : v;
  }

  /** See {@link #getInt(int)}. */
  public int getInt(String name) {
    return getInt(indexOf(name));
  }

  /** bigint or counter. */
  public long getLong(int i) {
    Long v = get(i, Long.class);
    return v == null ? 0L : v;
  }

  /** See {@link #getLong(int)}. */
  public long getLong(String name) {
    return getLong(indexOf(name));
  }

  /** float. */
  public float getFloat(int i) {
    Float v = get(i, Float.class);
    return v == null ? 0f : v;
  }

  /** double. */
  public double getDouble(int i) {
    Double v = get(i, Double.class);
    return v == null ? 0d : v;
  }

  /** See {@link #getDouble(int)}. */
  public double getDouble(String name) {
    return getDouble(indexOf(name));
  }

  /** text or ascii. */
  public String getString(int i) {
    return get(i, String.class);
  }

  /** See {@link #getString(int)}. */
  public String getString(String name) {
    return getString(indexOf(name));
  }

  /** uuid or timeuuid. */
  public UUID getUuid(int i) {
    return get(i, UUID.class);
  }

  /** See {@link #getUuid(int)}. */
  public UUID getUuid(String name) {
    return getUuid(indexOf(name));
  }

  /** timestamp. */
  public Instant getInstant(int i) {
    return get(i, Instant.class);
  }

  /** date. */
  public LocalDate getLocalDate(int i) {
    return get(i, LocalDate.class);
  }

  /** time. */
  public LocalTime getLocalTime(int i) {
    return get(i, LocalTime.class);
  }

  /** decimal. */
  public BigDecimal getBigDecimal(int i) {
    return get(i, BigDecimal.class);
  }

  /** varint. */
  public BigInteger getBigInteger(int i) {
    return get(i, BigInteger.class);
  }

  /** inet. */
  public InetAddress getInetAddress(int i) {
    return get(i, InetAddress.class);
  }

  /** duration. */
  public CqlDuration getDuration(int i) {
    return get(i, CqlDuration.class);
  }

  /** blob (or opaque custom): a read-only view of the copied bytes. */
  public ByteBuffer getBytes(int i) {
    ByteBuffer b = get(i, ByteBuffer.class);
    return b == null ? null : b.asReadOnlyBuffer();
  }

  /** See {@link #getBytes(int)}. */
  public ByteBuffer getBytes(String name) {
    return getBytes(indexOf(name));
  }

  /** {@code vector<float, N>}: a copy of the elements. */
  public float[] getFloatVector(int i) {
    float[] v = get(i, float[].class);
    return v == null ? null : v.clone();
  }

  /** See {@link #getFloatVector(int)}. */
  public float[] getFloatVector(String name) {
    return getFloatVector(indexOf(name));
  }

  /** {@code vector<double, N>}: a copy of the elements. */
  public double[] getDoubleVector(int i) {
    double[] v = get(i, double[].class);
    return v == null ? null : v.clone();
  }

  /** {@code vector<int, N>}: a copy of the elements. */
  public int[] getIntVector(int i) {
    int[] v = get(i, int[].class);
    return v == null ? null : v.clone();
  }

  /** {@code vector<bigint, N>}: a copy of the elements. */
  public long[] getLongVector(int i) {
    long[] v = get(i, long[].class);
    return v == null ? null : v.clone();
  }

  /** list, or a vector of other elements: unmodifiable, wire order. */
  public List<?> getList(int i) {
    return get(i, List.class);
  }

  /** See {@link #getList(int)}. */
  public List<?> getList(String name) {
    return getList(indexOf(name));
  }

  /** set: unmodifiable, wire order. */
  public Set<?> getSet(int i) {
    List<?> l = get(i, List.class);
    return l == null ? null : java.util.Collections.unmodifiableSet(new LinkedHashSet<>(l));
  }

  /** map: unmodifiable, wire order. */
  public Map<?, ?> getMap(int i) {
    return get(i, Map.class);
  }

  /** See {@link #getMap(int)}. */
  public Map<?, ?> getMap(String name) {
    return getMap(indexOf(name));
  }

  /** user-defined type. */
  public UdtValue getUdt(int i) {
    return get(i, UdtValue.class);
  }

  /** See {@link #getUdt(int)}. */
  public UdtValue getUdt(String name) {
    return getUdt(indexOf(name));
  }

  /** tuple. */
  public TupleValue getTuple(int i) {
    return get(i, TupleValue.class);
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("Row[");
    for (int i = 0; i < values.length; i++) {
      if (i > 0) {
        sb.append(", ");
      }
      Object v = getObject(i);
      sb.append(columns.get(i).name()).append('=');
      sb.append(v instanceof float[] f ? java.util.Arrays.toString(f) : String.valueOf(v));
    }
    return sb.append(']').toString();
  }
}
