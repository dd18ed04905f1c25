package io.cqlrows.core;

import io.cqlrows.core.type.NativeType;
import io.netty.buffer.ByteBuf;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The kinds of top-level cells {@link RowsParser} decodes in its row loop, by a switch on a small
 * int instead of a virtual call per cell, and the big-endian reads it uses.
 *
 * <p>A page of mixed scalar columns would make a deserializer call in the row loop megamorphic (ten
 * classes behind one call site), and that call with its two-level buffer reads would cost about as
 * much as the rest of the parse. The fixed-width {@link CellKind}s, UTF-8 text and blobs therefore
 * have an inline kind here, each named as its {@link CellKind}; every other type keeps its
 * deserializer ({@link #CALL}). For heap buffers the reads go straight to the backing array through
 * big-endian {@link VarHandle}s; other buffers use their absolute getters. Callers have checked
 * that the bytes read lie inside the buffer.
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

  /** {@link CellKind#BLOB}: delivered by {@link RowsParser} through a reused view. */
  static final int BLOB = 13;

  static final VarHandle SHORT_BE =
      MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.BIG_ENDIAN);
  static final VarHandle INT_BE =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
  static final VarHandle LONG_BE =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

  private InlineCells() {}

  /**
   * The inline kind of a column's deserializer: the one named as its type's {@link CellKind}, or
   * {@link #CALL} for the types the loop does not decode.
   */
  static int kindOf(ValueDeserializer d) {
    return switch (CellKind.of(d.type)) {
      case BOOLEAN -> BOOLEAN;
      case TINYINT -> TINYINT;
      case SMALLINT -> SMALLINT;
      case INT -> INT;
      case BIGINT -> BIGINT;
      case FLOAT -> FLOAT;
      case DOUBLE -> DOUBLE;
      case TIMESTAMP -> TIMESTAMP;
      case DATE -> DATE;
      case TIME -> TIME;
      case UUID -> UUID;
      // ascii is checked byte by byte by its deserializer; UTF-8 text is decoded here
      case TEXT -> d.type == NativeType.TEXT ? TEXT : CALL;
      case BLOB -> BLOB;
      case FLOAT_VECTOR, DOUBLE_VECTOR, INT_VECTOR, LONG_VECTOR, OBJECT -> CALL;
    };
  }

  static byte int8(byte[] a, int base, ByteBuf buf, int p) {
    return a != null ? a[base + p] : buf.getByte(p);
  }

  static short int16(byte[] a, int base, ByteBuf buf, int p) {
    return a != null ? (short) SHORT_BE.get(a, base + p) : buf.getShort(p);
  }

  static int int32(byte[] a, int base, ByteBuf buf, int p) {
    return a != null ? (int) INT_BE.get(a, base + p) : buf.getInt(p);
  }

  static long int64(byte[] a, int base, ByteBuf buf, int p) {
    return a != null ? (long) LONG_BE.get(a, base + p) : buf.getLong(p);
  }
}
