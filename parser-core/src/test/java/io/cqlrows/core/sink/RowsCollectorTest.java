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
import io.cqlrows.core.RowsBodies;
import io.cqlrows.core.RowSink;
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
    opt(0x04), opt(0x14), opt(0x13), opt(0x09), opt(0x02), opt(0x08), opt(0x07), opt(0x0D),
    opt(0x0C), opt(0x0B), opt(0x11), opt(0x12), opt(0x06), opt(0x0E), opt(0x10), opt(0x15),
    opt(0x03), custom(vectorClass("FloatType", 2)), custom(vectorClass("DoubleType", 2)),
    custom(vectorClass("Int32Type", 2)), custom(vectorClass("LongType", 2)), list(opt(0x09)),
    set(opt(0x09)), map(opt(0x0D), opt(0x09)), udt("ks", "u", "a", opt(0x09)),
    tuple(opt(0x09), opt(0x0D)),
  };
  private static final String[] VALUES = {
    "01", "7f", "8000", "0000002a", "7fffffffffffffff", "4697d040", "40d2fa0800000000", "6869",
    "49157efcef3c9de31698af801fb40b2a", "000001337f62ee79", "80000001", "0000000000000001",
    "0000000001", "0080", "7f000001", "020406", "cafe", "3f800000 40200000",
    "3ff8000000000000 c000000000000000", "00000001 ffffffff", "0000000000000001 fffffffffffffffe",
    "00000001 00000004 00000007", "00000002 00000004 00000001 00000004 00000002",
    "00000001 00000001 6b 00000004 00000001", "00000004 00000005", "00000004 00000001 ffffffff",
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
    RowSink objectsOnly = new RowSink() {
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
        assertTrue(Objects.deepEquals(expected, actual),
            "row " + r + " " + NAMES[c] + ": " + actual + ", expected " + expected);
      }
    }
    assertEquals(rows.get(0).getObject(9), rows.get(0).getObject(9));
  }

  @Test
  void readsUuidsBesideOtherColumns() {
    Row r = Decoding.row(RowsBodies.rows().column("a", opt(0x0C)).column("n", opt(0x02))
        .column("b", opt(0x0F)).column("s", opt(0x0D))
        .row("00112233445566778899aabbccddeeff", "ffffffffffffffff",
            "0123456789abcdef0123456789abcdef", "6869")
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
    Row r = Decoding.row(RowsBodies.rows()
        .column("i", custom("org.apache.cassandra.db.marshal.Int32Type"))
        .column("l", custom("org.apache.cassandra.db.marshal.LongType"))
        .row("0000002a", "0000000000000007").build());
    assertEquals(42, r.getInt(0));
    assertEquals(42, r.getObject(0));
    assertEquals(7L, r.getLong("l"));
    assertThrows(IllegalArgumentException.class, () -> r.getInt(1));
  }

  /** The primitive getters allocate nothing: no boxing on the way out. */
  @Test
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
      sum += (r.getBoolean(0) ? 1 : 0) + r.getByte(1) + r.getShort(2) + r.getInt(3) + r.getLong(4)
          + (long) r.getFloat(5) + (long) r.getDouble(6);
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
    assertThrows(UnsupportedOperationException.class, () -> r.getList(21).clear());
  }

  @Test
  void accumulatesRowsAcrossResultsUntilClear() {
    RowsCollector collector = new RowsCollector();
    ResultReader reader = new ResultReader(4);
    Decoding.read(reader, RowsBodies.rows().column("a", 0x0009).row("00000001").build(),
        collector, null);
    RowsResult second = (RowsResult) Decoding.read(reader, RowsBodies.rows()
        .column("b", 0x000D).row("6869").row((String) null).build(), collector, null);
    assertEquals(3, collector.rows().size());
    assertEquals(1, collector.rows().get(0).getInt("a"));
    assertEquals("hi", collector.rows().get(1).getString("b"));
    assertSame(second.metadata(), collector.metadata());
    assertThrows(UnsupportedOperationException.class, () -> collector.rows().clear());
    collector.clear();
    assertEquals(0, collector.rows().size());
  }
}
