package io.cqlrows.core;

import static io.cqlrows.core.Decoding.assertError;
import static io.cqlrows.core.RowsBodies.list;
import static io.cqlrows.core.RowsBodies.map;
import static io.cqlrows.core.RowsBodies.opt;
import static io.cqlrows.core.RowsBodies.set;
import static io.cqlrows.core.RowsBodies.singleOption;
import static io.cqlrows.core.RowsBodies.tuple;
import static io.cqlrows.core.RowsBodies.udt;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.core.CqlParseException.Reason;
import io.cqlrows.core.sink.Row;
import io.cqlrows.core.type.ListType;
import io.cqlrows.core.type.NativeType;
import io.cqlrows.core.type.UdtType;
import io.cqlrows.core.value.NotSet;
import io.cqlrows.core.value.TupleValue;
import io.cqlrows.core.value.UdtValue;
import io.cqlrows.testing.RecordingSink;
import io.netty.buffer.ByteBuf;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * list, set, map, UDT and tuple values (native_protocol_v5.spec sections 5.12-5.14, 5.21 and 6),
 * with test values from the Python and Java drivers' codec tests among the cases.
 */
class CollectionDeserializersTest {
  private static final String INT = opt(0x0009);
  private static final String TEXT = opt(0x000D);
  private static final String DOUBLE = opt(0x0007);

  /** UDT{a int, b double, c text}. */
  private static final String UDT_IDT = udt("ks", "u", "a", INT, "b", DOUBLE, "c", TEXT);

  /** UDT{a int, b text, c int}. */
  private static final String UDT_ITI = udt("ks", "u", "a", INT, "b", TEXT, "c", INT);

  /** Offset of the cell value of a one-cell body: the value ends the body. */
  private static int valueOffset(String optionHex, String cellHex) {
    int size = RowsBodies.rows().column("v", optionHex).row(cellHex).bytes().size();
    return size - cellHex.replace(" ", "").length() / 2;
  }

  private static CqlParseException error(String optionHex, String cellHex) {
    return Decoding.error(singleOption(optionHex, cellHex));
  }

  private static Object value(String optionHex, String cellHex) {
    return Decoding.value(singleOption(optionHex, cellHex));
  }

  @Test
  void decodesListOfTimeuuid() {
    Object v = value(list(opt(0x000F)), "00000001 00000010 af5943a3ea3c11e1ab63c42c032279f0");
    assertEquals(List.of(UUID.fromString("af5943a3-ea3c-11e1-ab63-c42c032279f0")), v);
  }

  @Test
  void decodesMapOfTextIntInWireOrder() {
    Map<?, ?> m =
        (Map<?, ?>)
            value(
                map(TEXT, INT),
                "00000003 00000006 e381bf626f62 00000004 000000c7 00000000 00000004 ffffffff"
                    + " 00000001 5c 00000004 00000000");
    Map<String, Integer> expected = new LinkedHashMap<>();
    expected.put("\u307fbob", 199);
    expected.put("", -1); // ffffffff is the int -1 (length 4), not a null
    expected.put("\\", 0);
    assertEquals(expected, m);
    assertEquals(new ArrayList<>(expected.keySet()), new ArrayList<>(m.keySet()));
  }

  @Test
  void decodesSetOfDouble() {
    Row row =
        Decoding.row(
            singleOption(
                set(DOUBLE), "00000002 00000008 400199999999999a 00000008 4014000000000000"));
    assertEquals(List.of(2.2, 5.0), row.getList(0));
    assertEquals(Set.of(2.2, 5.0), row.getSet(0));
  }

  @Test
  void decodesEmptyCollections() {
    assertEquals(List.of(), value(list(opt(0x0008)), "00000000"));
    assertEquals(List.of(), value(set(INT), "00000000"));
    assertEquals(Map.of(), value(map(INT, TEXT), "00000000"));
  }

  @Test
  void decodesNullListElementAsNull() {
    assertEquals(Arrays.asList(null, 42), value(list(INT), "00000002 ffffffff 00000004 0000002a"));
  }

  @Test
  void decodesNullMapKeysAndValues() {
    Map<?, ?> m =
        (Map<?, ?>)
            value(map(INT, INT), "00000002 00000004 0000002a ffffffff ffffffff 00000004 0000002a");
    Map<Integer, Integer> expected = new LinkedHashMap<>();
    expected.put(42, null);
    expected.put(null, 42);
    assertEquals(expected, m);
  }

  /** JD MapCodecTest framing: key bytes {@code 10}, value bytes {@code 0002}. */
  @Test
  void decodesJavaDriverNullMapFraming() {
    Map<?, ?> m =
        (Map<?, ?>)
            value(
                map(opt(0x0003), opt(0x0013)),
                "00000002 00000001 10 ffffffff ffffffff 00000002 0002");
    Map<Object, Object> expected = new LinkedHashMap<>();
    expected.put(ByteBuffer.wrap(new byte[] {0x10}), null);
    expected.put(null, (short) 2);
    assertEquals(expected, m);
  }

  @Test
  void decodesNotSetElementsAsNotSetMarker() {
    assertEquals(
        Arrays.asList(NotSet.INSTANCE, 42),
        value(list(INT), "00000002 fffffffe 00000004 0000002a"));
    Map<?, ?> m = (Map<?, ?>) value(map(INT, INT), "00000001 00000004 00000001 fffffffe");
    assertSame(NotSet.INSTANCE, m.get(1));
    TupleValue t = (TupleValue) value(tuple(INT, TEXT), "fffffffe ffffffff");
    assertSame(NotSet.INSTANCE, t.get(0));
    assertNull(t.get(1));
  }

  @ParameterizedTest
  @ValueSource(ints = {-3, -4, Integer.MIN_VALUE})
  void rejectsElementLengthBelowMinusTwo(int length) {
    String cell = "00000001" + String.format("%08x", length);
    CqlParseException e = error(list(INT), cell);
    assertError(e, Reason.INVALID_LENGTH, "element length", valueOffset(list(INT), cell) + 4, 0, 0);
    assertEquals(new ListType(NativeType.INT, false), e.type());
  }

  @Test
  void rejectsMapKeyAndValueLengthBelowMinusTwo() {
    String key = "00000001 fffffffd 00000004 00000001";
    assertError(
        error(map(INT, INT), key),
        Reason.INVALID_LENGTH,
        "map key length",
        valueOffset(map(INT, INT), key) + 4,
        0,
        0);
    String value = "00000001 00000004 00000001 80000000";
    assertError(
        error(map(INT, INT), value),
        Reason.INVALID_LENGTH,
        "map value length",
        valueOffset(map(INT, INT), value) + 12,
        0,
        0);
  }

  @Test
  void rejectsElementBeyondValue() {
    // the element claims 8 bytes, the value has 4 after its length
    String cell = "00000001 00000008 00000001";
    assertError(
        error(list(INT), cell),
        Reason.TRUNCATED,
        "element",
        valueOffset(list(INT), cell) + 8,
        0,
        0);
  }

  @Test
  void rejectsElementLengthCutByValueEnd() {
    String cell = "00000002 00000004 00000001 0000";
    assertError(
        error(list(INT), cell),
        Reason.TRUNCATED,
        "element length",
        valueOffset(list(INT), cell) + 12,
        0,
        0);
  }

  @Test
  void rejectsNegativeCount() {
    assertError(
        error(list(INT), "ffffffff"),
        Reason.INVALID_COUNT,
        "element count",
        valueOffset(list(INT), "ffffffff"),
        0,
        0);
    assertError(
        error(map(INT, INT), "80000000"),
        Reason.INVALID_COUNT,
        "element count",
        valueOffset(map(INT, INT), "80000000"),
        0,
        0);
  }

  @Test
  void rejectsCountBeyondBytesWithoutAllocating() {
    com.sun.management.ThreadMXBean mx =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    for (String type : List.of(list(INT), set(TEXT), map(INT, INT))) {
      String cell = "7fffffff 00000004 00000001";
      ByteBuf body = singleOption(type, cell);
      ResultReader reader = new ResultReader(4);
      RecordingSink sink = new RecordingSink();
      CqlParseException e;
      long before = mx.getCurrentThreadAllocatedBytes();
      try {
        e = assertThrows(CqlParseException.class, () -> reader.read(body, sink));
      } finally {
        assertEquals(1, body.refCnt());
        body.release();
      }
      long allocated = mx.getCurrentThreadAllocatedBytes() - before;
      assertError(e, Reason.TRUNCATED, "element count", valueOffset(type, cell), 0, 0);
      assertTrue(allocated < 1 << 20, type + ": allocated " + allocated + " bytes");
    }
  }

  @Test
  void rejectsCountAboveLimitWhenBytesArePresent() {
    ResultReader reader =
        new ResultReader(4, ParseLimits.builder().maxCollectionElements(2).build());
    String cell = "00000003 00000004 00000001 00000004 00000002 00000004 00000003";
    CqlParseException e = Decoding.error(reader, singleOption(list(INT), cell), null);
    assertError(e, Reason.LIMIT_EXCEEDED, "element count", valueOffset(list(INT), cell), 0, 0);
  }

  @Test
  void rejectsTrailingBytesAfterLastElement() {
    String cell = "00000001 00000004 00000001 00";
    assertError(
        error(list(INT), cell),
        Reason.TRAILING_BYTES,
        "value",
        valueOffset(list(INT), cell) + 12,
        0,
        0);
    String mapCell = "00000000 0000";
    assertError(
        error(map(INT, INT), mapCell),
        Reason.TRAILING_BYTES,
        "value",
        valueOffset(map(INT, INT), mapCell) + 4,
        0,
        0);
  }

  @Test
  void decodesUdtWithNullField() {
    UdtValue u = (UdtValue) value(UDT_IDT, "00000004 00000001 ffffffff 00000001 61");
    assertEquals(Arrays.asList(1, null, "a"), u.values());
    assertEquals("a", u.get("c"));
    assertEquals(
        new UdtType(
            "ks",
            "u",
            List.of(
                new UdtType.Field("a", NativeType.INT),
                new UdtType.Field("b", NativeType.DOUBLE),
                new UdtType.Field("c", NativeType.TEXT)),
            false),
        u.type());
  }

  @Test
  void padsUdtWithFewerFieldsWithNull() {
    UdtValue u = (UdtValue) value(UDT_ITI, "00000004 00000001 00000002 6869");
    assertEquals(Arrays.asList(1, "hi", null), u.values());
  }

  @Test
  void rejectsUdtWithTooManyFields() {
    String cell = "00000004 00000001 ffffffff 00000001 61 ffffffff";
    CqlParseException e = error(UDT_IDT, cell);
    assertError(e, Reason.TRAILING_BYTES, "value", valueOffset(UDT_IDT, cell) + 17, 0, 0);
  }

  /** JD is lenient here (JAVA-2557); cqlrows applies the one length rule: below -2 is invalid. */
  @Test
  void rejectsUdtFieldLengthBelowMinusTwo() {
    String cell = "ffffffff fffffffe 80000000";
    CqlParseException e = error(UDT_IDT, cell);
    assertError(e, Reason.INVALID_LENGTH, "field length", valueOffset(UDT_IDT, cell) + 8, 0, 0);
  }

  @Test
  void rejectsUdtFieldLengthCutByValueEnd() {
    String cell = "00000004 00000001 0000";
    assertError(
        error(UDT_ITI, cell),
        Reason.TRUNCATED,
        "field length",
        valueOffset(UDT_ITI, cell) + 8,
        0,
        0);
    String beyond = "00000004 00000001 00000009 6869";
    assertError(
        error(UDT_ITI, beyond), Reason.TRUNCATED, "field", valueOffset(UDT_ITI, beyond) + 12, 0, 0);
  }

  @Test
  void decodesTupleWithNullComponent() {
    TupleValue t = (TupleValue) value(tuple(INT, TEXT), "00000004 00000001 ffffffff");
    assertEquals(Arrays.asList(1, null), t.values());
  }

  @Test
  void decodesTupleWithFewerComponents() {
    TupleValue t = (TupleValue) value(tuple(INT, TEXT, INT), "00000004 00000007");
    assertEquals(Arrays.asList(7, null, null), t.values());
  }

  @Test
  void rejectsTupleWithTrailingBytes() {
    String cell = "00000004 00000001 ffffffff 01";
    assertError(
        error(tuple(INT, TEXT), cell),
        Reason.TRAILING_BYTES,
        "value",
        valueOffset(tuple(INT, TEXT), cell) + 12,
        0,
        0);
  }

  @Test
  void decodesMapOfTextToFrozenListOfInt() {
    Object v =
        value(
            map(TEXT, list(INT)),
            "00000001 00000001 6b 00000010 00000002 00000004 00000001 ffffffff");
    assertEquals(Map.of("k", Arrays.asList(1, null)), v);
  }

  @Test
  void reportsNestedErrorWithOuterRowAndColumn() {
    // row 1, column 1 holds a list whose inner list has a trailing byte
    String bad = "00000001 0000000d 00000001 00000004 00000007 00";
    RowsBodies.Builder b =
        RowsBodies.rows()
            .column("id", INT)
            .column("l", list(list(INT)))
            .row("00000001", "00000000")
            .row("00000002", bad);
    int offset = b.bytes().size() - 1;
    CqlParseException e = Decoding.error(b.build());
    assertError(e, Reason.TRAILING_BYTES, "value", offset, 1, 1);
    assertEquals("l", e.columnName());
  }

  /** Empty nested values follow the RowSink Javadoc: collections empty, UDT/tuple all null. */
  @Test
  void decodesEmptyNestedValuesPerRowSinkPolicy() {
    String oneEmpty = "00000001 00000000";
    assertEquals(List.of(List.of()), value(list(list(INT)), oneEmpty));
    assertEquals(List.of(List.of()), value(list(set(INT)), oneEmpty));
    assertEquals(List.of(Map.of()), value(list(map(INT, INT)), oneEmpty));
    List<?> udts = (List<?>) value(list(UDT_ITI), oneEmpty);
    assertEquals(Arrays.asList(null, null, null), ((UdtValue) udts.get(0)).values());
    List<?> tuples = (List<?>) value(list(tuple(INT, TEXT)), oneEmpty);
    assertEquals(Arrays.asList(null, null), ((TupleValue) tuples.get(0)).values());
    assertEquals(
        Map.of("k", List.of()), value(map(TEXT, list(INT)), "00000001 00000001 6b 00000000"));
    TupleValue t = (TupleValue) value(tuple(list(INT), INT), "00000000 00000000");
    assertEquals(Arrays.asList(List.of(), null), t.values());
  }

  @Test
  void deliversEmptyTopLevelCollectionAsEmptyEvent() {
    for (String type : List.of(list(INT), set(INT), map(INT, INT), UDT_ITI, tuple(INT))) {
      assertEquals("0:empty", Decoding.cellEvent(singleOption(type, "")), type);
    }
  }

  @Test
  void deliversCollectionsAsObjectEvents() {
    assertEquals(
        "0:object [1, null]",
        Decoding.cellEvent(singleOption(list(INT), "00000002 00000004 00000001 ffffffff")));
    assertEquals(
        "0:object {a: 1, b: null, c: 2}",
        Decoding.cellEvent(singleOption(UDT_ITI, "00000004 00000001 ffffffff 00000004 00000002")));
  }

  @Test
  void returnsUnmodifiableCollections() {
    List<?> l = (List<?>) value(list(INT), "00000001 00000004 00000001");
    assertThrows(UnsupportedOperationException.class, () -> l.remove(0));
    Map<?, ?> m = (Map<?, ?>) value(map(INT, INT), "00000001 00000004 00000001 ffffffff");
    assertThrows(UnsupportedOperationException.class, m::clear);
  }
}
