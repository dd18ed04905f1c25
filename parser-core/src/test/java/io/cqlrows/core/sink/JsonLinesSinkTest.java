package io.cqlrows.core.sink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cqlrows.core.ColumnSpec;
import io.cqlrows.core.DoubleVector;
import io.cqlrows.core.FloatVector;
import io.cqlrows.core.IntVector;
import io.cqlrows.core.LongVector;
import io.cqlrows.core.RowSink;
import io.cqlrows.core.RowsMetadata;
import io.cqlrows.core.TestMetadata;
import io.cqlrows.core.type.CqlType;
import io.cqlrows.core.type.ListType;
import io.cqlrows.core.type.MapType;
import io.cqlrows.core.type.NativeType;
import io.cqlrows.core.type.TupleType;
import io.cqlrows.core.type.UdtType;
import io.cqlrows.core.type.VectorType;
import io.cqlrows.core.value.CqlDuration;
import io.cqlrows.core.value.TupleValue;
import io.cqlrows.core.value.UdtValue;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.lang.reflect.Method;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.InetAddress;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonLinesSinkTest {
  private static final ObjectMapper MAPPER =
      new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private static final String ID_NAME_COLUMNS = columns("id", "int", "name", "text");

  private static final UdtType ADDRESS =
      new UdtType(
          "corpus",
          "Address",
          List.of(
              new UdtType.Field("Mixed Case", NativeType.INT),
              new UdtType.Field("with space", NativeType.TEXT)),
          false);

  private static final TupleType INT_TEXT = new TupleType(List.of(NativeType.INT, NativeType.TEXT));

  private final StringBuilder out = new StringBuilder();
  private final JsonLinesSink sink = new JsonLinesSink(out);

  private static ColumnSpec col(String name, CqlType type) {
    return new ColumnSpec("ks", "t", name, type);
  }

  /** The {@code "columns"} member for columns of keyspace ks, table t: name, type, name, type... */
  private static String columns(String... namesAndTypes) {
    StringBuilder sb = new StringBuilder("\"columns\":[");
    for (int i = 0; i < namesAndTypes.length; i += 2) {
      sb.append(i > 0 ? "," : "")
          .append("{\"keyspace\":\"ks\",\"table\":\"t\",\"name\":\"")
          .append(namesAndTypes[i])
          .append("\",\"type\":\"")
          .append(namesAndTypes[i + 1])
          .append("\"}");
    }
    return sb.append(']').toString();
  }

  private static RowsMetadata idAndName() {
    return TestMetadata.of(col("id", NativeType.INT), col("name", NativeType.TEXT));
  }

  /** Checks the exact text, that it is one valid JSON object and one line, and its shape. */
  private static void assertLine(String expectedJson, String actual) throws IOException {
    assertEquals(expectedJson + "\n", actual);
    assertEquals(actual.length() - 1, actual.indexOf('\n'), "exactly one newline, at the end");
    JsonNode tree = MAPPER.readTree(actual);
    assertTrue(tree.isObject());
    JsonNode rows = tree.get("rows");
    assertEquals(tree.get("row_count").asInt(), rows.size());
    for (JsonNode row : rows) {
      assertEquals(tree.get("columns").size(), row.size(), "row aligned with columns");
    }
  }

  /** Delivers {@code id, name} rows with an int and a text (or NULL) cell. */
  private void idNameRow(int row, int id, String name) {
    sink.onRowStart(row);
    sink.onInt(0, id);
    if (name == null) {
      sink.onNull(1);
    } else {
      sink.onString(1, name);
    }
    sink.onRowEnd(row);
  }

  @Test
  void writesOneLinePerResultWithColumnsAndRows() throws IOException {
    sink.onResultStart(idAndName(), 2);
    idNameRow(0, 1, "a");
    idNameRow(1, 2, null);
    sink.onResultEnd(2);

    assertLine(
        "{" + ID_NAME_COLUMNS + ",\"row_count\":2,\"rows\":[[1,\"a\"],[2,null]]}", out.toString());
  }

  @Test
  void writesNothingBeforeTheResultEnds() {
    sink.onResultStart(idAndName(), 1);
    idNameRow(0, 1, "a");

    assertEquals("", out.toString());
  }

  @Test
  void writesAnEmptyRowsArrayForZeroRows() throws IOException {
    sink.onResultStart(idAndName(), 0);
    sink.onResultEnd(0);

    assertLine("{" + ID_NAME_COLUMNS + ",\"row_count\":0,\"rows\":[]}", out.toString());
  }

  @Test
  void writesConsecutiveResultsAsSeparateLines() throws IOException {
    sink.onResultStart(idAndName(), 1);
    idNameRow(0, 1, "first");
    sink.onResultEnd(1);
    int firstLength = out.length();
    sink.onResultStart(idAndName(), 1);
    idNameRow(0, 2, "second");
    sink.onResultEnd(1);

    assertLine(
        "{" + ID_NAME_COLUMNS + ",\"row_count\":1,\"rows\":[[2,\"second\"]]}",
        out.substring(firstLength));
  }

  @Test
  void discardsTheRemainsOfAnAbortedResult() throws IOException {
    sink.onResultStart(idAndName(), 2);
    idNameRow(0, 1, "aborted");
    sink.onRowStart(1);
    sink.onInt(0, 2);
    // The parse failed here; the next result starts afresh.
    sink.onResultStart(idAndName(), 1);
    idNameRow(0, 3, "c");
    sink.onResultEnd(1);

    assertLine("{" + ID_NAME_COLUMNS + ",\"row_count\":1,\"rows\":[[3,\"c\"]]}", out.toString());
  }

  @Test
  void rendersPrimitiveEventsCanonically() throws IOException {
    NativeType[] types = {
      NativeType.BOOLEAN, NativeType.TINYINT, NativeType.SMALLINT, NativeType.INT,
      NativeType.BIGINT, NativeType.FLOAT, NativeType.DOUBLE, NativeType.TIMESTAMP,
      NativeType.DATE, NativeType.TIME, NativeType.UUID, NativeType.TEXT
    };
    ColumnSpec[] specs = new ColumnSpec[types.length];
    for (int i = 0; i < types.length; i++) {
      specs[i] = col("c" + i, types[i]);
    }
    sink.onResultStart(TestMetadata.of(specs), 1);
    sink.onRowStart(0);
    sink.onBoolean(0, true);
    sink.onTinyint(1, (byte) -128);
    sink.onSmallint(2, (short) 32767);
    sink.onInt(3, Integer.MIN_VALUE);
    sink.onBigint(4, Long.MAX_VALUE);
    sink.onFloat(5, Float.MIN_VALUE);
    sink.onDouble(6, Double.NEGATIVE_INFINITY);
    sink.onTimestamp(7, Long.MAX_VALUE);
    sink.onDate(8, Integer.MIN_VALUE);
    sink.onTime(9, 1);
    sink.onUuid(10, 0x550e8400e29b41d4L, 0xa716446655440000L);
    sink.onString(11, "Grüße 😀\t\"q\"\u007f");
    sink.onRowEnd(0);
    sink.onResultEnd(1);

    assertLine(
        "{"
            + columns(
                "c0",
                "boolean",
                "c1",
                "tinyint",
                "c2",
                "smallint",
                "c3",
                "int",
                "c4",
                "bigint",
                "c5",
                "float",
                "c6",
                "double",
                "c7",
                "timestamp",
                "c8",
                "date",
                "c9",
                "time",
                "c10",
                "uuid",
                "c11",
                "text")
            + ",\"row_count\":1,\"rows\":"
            + "[[true,-128,32767,-2147483648,\"9223372036854775807\",\"1.4E-45\",\"-Infinity\","
            + "\"+292278994-08-17T07:12:55.807Z\",\"-5877641-06-23\",\"00:00:00.000000001\","
            + "\"550e8400-e29b-41d4-a716-446655440000\",\"Grüße 😀\\t\\\"q\\\"\\u007f\"]]}",
        out.toString());
  }

  @Test
  void rendersTemporalValuesInTheirShortForms() throws IOException {
    sink.onResultStart(
        TestMetadata.of(
            col("ts", NativeType.TIMESTAMP), col("d", NativeType.DATE), col("t", NativeType.TIME)),
        1);
    sink.onRowStart(0);
    sink.onTimestamp(0, 1_709_210_096_789L);
    sink.onDate(1, Integer.MAX_VALUE);
    sink.onTime(2, 12L * 3600 * 1_000_000_000L);
    sink.onRowEnd(0);
    sink.onResultEnd(1);

    assertLine(
        "{"
            + columns("ts", "timestamp", "d", "date", "t", "time")
            + ",\"row_count\":1,"
            + "\"rows\":[[\"2024-02-29T12:34:56.789Z\",\"+5881580-07-11\",\"12:00\"]]}",
        out.toString());
  }

  @Test
  void rendersBlobsWithoutMovingTheBufferIndexes() throws IOException {
    ByteBuf blob = Unpooled.wrappedBuffer(new byte[] {0x00, (byte) 0xca, (byte) 0xfe, 0x7f});
    try {
      blob.readerIndex(1);
      sink.onResultStart(TestMetadata.of(col("b", NativeType.BLOB)), 2);
      sink.onRowStart(0);
      sink.onBlob(0, blob);
      sink.onRowEnd(0);
      sink.onRowStart(1);
      sink.onBlob(0, Unpooled.EMPTY_BUFFER);
      sink.onRowEnd(1);
      sink.onResultEnd(2);

      assertEquals(1, blob.readerIndex());
      assertEquals(4, blob.writerIndex());
    } finally {
      assertTrue(blob.release());
    }
    assertLine(
        "{" + columns("b", "blob") + ",\"row_count\":2,\"rows\":[[\"0xcafe7f\"],[\"0x\"]]}",
        out.toString());
  }

  @Test
  void rendersVectorsElementByElement() throws IOException {
    sink.onResultStart(
        TestMetadata.of(
            col("f", new VectorType(NativeType.FLOAT, 3)),
            col("d", new VectorType(NativeType.DOUBLE, 2)),
            col("i", new VectorType(NativeType.INT, 2)),
            col("l", new VectorType(NativeType.BIGINT, 2))),
        1);
    sink.onRowStart(0);
    sink.onFloatVector(0, new Floats(1.5f, -2.25f, 3.0f));
    sink.onDoubleVector(1, new Doubles(4.9E-324, Double.NaN));
    sink.onIntVector(2, new Ints(-1, Integer.MAX_VALUE));
    sink.onLongVector(3, new Longs(Long.MIN_VALUE, 0));
    sink.onRowEnd(0);
    sink.onResultEnd(1);

    assertLine(
        "{"
            + columns(
                "f",
                "vector<float, 3>",
                "d",
                "vector<double, 2>",
                "i",
                "vector<int, 2>",
                "l",
                "vector<bigint, 2>")
            + ",\"row_count\":1,\"rows\":[[[\"1.5\",\"-2.25\",\"3.0\"],[\"4.9E-324\",\"NaN\"],"
            + "[-1,2147483647],[\"-9223372036854775808\",\"0\"]]]}",
        out.toString());
  }

  @Test
  void rendersObjectsWithCanonicalJson() throws IOException {
    Map<String, Integer> map = new LinkedHashMap<>();
    map.put("x", 1);
    map.put("y", -1);
    sink.onResultStart(
        TestMetadata.of(
            col("dec", NativeType.DECIMAL),
            col("vi", NativeType.VARINT),
            col("ip", NativeType.INET),
            col("dur", NativeType.DURATION),
            col("m", new MapType(NativeType.TEXT, NativeType.INT, false)),
            col("u", ADDRESS),
            col("tu", INT_TEXT)),
        1);
    sink.onRowStart(0);
    sink.onObject(0, new BigDecimal("1E+10"));
    sink.onObject(1, new BigInteger("-123456789012345678901234567890"));
    sink.onObject(2, InetAddress.getByAddress(new byte[16]));
    sink.onObject(3, new CqlDuration(0, -1, -1_000_000_000L));
    sink.onObject(4, map);
    sink.onObject(5, new UdtValue(ADDRESS, new Object[] {42, "spaced"}));
    sink.onObject(6, new TupleValue(INT_TEXT, new Object[] {null, "a"}));
    sink.onRowEnd(0);
    sink.onResultEnd(1);

    assertLine(
        "{"
            + columns(
                "dec",
                "decimal",
                "vi",
                "varint",
                "ip",
                "inet",
                "dur",
                "duration",
                "m",
                "map<text, int>",
                "u",
                "corpus.\\\"Address\\\"",
                "tu",
                "frozen<tuple<int, text>>")
            + ",\"row_count\":1,\"rows\":[[\"1E+10\",\"-123456789012345678901234567890\","
            + "\"0:0:0:0:0:0:0:0\",\"-1d1s\",[[\"x\",1],[\"y\",-1]],"
            + "{\"Mixed Case\":42,\"with space\":\"spaced\"},[null,\"a\"]]]}",
        out.toString());
  }

  @Test
  void rendersNullNotSetAndEmptyCellsByColumnType() throws IOException {
    sink.onResultStart(
        TestMetadata.of(
            col("i", NativeType.INT),
            col("l", new ListType(NativeType.INT, false)),
            col("u", ADDRESS),
            col("tu", INT_TEXT),
            col("v", new VectorType(NativeType.FLOAT, 2))),
        3);
    for (int row = 0; row < 3; row++) {
      sink.onRowStart(row);
      for (int c = 0; c < 5; c++) {
        switch (row) {
          case 0 -> sink.onNull(c);
          case 1 -> sink.onNotSet(c);
          default -> sink.onEmpty(c);
        }
      }
      sink.onRowEnd(row);
    }
    sink.onResultEnd(3);

    String notSet = "{\"not_set\":true}";
    assertLine(
        "{"
            + columns(
                "i",
                "int",
                "l",
                "list<int>",
                "u",
                "corpus.\\\"Address\\\"",
                "tu",
                "frozen<tuple<int, text>>",
                "v",
                "vector<float, 2>")
            + ",\"row_count\":3,\"rows\":[[null,null,null,null,null],"
            + "["
            + String.join(",", notSet, notSet, notSet, notSet, notSet)
            + "],"
            + "[null,[],{\"Mixed Case\":null,\"with space\":null},[null,null],null]]}",
        out.toString());
  }

  @Test
  void escapesColumnMetadataAndSpellsTypesAsCql() throws IOException {
    ColumnSpec odd = new ColumnSpec("k\"s", "t\\1", "Mixed Case", ADDRESS);
    ColumnSpec tuple = new ColumnSpec("ks", "t", "tu", INT_TEXT);
    sink.onResultStart(TestMetadata.of(odd, tuple), 0);
    sink.onResultEnd(0);

    assertLine(
        "{\"columns\":[{\"keyspace\":\"k\\\"s\",\"table\":\"t\\\\1\",\"name\":\"Mixed Case\","
            + "\"type\":\"corpus.\\\"Address\\\"\"},"
            + "{\"keyspace\":\"ks\",\"table\":\"t\",\"name\":\"tu\","
            + "\"type\":\"frozen<tuple<int, text>>\"}],\"row_count\":0,\"rows\":[]}",
        out.toString());
  }

  @Test
  void insertsLeadingMembersIntoTheNextResultOnly() throws IOException {
    sink.setLeadingMembers("\"frame\":3,\"stream\":5");
    sink.onResultStart(idAndName(), 0);
    sink.onResultEnd(0);
    int firstLength = out.length();
    sink.onResultStart(idAndName(), 0);
    sink.onResultEnd(0);

    assertLine(
        "{\"frame\":3,\"stream\":5," + ID_NAME_COLUMNS + ",\"row_count\":0,\"rows\":[]}",
        out.substring(0, firstLength));
    assertLine("{" + ID_NAME_COLUMNS + ",\"row_count\":0,\"rows\":[]}", out.substring(firstLength));
  }

  @Test
  void clearsLeadingMembersWithNullOrEmpty() throws IOException {
    sink.setLeadingMembers("\"stream\":5");
    sink.setLeadingMembers(null);
    sink.onResultStart(idAndName(), 0);
    sink.onResultEnd(0);
    sink.setLeadingMembers("\"stream\":6");
    sink.setLeadingMembers("");
    sink.onResultStart(idAndName(), 0);
    sink.onResultEnd(0);

    String line = "{" + ID_NAME_COLUMNS + ",\"row_count\":0,\"rows\":[]}\n";
    assertEquals(line + line, out.toString());
  }

  @Test
  void omitsUnselectedColumnsFromColumnsAndRows() throws IOException {
    sink.selectColumns(2, 0, 7);
    sink.onResultStart(
        TestMetadata.of(
            col("a", NativeType.INT), col("b", NativeType.TEXT), col("c", NativeType.BIGINT)),
        1);

    assertTrue(sink.wantsColumn(0));
    assertFalse(sink.wantsColumn(1));
    assertTrue(sink.wantsColumn(2));
    sink.onRowStart(0);
    sink.onInt(0, 1);
    sink.onBigint(2, 3);
    sink.onRowEnd(0);
    sink.onResultEnd(1);
    assertLine(
        "{" + columns("a", "int", "c", "bigint") + ",\"row_count\":1,\"rows\":[[1,\"3\"]]}",
        out.toString());
  }

  @Test
  void appliesAColumnSelectionFromTheNextResult() {
    sink.onResultStart(idAndName(), 0);
    sink.selectColumns(1);
    assertTrue(sink.wantsColumn(0), "the current result keeps its selection");
    sink.onResultEnd(0);

    sink.onResultStart(idAndName(), 0);
    assertFalse(sink.wantsColumn(0));
    assertTrue(sink.wantsColumn(1));
    sink.selectAllColumns();
    sink.onResultEnd(0);

    sink.onResultStart(idAndName(), 0);
    assertTrue(sink.wantsColumn(0));
  }

  @Test
  void selectsColumnsByNameInResultOrder() throws IOException {
    sink.selectColumnsByName("c", "a", "absent");
    sink.onResultStart(
        TestMetadata.of(
            col("a", NativeType.INT), col("b", NativeType.TEXT), col("c", NativeType.BIGINT)),
        1);
    assertTrue(sink.wantsColumn(0));
    assertFalse(sink.wantsColumn(1));
    assertTrue(sink.wantsColumn(2));
    sink.onRowStart(0);
    sink.onInt(0, 1);
    sink.onBigint(2, 3);
    sink.onRowEnd(0);
    sink.onResultEnd(1);
    assertLine(
        "{" + columns("a", "int", "c", "bigint") + ",\"row_count\":1,\"rows\":[[1,\"3\"]]}",
        out.toString());
  }

  @Test
  void rejectsNegativeColumnIndexes() {
    assertThrows(IllegalArgumentException.class, () -> sink.selectColumns(0, -1));
  }

  @Test
  void writesToAWriter() throws IOException {
    StringWriter writer = new StringWriter();
    JsonLinesSink writerSink = new JsonLinesSink(writer);
    writerSink.onResultStart(idAndName(), 0);
    writerSink.onResultEnd(0);

    assertLine("{" + ID_NAME_COLUMNS + ",\"row_count\":0,\"rows\":[]}", writer.toString());
  }

  @Test
  void wrapsOutputFailuresInUncheckedIoException() {
    IOException failure = new IOException("disk full");
    Writer broken =
        new Writer() {
          @Override
          public void write(char[] buf, int off, int len) throws IOException {
            throw failure;
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    JsonLinesSink brokenSink = new JsonLinesSink(broken);
    brokenSink.onResultStart(idAndName(), 0);

    UncheckedIOException e =
        assertThrows(UncheckedIOException.class, () -> brokenSink.onResultEnd(0));
    assertSame(failure, e.getCause());
  }

  @Test
  void overridesEveryRowSinkEvent() throws NoSuchMethodException {
    for (Method m : RowSink.class.getMethods()) {
      if (m.getName().equals("onRowsContentLength")) {
        continue; // a sizing hint, not an event: nothing to render
      }
      Method own = JsonLinesSink.class.getMethod(m.getName(), m.getParameterTypes());
      assertEquals(JsonLinesSink.class, own.getDeclaringClass(), m.getName());
    }
  }

  @SuppressWarnings("ArrayRecordComponent") // a vector over its array, never compared
  private record Floats(float... values) implements FloatVector {
    @Override
    public int dimension() {
      return values.length;
    }

    @Override
    public float get(int i) {
      return values[i];
    }

    @Override
    public void copyTo(float[] dst, int dstOffset) {
      System.arraycopy(values, 0, dst, dstOffset, values.length);
    }
  }

  @SuppressWarnings("ArrayRecordComponent") // a vector over its array, never compared
  private record Doubles(double... values) implements DoubleVector {
    @Override
    public int dimension() {
      return values.length;
    }

    @Override
    public double get(int i) {
      return values[i];
    }

    @Override
    public void copyTo(double[] dst, int dstOffset) {
      System.arraycopy(values, 0, dst, dstOffset, values.length);
    }
  }

  @SuppressWarnings("ArrayRecordComponent") // a vector over its array, never compared
  private record Ints(int... values) implements IntVector {
    @Override
    public int dimension() {
      return values.length;
    }

    @Override
    public int get(int i) {
      return values[i];
    }

    @Override
    public void copyTo(int[] dst, int dstOffset) {
      System.arraycopy(values, 0, dst, dstOffset, values.length);
    }
  }

  @SuppressWarnings("ArrayRecordComponent") // a vector over its array, never compared
  private record Longs(long... values) implements LongVector {
    @Override
    public int dimension() {
      return values.length;
    }

    @Override
    public long get(int i) {
      return values[i];
    }

    @Override
    public void copyTo(long[] dst, int dstOffset) {
      System.arraycopy(values, 0, dst, dstOffset, values.length);
    }
  }

  /**
   * Found by the ResultReader fuzz campaign: rendering a vector<float, 1536> cell allocated a
   * String per element, 76 bytes per body byte (crash-487d67fa... in the fuzz inputs). Floats and
   * doubles are now written into the builder in place.
   */
  @Test
  void rendersAFloatVectorWithoutAStringPerElement() {
    io.cqlrows.core.RowsBodies.Builder b =
        io.cqlrows.core.RowsBodies.rows()
            .column(
                "v",
                io.cqlrows.core.RowsBodies.vector(
                    io.cqlrows.core.RowsBodies.MARSHAL + "FloatType", 1536));
    StringBuilder cell = new StringBuilder();
    for (int i = 0; i < 1536; i++) {
      cell.append(String.format("%08x", Float.floatToIntBits(i * 0.37f - 101.5f)));
    }
    b.row(cell.toString());
    ByteBuf body = b.build();
    try {
      io.cqlrows.core.ResultReader reader = new io.cqlrows.core.ResultReader(4);
      StringBuilder out = new StringBuilder(64 << 10);
      for (int i = 0; i < 20; i++) { // warm up: compiled code allocates least
        out.setLength(0);
        reader.read(body.duplicate(), new JsonLinesSink(out));
      }
      out.setLength(0);
      long before = io.cqlrows.testing.Allocations.current();
      reader.read(body.duplicate(), new JsonLinesSink(out));
      long allocated = io.cqlrows.testing.Allocations.current() - before;
      assertTrue(out.toString().contains("\"-101.5\",\"-101.13\""), out.substring(0, 200));
      assertTrue(
          allocated < 16L * body.readableBytes(),
          "allocated " + allocated + " bytes for a " + body.readableBytes() + "-byte body");
    } finally {
      body.release();
    }
  }
}
