package io.cqlrows.core.sink;

import static io.cqlrows.core.RowsBodies.custom;
import static io.cqlrows.core.RowsBodies.list;
import static io.cqlrows.core.RowsBodies.map;
import static io.cqlrows.core.RowsBodies.opt;
import static io.cqlrows.core.RowsBodies.set;
import static io.cqlrows.core.RowsBodies.tuple;
import static io.cqlrows.core.RowsBodies.udt;
import static io.cqlrows.core.RowsBodies.vectorClass;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.core.Decoding;
import io.cqlrows.core.ResultReader;
import io.cqlrows.core.RowSink;
import io.cqlrows.core.RowsBodies;
import io.cqlrows.core.RowsResult;
import io.cqlrows.core.value.CqlDuration;
import io.netty.buffer.ByteBuf;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class RowsCollectorTest {
  private static final String[] NAMES = {
    "b", "ti", "si", "i", "bi", "f", "d", "s", "u", "ts", "dt", "tm", "dec", "vi", "ip", "dur",
    "bl", "fv", "dv", "iv", "lv", "l", "st", "m", "ud", "tp",
  };
  private static final String[] TYPES = {
    opt(0x04),
    opt(0x14),
    opt(0x13),
    opt(0x09),
    opt(0x02),
    opt(0x08),
    opt(0x07),
    opt(0x0D),
    opt(0x0C),
    opt(0x0B),
    opt(0x11),
    opt(0x12),
    opt(0x06),
    opt(0x0E),
    opt(0x10),
    opt(0x15),
    opt(0x03),
    custom(vectorClass("FloatType", 2)),
    custom(vectorClass("DoubleType", 2)),
    custom(vectorClass("Int32Type", 2)),
    custom(vectorClass("LongType", 2)),
    list(opt(0x09)),
    set(opt(0x09)),
    map(opt(0x0D), opt(0x09)),
    udt("ks", "u", "a", opt(0x09)),
    tuple(opt(0x09), opt(0x0D)),
  };
  private static final String[] VALUES = {
    "01",
    "7f",
    "8000",
    "0000002a",
    "7fffffffffffffff",
    "4697d040",
    "40d2fa0800000000",
    "6869",
    "49157efcef3c9de31698af801fb40b2a",
    "000001337f62ee79",
    "80000001",
    "0000000000000001",
    "0000000001",
    "0080",
    "7f000001",
    "020406",
    "cafe",
    "3f800000 40200000",
    "3ff8000000000000 c000000000000000",
    "00000001 ffffffff",
    "0000000000000001 fffffffffffffffe",
    "00000001 00000004 00000007",
    "00000002 00000004 00000001 00000004 00000002",
    "00000001 00000001 6b 00000004 00000001",
    "00000004 00000005",
    "00000004 00000001 ffffffff",
  };

  /** Rows: 0 values, 1 NULLs, 2 not-sets, 3 empties. */
  private static List<Row> rows() {
    RowsBodies.Builder b = RowsBodies.rows();
    for (int i = 0; i < NAMES.length; i++) {
      b.column(NAMES[i], TYPES[i]);
    }
    b.row(VALUES).row(new String[NAMES.length]).raw("fffffffe".repeat(NAMES.length));
    String[] empties = new String[NAMES.length];
    Arrays.fill(empties, "");
    return Decoding.rows(b.row(empties).rowCount(4).build());
  }

  @Test
  void readsTypedValuesByIndex() throws Exception {
    Row r = rows().get(0);
    assertEquals(26, r.size());
    assertTrue(r.getBoolean(0));
    assertEquals((byte) 127, r.getByte(1));
    assertEquals(Short.MIN_VALUE, r.getShort(2));
    assertEquals(42, r.getInt(3));
    assertEquals(Long.MAX_VALUE, r.getLong(4));
    assertEquals(19432.125f, r.getFloat(5));
    assertEquals(19432.125d, r.getDouble(6));
    assertEquals("hi", r.getString(7));
    assertEquals(UUID.fromString("49157efc-ef3c-9de3-1698-af801fb40b2a"), r.getUuid(8));
    assertEquals(Instant.parse("2011-11-07T18:55:49.881Z"), r.getInstant(9));
    assertEquals(LocalDate.of(1970, 1, 2), r.getLocalDate(10));
    assertEquals(LocalTime.ofNanoOfDay(1), r.getLocalTime(11));
    assertEquals(BigDecimal.ONE, r.getBigDecimal(12));
    assertEquals(BigInteger.valueOf(128), r.getBigInteger(13));
    assertEquals(InetAddress.getByName("127.0.0.1"), r.getInetAddress(14));
    assertEquals(new CqlDuration(1, 2, 3), r.getDuration(15));
    assertEquals(ByteBuffer.wrap(new byte[] {(byte) 0xca, (byte) 0xfe}), r.getBytes(16));
    assertArrayEquals(new float[] {1f, 2.5f}, r.getFloatVector(17));
    assertArrayEquals(new double[] {1.5, -2}, r.getDoubleVector(18));
    assertArrayEquals(new int[] {1, -1}, r.getIntVector(19));
    assertArrayEquals(new long[] {1, -2}, r.getLongVector(20));
    assertEquals(List.of(7), r.getList(21));
    assertEquals(Set.of(1, 2), r.getSet(22));
    assertEquals(Map.of("k", 1), r.getMap(23));
    assertEquals(List.of(5), r.getUdt(24).values());
    assertEquals(Arrays.asList(1, null), r.getTuple(25).values());
  }

  @Test
  void readsTypedValuesByName() {
    Row r = rows().get(0);
    assertTrue(r.getBoolean("b"));
    assertEquals(42, r.getInt("i"));
    assertEquals(Long.MAX_VALUE, r.getLong("bi"));
    assertEquals(19432.125d, r.getDouble("d"));
    assertEquals("hi", r.getString("s"));
    assertEquals(UUID.fromString("49157efc-ef3c-9de3-1698-af801fb40b2a"), r.getUuid("u"));
    assertEquals(ByteBuffer.wrap(new byte[] {(byte) 0xca, (byte) 0xfe}), r.getBytes("bl"));
    assertArrayEquals(new float[] {1f, 2.5f}, r.getFloatVector("fv"));
    assertEquals(List.of(7), r.getList("l"));
    assertEquals(Map.of("k", 1), r.getMap("m"));
    assertEquals(5, r.getUdt("ud").get("a"));
    assertEquals(BigInteger.valueOf(128), r.getObject("vi"));
    assertFalse(r.isNull("i"));
    assertEquals(3, r.indexOf("i"));
  }

  @Test
  void tellsNullNotSetAndEmptyApart() {
    List<Row> rows = rows();
    for (int c = 0; c < NAMES.length; c++) {
      assertTrue(rows.get(1).isNull(c), NAMES[c]);
      assertFalse(rows.get(1).isNotSet(c), NAMES[c]);
      assertTrue(rows.get(2).isNotSet(c), NAMES[c]);
      assertFalse(rows.get(2).isNull(c), NAMES[c]);
      assertFalse(rows.get(0).isNull(c) || rows.get(0).isNotSet(c) || rows.get(0).isEmpty(c));
      boolean emptyIsValue = c == 7 || c == 16; // text, blob
      assertEquals(!emptyIsValue, rows.get(3).isEmpty(c), NAMES[c]);
    }
    assertEquals("", rows.get(3).getString(7));
    assertEquals(ByteBuffer.allocate(0), rows.get(3).getBytes(16));
  }

  @Test
  void returnsZeroFromPrimitiveGettersAndNullFromObjectGettersWithoutValue() {
    for (Row r : rows().subList(1, 4)) {
      assertFalse(r.getBoolean(0));
      assertEquals(0, r.getByte(1));
      assertEquals(0, r.getShort(2));
      assertEquals(0, r.getInt(3));
      assertEquals(0L, r.getLong(4));
      assertEquals(0f, r.getFloat(5));
      assertEquals(0d, r.getDouble(6));
      assertNull(r.getUuid(8));
      assertNull(r.getInstant(9));
      assertNull(r.getLocalDate(10));
      assertNull(r.getBigDecimal(12));
      assertNull(r.getDuration(15));
      assertNull(r.getFloatVector(17));
      assertNull(r.getLongVector(20));
      assertNull(r.getList(21));
      assertNull(r.getSet(22));
      assertNull(r.getMap(23));
      assertNull(r.getUdt(24));
      assertNull(r.getTuple(25));
    }
  }

  @Test
  void rejectsGetterOfWrongType() {
    Row r = rows().get(0);
    assertThrows(IllegalArgumentException.class, () -> r.getInt(7));
    assertThrows(IllegalArgumentException.class, () -> r.getString(3));
    assertThrows(IllegalArgumentException.class, () -> r.getLong(3));
    assertThrows(IllegalArgumentException.class, () -> r.getFloatVector(18));
    assertThrows(IllegalArgumentException.class, () -> r.getList(23));
    assertThrows(IllegalArgumentException.class, () -> r.getUuid("s"));
  }

  /**
   * Every cell's {@code getObject} equals what a sink with only {@code onObject} receives (the
   * {@link RowSink} defaults box each typed event), and is equal on each call.
   */
  @Test
  void getObjectBoxesEveryCellAsTheDefaultEventsDo() {
    RowsBodies.Builder b = RowsBodies.rows();
    for (int i = 0; i < NAMES.length; i++) {
      b.column(NAMES[i], TYPES[i]);
    }
    ByteBuf body = b.row(VALUES).row(new String[NAMES.length]).rowCount(2).build();
    List<Object> boxed = new ArrayList<>();
    RowSink objectsOnly =
        new RowSink() {
          @Override
          public void onRowStart(int row) {}

          @Override
          public void onRowEnd(int row) {}

          @Override
          public void onNull(int column) {
            boxed.add(null);
          }

          @Override
          public void onNotSet(int column) {
            boxed.add(null);
          }

          @Override
          public void onEmpty(int column) {
            boxed.add(null);
          }

          @Override
          public void onObject(int column, Object value) {
            boxed.add(value);
          }
        };
    Decoding.read(new ResultReader(4), body.copy(), objectsOnly, null);
    List<Row> rows = Decoding.rows(body);
    for (int r = 0; r < 2; r++) {
      for (int c = 0; c < NAMES.length; c++) {
        Object expected = boxed.get(r * NAMES.length + c);
        Object actual = rows.get(r).getObject(c);
        assertTrue(
            Objects.deepEquals(expected, actual),
            "row " + r + " " + NAMES[c] + ": " + actual + ", expected " + expected);
      }
    }
    assertEquals(rows.get(0).getObject(9), rows.get(0).getObject(9));
  }

  @Test
  void readsUuidsBesideOtherColumns() {
    Row r =
        Decoding.row(
            RowsBodies.rows()
                .column("a", opt(0x0C))
                .column("n", opt(0x02))
                .column("b", opt(0x0F))
                .column("s", opt(0x0D))
                .row(
                    "00112233445566778899aabbccddeeff",
                    "ffffffffffffffff",
                    "0123456789abcdef0123456789abcdef",
                    "6869")
                .build());
    assertEquals(UUID.fromString("00112233-4455-6677-8899-aabbccddeeff"), r.getUuid(0));
    assertEquals(-1L, r.getLong(1));
    assertEquals(UUID.fromString("01234567-89ab-cdef-0123-456789abcdef"), r.getUuid("b"));
    assertEquals(UUID.fromString("01234567-89ab-cdef-0123-456789abcdef"), r.getObject(2));
    assertEquals("hi", r.getString(3));
  }

  /** A custom type the parser decodes to a number reads back through the same getters. */
  @Test
  void readsNumbersOfCustomTypeColumns() {
    Row r =
        Decoding.row(
            RowsBodies.rows()
                .column("i", custom("org.apache.cassandra.db.marshal.Int32Type"))
                .column("l", custom("org.apache.cassandra.db.marshal.LongType"))
                .row("0000002a", "0000000000000007")
                .build());
    assertEquals(42, r.getInt(0));
    assertEquals(42, r.getObject(0));
    assertEquals(7L, r.getLong("l"));
    assertThrows(IllegalArgumentException.class, () -> r.getInt(1));
  }

  /** The primitive getters allocate nothing: no boxing on the way out. */
  @Test
  @SuppressWarnings("ConstantOverflow") // the expected sum wraps, as the loop's does
  void primitiveGettersAllocateNothing() {
    Row r = rows().get(0);
    com.sun.management.ThreadMXBean mx =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    long thread = Thread.currentThread().getId();
    long sum = sumPrimitives(r, 1_000); // loads and links everything the loop calls
    long before = mx.getThreadAllocatedBytes(thread);
    sum += sumPrimitives(r, 10_000);
    long allocated = mx.getThreadAllocatedBytes(thread) - before;
    // a box per call would be 16 bytes or more, 1.1 MB in all; the JVM itself may allocate a
    // few bytes on this thread meanwhile (112 were seen)
    assertTrue(allocated < 10_000, allocated + " bytes allocated by 70,000 primitive getter calls");
    assertEquals(11_000L * (1 + 127 - 32768 + 42 + Long.MAX_VALUE + 19432 + 19432), sum);
  }

  private static long sumPrimitives(Row r, int times) {
    long sum = 0;
    for (int i = 0; i < times; i++) {
      sum +=
          (r.getBoolean(0) ? 1 : 0)
              + r.getByte(1)
              + r.getShort(2)
              + r.getInt(3)
              + r.getLong(4)
              + (long) r.getFloat(5)
              + (long) r.getDouble(6);
    }
    return sum;
  }

  @Test
  void rejectsUnknownColumnName() {
    Row r = rows().get(0);
    assertThrows(IllegalArgumentException.class, () -> r.getInt("nope"));
    assertThrows(IllegalArgumentException.class, () -> r.indexOf("I"));
  }

  @Test
  void returnsCopiesOfVectorsAndReadOnlyBytes() {
    Row r = rows().get(0);
    r.getFloatVector(17)[0] = 99f;
    assertArrayEquals(new float[] {1f, 2.5f}, r.getFloatVector(17));
    assertTrue(r.getBytes(16).isReadOnly());
    ByteBuffer own = (ByteBuffer) r.getObject(16); // as RowSink's default onBlob boxes it
    own.array()[own.arrayOffset()] = 0;
    assertEquals(ByteBuffer.wrap(new byte[] {(byte) 0xca, (byte) 0xfe}), r.getBytes(16));
    assertEquals(ByteBuffer.wrap(new byte[] {(byte) 0xca, (byte) 0xfe}), r.getObject(16));
    assertThrows(UnsupportedOperationException.class, () -> r.getList(21).clear());
  }

  @Test
  void accumulatesRowsAcrossResultsUntilClear() {
    RowsCollector collector = new RowsCollector();
    ResultReader reader = new ResultReader(4);
    Decoding.read(
        reader, RowsBodies.rows().column("a", 0x0009).row("00000001").build(), collector, null);
    RowsResult second =
        (RowsResult)
            Decoding.read(
                reader,
                RowsBodies.rows().column("b", 0x000D).row("6869").row((String) null).build(),
                collector,
                null);
    assertEquals(3, collector.rows().size());
    assertEquals(1, collector.rows().get(0).getInt("a"));
    assertEquals("hi", collector.rows().get(1).getString("b"));
    assertSame(second.metadata(), collector.metadata());
    assertThrows(UnsupportedOperationException.class, () -> collector.rows().clear());
    collector.clear();
    assertEquals(0, collector.rows().size());
  }

  /** Rows of several results, one without rows between them, by index and by iterator. */
  @Test
  void readsRowsOfManyResultsByIndexAndInOrder() {
    RowsCollector collector = new RowsCollector();
    ResultReader reader = new ResultReader(4);
    int[] sizes = {3, 0, 1, 70, 2};
    int next = 0;
    for (int size : sizes) {
      RowsBodies.Builder b = RowsBodies.rows().column("n", opt(0x09)).column("s", opt(0x0D));
      for (int r = 0; r < size; r++, next++) {
        b.row(String.format("%08x", next), String.format("%02x", 0x41 + next % 26));
      }
      Decoding.read(reader, b.rowCount(size).build(), collector, null);
    }
    List<Row> rows = collector.rows();
    int total = next;
    assertEquals(total, rows.size());
    for (int i = 0; i < total; i++) {
      assertEquals(i, rows.get(i).getInt(0));
      assertEquals(String.valueOf((char) ('A' + i % 26)), rows.get(i).getString("s"));
    }
    int i = 0;
    for (Row row : rows) {
      assertEquals(i, row.getInt("n"));
      assertEquals(rows.get(i), row); // views of the same row are equal
      assertEquals(rows.get(i).hashCode(), row.hashCode());
      i++;
    }
    assertEquals(total, i);
    assertFalse(rows.get(0).equals(rows.get(1)));
    assertThrows(IndexOutOfBoundsException.class, () -> rows.get(total));
    assertThrows(
        java.util.NoSuchElementException.class,
        () -> {
          java.util.Iterator<Row> it = rows.iterator();
          for (int k = 0; k <= total; k++) {
            it.next();
          }
        });
  }

  /** Rows handed out before {@link RowsCollector#clear()} keep their values after it. */
  @Test
  void rowsHandedOutSurviveClearAndLaterResults() {
    RowsCollector collector = new RowsCollector();
    ResultReader reader = new ResultReader(4);
    Decoding.read(
        reader,
        RowsBodies.rows()
            .column("a", opt(0x09))
            .column("u", opt(0x0C))
            .row("00000007", "00112233445566778899aabbccddeeff")
            .build(),
        collector,
        null);
    Row kept = collector.rows().get(0);
    collector.clear();
    Decoding.read(
        reader,
        RowsBodies.rows()
            .column("a", opt(0x09))
            .column("u", opt(0x0C))
            .row("00000008", "ffeeddccbbaa99887766554433221100")
            .build(),
        collector,
        null);
    assertEquals(7, kept.getInt(0));
    assertEquals(UUID.fromString("00112233-4455-6677-8899-aabbccddeeff"), kept.getUuid(1));
    assertEquals(8, collector.rows().get(0).getInt(0));
    assertEquals(1, collector.rows().size());
  }

  /** A float and a double NaN keep their payload bits through storage and both getters. */
  @Test
  void keepsTheBitsOfNanPayloads() {
    Row r =
        Decoding.row(
            RowsBodies.rows()
                .column("f", opt(0x08))
                .column("d", opt(0x07))
                .row("7fc00001", "7ff8000000000003")
                .build());
    assertEquals(0x7fc00001, Float.floatToRawIntBits(r.getFloat(0)));
    assertEquals(0x7fc00001, Float.floatToRawIntBits((Float) r.getObject(0)));
    assertEquals(0x7ff8000000000003L, Double.doubleToRawLongBits(r.getDouble(1)));
    assertEquals(0x7ff8000000000003L, Double.doubleToRawLongBits((Double) r.getObject(1)));
  }

  /**
   * Reading a page of fixed-width cells allocates per page, not per cell: no box and no value
   * object per cell (a box would be 16 bytes or more each).
   */
  @Test
  void collectsFixedWidthCellsWithoutAnObjectPerCell() {
    int rowCount = 2_000;
    RowsBodies.Builder b =
        RowsBodies.rows()
            .column("i", opt(0x09))
            .column("l", opt(0x02))
            .column("u", opt(0x0C))
            .column("ts", opt(0x0B))
            .column("dt", opt(0x11))
            .column("d", opt(0x07));
    for (int r = 0; r < rowCount; r++) {
      String i = String.format("%08x", r + 1_000);
      b.row(
          i, "0000000a" + i, i.repeat(4), "00000100" + i, "8000" + i.substring(4), "40000000" + i);
    }
    ByteBuf body = b.rowCount(rowCount).build();
    ResultReader reader = new ResultReader(4);
    try {
      collect(reader, body); // loads and links everything the read calls
      com.sun.management.ThreadMXBean mx =
          (com.sun.management.ThreadMXBean)
              java.lang.management.ManagementFactory.getThreadMXBean();
      long thread = Thread.currentThread().getId();
      long before = mx.getThreadAllocatedBytes(thread);
      RowsCollector collector = collect(reader, body);
      long allocated = mx.getThreadAllocatedBytes(thread) - before;
      int cells = rowCount * 6;
      // per row: 6 state bytes and 7 words (the uuid takes two); boxes would add 16+ per cell
      assertTrue(
          allocated < rowCount * (6 + 7 * 8) + 16_384,
          allocated + " bytes allocated collecting " + cells + " cells");
      Row last = collector.rows().get(rowCount - 1);
      assertEquals(rowCount - 1 + 1_000, last.getInt(0));
      assertEquals(LocalDate.ofEpochDay(rowCount - 1 + 1_000), last.getLocalDate(4));
    } finally {
      body.release();
    }
  }

  private static RowsCollector collect(ResultReader reader, ByteBuf body) {
    RowsCollector collector = new RowsCollector();
    reader.read(body, collector);
    return collector;
  }

  /**
   * Events a sink driven by hand may send that the parser never does, for the column's type: each
   * value reads back as what was sent; a row started and not ended leaves nothing behind.
   */
  @Test
  void keepsEventsOfAnotherTypeThanTheColumnAsSent() {
    RowsCollector c = new RowsCollector();
    RowsCollector empty = new RowsCollector();
    Decoding.read(
        new ResultReader(4),
        RowsBodies.rows()
            .column("i", opt(0x09))
            .column("s", opt(0x0D))
            .column("t", opt(0x0B))
            .build(),
        empty,
        null);
    c.onResultStart(empty.metadata(), 0);
    c.onRowStart(0);
    c.onObject(0, "not an int");
    c.onInt(1, 5);
    c.onBlob(2, io.netty.buffer.Unpooled.wrappedBuffer(new byte[] {1, 2}));
    c.onRowEnd(0);
    c.onRowStart(1);
    c.onInt(0, 9); // row 1 is never ended: the next onRowStart writes row 1 again
    c.onRowStart(1);
    c.onNull(1);
    c.onRowEnd(1);
    assertEquals(2, c.rows().size());
    Row r = c.rows().get(0);
    assertEquals("not an int", r.getObject(0));
    assertThrows(IllegalArgumentException.class, () -> r.getInt(0));
    assertEquals(5, r.getObject(1));
    assertEquals(ByteBuffer.wrap(new byte[] {1, 2}), r.getBytes(2));
    assertTrue(r.getBytes(2).isReadOnly());
    Row again = c.rows().get(1);
    assertTrue(again.isNull(0), "a cell of the row never ended");
    assertTrue(again.isNull(1));
    assertEquals(0, again.getInt(0));
    assertThrows(IllegalStateException.class, () -> c.onRowEnd(2));
    assertThrows(IndexOutOfBoundsException.class, () -> c.onNull(3));
  }
}
