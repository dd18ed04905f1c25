package io.cqlrows.core;

import static io.cqlrows.core.RowsBodies.custom;
import static io.cqlrows.core.RowsBodies.list;
import static io.cqlrows.core.RowsBodies.map;
import static io.cqlrows.core.RowsBodies.opt;
import static io.cqlrows.core.RowsBodies.str;
import static io.cqlrows.core.RowsBodies.tuple;
import static io.cqlrows.core.RowsBodies.udt;
import static io.cqlrows.core.RowsBodies.vector;
import static io.cqlrows.core.RowsBodies.vectorClass;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.cqlrows.core.CqlParseException.Reason;
import io.cqlrows.core.sink.ColumnarSink;
import io.cqlrows.core.sink.CountingSink;
import io.cqlrows.core.sink.JsonLinesSink;
import io.cqlrows.core.sink.RowsCollector;
import io.cqlrows.core.type.NativeType;
import io.cqlrows.core.type.UdtType;
import io.cqlrows.testing.Allocations;
import io.cqlrows.testing.Corpus;
import io.cqlrows.testing.CqlBytes;
import io.cqlrows.testing.RecordingSink;
import io.netty.buffer.ByteBuf;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Hostile RESULT bodies: bombs whose counts and lengths claim far more than the bytes carry, types
 * nested 100,000 deep, and malformed UTF-8 in text (strict and lenient) and in names. Every bomb
 * must be a typed {@link CqlParseException} that costs every sink less than {@link #CHEAP} bytes of
 * garbage.
 */
class HostileBodiesTest {
  /** Most a rejected bomb may allocate, whatever it claims. */
  static final long CHEAP = 64 * 1024;

  private static final String INT = opt(0x0009);
  private static final String TEXT = opt(0x000D);
  private static final String BLOB = opt(0x0003);
  private static final int DEEP = 100_000;

  private static final ParseLimits HUGE_VECTORS =
      ParseLimits.builder().maxVectorDimension(Integer.MAX_VALUE).build();

  static Stream<Arguments> bombs() {
    String max = "7fffffff";
    return Stream.of(
        bomb(
            "cell length 2^31-1 (blob)",
            ParseLimits.defaults(),
            Reason.TRUNCATED,
            "cell",
            () -> RowsBodies.rows().column("v", BLOB).rowCount(1).raw(max + "00").bytes()),
        bomb(
            "cell length 2^31-1 (text)",
            ParseLimits.defaults(),
            Reason.TRUNCATED,
            "cell",
            () ->
                RowsBodies.rows()
                    .column("a", INT)
                    .column("v", TEXT)
                    .rowCount(1)
                    .raw("00000004 00000001" + max + "6869")
                    .bytes()),
        bomb(
            "cell length 2^31-1 (vector<float, 3>)",
            ParseLimits.defaults(),
            Reason.TRUNCATED,
            "cell",
            () ->
                RowsBodies.rows()
                    .column("v", vector("FloatType", 3))
                    .rowCount(1)
                    .raw(max + "3f800000")
                    .bytes()),
        bomb(
            "rows_count 2^31-1",
            ParseLimits.defaults(),
            Reason.TRUNCATED,
            "rows_count",
            () ->
                RowsBodies.rows()
                    .column("v", INT)
                    .rowCount(Integer.MAX_VALUE)
                    .raw("00000004 00000001")
                    .bytes()),
        bomb(
            "columns_count 65535 with metadata",
            ParseLimits.defaults(),
            Reason.TRUNCATED,
            "col_spec",
            () -> RowsBodies.rows().column("v", INT).columnsCount(65_535).rowCount(0).bytes()),
        bomb(
            "paging_state length 2^31-1",
            ParseLimits.defaults(),
            Reason.TRUNCATED,
            "paging_state",
            () ->
                CqlBytes.create()
                    .int32(2)
                    .int32(RowsMetadata.FLAG_HAS_MORE_PAGES)
                    .int32(1)
                    .int32(Integer.MAX_VALUE)
                    .hex("0001")),
        bomb(
            "list element count 2^31-1 inside a UDT",
            ParseLimits.defaults(),
            Reason.TRUNCATED,
            "element count",
            () ->
                RowsBodies.rows()
                    .column("v", udt("ks", "u", "l", list(INT)))
                    .row("00000008" + max + "00000000")
                    .bytes()),
        bomb(
            "map element count 2^31-1 inside a tuple",
            ParseLimits.defaults(),
            Reason.TRUNCATED,
            "element count",
            () ->
                RowsBodies.rows()
                    .column("v", tuple(INT, map(TEXT, INT)))
                    .row("00000004 00000001 00000008" + max + "00000000")
                    .bytes()),
        bomb(
            "set element count 2^31-1 inside a vector",
            ParseLimits.defaults(),
            Reason.TRUNCATED,
            "element count",
            () ->
                RowsBodies.rows()
                    .column(
                        "v",
                        vector(
                            RowsBodies.MARSHAL
                                + "FrozenType("
                                + RowsBodies.MARSHAL
                                + "SetType("
                                + RowsBodies.MARSHAL
                                + "Int32Type))",
                            1))
                    .row("08" + max + "00000000")
                    .bytes()),
        bomb(
            "UDT field count 32767, no fields",
            ParseLimits.defaults(),
            Reason.TRUNCATED,
            "field count",
            () ->
                RowsBodies.rows()
                    .column("v", "0030" + str("ks") + str("u") + "7fff" + str("a") + INT)
                    .row("")
                    .bytes()),
        bomb(
            "tuple component count 32767, no components",
            ParseLimits.defaults(),
            Reason.TRUNCATED,
            "field count",
            () -> RowsBodies.rows().column("v", "00317fff" + INT + INT).row("").bytes()),
        bomb(
            "UDT field count 65535 (over maxUdtFields)",
            ParseLimits.defaults(),
            Reason.LIMIT_EXCEEDED,
            "field count",
            () ->
                RowsBodies.rows()
                    .column("v", "0030" + str("ks") + str("u") + "ffff" + str("a") + INT)
                    .row("")
                    .bytes()),
        bomb(
            "vector dimension 2^30 (over maxVectorDimension)",
            ParseLimits.defaults(),
            Reason.LIMIT_EXCEEDED,
            "custom type name",
            () ->
                RowsBodies.rows()
                    .column("v", vector("FloatType", 1 << 30))
                    .row("3f800000")
                    .bytes()),
        bomb(
            "vector<float, 2^30> allowed, one element sent",
            HUGE_VECTORS,
            Reason.LENGTH_MISMATCH,
            "value",
            () ->
                RowsBodies.rows()
                    .column("v", vector("FloatType", 1 << 30))
                    .row("3f800000")
                    .bytes()),
        bomb(
            "vector<uuid, 2^30> allowed, one element sent",
            HUGE_VECTORS,
            Reason.LENGTH_MISMATCH,
            "value",
            () ->
                RowsBodies.rows()
                    .column("v", vector("UUIDType", 1 << 30))
                    .row("00".repeat(16))
                    .bytes()),
        bomb(
            "vector<text, 2^30> allowed, one element sent",
            HUGE_VECTORS,
            Reason.TRUNCATED,
            "value",
            () -> RowsBodies.rows().column("v", vector("UTF8Type", 1 << 30)).row("026869").bytes()),
        bomb(
            "vector<vector<float, 2^15>, 2^15> allowed, one element sent",
            HUGE_VECTORS,
            Reason.LENGTH_MISMATCH,
            "value",
            () ->
                RowsBodies.rows()
                    .column("v", custom(vectorClass(vectorClass("FloatType", 1 << 15), 1 << 15)))
                    .row("3f800000")
                    .bytes()),
        bomb(
            "vint element length 2^62 in vector<text, 2>",
            ParseLimits.defaults(),
            Reason.INVALID_LENGTH,
            "vector element length",
            () ->
                RowsBodies.rows()
                    .column("v", vector("UTF8Type", 2))
                    .row("ff4000000000000000" + "00")
                    .bytes()));
  }

  private static Arguments bomb(
      String name, ParseLimits limits, Reason reason, String field, Supplier<CqlBytes> body) {
    return Arguments.of(name, limits, reason, field, body);
  }

  /** Each sink, after a warm-up read of the same bomb: a typed error, almost no garbage. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("bombs")
  void rejectsBombsCheaplyWithEverySink(
      String name, ParseLimits limits, Reason reason, String field, Supplier<CqlBytes> body) {
    List<Supplier<RowSink>> sinks =
        List.of(
            CountingSink::new,
            RowsCollector::new,
            () -> new JsonLinesSink(new StringBuilder()),
            ColumnarSink::new,
            RecordingSink::new);
    for (Supplier<RowSink> sink : sinks) {
      io.netty.buffer.ByteBuf warmUp = body.get().toByteBuf(); // class initialisation
      assertThrows(
          CqlParseException.class, () -> new ResultReader(4, limits).read(warmUp, sink.get()));
      warmUp.release();
      ResultReader reader = new ResultReader(4, limits);
      RowSink s = sink.get();
      io.netty.buffer.ByteBuf buf = body.get().toByteBuf();
      long before = Allocations.current();
      CqlParseException e = assertThrows(CqlParseException.class, () -> reader.read(buf, s));
      long allocated = Allocations.current() - before;
      buf.release();
      String what = name + " into " + s.getClass().getSimpleName() + ": " + e.getMessage();
      assertEquals(reason, e.reason(), what);
      assertEquals(field, e.field(), what);
      assertTrue(allocated < CHEAP, what + ": allocated " + allocated + " bytes");
    }
  }

  // ---- nesting 100,000 deep ----

  static Stream<Arguments> deepOptions() {
    String udtLevel = "0030" + str("ks") + str("u") + "0001" + str("f");
    return Stream.of(
        Arguments.of("list", "0020".repeat(DEEP) + INT),
        Arguments.of("set", "0022".repeat(DEEP) + INT),
        Arguments.of("map keys", "0021".repeat(DEEP) + INT + INT.repeat(DEEP)),
        Arguments.of("map values", ("0021" + INT).repeat(DEEP) + INT),
        Arguments.of("tuple", "0031 0001".replace(" ", "").repeat(DEEP) + INT),
        Arguments.of("udt", udtLevel.repeat(DEEP) + INT),
        Arguments.of(
            "mixed",
            ("0020" + "0021" + INT + "0031 0001".replace(" ", "") + udtLevel).repeat(DEEP / 4)
                + INT));
  }

  /** 100,000 levels of [option]: TYPE_TOO_DEEP at the limit, and when the stack runs out. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("deepOptions")
  void rejectsOptionsNested100000Deep(String name, String option) {
    for (ParseLimits limits :
        List.of(
            ParseLimits.defaults(),
            ParseLimits.builder().maxTypeDepth(Integer.MAX_VALUE).build())) {
      CqlParseException e =
          Decoding.error(
              new ResultReader(4, limits),
              RowsBodies.rows().column("v", option).row("").build(),
              null);
      assertEquals(Reason.TYPE_TOO_DEEP, e.reason(), name + ": " + e.getMessage());
      assertEquals(0, e.column());
    }
  }

  static Stream<Arguments> deepNames() {
    String m = RowsBodies.MARSHAL;
    return Stream.of(
        Arguments.of(
            "MapType keys",
            (m + "MapType(").repeat(DEEP) + "Int32Type" + ",Int32Type)".repeat(DEEP)),
        Arguments.of(
            "MapType values", "MapType(Int32Type,".repeat(DEEP) + "Int32Type" + ")".repeat(DEEP)),
        Arguments.of("SetType", "SetType(".repeat(DEEP) + "Int32Type" + ")".repeat(DEEP)),
        Arguments.of("TupleType", "TupleType(".repeat(DEEP) + "Int32Type" + ")".repeat(DEEP)),
        Arguments.of(
            "UserType", "UserType(ks,75,66:".repeat(DEEP) + "Int32Type" + ")".repeat(DEEP)),
        Arguments.of("ReversedType", "ReversedType(".repeat(DEEP) + "Int32Type" + ")".repeat(DEEP)),
        Arguments.of(
            "VectorType of lists",
            "VectorType(ListType(".repeat(DEEP) + "FloatType" + "),2)".repeat(DEEP)));
  }

  /**
   * 100,000 levels in a custom class name: too long for the default name limit, so both the
   * parser's depth limit and the stack exhaustion path are checked with the length limit off.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("deepNames")
  void rejectsClassNamesNested100000Deep(String name, String className) {
    ParseLimits noLength = ParseLimits.builder().maxTypeNameLength(Integer.MAX_VALUE).build();
    ParseLimits noLimits = noLength.toBuilder().maxTypeDepth(Integer.MAX_VALUE).build();
    for (ParseLimits limits : List.of(noLength, noLimits)) {
      CqlParseException e =
          assertThrows(
              CqlParseException.class, () -> CustomTypeNameParser.parse(className, limits));
      assertEquals(Reason.TYPE_TOO_DEEP, e.reason(), name + ": " + e.getMessage());
    }
    // in a body: the name is over 65,535 bytes, the [string] limit, so only its first level
    // fits; the default name-length limit or the depth limit rejects the rest
    CqlParseException e =
        Decoding.error(
            RowsBodies.rows().column("v", custom(className.substring(0, 60_000))).row("").build());
    assertTrue(
        e.reason() == Reason.TYPE_TOO_DEEP || e.reason() == Reason.INVALID_TYPE_NAME,
        name + ": " + e.getMessage());
  }

  // ---- malformed UTF-8 ----

  /**
   * Malformed sequences: a lone continuation byte, a cut sequence, an overlong NUL, a surrogate.
   */
  static final List<String> BAD_UTF8 = List.of("80", "ff", "c3", "c080", "eda080", "f4908080");

  /** Text cells decoded with {@link ParseLimits#replaceMalformedText()}. */
  private static final ParseLimits LENIENT_TEXT =
      ParseLimits.builder().replaceMalformedText(true).build();

  /**
   * A body of {@code t text, l list<text>, u udt<f text>}, with {@code cells[i]} as the text in
   * column i (its row is 1: row 0 holds valid text).
   */
  private static ByteBuf textBody(String... cells) {
    RowsBodies.Builder b =
        RowsBodies.rows()
            .column("t", TEXT)
            .column("l", list(TEXT))
            .column("u", udt("ks", "u", "f", TEXT));
    for (String[] row : List.of(new String[] {"61", "61", "61"}, cells)) {
      b.row(row[0], "00000001" + lengthPrefixed(row[1]), lengthPrefixed(row[2]));
    }
    return b.build();
  }

  /**
   * Documented (ParseLimits.replaceMalformedText, TextDeserializer): strict by default, malformed
   * UTF-8 in text is INVALID_VALUE at its first byte, inline or nested, into every sink.
   */
  @ParameterizedTest
  @ValueSource(strings = {"80", "ff", "c3", "c080", "eda080", "f4908080"})
  void rejectsMalformedUtf8InTextCells(String bad) {
    String cell = "61" + bad + "62";
    String good = "61efbfbd62"; // an encoded U+FFFD is valid text
    List<Supplier<RowSink>> sinks =
        List.of(
            CountingSink::new,
            RowsCollector::new,
            () -> new JsonLinesSink(new StringBuilder()),
            ColumnarSink::new,
            RecordingSink::new);
    for (int column = 0; column < 3; column++) {
      String[] cells = {good, good, good};
      cells[column] = cell;
      // the cell's bytes are the last of its column in row 1; the bad byte is its second
      int size = textBody(cells).readableBytes();
      int before = 0;
      for (int c = column + 1; c < 3; c++) {
        before += 4 + (c == 1 ? 8 : 4) + good.length() / 2;
      }
      int offset = size - before - cell.length() / 2 + 1;
      for (Supplier<RowSink> sink : sinks) {
        ByteBuf body = textBody(cells);
        CqlParseException e =
            assertThrows(
                CqlParseException.class,
                () -> Decoding.read(new ResultReader(4), body, sink.get(), null));
        String what = bad + " in column " + column + ": " + e.getMessage();
        assertEquals(Reason.INVALID_VALUE, e.reason(), what);
        assertEquals(offset, e.offset(), what);
        assertEquals(1, e.row(), what);
        assertEquals(column, e.column(), what);
        assertEquals(List.of("t", "l", "u").get(column), e.columnName(), what);
        assertSame(NativeType.TEXT, e.type(), what);
      }
    }
    RowsCollector rows = new RowsCollector();
    Decoding.read(new ResultReader(4), textBody(good, good, good), rows, null);
    assertEquals("a\uFFFDb", rows.rows().get(1).getString("t"));
  }

  /**
   * Documented (ParseLimits.replaceMalformedText): with the option, malformed UTF-8 in text decodes
   * to U+FFFD, no error, inline or nested; and the JSON line stays valid JSON.
   */
  @ParameterizedTest
  @ValueSource(strings = {"80", "ff", "c3", "c080", "eda080", "f4908080"})
  void decodesMalformedUtf8InTextCellsWithReplacementCharactersWhenLenient(String bad) {
    String cell = "61" + bad + "62";
    RowsCollector rows = new RowsCollector();
    StringBuilder json = new StringBuilder();
    for (RowSink sink : List.of(rows, new JsonLinesSink(json))) {
      Decoding.read(
          new ResultReader(4, LENIENT_TEXT),
          RowsBodies.rows()
              .column("t", TEXT)
              .column("l", list(TEXT))
              .column("u", udt("ks", "u", "f", TEXT))
              .row(cell, "00000001" + lengthPrefixed(cell), lengthPrefixed(cell))
              .build(),
          sink,
          null);
    }
    String text = rows.rows().get(0).getString("t");
    assertTrue(text.startsWith("a") && text.endsWith("b") && text.contains("\uFFFD"), text);
    assertEquals(List.of(text), rows.rows().get(0).getObject("l"));
    JsonNode line = Corpus.json(json.toString());
    assertEquals(text, line.get("rows").get(0).get(0).asText());
    assertEquals(text, line.get("rows").get(0).get(1).get(0).asText());
    assertEquals(text, line.get("rows").get(0).get(2).get("f").asText());
  }

  /**
   * Documented ({@link ResultReader}): names ([string]: keyspace, table, column, UDT keyspace, name
   * and field names) stay lenient while text cells are strict (the default), malformed UTF-8
   * becoming U+FFFD; a UDT name in a custom class name (hex) that is not UTF-8 is {@link
   * Reason#INVALID_TYPE_NAME}.
   */
  @Test
  void decodesMalformedUtf8InNamesWithReplacementCharacters() {
    for (String bad : BAD_UTF8) {
      byte[] name = io.netty.buffer.ByteBufUtil.decodeHexDump("61" + bad);
      CqlBytes body =
          CqlBytes.create()
              .int32(2)
              .int32(0)
              .int32(1)
              .int16(name.length)
              .hex("61" + bad)
              .int16(name.length)
              .hex("61" + bad)
              .int16(name.length)
              .hex("61" + bad)
              .hex("0030")
              .int16(name.length)
              .hex("61" + bad)
              .int16(name.length)
              .hex("61" + bad)
              .hex("0001")
              .int16(name.length)
              .hex("61" + bad)
              .hex(INT)
              .int32(1)
              .int32(8)
              .int32(4)
              .int32(7);
      RowsCollector rows = new RowsCollector();
      Decoding.read(new ResultReader(4), body.toByteBuf(), rows, null);
      ColumnSpec spec = rows.metadata().columns().get(0);
      for (String s :
          List.of(
              spec.keyspace(),
              spec.table(),
              spec.name(),
              ((UdtType) spec.type()).keyspace(),
              ((UdtType) spec.type()).name(),
              ((UdtType) spec.type()).fields().get(0).name())) {
        assertTrue(s.startsWith("a") && s.contains("\uFFFD"), bad + ": " + s);
      }
      CqlParseException e =
          assertThrows(
              CqlParseException.class,
              () ->
                  CustomTypeNameParser.parse("UserType(ks,61" + bad + ")", ParseLimits.defaults()));
      assertEquals(Reason.INVALID_TYPE_NAME, e.reason(), bad);
    }
  }

  private static String lengthPrefixed(String hex) {
    return String.format("%08x", hex.length() / 2) + hex;
  }
}
