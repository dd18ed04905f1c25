package io.cqlrows.core;

import io.cqlrows.core.ScalarDeserializers.DateDeserializer;
import io.cqlrows.core.ScalarDeserializers.TimeDeserializer;
import io.cqlrows.core.type.NativeType;
import io.netty.buffer.ByteBuf;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Top-level cells of the fixed-width native types and of {@code text}, decoded by a switch on a
 * small int instead of a virtual call per cell.
 *
 * <p>A page of mixed scalar columns makes the deserializer call in the row loop megamorphic (ten
 * classes behind one call site), and that call and its two-level buffer reads were about half of
 * the parse time (JFR on the MIXED_SCALARS benchmark). Here each kind has its own sink call site
 * and, for heap buffers, reads go straight to the backing array through big-endian {@link
 * VarHandle}s; other buffers use their absolute getters. Every other type keeps its deserializer
 * ({@link #CALL}).
 *
 * <p>Callers have checked that {@code [p, p + len)} lies inside the buffer.
 */
final class InlineCells {
  /** Not inlined: call the column's {@link ValueDeserializer#deliver}. */
  static final int CALL = 0;

  static final int BOOLEAN = 1;
  static final int TINYINT = 2;
  static final int SMALLINT = 3;
  static final int INT = 4;
  static final int BIGINT = 5;
  static final int FLOAT = 6;
  static final int DOUBLE = 7;
  static final int TIMESTAMP = 8;
  static final int DATE = 9;
  static final int TIME = 10;
  static final int UUID = 11;
  static final int TEXT = 12;
  /** {@code blob} and opaque custom types: delivered by {@link RowsParser} through a reused view. */
  static final int BLOB = 13;

  private static final VarHandle SHORT_BE =
      MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);
  private static final VarHandle INT_BE =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
  private static final VarHandle LONG_BE =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

  private InlineCells() {}

  /** The inline kind of a column's deserializer, or {@link #CALL}. */
  static int kindOf(ValueDeserializer d) {
    if (d instanceof VariableWidthDeserializers.BlobDeserializer) {
      return BLOB;
    }
    if (!(d.type instanceof NativeType n)) {
      return CALL;
    }
    switch (n) {
      case BOOLEAN: return BOOLEAN;
      case TINYINT: return TINYINT;
      case SMALLINT: return SMALLINT;
      case INT: return INT;
      case BIGINT:
      case COUNTER: return BIGINT;
      case FLOAT: return FLOAT;
      case DOUBLE: return DOUBLE;
      case TIMESTAMP: return TIMESTAMP;
      case DATE: return DATE;
      case TIME: return TIME;
      case UUID:
      case TIMEUUID: return UUID;
      case TEXT: return TEXT;
      default: return CALL;
    }
  }

  /**
   * Delivers one top-level cell of {@code len >= 0} bytes at {@code p} to the sink.
   *
   * @param kind the column's kind, not {@link #CALL} or {@link #BLOB}
   * @param a the buffer's backing array, or {@code null} to read through {@code buf}
   * @param base {@code buf.arrayOffset()} when {@code a} is not null
   * @param buf the body. Borrowed.
   * @param d the column's deserializer: its type names errors (for {@link #TEXT}, the {@link
   *     TextDeserializer} that checks the string)
   */
  static void deliver(int kind, byte[] a, int base, ByteBuf buf, int p, int len, RowSink sink,
      int column, ValueDeserializer d) {
    if (kind == TEXT) {
      String s = a != null
          ? new String(a, base + p, len, StandardCharsets.UTF_8)
          : buf.toString(p, len, StandardCharsets.UTF_8);
      sink.onString(column, ((TextDeserializer) d).checkedUtf8(s, buf, p, len));
      return;
    }
    if (len == 0) {
      sink.onEmpty(column);
      return;
    }
    // a case per kind, alike but for the width and the sink event: each sink call site is its own
    switch (kind) {
      case BOOLEAN:
        check(d, p, 1, len);
        sink.onBoolean(column, byte8(a, base, buf, p) != 0);
        break;
      case TINYINT:
        check(d, p, 1, len);
        sink.onTinyint(column, byte8(a, base, buf, p));
        break;
      case SMALLINT:
        check(d, p, 2, len);
        sink.onSmallint(column, a != null ? (short) SHORT_BE.get(a, base + p) : buf.getShort(p));
        break;
      case INT:
        check(d, p, 4, len);
        sink.onInt(column, int32(a, base, buf, p));
        break;
      case BIGINT:
        check(d, p, 8, len);
        sink.onBigint(column, int64(a, base, buf, p));
        break;
      case FLOAT:
        check(d, p, 4, len);
        sink.onFloat(column, Float.intBitsToFloat(int32(a, base, buf, p)));
        break;
      case DOUBLE:
        check(d, p, 8, len);
        sink.onDouble(column, Double.longBitsToDouble(int64(a, base, buf, p)));
        break;
      case TIMESTAMP:
        check(d, p, 8, len);
        sink.onTimestamp(column, int64(a, base, buf, p));
        break;
      case DATE:
        check(d, p, 4, len);
        sink.onDate(column, DateDeserializer.epochDays(int32(a, base, buf, p)));
        break;
      case TIME:
        check(d, p, 8, len);
        sink.onTime(column, TimeDeserializer.checked(int64(a, base, buf, p), p, d.type));
        break;
      case UUID:
        check(d, p, 16, len);
        sink.onUuid(column, int64(a, base, buf, p), int64(a, base, buf, p + 8));
        break;
      default:
        throw new AssertionError(kind);
    }
  }

  private static void check(ValueDeserializer d, int p, int width, int len) {
    if (len != width) {
      throw d.lengthMismatch(p, width, len);
    }
  }

  private static byte byte8(byte[] a, int base, ByteBuf buf, int p) {
    return a != null ? a[base + p] : buf.getByte(p);
  }

  static int int32(byte[] a, int base, ByteBuf buf, int p) {
    return a != null ? (int) INT_BE.get(a, base + p) : buf.getInt(p);
  }

  private static long int64(byte[] a, int base, ByteBuf buf, int p) {
    return a != null ? (long) LONG_BE.get(a, base + p) : buf.getLong(p);
  }
}
