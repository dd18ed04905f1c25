package io.cqlrows.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.cqlrows.core.sink.Row;
import io.cqlrows.core.sink.RowsCollector;
import io.cqlrows.core.value.CqlDuration;
import io.cqlrows.core.value.TupleValue;
import io.cqlrows.core.value.UdtValue;
import io.netty.buffer.ByteBuf;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * The differential check of lazy pages: a body read into a {@link LazyPageSink} must give what the
 * same body gives read into a {@link RowsCollector}: the same result, or the same error (reason,
 * offset, row, column); and for ROWS, every cell read back through every fitting getter equals the
 * eager row's.
 */
final class LazyAssertions {
  private LazyAssertions() {}

  /** How a body reaches the lazy sink. */
  enum Feed {
    /** {@link ResultReader#read} on the body as given. */
    WHOLE,
    /** {@link ResultReader#read} with {@link LazyPageSink#copying()}. */
    COPYING,
    /** {@link ResultReader#stream}, in pieces of the given size. */
    PIECES
  }

  /**
   * Reads {@code body} (borrowed, left as it was) eagerly and lazily, each with a reader from
   * {@code readers}, and asserts the outcomes equal.
   *
   * @param pieceSize for {@link Feed#PIECES}, the size of every piece but the last (at least 1)
   * @return the number of rows compared (0 for an error or a result without rows)
   */
  static int assertLazyEqualsEager(
      Supplier<ResultReader> readers,
      ByteBuf body,
      ResultColumns prepared,
      Feed feed,
      int pieceSize) {
    int refCnt = body.refCnt();
    int readerIndex = body.readerIndex();
    int writerIndex = body.writerIndex();

    RowsCollector eager = new RowsCollector();
    CqlResult expected;
    CqlParseException expectedError = null;
    try {
      expected = readers.get().read(body.duplicate(), eager, prepared);
    } catch (CqlParseException e) {
      expected = null;
      expectedError = e;
    }

    LazyPageSink lazy = feed == Feed.COPYING ? LazyPageSink.copying() : new LazyPageSink();
    try {
      CqlResult actual;
      try {
        actual = lazyRead(readers.get(), body, prepared, lazy, feed, pieceSize);
      } catch (CqlParseException e) {
        if (expectedError == null) {
          throw new AssertionError("lazy read failed where the eager read did not", e);
        }
        assertSameError(expectedError, e);
        assertEquals(0, lazy.pageCount(), "pages after an error");
        return 0;
      }
      if (expectedError != null) {
        throw new AssertionError("lazy read succeeded where the eager one failed", expectedError);
      }
      assertSame(expected.getClass(), actual.getClass(), "result kind");
      if (!(actual instanceof RowsResult rows)) {
        assertEquals(0, lazy.pageCount(), "pages of a " + actual.getClass().getSimpleName());
        return 0;
      }
      assertEquals(1, lazy.pageCount(), "pages of one ROWS result");
      try (LazyPage page = lazy.poll()) {
        assertEquals(rows.rowCount(), page.size(), "rows");
        assertEquals(expected.toString(), actual.toString(), "result");
        assertEquals(
            eager.metadata().columns(), page.columns(), "columns of the page and the collector");
        assertSameRows(eager.rows(), page);
        return page.size();
      }
    } finally {
      lazy.close();
      assertEquals(refCnt, body.refCnt(), "the body's refCnt once the page is released");
      assertEquals(readerIndex, body.readerIndex(), "reader index");
      assertEquals(writerIndex, body.writerIndex(), "writer index");
    }
  }

  private static CqlResult lazyRead(
      ResultReader reader,
      ByteBuf body,
      ResultColumns prepared,
      LazyPageSink sink,
      Feed feed,
      int pieceSize) {
    if (feed != Feed.PIECES) {
      return reader.read(body.duplicate(), sink, prepared);
    }
    int length = body.readableBytes();
    try (ResultStream s = reader.stream(sink, prepared, length)) {
      int at = body.readerIndex();
      int end = body.writerIndex();
      do {
        int n = Math.min(Math.max(pieceSize, 1), end - at);
        s.feed(body.slice(at, n));
        at += n;
      } while (at < end);
      return s.result();
    }
  }

  static void assertSameError(CqlParseException expected, CqlParseException actual) {
    String where = "eager: " + expected.getMessage() + "\nlazy: " + actual.getMessage();
    assertEquals(expected.reason(), actual.reason(), where);
    assertEquals(expected.offset(), actual.offset(), where);
    assertEquals(expected.row(), actual.row(), where);
    assertEquals(expected.column(), actual.column(), where);
  }

  /** Every cell of every row, through every getter that fits its value. */
  static void assertSameRows(List<Row> eager, LazyPage page) {
    assertEquals(eager.size(), page.size(), "rows");
    Iterator<LazyRow> rows = page.iterator();
    for (int r = 0; r < eager.size(); r++) {
      Row e = eager.get(r);
      LazyRow l = rows.next();
      assertEquals(l, page.row(r));
      assertEquals(e.size(), l.size(), "columns");
      for (int c = 0; c < e.size(); c++) {
        assertSameCell(e, l, c, "row " + r + " column " + c + " (" + e.columns().get(c) + ")");
      }
      // backwards, from a fresh view and from one that has found the last cell
      LazyRow fresh = page.row(r);
      for (int c = e.size() - 1; c >= 0; c--) {
        assertSameValue(e.getObject(c), fresh.getObject(c), "row " + r + " column " + c + " back");
        assertSameValue(e.getObject(c), l.getObject(c), "row " + r + " column " + c + " again");
      }
    }
    assertTrue(!rows.hasNext(), "rows after the last");
  }

  private static void assertSameCell(Row e, LazyRow l, int c, String where) {
    assertEquals(e.isNull(c), l.isNull(c), where + ": isNull");
    assertEquals(e.isNotSet(c), l.isNotSet(c), where + ": isNotSet");
    assertEquals(e.isEmpty(c), l.isEmpty(c), where + ": isEmpty");
    Object ev = e.getObject(c);
    Object lv = l.getObject(c);
    assertSameValue(ev, lv, where + ": getObject");
    if (ev == null) {
      return;
    }
    String name = e.columns().get(c).name();
    boolean byName = e.columns().indexOf(name) == c; // names may repeat: the first one wins
    if (ev instanceof Boolean) {
      assertEquals(e.getBoolean(c), l.getBoolean(c), where);
    } else if (ev instanceof Byte) {
      assertEquals(e.getByte(c), l.getByte(c), where);
    } else if (ev instanceof Short) {
      assertEquals(e.getShort(c), l.getShort(c), where);
    } else if (ev instanceof Integer) {
      assertEquals(e.getInt(c), l.getInt(c), where);
      if (byName) {
        assertEquals(e.getInt(c), l.getInt(name), where + " by name");
      }
    } else if (ev instanceof Long) {
      assertEquals(e.getLong(c), l.getLong(c), where);
    } else if (ev instanceof Float) {
      assertEquals(
          Float.floatToRawIntBits(e.getFloat(c)), Float.floatToRawIntBits(l.getFloat(c)), where);
    } else if (ev instanceof Double) {
      assertEquals(
          Double.doubleToRawLongBits(e.getDouble(c)),
          Double.doubleToRawLongBits(l.getDouble(c)),
          where);
    } else if (ev instanceof String) {
      assertEquals(e.getString(c), l.getString(c), where);
      if (byName) {
        assertEquals(e.getString(c), l.getString(name), where + " by name");
      }
    } else if (ev instanceof UUID) {
      assertEquals(e.getUuid(c), l.getUuid(c), where);
    } else if (ev instanceof Instant) {
      assertEquals(e.getInstant(c), l.getInstant(c), where);
    } else if (ev instanceof LocalDate) {
      assertEquals(e.getLocalDate(c), l.getLocalDate(c), where);
    } else if (ev instanceof LocalTime) {
      assertEquals(e.getLocalTime(c), l.getLocalTime(c), where);
    } else if (ev instanceof BigDecimal) {
      assertEquals(e.getBigDecimal(c), l.getBigDecimal(c), where);
    } else if (ev instanceof BigInteger) {
      assertEquals(e.getBigInteger(c), l.getBigInteger(c), where);
    } else if (ev instanceof InetAddress) {
      assertEquals(e.getInetAddress(c), l.getInetAddress(c), where);
    } else if (ev instanceof CqlDuration) {
      assertEquals(e.getDuration(c), l.getDuration(c), where);
    } else if (ev instanceof ByteBuffer) {
      assertEquals(e.getBytes(c), l.getBytes(c), where);
      assertTrue(l.getBytes(c).isReadOnly(), where + ": read-only");
    } else if (ev instanceof float[] v) {
      assertTrue(Arrays.equals(v, l.getFloatVector(c)), where);
      FloatVector view = l.floatVector(c);
      float[] copy = new float[v.length + 1];
      view.copyTo(copy, 1);
      assertTrue(Arrays.equals(v, Arrays.copyOfRange(copy, 1, copy.length)), where + ": copyTo");
      assertEquals(v.length, view.dimension(), where + ": dimension");
      if (v.length > 0) {
        assertEquals(
            Float.floatToRawIntBits(v[v.length - 1]),
            Float.floatToRawIntBits(view.get(v.length - 1)),
            where + ": get");
      }
    } else if (ev instanceof double[] v) {
      assertTrue(Arrays.equals(v, l.getDoubleVector(c)), where);
      assertTrue(Arrays.equals(v, l.doubleVector(c).toArray()), where + ": view");
    } else if (ev instanceof int[] v) {
      assertTrue(Arrays.equals(v, l.getIntVector(c)), where);
      assertTrue(Arrays.equals(v, l.intVector(c).toArray()), where + ": view");
    } else if (ev instanceof long[] v) {
      assertTrue(Arrays.equals(v, l.getLongVector(c)), where);
      assertTrue(Arrays.equals(v, l.longVector(c).toArray()), where + ": view");
    } else if (ev instanceof List<?>) {
      assertSameValue(e.getList(c), l.getList(c), where + ": getList");
    } else if (ev instanceof Map<?, ?>) {
      assertSameValue(e.getMap(c), l.getMap(c), where + ": getMap");
    } else if (ev instanceof UdtValue) {
      assertSameValue(e.getUdt(c), l.getUdt(c), where + ": getUdt");
    } else if (ev instanceof TupleValue) {
      assertSameValue(e.getTuple(c), l.getTuple(c), where + ": getTuple");
    } else {
      fail(where + ": no getter compared for a " + ev.getClass());
    }
  }

  /** Equal values of the same classes, at any depth: arrays and buffers by content. */
  static void assertSameValue(Object expected, Object actual, String where) {
    if (expected == null) {
      assertNull(actual, where);
      return;
    }
    if (actual == null) {
      fail(where + ": null, expected " + expected);
    }
    assertSame(expected.getClass(), actual.getClass(), where + ": class");
    if (expected instanceof float[] a) {
      assertTrue(Arrays.equals(a, (float[]) actual), where);
    } else if (expected instanceof double[] a) {
      assertTrue(Arrays.equals(a, (double[]) actual), where);
    } else if (expected instanceof int[] a) {
      assertTrue(Arrays.equals(a, (int[]) actual), where);
    } else if (expected instanceof long[] a) {
      assertTrue(Arrays.equals(a, (long[]) actual), where);
    } else if (expected instanceof List<?> a) {
      List<?> b = (List<?>) actual;
      assertEquals(a.size(), b.size(), where + ": size");
      for (int i = 0; i < a.size(); i++) {
        assertSameValue(a.get(i), b.get(i), where + "[" + i + "]");
      }
    } else if (expected instanceof Map<?, ?> a) {
      Iterator<? extends Map.Entry<?, ?>> ea = a.entrySet().iterator();
      Iterator<? extends Map.Entry<?, ?>> eb = ((Map<?, ?>) actual).entrySet().iterator();
      assertEquals(a.size(), ((Map<?, ?>) actual).size(), where + ": size");
      while (ea.hasNext()) {
        Map.Entry<?, ?> x = ea.next();
        Map.Entry<?, ?> y = eb.next();
        assertSameValue(x.getKey(), y.getKey(), where + ": key");
        assertSameValue(x.getValue(), y.getValue(), where + "{" + x.getKey() + "}");
      }
    } else if (expected instanceof UdtValue a) {
      assertEquals(a.type(), ((UdtValue) actual).type(), where + ": type");
      assertSameValue(a.values(), ((UdtValue) actual).values(), where);
    } else if (expected instanceof TupleValue a) {
      assertEquals(a.type(), ((TupleValue) actual).type(), where + ": type");
      assertSameValue(a.values(), ((TupleValue) actual).values(), where);
    } else {
      assertEquals(expected, actual, where); // ByteBuffer: by its remaining bytes
    }
  }
}
