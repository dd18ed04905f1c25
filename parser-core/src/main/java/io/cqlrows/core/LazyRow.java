package io.cqlrows.core;

import io.cqlrows.core.ScalarDeserializers.DateDeserializer;
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
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;

/**
 * One row of a {@link LazyPage}: a view that decodes a cell when a getter asks for it, from the
 * page's bytes. Getters take a column index or a column name (exact, internal form: {@code "Id"},
 * {@code "with space"}); an index is faster, {@link #indexOf} looks a name up once.
 *
 * <p>The getters are those of {@link io.cqlrows.core.sink.Row}, with the same values: primitive
 * getters return {@code 0} / {@code false} for a NULL, not-set or empty cell (check {@link
 * #isNull}, {@link #isNotSet} or {@link #isEmpty} to tell them apart), object getters {@code null},
 * and a getter that does not fit the column's type throws {@link IllegalArgumentException} naming
 * the column and type. Each call decodes again and returns a new object.
 *
 * <p>Besides those, {@link #getBytes} returns a read-only view of the page's bytes (no copy), and
 * {@link #floatVector} and its siblings a view of a vector cell, read in place or copied into an
 * array of the caller's ({@link FloatVector#copyTo}). Both are valid while the page is (see {@link
 * LazyPage}, "Ownership"). Two {@code LazyRow}s are equal when they view the same row of the same
 * page.
 *
 * <p><b>Threading.</b> A row remembers the last cell it found, to step on from there: it is not
 * thread-safe. Threads that share a page each take their own rows from it ({@link LazyPage#row},
 * its iterator).
 */
public final class LazyRow {
  private final LazyPage page;
  private final int row;

  /** The last cell found: its column, and the index of its length ({@code -1}: none yet). */
  private int lastColumn = -1;

  private int lastAt;

  LazyRow(LazyPage page, int row) {
    this.page = page;
    this.row = row;
  }

  /**
   * The index of the length of cell {@code i}: stepped to over the lengths of the cells before it,
   * from the last cell found if it is not after {@code i}, else from the row's start.
   */
  private int cell(int i) {
    LazyPage p = page;
    int at = p.rowStart(row); // first: fails on a released page
    Objects.checkIndex(i, p.width);
    int c = 0;
    if (lastColumn >= 0 && lastColumn <= i) {
      c = lastColumn;
      at = lastAt;
    }
    for (; c < i; c++) {
      int len = p.int32(at);
      at += len > 0 ? 4 + len : 4;
    }
    lastColumn = i;
    lastAt = at;
    return at;
  }

  /** The page this row belongs to. */
  public LazyPage page() {
    return page;
  }

  /** The columns of this row's result. */
  public ResultColumns columns() {
    return page.columns();
  }

  /** Number of columns. */
  public int size() {
    return page.width;
  }

  /** Index of a column by exact name; throws {@link IllegalArgumentException} if absent. */
  public int indexOf(String name) {
    int i = page.columns().indexOf(name);
    if (i < 0) {
      throw new IllegalArgumentException("no column '" + name + "' in " + page.columns());
    }
    return i;
  }

  /** The cell's length: -1 NULL, -2 not set, else its byte count. */
  private int length(int at) {
    return page.int32(at);
  }

  /** True if the cell was NULL (wire length -1). */
  public boolean isNull(int i) {
    return length(cell(i)) == -1;
  }

  /** True if the cell was "not set" (wire length -2). */
  public boolean isNotSet(int i) {
    return length(cell(i)) == -2;
  }

  /** True if the cell was empty (length 0) for a type whose empty value is not a normal value. */
  public boolean isEmpty(int i) {
    return length(cell(i)) == 0 && !page.deserializers[i].emptyIsValue();
  }

  /**
   * The decoded value, boxed as {@link RowSink}'s default events box it for {@link
   * RowSink#onObject} (a blob as a {@code ByteBuffer} over a copy of its bytes), or {@code null}.
   */
  public Object getObject(int i) {
    LazyPage p = page;
    int at = cell(i);
    int len = p.int32(at);
    if (len < 0) {
      return null;
    }
    int v = at + 4;
    switch (p.kinds[i]) {
      case InlineCells.INT:
        return len == 0 ? null : (Object) p.int32(v);
      case InlineCells.BIGINT:
        return len == 0 ? null : (Object) p.int64(v);
      case InlineCells.TEXT:
        return p.utf8(v, len);
      case InlineCells.DOUBLE:
        return len == 0 ? null : (Object) Double.longBitsToDouble(p.int64(v));
      case InlineCells.TIMESTAMP:
        return len == 0 ? null : Instant.ofEpochMilli(p.int64(v));
      case InlineCells.UUID:
        return len == 0 ? null : new UUID(p.int64(v), p.int64(v + 8));
      case InlineCells.DATE:
        return len == 0 ? null : LocalDate.ofEpochDay(DateDeserializer.epochDays(p.int32(v)));
      case InlineCells.BOOLEAN:
        return len == 0 ? null : (Object) (p.int8(v) != 0);
      case InlineCells.FLOAT:
        return len == 0 ? null : (Object) Float.intBitsToFloat(p.int32(v));
      case InlineCells.TINYINT:
        return len == 0 ? null : (Object) p.int8(v);
      case InlineCells.SMALLINT:
        return len == 0 ? null : (Object) p.int16(v);
      case InlineCells.TIME:
        return len == 0 ? null : LocalTime.ofNanoOfDay(p.int64(v));
      case InlineCells.BLOB:
        return ByteBuffer.wrap(p.copy(v, len));
      default:
        ValueDeserializer d = p.deserializers[i];
        if (len == 0 && !d.emptyIsValue()) {
          return null;
        }
        return d.decode(p.buf(), v, len);
    }
  }

  private <T> T get(int i, Class<T> type) {
    Object v = getObject(i);
    if (v == null) {
      return null;
    }
    if (!type.isInstance(v)) {
      throw notA(i, v, type);
    }
    return type.cast(v);
  }

  private IllegalArgumentException notA(int i, Object v, Class<?> type) {
    CqlType t = page.columns().get(i).type();
    return new IllegalArgumentException(
        "column "
            + i
            + " '"
            + page.columns().get(i).name()
            + "' is "
            + t
            + " ("
            + v.getClass().getSimpleName()
            + "), not "
            + type.getSimpleName());
  }

  /**
   * Where the value of cell {@code (row, i)} starts if the column is of inline kind {@code kind}
   * and the cell has a value; -1 if it is of that kind without a value (NULL, not set, empty); -2
   * if the column is of another kind.
   */
  private int valueAt(int i, int kind) {
    LazyPage p = page;
    int at = cell(i);
    if (p.kinds[i] != kind) {
      return -2;
    }
    return p.int32(at) > 0 ? at + 4 : -1;
  }

  /** boolean. */
  public boolean getBoolean(int i) {
    int v = valueAt(i, InlineCells.BOOLEAN);
    if (v >= 0) {
      return page.int8(v) != 0;
    }
    Boolean b = v == -1 ? null : get(i, Boolean.class);
    return b != null && b;
  }

  /** tinyint. */
  public byte getByte(int i) {
    int v = valueAt(i, InlineCells.TINYINT);
    if (v >= 0) {
      return page.int8(v);
    }
    Byte b = v == -1 ? null : get(i, Byte.class);
    return b == null ? 0 : b;
  }

  /** smallint. */
  public short getShort(int i) {
    int v = valueAt(i, InlineCells.SMALLINT);
    if (v >= 0) {
      return page.int16(v);
    }
    Short s = v == -1 ? null : get(i, Short.class);
    return s == null ? 0 : s;
  }

  /** int. */
  public int getInt(int i) {
    int v = valueAt(i, InlineCells.INT);
    if (v >= 0) {
      return page.int32(v);
    }
    Integer n = v == -1 ? null : get(i, Integer.class);
    return n == null ? 0 : n;
  }

  /** bigint or counter. */
  public long getLong(int i) {
    int v = valueAt(i, InlineCells.BIGINT);
    if (v >= 0) {
      return page.int64(v);
    }
    Long n = v == -1 ? null : get(i, Long.class);
    return n == null ? 0L : n;
  }

  /** float. */
  public float getFloat(int i) {
    int v = valueAt(i, InlineCells.FLOAT);
    if (v >= 0) {
      return Float.intBitsToFloat(page.int32(v));
    }
    Float f = v == -1 ? null : get(i, Float.class);
    return f == null ? 0f : f;
  }

  /** double. */
  public double getDouble(int i) {
    int v = valueAt(i, InlineCells.DOUBLE);
    if (v >= 0) {
      return Double.longBitsToDouble(page.int64(v));
    }
    Double d = v == -1 ? null : get(i, Double.class);
    return d == null ? 0d : d;
  }

  /** text or ascii. */
  public String getString(int i) {
    LazyPage p = page;
    int at = cell(i);
    if (p.kinds[i] == InlineCells.TEXT) {
      int len = p.int32(at);
      return len < 0 ? null : p.utf8(at + 4, len);
    }
    return get(i, String.class);
  }

  /** uuid or timeuuid. */
  public UUID getUuid(int i) {
    int v = valueAt(i, InlineCells.UUID);
    if (v >= 0) {
      return new UUID(page.int64(v), page.int64(v + 8));
    }
    return v == -1 ? null : get(i, UUID.class);
  }

  /** timestamp. */
  public Instant getInstant(int i) {
    int v = valueAt(i, InlineCells.TIMESTAMP);
    if (v >= 0) {
      return Instant.ofEpochMilli(page.int64(v));
    }
    return v == -1 ? null : get(i, Instant.class);
  }

  /** date. */
  public LocalDate getLocalDate(int i) {
    int v = valueAt(i, InlineCells.DATE);
    if (v >= 0) {
      return LocalDate.ofEpochDay(DateDeserializer.epochDays(page.int32(v)));
    }
    return v == -1 ? null : get(i, LocalDate.class);
  }

  /** time. */
  public LocalTime getLocalTime(int i) {
    int v = valueAt(i, InlineCells.TIME);
    if (v >= 0) {
      return LocalTime.ofNanoOfDay(page.int64(v));
    }
    return v == -1 ? null : get(i, LocalTime.class);
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

  /**
   * blob (or opaque custom): a read-only view of the cell's bytes in the page, without a copy;
   * valid while the page is.
   */
  public ByteBuffer getBytes(int i) {
    LazyPage p = page;
    int at = cell(i);
    if (p.kinds[i] == InlineCells.BLOB) {
      int len = p.int32(at);
      return len < 0 ? null : p.view(at + 4, len);
    }
    ByteBuffer b = get(i, ByteBuffer.class);
    return b == null ? null : b.asReadOnlyBuffer();
  }

  /** {@code vector<float, N>}: a new array of the elements. */
  public float[] getFloatVector(int i) {
    return get(i, float[].class);
  }

  /** {@code vector<double, N>}: a new array of the elements. */
  public double[] getDoubleVector(int i) {
    return get(i, double[].class);
  }

  /** {@code vector<int, N>}: a new array of the elements. */
  public int[] getIntVector(int i) {
    return get(i, int[].class);
  }

  /** {@code vector<bigint, N>}: a new array of the elements. */
  public long[] getLongVector(int i) {
    return get(i, long[].class);
  }

  /**
   * The start of a vector cell of the column's deserializer class {@code type}, -1 without a value;
   * throws if the column is not such a vector.
   */
  private int vectorAt(int i, Class<?> type, Class<?> view) {
    LazyPage p = page;
    int at = cell(i);
    ValueDeserializer d = p.deserializers[i];
    if (!type.isInstance(d)) {
      throw new IllegalArgumentException(
          "column "
              + i
              + " '"
              + p.columns().get(i).name()
              + "' is "
              + p.columns().get(i).type()
              + ", not a "
              + view.getSimpleName());
    }
    return p.int32(at) > 0 ? at + 4 : -1;
  }

  /**
   * {@code vector<float, N>}: a view of the elements in the page, valid while the page is; {@code
   * null} without a value.
   */
  public FloatVector floatVector(int i) {
    int v = vectorAt(i, VectorDeserializers.FloatVectorDeserializer.class, FloatVector.class);
    return v < 0 ? null : new PageVectors.Floats(page.buf(), v, dimension(i));
  }

  /** {@code vector<double, N>}: a view, as {@link #floatVector}. */
  public DoubleVector doubleVector(int i) {
    int v = vectorAt(i, VectorDeserializers.DoubleVectorDeserializer.class, DoubleVector.class);
    return v < 0 ? null : new PageVectors.Doubles(page.buf(), v, dimension(i));
  }

  /** {@code vector<int, N>}: a view, as {@link #floatVector}. */
  public IntVector intVector(int i) {
    int v = vectorAt(i, VectorDeserializers.IntVectorDeserializer.class, IntVector.class);
    return v < 0 ? null : new PageVectors.Ints(page.buf(), v, dimension(i));
  }

  /** {@code vector<bigint, N>}: a view, as {@link #floatVector}. */
  public LongVector longVector(int i) {
    int v = vectorAt(i, VectorDeserializers.LongVectorDeserializer.class, LongVector.class);
    return v < 0 ? null : new PageVectors.Longs(page.buf(), v, dimension(i));
  }

  private int dimension(int i) {
    return ((VectorDeserializers.Primitive) page.deserializers[i]).dimension;
  }

  /** list, or a vector of other elements: unmodifiable, wire order. */
  public List<?> getList(int i) {
    return get(i, List.class);
  }

  /** set: unmodifiable, wire order. */
  public Set<?> getSet(int i) {
    List<?> l = get(i, List.class);
    return l == null ? null : Collections.unmodifiableSet(new LinkedHashSet<>(l));
  }

  /** map: unmodifiable, wire order. */
  public Map<?, ?> getMap(int i) {
    return get(i, Map.class);
  }

  /** user-defined type. */
  public UdtValue getUdt(int i) {
    return get(i, UdtValue.class);
  }

  /** tuple. */
  public TupleValue getTuple(int i) {
    return get(i, TupleValue.class);
  }

  /** See {@link #isNull(int)}. */
  public boolean isNull(String name) {
    return isNull(indexOf(name));
  }

  /** See {@link #isNotSet(int)}. */
  public boolean isNotSet(String name) {
    return isNotSet(indexOf(name));
  }

  /** See {@link #isEmpty(int)}. */
  public boolean isEmpty(String name) {
    return isEmpty(indexOf(name));
  }

  /** See {@link #getObject(int)}. */
  public Object getObject(String name) {
    return getObject(indexOf(name));
  }

  /** See {@link #getBoolean(int)}. */
  public boolean getBoolean(String name) {
    return getBoolean(indexOf(name));
  }

  /** See {@link #getByte(int)}. */
  public byte getByte(String name) {
    return getByte(indexOf(name));
  }

  /** See {@link #getShort(int)}. */
  public short getShort(String name) {
    return getShort(indexOf(name));
  }

  /** See {@link #getInt(int)}. */
  public int getInt(String name) {
    return getInt(indexOf(name));
  }

  /** See {@link #getLong(int)}. */
  public long getLong(String name) {
    return getLong(indexOf(name));
  }

  /** See {@link #getFloat(int)}. */
  public float getFloat(String name) {
    return getFloat(indexOf(name));
  }

  /** See {@link #getDouble(int)}. */
  public double getDouble(String name) {
    return getDouble(indexOf(name));
  }

  /** See {@link #getString(int)}. */
  public String getString(String name) {
    return getString(indexOf(name));
  }

  /** See {@link #getUuid(int)}. */
  public UUID getUuid(String name) {
    return getUuid(indexOf(name));
  }

  /** See {@link #getInstant(int)}. */
  public Instant getInstant(String name) {
    return getInstant(indexOf(name));
  }

  /** See {@link #getLocalDate(int)}. */
  public LocalDate getLocalDate(String name) {
    return getLocalDate(indexOf(name));
  }

  /** See {@link #getLocalTime(int)}. */
  public LocalTime getLocalTime(String name) {
    return getLocalTime(indexOf(name));
  }

  /** See {@link #getBigDecimal(int)}. */
  public BigDecimal getBigDecimal(String name) {
    return getBigDecimal(indexOf(name));
  }

  /** See {@link #getBigInteger(int)}. */
  public BigInteger getBigInteger(String name) {
    return getBigInteger(indexOf(name));
  }

  /** See {@link #getInetAddress(int)}. */
  public InetAddress getInetAddress(String name) {
    return getInetAddress(indexOf(name));
  }

  /** See {@link #getDuration(int)}. */
  public CqlDuration getDuration(String name) {
    return getDuration(indexOf(name));
  }

  /** See {@link #getBytes(int)}. */
  public ByteBuffer getBytes(String name) {
    return getBytes(indexOf(name));
  }

  /** See {@link #getFloatVector(int)}. */
  public float[] getFloatVector(String name) {
    return getFloatVector(indexOf(name));
  }

  /** See {@link #getDoubleVector(int)}. */
  public double[] getDoubleVector(String name) {
    return getDoubleVector(indexOf(name));
  }

  /** See {@link #getIntVector(int)}. */
  public int[] getIntVector(String name) {
    return getIntVector(indexOf(name));
  }

  /** See {@link #getLongVector(int)}. */
  public long[] getLongVector(String name) {
    return getLongVector(indexOf(name));
  }

  /** See {@link #floatVector(int)}. */
  public FloatVector floatVector(String name) {
    return floatVector(indexOf(name));
  }

  /** See {@link #doubleVector(int)}. */
  public DoubleVector doubleVector(String name) {
    return doubleVector(indexOf(name));
  }

  /** See {@link #intVector(int)}. */
  public IntVector intVector(String name) {
    return intVector(indexOf(name));
  }

  /** See {@link #longVector(int)}. */
  public LongVector longVector(String name) {
    return longVector(indexOf(name));
  }

  /** See {@link #getList(int)}. */
  public List<?> getList(String name) {
    return getList(indexOf(name));
  }

  /** See {@link #getSet(int)}. */
  public Set<?> getSet(String name) {
    return getSet(indexOf(name));
  }

  /** See {@link #getMap(int)}. */
  public Map<?, ?> getMap(String name) {
    return getMap(indexOf(name));
  }

  /** See {@link #getUdt(int)}. */
  public UdtValue getUdt(String name) {
    return getUdt(indexOf(name));
  }

  /** See {@link #getTuple(int)}. */
  public TupleValue getTuple(String name) {
    return getTuple(indexOf(name));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LazyRow r && r.page == page && r.row == row;
  }

  @Override
  public int hashCode() {
    return 31 * System.identityHashCode(page) + row;
  }

  /** The row's place, as {@code LazyRow[3 of 41]}; values are read by the getters only. */
  @Override
  public String toString() {
    return "LazyRow[" + row + " of " + page.size() + "]";
  }
}
