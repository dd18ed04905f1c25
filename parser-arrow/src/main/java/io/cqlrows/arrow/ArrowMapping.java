package io.cqlrows.arrow;

import io.cqlrows.core.CellKind;
import io.cqlrows.core.ColumnSpec;
import io.cqlrows.core.type.CqlType;
import io.cqlrows.core.type.ListType;
import io.cqlrows.core.type.MapType;
import io.cqlrows.core.type.NativeType;
import io.cqlrows.core.type.SetType;
import io.cqlrows.core.type.TupleType;
import io.cqlrows.core.type.UdtType;
import io.cqlrows.core.type.VectorType;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.arrow.vector.extension.UuidType;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.IntervalUnit;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * How CQL types become Arrow types: the schema {@link ArrowSink} builds for a result. Immutable;
 * {@link #defaults()} is the mapping below, and the {@code with...} methods return changed copies.
 *
 * <table>
 *   <caption>CQL to Arrow</caption>
 *   <tr><th>CQL</th><th>Arrow</th><th>value</th></tr>
 *   <tr><td>boolean</td><td>Bool</td><td></td></tr>
 *   <tr><td>tinyint, smallint, int, bigint, counter</td><td>Int8, Int16, Int32, Int64,
 *       Int64</td><td>signed</td></tr>
 *   <tr><td>float, double</td><td>Float32, Float64</td><td>bit for bit (NaN payloads too)</td></tr>
 *   <tr><td>text, ascii</td><td>Utf8</td><td></td></tr>
 *   <tr><td>blob</td><td>Binary</td><td></td></tr>
 *   <tr><td>timestamp</td><td>Timestamp(ms, "UTC")</td><td>ms since the epoch</td></tr>
 *   <tr><td>date</td><td>Date32</td>
 *       <td>days since the epoch (CQL's unsigned days, re-based)</td></tr>
 *   <tr><td>time</td><td>Time64(ns)</td><td>ns since midnight</td></tr>
 *   <tr><td>uuid, timeuuid</td><td>{@code arrow.uuid} (FixedSizeBinary(16))</td><td>the 16
 *       bytes, most significant first</td></tr>
 *   <tr><td>duration</td><td>Interval(MONTH_DAY_NANO)</td><td>months, days, nanoseconds</td></tr>
 *   <tr><td>decimal</td><td>Utf8 (default), or Decimal128(38, scale) with {@link
 *       #withDecimal128}</td><td>{@code BigDecimal.toString()}: exact, any scale</td></tr>
 *   <tr><td>varint</td><td>Utf8 (default), or Binary with {@link #withVarintAsBinary}</td><td>
 *       decimal digits; or the wire's two's-complement big-endian bytes</td></tr>
 *   <tr><td>inet</td><td>Binary (default), or Utf8 with {@link #withInetAsText}</td><td>the
 *       address bytes: 4 for IPv4, 16 for IPv6; or the address as text ({@code
 *       InetAddress.getHostAddress()}: {@code 10.0.0.1}, {@code 2001:db8:0:0:0:0:0:1})</td></tr>
 *   <tr><td>list&lt;T&gt;, set&lt;T&gt;</td><td>List&lt;T&gt;</td><td>wire order; child
 *       {@code item}</td></tr>
 *   <tr><td>map&lt;K, V&gt;</td><td>Map&lt;K, V&gt;</td><td>wire order (keys not sorted); a
 *       NULL key is an error</td></tr>
 *   <tr><td>UDT</td><td>Struct</td><td>one child per field, named as the field; fields a value
 *       lacks are null</td></tr>
 *   <tr><td>tuple</td><td>Struct</td><td>children {@code 0}, {@code 1}, ...</td></tr>
 *   <tr><td>vector&lt;T, N&gt;</td><td>FixedSizeList&lt;T&gt;(N)</td><td>child {@code item};
 *       float, double, int and bigint elements in one bulk copy per cell</td></tr>
 *   <tr><td>custom types cqlrows does not know</td><td>Binary</td><td>the raw bytes</td></tr>
 *   <tr><td>a native type delivered as an object and not listed here</td><td>Utf8</td>
 *       <td>the value's {@code toString()}</td></tr>
 * </table>
 *
 * <p>The table follows {@link io.cqlrows.core.CellKind}: the types of one kind (bigint and counter,
 * uuid and timeuuid, text and ascii, blob and custom types) map alike; only the types of kind
 * {@code OBJECT} (decimal, varint, inet, duration, and the types with children) are mapped each on
 * its own.
 *
 * <p><b>Cells without a value.</b> A NULL cell is null. A not-set cell (never sent by Cassandra) is
 * null, and counted by {@link ArrowSink#notSetCells()}. An empty cell (zero bytes) is the empty
 * string or empty binary for text, ascii, blob and custom types, and null for every other type,
 * whose empty value is not a value (counted by {@link ArrowSink#emptyCells()}). Inside a
 * collection, UDT or tuple, the same rules apply to each element, as {@link
 * io.cqlrows.core.RowSink} describes for nested values.
 *
 * <p>Every field is nullable, except a map's entries and keys (the Arrow Map layout requires it). A
 * top-level field carries its CQL type in its metadata under {@link #CQL_TYPE}, and the column's
 * keyspace and table under {@link #CQL_KEYSPACE} and {@link #CQL_TABLE}.
 */
public final class ArrowMapping {
  /** Field metadata key: the column's CQL type, e.g. {@code vector<float, 1536>}. */
  public static final String CQL_TYPE = "cql.type";

  /** Field metadata key: the column's keyspace. */
  public static final String CQL_KEYSPACE = "cql.keyspace";

  /** Field metadata key: the column's table. */
  public static final String CQL_TABLE = "cql.table";

  /** The largest precision a Decimal128 holds. */
  public static final int DECIMAL128_PRECISION = 38;

  private static final ArrowMapping DEFAULTS =
      new ArrowMapping(-1, RoundingMode.UNNECESSARY, false, false);

  /** The scale of decimal columns as Decimal128, or -1 for Utf8. */
  private final int decimalScale;

  private final RoundingMode decimalRounding;
  private final boolean varintAsBinary;
  private final boolean inetAsText;

  private ArrowMapping(
      int decimalScale, RoundingMode decimalRounding, boolean varintAsBinary, boolean inetAsText) {
    this.decimalScale = decimalScale;
    this.decimalRounding = decimalRounding;
    this.varintAsBinary = varintAsBinary;
    this.inetAsText = inetAsText;
  }

  /** The mapping of the table above: decimal and varint as Utf8, inet as Binary. */
  public static ArrowMapping defaults() {
    return DEFAULTS;
  }

  /**
   * Decimals as Decimal128(38, {@code scale}). A value with more fractional digits is rounded with
   * {@code rounding}; with {@link RoundingMode#UNNECESSARY}, or when the value needs more than 38
   * digits at that scale, it is an {@link ArrowMappingException} (the parse stops there).
   *
   * @param scale digits after the decimal point, 0 to 38
   * @param rounding how to drop extra fractional digits
   * @return a copy with this decimal mapping
   * @throws IllegalArgumentException if {@code scale} is outside 0 to 38
   */
  public ArrowMapping withDecimal128(int scale, RoundingMode rounding) {
    if (scale < 0 || scale > DECIMAL128_PRECISION) {
      throw new IllegalArgumentException("scale: " + scale + " (expected: 0 to 38)");
    }
    return new ArrowMapping(
        scale, Objects.requireNonNull(rounding, "rounding"), varintAsBinary, inetAsText);
  }

  /**
   * Varints as Binary: the two's-complement big-endian bytes, as on the wire.
   *
   * @return a copy with this varint mapping
   */
  public ArrowMapping withVarintAsBinary() {
    return new ArrowMapping(decimalScale, decimalRounding, true, inetAsText);
  }

  /**
   * Inets as Utf8: the address as text, {@code InetAddress.getHostAddress()} (no host name is
   * looked up), for tools that show or join on addresses as strings.
   *
   * @return a copy with this inet mapping
   */
  public ArrowMapping withInetAsText() {
    return new ArrowMapping(decimalScale, decimalRounding, varintAsBinary, true);
  }

  /** The Decimal128 scale, or -1 when decimals are Utf8. */
  public int decimalScale() {
    return decimalScale;
  }

  /** How decimals are rounded to {@link #decimalScale()}. */
  public RoundingMode decimalRounding() {
    return decimalRounding;
  }

  /** Whether varints are Binary (else Utf8). */
  public boolean varintAsBinary() {
    return varintAsBinary;
  }

  /** Whether inets are Utf8 (else Binary). */
  public boolean inetAsText() {
    return inetAsText;
  }

  /** The Arrow schema of these columns, in order. */
  public Schema schema(List<ColumnSpec> columns) {
    List<Field> fields = new ArrayList<>(columns.size());
    for (ColumnSpec c : columns) {
      fields.add(field(c));
    }
    return new Schema(fields);
  }

  /** The Arrow field of one column: named as the column, with its CQL type in the metadata. */
  public Field field(ColumnSpec column) {
    Field f = field(column.name(), column.type(), true);
    Map<String, String> metadata =
        Map.of(
            CQL_TYPE,
            column.type().toString(),
            CQL_KEYSPACE,
            column.keyspace(),
            CQL_TABLE,
            column.table());
    FieldType type = new FieldType(true, f.getType(), null, metadata);
    return new Field(column.name(), type, f.getChildren());
  }

  /** The Arrow field of a CQL type, without metadata. */
  Field field(String name, CqlType type, boolean nullable) {
    ArrowType leaf = leafType(type);
    if (leaf != null) {
      return leaf(name, leaf, nullable);
    }
    if (type instanceof ListType l) {
      return list(name, l.element(), nullable);
    }
    if (type instanceof SetType s) {
      return list(name, s.element(), nullable);
    }
    if (type instanceof MapType m) {
      Field entries =
          new Field(
              "entries",
              FieldType.notNullable(ArrowType.Struct.INSTANCE),
              List.of(field("key", m.key(), false), field("value", m.value(), true)));
      return new Field(
          name, new FieldType(nullable, new ArrowType.Map(false), null), List.of(entries));
    }
    if (type instanceof UdtType u) {
      List<Field> children = new ArrayList<>(u.fields().size());
      for (UdtType.Field f : u.fields()) {
        children.add(field(f.name(), f.type(), true));
      }
      return new Field(name, new FieldType(nullable, ArrowType.Struct.INSTANCE, null), children);
    }
    if (type instanceof TupleType t) {
      List<Field> children = new ArrayList<>(t.components().size());
      for (int i = 0; i < t.components().size(); i++) {
        children.add(field(Integer.toString(i), t.components().get(i), true));
      }
      return new Field(name, new FieldType(nullable, ArrowType.Struct.INSTANCE, null), children);
    }
    if (type instanceof VectorType v) {
      return new Field(
          name,
          new FieldType(nullable, new ArrowType.FixedSizeList(v.dimension()), null),
          List.of(field("item", v.element(), true)));
    }
    throw new IllegalArgumentException("no Arrow type for " + type);
  }

  private Field list(String name, CqlType element, boolean nullable) {
    return new Field(
        name,
        new FieldType(nullable, ArrowType.List.INSTANCE, null),
        List.of(field("item", element, true)));
  }

  private static Field leaf(String name, ArrowType type, boolean nullable) {
    return new Field(name, new FieldType(nullable, type, null), null);
  }

  /** The Arrow type of a CQL type without children, or null for a type with children. */
  private ArrowType leafType(CqlType type) {
    return switch (CellKind.of(type)) {
      case BOOLEAN -> ArrowType.Bool.INSTANCE;
      case TINYINT -> new ArrowType.Int(8, true);
      case SMALLINT -> new ArrowType.Int(16, true);
      case INT -> new ArrowType.Int(32, true);
      case BIGINT -> new ArrowType.Int(64, true);
      case FLOAT -> new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
      case DOUBLE -> new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
      case TIMESTAMP -> new ArrowType.Timestamp(TimeUnit.MILLISECOND, "UTC");
      case DATE -> new ArrowType.Date(DateUnit.DAY);
      case TIME -> new ArrowType.Time(TimeUnit.NANOSECOND, 64);
      case UUID -> UuidType.INSTANCE;
      case TEXT -> ArrowType.Utf8.INSTANCE;
      case BLOB -> ArrowType.Binary.INSTANCE;
      case FLOAT_VECTOR, DOUBLE_VECTOR, INT_VECTOR, LONG_VECTOR -> null;
      case OBJECT -> type instanceof NativeType n ? objectType(n) : null;
    };
  }

  /** The Arrow type of a native type whose values are objects. */
  private ArrowType objectType(NativeType n) {
    switch (n) {
      case DURATION:
        return new ArrowType.Interval(IntervalUnit.MONTH_DAY_NANO);
      case DECIMAL:
        return decimalScale < 0
            ? ArrowType.Utf8.INSTANCE
            : new ArrowType.Decimal(DECIMAL128_PRECISION, decimalScale, 128);
      case VARINT:
        return varintAsBinary ? ArrowType.Binary.INSTANCE : ArrowType.Utf8.INSTANCE;
      case INET:
        return inetAsText ? ArrowType.Utf8.INSTANCE : ArrowType.Binary.INSTANCE;
      default:
        return ArrowType.Utf8.INSTANCE; // its value's toString()
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof ArrowMapping m
        && m.decimalScale == decimalScale
        && m.decimalRounding == decimalRounding
        && m.varintAsBinary == varintAsBinary
        && m.inetAsText == inetAsText;
  }

  @Override
  public int hashCode() {
    return Objects.hash(decimalScale, decimalRounding, varintAsBinary, inetAsText);
  }

  @Override
  public String toString() {
    return "ArrowMapping[decimal="
        + (decimalScale < 0
            ? "utf8"
            : "decimal128(38, " + decimalScale + ", " + decimalRounding + ")")
        + ", varint="
        + (varintAsBinary ? "binary" : "utf8")
        + ", inet="
        + (inetAsText ? "utf8" : "binary")
        + "]";
  }
}
