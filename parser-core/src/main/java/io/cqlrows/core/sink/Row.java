package io.cqlrows.core.sink;

import io.cqlrows.core.CellKind;
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
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;

/**
 * One row collected by {@link RowsCollector}: a view of the row in the collector's storage. Getters
 * take a column index or a column name (exact, internal form: {@code "Id"}, {@code "with space"}).
 *
 * <p>Like the Java driver, primitive getters return {@code 0} / {@code false} for a NULL, not-set
 * or empty cell; check {@link #isNull}, {@link #isNotSet} or {@link #isEmpty} to tell them apart.
 * Object getters return {@code null} for those cells. A getter that does not fit the column's type
 * throws {@link IllegalArgumentException} naming the column and type.
 *
 * <p>Immutable: {@link #getBytes} returns a read-only view, {@link #getObject} a buffer over a
 * copy, vector getters copies. Values of the fixed-width types are stored unboxed; their objects
 * ({@code Integer}, {@code Instant}, {@code UUID}, ...) are made on each call. Two {@code Row}s are
 * equal when they view the same collected row.
 */
public final class Row {
  /** {@link #wordAt}: the cell has no value (NULL, not set, empty). */
  private static final int NO_VALUE = -1;

  /** {@link #wordAt}: the column is of another type, or its value is stored as an object. */
  private static final int OTHER = -2;

  private final RowsPage page;
  private final int row;

  /** Row {@code row} (below {@code page.rows}) of {@code page}. */
  Row(RowsPage page, int row) {
    this.page = page;
    this.row = row;
  }

  /** The columns of this row's result. */
  public ResultColumns columns() {
    return page.columns;
  }

  /** Number of columns. */
  public int size() {
    return page.width;
  }

  /** Index of a column by exact name; throws {@link IllegalArgumentException} if absent. */
  public int indexOf(String name) {
    int i = page.columns.indexOf(name);
    if (i < 0) {
      throw new IllegalArgumentException("no column '" + name + "' in " + page.columns);
    }
    return i;
  }

  private byte state(int i) {
    RowsPage p = page;
    return p.states[row * p.width + Objects.checkIndex(i, p.width)];
  }

  /**
   * Where the value of column {@code i} is in the page's words if the column is of {@code kind} and
   * its value is there; else {@link #NO_VALUE} or {@link #OTHER}.
   */
  private int wordAt(int i, CellKind kind) {
    RowsPage p = page;
    if (p.kinds[i] != kind) {
      return OTHER;
    }
    switch (p.states[row * p.width + i]) {
      case RowsPage.WORDS:
        return row * p.wordsPerRow + p.slots[i];
      case RowsPage.NULL:
      case RowsPage.NOT_SET:
      case RowsPage.EMPTY:
        return NO_VALUE;
      default:
        return OTHER;
    }
  }

  /**
   * The stored object of column {@code i} if the column keeps references and the cell is in {@code
   * state}; else null.
   */
  private Object ref(int i, byte state) {
    RowsPage p = page;
    if (p.refs[i] && p.states[row * p.width + i] == state) {
      return p.objects[row * p.refsPerRow + p.slots[i]];
    }
    return null;
  }

  /** True if the cell was NULL (wire length -1). */
  public boolean isNull(int i) {
    return state(i) == RowsPage.NULL;
  }

  /** See {@link #isNull(int)}. */
  public boolean isNull(String name) {
    return isNull(indexOf(name));
  }

  /** True if the cell was "not set" (wire length -2). */
  public boolean isNotSet(int i) {
    return state(i) == RowsPage.NOT_SET;
  }

  /** See {@link #isNotSet(int)}. */
  public boolean isNotSet(String name) {
    return isNotSet(indexOf(name));
  }

  /** True if the cell was empty (length 0) for a type whose empty value is not a normal value. */
  public boolean isEmpty(int i) {
    return state(i) == RowsPage.EMPTY;
  }

  /** See {@link #isEmpty(int)}. */
  public boolean isEmpty(String name) {
    return isEmpty(indexOf(name));
  }

  /**
   * The decoded value, boxed as {@link RowSink}'s default events box it for {@link
   * RowSink#onObject} (a blob as a {@code ByteBuffer} over a copy of its bytes, made on each call),
   * or {@code null}.
   */
  public Object getObject(int i) {
    return page.object(row, i);
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
      CqlType t = page.columns.get(i).type();
      throw new IllegalArgumentException(
          "column "
              + i
              + " '"
              + page.columns.get(i).name()
              + "' is "
              + t
              + " ("
              + v.getClass().getSimpleName()
              + "), not "
              + type.getSimpleName());
    }
    return type.cast(v);
  }

  /** boolean. */
  public boolean getBoolean(int i) {
    int at = wordAt(i, CellKind.BOOLEAN);
    if (at >= 0) {
      return page.words[at] != 0;
    }
    if (at == NO_VALUE) {
      return false;
    }
    Boolean v = get(i, Boolean.class);
    return v != null && v;
  }

  /** See {@link #getBoolean(int)}. */
  public boolean getBoolean(String name) {
    return getBoolean(indexOf(name));
  }

  /** tinyint. */
  public byte getByte(int i) {
    int at = wordAt(i, CellKind.TINYINT);
    if (at >= 0) {
      return (byte) page.words[at];
    }
    if (at == NO_VALUE) {
      return 0;
    }
    Byte v = get(i, Byte.class);
    return v == null ? 0 : v;
  }

  /** See {@link #getByte(int)}. */
  public byte getByte(String name) {
    return getByte(indexOf(name));
  }

  /** smallint. */
  public short getShort(int i) {
    int at = wordAt(i, CellKind.SMALLINT);
    if (at >= 0) {
      return (short) page.words[at];
    }
    if (at == NO_VALUE) {
      return 0;
    }
    Short v = get(i, Short.class);
    return v == null ? 0 : v;
  }

  /** See {@link #getShort(int)}. */
  public short getShort(String name) {
    return getShort(indexOf(name));
  }

  /** int. */
  public int getInt(int i) {
    int at = wordAt(i, CellKind.INT);
    if (at >= 0) {
      return (int) page.words[at];
    }
    if (at == NO_VALUE) {
      return 0;
    }
    Integer v = get(i, Integer.class);
    return v == null ? 0 : v;
  }

  /** See {@link #getInt(int)}. */
  public int getInt(String name) {
    return getInt(indexOf(name));
  }

  /** bigint or counter. */
  public long getLong(int i) {
    int at = wordAt(i, CellKind.BIGINT);
    if (at >= 0) {
      return page.words[at];
    }
    if (at == NO_VALUE) {
      return 0L;
    }
    Long v = get(i, Long.class);
    return v == null ? 0L : v;
  }

  /** See {@link #getLong(int)}. */
  public long getLong(String name) {
    return getLong(indexOf(name));
  }

  /** float. */
  public float getFloat(int i) {
    int at = wordAt(i, CellKind.FLOAT);
    if (at >= 0) {
      return Float.intBitsToFloat((int) page.words[at]);
    }
    if (at == NO_VALUE) {
      return 0f;
    }
    Float v = get(i, Float.class);
    return v == null ? 0f : v;
  }

  /** See {@link #getFloat(int)}. */
  public float getFloat(String name) {
    return getFloat(indexOf(name));
  }

  /** double. */
  public double getDouble(int i) {
    int at = wordAt(i, CellKind.DOUBLE);
    if (at >= 0) {
      return Double.longBitsToDouble(page.words[at]);
    }
    if (at == NO_VALUE) {
      return 0d;
    }
    Double v = get(i, Double.class);
    return v == null ? 0d : v;
  }

  /** See {@link #getDouble(int)}. */
  public double getDouble(String name) {
    return getDouble(indexOf(name));
  }

  /** text or ascii. */
  public String getString(int i) {
    return ref(i, RowsPage.OBJECT) instanceof String s ? s : get(i, String.class);
  }

  /** See {@link #getString(int)}. */
  public String getString(String name) {
    return getString(indexOf(name));
  }

  /** uuid or timeuuid. */
  public UUID getUuid(int i) {
    int at = wordAt(i, CellKind.UUID);
    if (at >= 0) {
      return new UUID(page.words[at], page.words[at + 1]);
    }
    return at == NO_VALUE ? null : get(i, UUID.class);
  }

  /** See {@link #getUuid(int)}. */
  public UUID getUuid(String name) {
    return getUuid(indexOf(name));
  }

  /** timestamp. */
  public Instant getInstant(int i) {
    int at = wordAt(i, CellKind.TIMESTAMP);
    if (at >= 0) {
      return Instant.ofEpochMilli(page.words[at]);
    }
    return at == NO_VALUE ? null : get(i, Instant.class);
  }

  /** See {@link #getInstant(int)}. */
  public Instant getInstant(String name) {
    return getInstant(indexOf(name));
  }

  /** date. */
  public LocalDate getLocalDate(int i) {
    int at = wordAt(i, CellKind.DATE);
    if (at >= 0) {
      return LocalDate.ofEpochDay(page.words[at]);
    }
    return at == NO_VALUE ? null : get(i, LocalDate.class);
  }

  /** See {@link #getLocalDate(int)}. */
  public LocalDate getLocalDate(String name) {
    return getLocalDate(indexOf(name));
  }

  /** time. */
  public LocalTime getLocalTime(int i) {
    int at = wordAt(i, CellKind.TIME);
    if (at >= 0) {
      return LocalTime.ofNanoOfDay(page.words[at]);
    }
    return at == NO_VALUE ? null : get(i, LocalTime.class);
  }

  /** See {@link #getLocalTime(int)}. */
  public LocalTime getLocalTime(String name) {
    return getLocalTime(indexOf(name));
  }

  /** decimal. */
  public BigDecimal getBigDecimal(int i) {
    return get(i, BigDecimal.class);
  }

  /** See {@link #getBigDecimal(int)}. */
  public BigDecimal getBigDecimal(String name) {
    return getBigDecimal(indexOf(name));
  }

  /** varint. */
  public BigInteger getBigInteger(int i) {
    return get(i, BigInteger.class);
  }

  /** See {@link #getBigInteger(int)}. */
  public BigInteger getBigInteger(String name) {
    return getBigInteger(indexOf(name));
  }

  /** inet. */
  public InetAddress getInetAddress(int i) {
    return get(i, InetAddress.class);
  }

  /** See {@link #getInetAddress(int)}. */
  public InetAddress getInetAddress(String name) {
    return getInetAddress(indexOf(name));
  }

  /** duration. */
  public CqlDuration getDuration(int i) {
    return get(i, CqlDuration.class);
  }

  /** See {@link #getDuration(int)}. */
  public CqlDuration getDuration(String name) {
    return getDuration(indexOf(name));
  }

  /** blob (or opaque custom): a read-only view of the copied bytes. */
  public ByteBuffer getBytes(int i) {
    if (ref(i, RowsPage.BLOB) instanceof byte[] bytes) {
      return ByteBuffer.wrap(bytes).asReadOnlyBuffer();
    }
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

  /** See {@link #getDoubleVector(int)}. */
  public double[] getDoubleVector(String name) {
    return getDoubleVector(indexOf(name));
  }

  /** {@code vector<int, N>}: a copy of the elements. */
  public int[] getIntVector(int i) {
    int[] v = get(i, int[].class);
    return v == null ? null : v.clone();
  }

  /** See {@link #getIntVector(int)}. */
  public int[] getIntVector(String name) {
    return getIntVector(indexOf(name));
  }

  /** {@code vector<bigint, N>}: a copy of the elements. */
  public long[] getLongVector(int i) {
    long[] v = get(i, long[].class);
    return v == null ? null : v.clone();
  }

  /** See {@link #getLongVector(int)}. */
  public long[] getLongVector(String name) {
    return getLongVector(indexOf(name));
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

  /** See {@link #getSet(int)}. */
  public Set<?> getSet(String name) {
    return getSet(indexOf(name));
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

  /** See {@link #getTuple(int)}. */
  public TupleValue getTuple(String name) {
    return getTuple(indexOf(name));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Row r && r.page == page && r.row == row;
  }

  @Override
  public int hashCode() {
    return 31 * System.identityHashCode(page) + row;
  }

  /**
   * The row as {@code Row[name=value, ...]}, for logs and debugging: values as {@link #getObject}
   * gives them, with blobs in hex ({@code 0xcafe}), vectors and other arrays as their elements
   * ({@code [1.0, 2.5]}), lists and sets as {@code [a, b]}, maps as {@code {key=value}}, UDTs as
   * {@code {field: value}} and tuples as {@code (a, b)}, at any depth. A cell without a value
   * (NULL, not set, empty) is {@code null}.
   */
  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("Row[");
    for (int i = 0; i < page.width; i++) {
      if (i > 0) {
        sb.append(", ");
      }
      sb.append(page.columns.get(i).name()).append('=');
      appendReadable(sb, getObject(i));
    }
    return sb.append(']').toString();
  }

  private static void appendReadable(StringBuilder sb, Object v) {
    if (v instanceof ByteBuffer b) {
      sb.append("0x");
      for (int i = b.position(); i < b.limit(); i++) {
        CanonicalJson.appendHexByte(sb, b.get(i));
      }
    } else if (v instanceof float[] a) {
      sb.append(Arrays.toString(a));
    } else if (v instanceof double[] a) {
      sb.append(Arrays.toString(a));
    } else if (v instanceof int[] a) {
      sb.append(Arrays.toString(a));
    } else if (v instanceof long[] a) {
      sb.append(Arrays.toString(a));
    } else if (v instanceof Collection<?> c) {
      appendAll(sb.append('['), c).append(']');
    } else if (v instanceof Map<?, ?> m) {
      sb.append('{');
      String separator = "";
      for (Map.Entry<?, ?> e : m.entrySet()) {
        appendReadable(sb.append(separator), e.getKey());
        appendReadable(sb.append('='), e.getValue());
        separator = ", ";
      }
      sb.append('}');
    } else if (v instanceof UdtValue u) {
      sb.append('{');
      for (int i = 0; i < u.size(); i++) {
        sb.append(i > 0 ? ", " : "").append(u.type().fields().get(i).name()).append(": ");
        appendReadable(sb, u.get(i));
      }
      sb.append('}');
    } else if (v instanceof TupleValue t) {
      appendAll(sb.append('('), t.values()).append(')');
    } else {
      sb.append(v);
    }
  }

  private static StringBuilder appendAll(StringBuilder sb, Collection<?> values) {
    String separator = "";
    for (Object e : values) {
      appendReadable(sb.append(separator), e);
      separator = ", ";
    }
    return sb;
  }
}
