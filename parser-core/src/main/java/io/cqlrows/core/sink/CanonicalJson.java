package io.cqlrows.core.sink;

import io.cqlrows.core.CellKind;
import io.cqlrows.core.RowSink;
import io.cqlrows.core.type.CqlType;
import io.cqlrows.core.type.CustomType;
import io.cqlrows.core.type.ListType;
import io.cqlrows.core.type.MapType;
import io.cqlrows.core.type.SetType;
import io.cqlrows.core.type.TupleType;
import io.cqlrows.core.type.UdtType;
import io.cqlrows.core.value.CqlDuration;
import io.cqlrows.core.value.NotSet;
import io.cqlrows.core.value.TupleValue;
import io.cqlrows.core.value.UdtValue;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Renders decoded CQL values as the canonical JSON of the test corpus ({@code
 * parser-core/src/test/resources/io/cqlrows/corpus/README.md}, "Canonical value rendering"), so
 * that parser output can be compared with the Java driver's decodings text for text.
 *
 * <p>The rules, by the Java class of a value (the classes of {@link RowSink}'s table):
 *
 * <ul>
 *   <li>{@code null}: {@code null}, at any nesting level.
 *   <li>{@code String}: a JSON string; see {@link #appendString}.
 *   <li>{@code Boolean}: {@code true} / {@code false}.
 *   <li>{@code Byte}, {@code Short}, {@code Integer}: a JSON number.
 *   <li>{@code Long}, {@code BigInteger}: the decimal digits in a JSON string, so that no JSON
 *       reader rounds them through a double.
 *   <li>{@code Float}, {@code Double}: a JSON string of {@code Float.toString} / {@code
 *       Double.toString} ({@code "NaN"}, {@code "-Infinity"} and {@code "-0.0"} included). The
 *       corpus was rendered on Java 17; from JDK 19 on these methods print some values differently.
 *   <li>{@code BigDecimal}: a JSON string of {@code toString()} ({@code "1E+10"}).
 *   <li>{@code UUID}, {@code LocalDate}, {@code LocalTime}, {@code Instant}, {@link CqlDuration}: a
 *       JSON string of {@code toString()}.
 *   <li>{@code InetAddress}: a JSON string of {@code getHostAddress()}.
 *   <li>{@code ByteBuffer} (its remaining bytes; the position is not moved) and {@code byte[]}: a
 *       JSON string {@code "0x"} followed by lowercase hex.
 *   <li>{@code Collection} (list, set, vector): a JSON array in iteration order.
 *   <li>{@code Map}: a JSON array of {@code [key, value]} pairs in iteration order (keys need not
 *       be strings).
 *   <li>{@link UdtValue}: a JSON object, field name (internal form) to value, in field order.
 *   <li>{@link TupleValue}: a JSON array, one element per component.
 *   <li>{@code float[]}, {@code double[]}, {@code int[]}, {@code long[]}: JSON arrays whose
 *       elements render as the boxed types do.
 *   <li>{@link NotSet}: the object {@code {"not_set":true}}. The corpus has no rendering for it
 *       (Cassandra never sends it, and the driver cannot tell it from NULL); an object keeps it
 *       distinct from both {@code null} and any string value.
 *   <li>Any other class: a JSON string of {@code toString()}.
 * </ul>
 *
 * <p>All methods append to the builder they are given and never reset it. Stateless and
 * thread-safe.
 */
public final class CanonicalJson {
  /** The rendering of {@link NotSet#INSTANCE} and of a not-set cell. */
  static final String NOT_SET = "{\"not_set\":true}";

  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private CanonicalJson() {}

  /**
   * Appends the canonical JSON of a value (see the class documentation).
   *
   * @param out the builder to append to
   * @param value a value of one of the classes of {@link RowSink}'s table, or {@code null}
   */
  public static void appendValue(StringBuilder out, Object value) {
    append(out, value, false);
  }

  /**
   * Appends the JSON of a value for tools that want numbers as numbers: as {@link #appendValue},
   * except that, at any nesting level, a number a JSON reader takes exactly is a JSON number:
   *
   * <ul>
   *   <li>{@code Long} and {@code BigInteger} ({@code bigint}, {@code counter}, {@code varint})
   *       from -2<sup>53</sup> to 2<sup>53</sup>, the integers a double holds exactly; beyond that
   *       range they stay strings of digits, as a reader would round them;
   *   <li>finite {@code Double}s, as {@code Double.toString} writes them, which read back as the
   *       same double; finite {@code Float}s as the double of the same value, so that a reader of
   *       doubles gets exactly the float's value (0.1f is written {@code 0.10000000149011612});
   *   <li>NaN and the infinities stay the strings {@code "NaN"}, {@code "Infinity"} and {@code
   *       "-Infinity"}, which JSON has no number for; {@code BigDecimal} stays a string.
   * </ul>
   *
   * @param out the builder to append to
   * @param value a value of one of the classes of {@link RowSink}'s table, or {@code null}
   */
  public static void appendValueWithNumbers(StringBuilder out, Object value) {
    append(out, value, true);
  }

  private static void append(StringBuilder out, Object value, boolean numbers) {
    if (value == null) {
      out.append("null");
    } else if (value instanceof String s) {
      appendString(out, s);
    } else if (!appendNumber(out, value, numbers)
        && !appendText(out, value)
        && !appendContainer(out, value, numbers)
        && !appendPrimitiveArray(out, value, numbers)) {
      appendString(out, value.toString());
    }
  }

  /**
   * Appends {@code s} as a JSON string. {@code "} and {@code \} are escaped with a backslash;
   * control characters below U+0020 as {@code \n}, {@code \t}, {@code \r}, {@code \b}, {@code \f}
   * or {@code \}{@code u00xx} (lowercase hex); U+007F (DEL) as {@code \}{@code u007f}, as the
   * corpus writes it. Every other character, non-ASCII and surrogate pairs included, is written as
   * is.
   *
   * @param out the builder to append to
   * @param s the characters; not {@code null}
   */
  public static void appendString(StringBuilder out, CharSequence s) {
    out.append('"');
    int length = s.length();
    int start = 0; // first character not yet copied
    for (int i = 0; i < length; i++) {
      char c = s.charAt(i);
      if (c < 0x20 || c == '"' || c == '\\' || c == 0x7f) {
        out.append(s, start, i);
        appendEscape(out, c);
        start = i + 1;
      }
    }
    out.append(s, start, length).append('"');
  }

  /**
   * Appends the rendering of a top-level cell of {@code type} whose wire length is 0, as the Java
   * driver decodes it: {@code []} for list, set and map; an object with every field {@code null}
   * for a UDT; an array of {@code null}s, one per component, for a tuple; {@code ""} for the types
   * of {@link CellKind#TEXT} (ascii, text); {@code "0x"} for those of {@link CellKind#BLOB} (blob,
   * and an opaque {@link CustomType}, whose values are raw bytes); {@code null} for every other
   * type, vectors included.
   *
   * @param out the builder to append to
   * @param type the column type
   */
  public static void appendEmpty(StringBuilder out, CqlType type) {
    if (type instanceof ListType || type instanceof SetType || type instanceof MapType) {
      out.append("[]");
    } else if (type instanceof UdtType udt) {
      out.append('{');
      List<UdtType.Field> fields = udt.fields();
      for (int i = 0; i < fields.size(); i++) {
        if (i > 0) {
          out.append(',');
        }
        appendString(out, fields.get(i).name());
        out.append(":null");
      }
      out.append('}');
    } else if (type instanceof TupleType tuple) {
      out.append('[');
      for (int i = 0; i < tuple.components().size(); i++) {
        out.append(i > 0 ? ",null" : "null");
      }
      out.append(']');
    } else if (CellKind.of(type) == CellKind.TEXT) {
      out.append("\"\"");
    } else if (CellKind.of(type) == CellKind.BLOB) {
      out.append("\"0x\"");
    } else {
      out.append("null");
    }
  }

  /** Appends a bigint, counter or varint as a quoted decimal. */
  static void appendQuoted(StringBuilder out, long value) {
    out.append('"').append(value).append('"');
  }

  /**
   * Appends a float as a quoted {@code Float.toString}: {@code StringBuilder.append(float)} writes
   * the same characters straight into the builder, without a String per value.
   */
  static void appendQuoted(StringBuilder out, float value) {
    out.append('"').append(value).append('"');
  }

  /** Appends a double as a quoted {@code Double.toString} (written in place, as above). */
  static void appendQuoted(StringBuilder out, double value) {
    out.append('"').append(value).append('"');
  }

  /** Appends the two lowercase hex digits of the low byte of {@code b}. */
  static void appendHexByte(StringBuilder out, int b) {
    out.append(HEX[(b >> 4) & 0xf]).append(HEX[b & 0xf]);
  }

  private static void appendEscape(StringBuilder out, char c) {
    switch (c) {
      case '"' -> out.append("\\\"");
      case '\\' -> out.append("\\\\");
      case '\n' -> out.append("\\n");
      case '\t' -> out.append("\\t");
      case '\r' -> out.append("\\r");
      case '\b' -> out.append("\\b");
      case '\f' -> out.append("\\f");
      default -> {
        out.append("\\u00");
        appendHexByte(out, c);
      }
    }
  }

  /** The largest magnitude of the integers every double holds exactly, 2^53. */
  private static final long EXACT_IN_DOUBLE = 1L << 53;

  private static final BigInteger EXACT_IN_DOUBLE_BIG = BigInteger.valueOf(EXACT_IN_DOUBLE);

  /** Booleans and numbers; false if {@code value} is neither. */
  private static boolean appendNumber(StringBuilder out, Object value, boolean numbers) {
    if (value instanceof Boolean b) {
      out.append(b.booleanValue());
    } else if (value instanceof Integer || value instanceof Short || value instanceof Byte) {
      out.append(((Number) value).intValue());
    } else if (value instanceof Long l) {
      appendLong(out, l.longValue(), numbers);
    } else if (value instanceof Float f) {
      appendFloat(out, f.floatValue(), numbers);
    } else if (value instanceof Double d) {
      appendDouble(out, d.doubleValue(), numbers);
    } else if (value instanceof BigInteger big
        && numbers
        && big.abs().compareTo(EXACT_IN_DOUBLE_BIG) <= 0) {
      out.append(big);
    } else if (value instanceof BigInteger || value instanceof BigDecimal) {
      out.append('"').append(value).append('"');
    } else {
      return false;
    }
    return true;
  }

  private static void appendLong(StringBuilder out, long value, boolean numbers) {
    if (numbers && value >= -EXACT_IN_DOUBLE && value <= EXACT_IN_DOUBLE) {
      out.append(value);
    } else {
      appendQuoted(out, value);
    }
  }

  private static void appendFloat(StringBuilder out, float value, boolean numbers) {
    if (numbers && Float.isFinite(value)) {
      out.append((double) value);
    } else {
      appendQuoted(out, value);
    }
  }

  private static void appendDouble(StringBuilder out, double value, boolean numbers) {
    if (numbers && Double.isFinite(value)) {
      out.append(value);
    } else {
      appendQuoted(out, value);
    }
  }

  /** Values rendered as JSON strings (other than text) and the not-set marker. */
  private static boolean appendText(StringBuilder out, Object value) {
    if (value instanceof UUID
        || value instanceof LocalDate
        || value instanceof LocalTime
        || value instanceof Instant
        || value instanceof CqlDuration) {
      // None of these toString()s can produce a character that needs escaping.
      out.append('"').append(value).append('"');
    } else if (value instanceof InetAddress inet) {
      appendString(out, inet.getHostAddress());
    } else if (value instanceof ByteBuffer buffer) {
      out.append("\"0x");
      for (int i = buffer.position(); i < buffer.limit(); i++) {
        appendHexByte(out, buffer.get(i));
      }
      out.append('"');
    } else if (value instanceof byte[] bytes) {
      out.append("\"0x");
      for (byte b : bytes) {
        appendHexByte(out, b);
      }
      out.append('"');
    } else if (value instanceof NotSet) {
      out.append(NOT_SET);
    } else {
      return false;
    }
    return true;
  }

  /** Collections, maps, UDTs and tuples. */
  private static boolean appendContainer(StringBuilder out, Object value, boolean numbers) {
    if (value instanceof Collection<?> collection) {
      appendElements(out, collection, numbers);
    } else if (value instanceof Map<?, ?> map) {
      out.append('[');
      boolean first = true;
      for (Map.Entry<?, ?> e : map.entrySet()) {
        out.append(first ? "[" : ",[");
        first = false;
        append(out, e.getKey(), numbers);
        out.append(',');
        append(out, e.getValue(), numbers);
        out.append(']');
      }
      out.append(']');
    } else if (value instanceof UdtValue udt) {
      out.append('{');
      List<UdtType.Field> fields = udt.type().fields();
      for (int i = 0; i < udt.size(); i++) {
        if (i > 0) {
          out.append(',');
        }
        appendString(out, fields.get(i).name());
        out.append(':');
        append(out, udt.get(i), numbers);
      }
      out.append('}');
    } else if (value instanceof TupleValue tuple) {
      appendElements(out, tuple.values(), numbers);
    } else {
      return false;
    }
    return true;
  }

  private static void appendElements(StringBuilder out, Collection<?> elements, boolean numbers) {
    out.append('[');
    boolean first = true;
    for (Object element : elements) {
      if (!first) {
        out.append(',');
      }
      first = false;
      append(out, element, numbers);
    }
    out.append(']');
  }

  /** The arrays of the vector events' default boxing. */
  private static boolean appendPrimitiveArray(StringBuilder out, Object value, boolean numbers) {
    if (value instanceof float[] a) {
      out.append('[');
      for (int i = 0; i < a.length; i++) {
        appendFloat(i > 0 ? out.append(',') : out, a[i], numbers);
      }
    } else if (value instanceof double[] a) {
      out.append('[');
      for (int i = 0; i < a.length; i++) {
        appendDouble(i > 0 ? out.append(',') : out, a[i], numbers);
      }
    } else if (value instanceof int[] a) {
      out.append('[');
      for (int i = 0; i < a.length; i++) {
        (i > 0 ? out.append(',') : out).append(a[i]);
      }
    } else if (value instanceof long[] a) {
      out.append('[');
      for (int i = 0; i < a.length; i++) {
        appendLong(i > 0 ? out.append(',') : out, a[i], numbers);
      }
    } else {
      return false;
    }
    out.append(']');
    return true;
  }
}
