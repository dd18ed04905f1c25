package io.cqlrows.arrow;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.core.type.CqlType;
import io.cqlrows.core.type.CustomType;
import io.cqlrows.core.type.ListType;
import io.cqlrows.core.type.MapType;
import io.cqlrows.core.type.NativeType;
import io.cqlrows.core.type.SetType;
import io.cqlrows.core.type.TupleType;
import io.cqlrows.core.type.UdtType;
import io.cqlrows.core.type.VectorType;
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
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntervalMonthDayNanoVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeNanoVector;
import org.apache.arrow.vector.TimeStampMilliTZVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.UuidVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.MapVector;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.arrow.vector.holders.NullableIntervalMonthDayNanoHolder;

/**
 * Asserts that an Arrow vector slot holds a decoded CQL value under {@link ArrowMapping}: the
 * expected side is what {@code RowsCollector} decoded from the same bytes (checked against the Java
 * driver elsewhere), so the two sinks are compared value by value.
 */
final class ArrowValues {
  private ArrowValues() {}

  /** Slot {@code i} of {@code v} holds {@code expected} (null: an Arrow null). */
  static void assertSlot(
      FieldVector v, int i, CqlType type, Object expected, ArrowMapping mapping, String where) {
    if (expected == null || expected == NotSet.INSTANCE) {
      assertTrue(v.isNull(i), where + ": null expected, got " + v.getObject(i));
      return;
    }
    assertFalse(v.isNull(i), where + ": " + expected + " expected, got null");
    if (type instanceof NativeType n) {
      assertNative(v, i, n, expected, mapping, where);
    } else if (type instanceof ListType || type instanceof SetType) {
      ListVector l = (ListVector) v;
      CqlType element = type instanceof ListType lt ? lt.element() : ((SetType) type).element();
      List<?> items = new ArrayList<>((Collection<?>) expected);
      int start = l.getElementStartIndex(i);
      assertEquals(items.size(), l.getElementEndIndex(i) - start, where + ": size");
      for (int k = 0; k < items.size(); k++) {
        assertSlot(
            l.getDataVector(), start + k, element, items.get(k), mapping, where + "[" + k + "]");
      }
    } else if (type instanceof MapType m) {
      MapVector mv = (MapVector) v;
      StructVector entries = (StructVector) mv.getDataVector();
      List<? extends Map.Entry<?, ?>> items = new ArrayList<>(((Map<?, ?>) expected).entrySet());
      int start = mv.getElementStartIndex(i);
      assertEquals(items.size(), mv.getElementEndIndex(i) - start, where + ": size");
      for (int k = 0; k < items.size(); k++) {
        assertSlot(
            entries.getChildrenFromFields().get(0),
            start + k,
            m.key(),
            items.get(k).getKey(),
            mapping,
            where + " key " + k);
        assertSlot(
            entries.getChildrenFromFields().get(1),
            start + k,
            m.value(),
            items.get(k).getValue(),
            mapping,
            where + " value " + k);
      }
    } else if (type instanceof UdtType u) {
      StructVector s = (StructVector) v;
      UdtValue value = (UdtValue) expected;
      for (int f = 0; f < u.fields().size(); f++) {
        assertSlot(
            s.getChildrenFromFields().get(f),
            i,
            u.fields().get(f).type(),
            f < value.size() ? value.get(f) : null,
            mapping,
            where + "." + u.fields().get(f).name());
      }
    } else if (type instanceof TupleType t) {
      StructVector s = (StructVector) v;
      TupleValue value = (TupleValue) expected;
      for (int f = 0; f < t.components().size(); f++) {
        assertSlot(
            s.getChildrenFromFields().get(f),
            i,
            t.components().get(f),
            value.get(f),
            mapping,
            where + "." + f);
      }
    } else if (type instanceof VectorType vt) {
      FixedSizeListVector fl = (FixedSizeListVector) v;
      List<?> items = elements(expected);
      assertEquals(vt.dimension(), items.size(), where);
      for (int k = 0; k < items.size(); k++) {
        assertSlot(
            fl.getDataVector(),
            i * vt.dimension() + k,
            vt.element(),
            items.get(k),
            mapping,
            where + "[" + k + "]");
      }
    } else if (type instanceof CustomType) {
      assertArrayEquals(bytes((ByteBuffer) expected), ((VarBinaryVector) v).get(i), where);
    }
  }

  private static List<?> elements(Object vector) {
    List<Object> out = new ArrayList<>();
    if (vector instanceof float[] a) {
      for (float x : a) {
        out.add(x);
      }
    } else if (vector instanceof double[] a) {
      for (double x : a) {
        out.add(x);
      }
    } else if (vector instanceof int[] a) {
      for (int x : a) {
        out.add(x);
      }
    } else if (vector instanceof long[] a) {
      for (long x : a) {
        out.add(x);
      }
    } else {
      out.addAll((List<?>) vector);
    }
    return out;
  }

  private static void assertNative(
      FieldVector v, int i, NativeType n, Object expected, ArrowMapping mapping, String where) {
    switch (n) {
      case BOOLEAN -> assertEquals(expected, ((BitVector) v).getObject(i), where);
      case TINYINT -> assertEquals(expected, ((TinyIntVector) v).get(i), where);
      case SMALLINT -> assertEquals(expected, ((SmallIntVector) v).get(i), where);
      case INT -> assertEquals(expected, ((org.apache.arrow.vector.IntVector) v).get(i), where);
      case BIGINT, COUNTER -> assertEquals(expected, ((BigIntVector) v).get(i), where);
      case FLOAT ->
          assertEquals(
              Float.floatToRawIntBits((Float) expected),
              Float.floatToRawIntBits(((Float4Vector) v).get(i)),
              where);
      case DOUBLE ->
          assertEquals(
              Double.doubleToRawLongBits((Double) expected),
              Double.doubleToRawLongBits(((Float8Vector) v).get(i)),
              where);
      case TEXT, ASCII ->
          assertEquals(expected, ((VarCharVector) v).getObject(i).toString(), where);
      case BLOB ->
          assertArrayEquals(bytes((ByteBuffer) expected), ((VarBinaryVector) v).get(i), where);
      case INET ->
          assertArrayEquals(
              ((InetAddress) expected).getAddress(), ((VarBinaryVector) v).get(i), where);
      case TIMESTAMP ->
          assertEquals(
              ((Instant) expected).toEpochMilli(), ((TimeStampMilliTZVector) v).get(i), where);
      case DATE ->
          assertEquals(((LocalDate) expected).toEpochDay(), ((DateDayVector) v).get(i), where);
      case TIME ->
          assertEquals(((LocalTime) expected).toNanoOfDay(), ((TimeNanoVector) v).get(i), where);
      case UUID, TIMEUUID -> assertEquals(expected, ((UuidVector) v).getObject(i), where);
      case DURATION -> {
        NullableIntervalMonthDayNanoHolder h = new NullableIntervalMonthDayNanoHolder();
        ((IntervalMonthDayNanoVector) v).get(i, h);
        CqlDuration d = (CqlDuration) expected;
        assertEquals(d, new CqlDuration(h.months, h.days, h.nanoseconds), where);
      }
      case DECIMAL -> {
        if (mapping.decimalScale() < 0) {
          assertEquals(expected.toString(), ((VarCharVector) v).getObject(i).toString(), where);
        } else {
          BigDecimal actual = ((DecimalVector) v).getObject(i);
          assertEquals(0, ((BigDecimal) expected).compareTo(actual), where + ": " + actual);
        }
      }
      case VARINT -> {
        if (mapping.varintAsBinary()) {
          assertEquals(expected, new BigInteger(((VarBinaryVector) v).get(i)), where);
        } else {
          assertEquals(expected.toString(), ((VarCharVector) v).getObject(i).toString(), where);
        }
      }
      default -> throw new AssertionError(n);
    }
  }

  private static byte[] bytes(ByteBuffer b) {
    byte[] out = new byte[b.remaining()];
    b.duplicate().get(out);
    return out;
  }
}
