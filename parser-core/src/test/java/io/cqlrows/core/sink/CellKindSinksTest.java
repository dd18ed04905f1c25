package io.cqlrows.core.sink;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.cqlrows.core.CellKind;
import io.cqlrows.core.Decoding;
import io.cqlrows.core.ResultReader;
import io.cqlrows.core.RowsMetadata;
import io.cqlrows.core.TypeSamples;
import io.cqlrows.core.TypeSamples.Sample;
import io.cqlrows.core.type.VectorType;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The sinks store and render every type as its {@link CellKind} says: {@link RowsCollector} answers
 * the kind's getter, {@link ColumnarSink} fills the kind's array, {@link JsonLinesSink} renders the
 * kind's event as the value it boxes to, and an empty cell as a value only for text and blob kinds.
 */
class CellKindSinksTest {
  static List<Sample> samples() {
    return TypeSamples.all();
  }

  private static Row row(Sample s) {
    return Decoding.row(s.body());
  }

  @ParameterizedTest
  @MethodSource("samples")
  void rowsCollectorAnswersTheGetterOfTheKind(Sample s) {
    Row r = row(s);
    Object boxed = r.getObject(0);
    assertNotNull(boxed, s::toString);
    switch (s.kind()) {
      case BOOLEAN -> assertEquals(boxed, r.getBoolean(0));
      case TINYINT -> assertEquals(boxed, r.getByte(0));
      case SMALLINT -> assertEquals(boxed, r.getShort(0));
      case INT -> assertEquals(boxed, r.getInt(0));
      case BIGINT -> assertEquals(boxed, r.getLong(0));
      case FLOAT -> assertEquals(boxed, r.getFloat(0));
      case DOUBLE -> assertEquals(boxed, r.getDouble(0));
      case TIMESTAMP -> assertEquals(boxed, r.getInstant(0));
      case DATE -> assertEquals(boxed, r.getLocalDate(0));
      case TIME -> assertEquals(boxed, r.getLocalTime(0));
      case UUID -> assertEquals(boxed, r.getUuid(0));
      case TEXT -> assertEquals(boxed, r.getString(0));
      case BLOB -> assertEquals(boxed, r.getBytes(0));
      case FLOAT_VECTOR -> assertArrayEquals((float[]) boxed, r.getFloatVector(0));
      case DOUBLE_VECTOR -> assertArrayEquals((double[]) boxed, r.getDoubleVector(0));
      case INT_VECTOR -> assertArrayEquals((int[]) boxed, r.getIntVector(0));
      case LONG_VECTOR -> assertArrayEquals((long[]) boxed, r.getLongVector(0));
      case OBJECT -> assertEquals(s.type(), r.columns().get(0).type());
    }
  }

  @ParameterizedTest
  @MethodSource("samples")
  void columnarSinkFillsTheArrayOfTheKind(Sample s) {
    ColumnarSink sink = new ColumnarSink();
    Decoding.read(new ResultReader(4), s.body(), sink, null);
    ColumnarSink.Column c = sink.column(0);
    Object boxed = row(s).getObject(0);
    int width = 1;
    String array;
    switch (s.kind()) {
      case TINYINT, SMALLINT, INT -> {
        array = "ints";
        assertEquals(((Number) boxed).intValue(), c.ints()[0]);
      }
      case DATE -> {
        array = "ints";
        assertEquals(((LocalDate) boxed).toEpochDay(), c.ints()[0]);
      }
      case BIGINT -> {
        array = "longs";
        assertEquals(boxed, c.longs()[0]);
      }
      case TIMESTAMP -> {
        array = "longs";
        assertEquals(((Instant) boxed).toEpochMilli(), c.longs()[0]);
      }
      case TIME -> {
        array = "longs";
        assertEquals(((LocalTime) boxed).toNanoOfDay(), c.longs()[0]);
      }
      case UUID -> {
        array = "longs";
        width = 2;
        UUID u = (UUID) boxed;
        assertArrayEquals(
            new long[] {u.getMostSignificantBits(), u.getLeastSignificantBits()}, c.longs());
      }
      case FLOAT -> {
        array = "floats";
        assertEquals(boxed, c.floats()[0]);
      }
      case DOUBLE -> {
        array = "doubles";
        assertEquals(boxed, c.doubles()[0]);
      }
      case BOOLEAN -> {
        array = "booleans";
        assertEquals(boxed, c.booleans()[0]);
      }
      case FLOAT_VECTOR -> {
        array = "floats";
        width = dimension(s);
        assertArrayEquals((float[]) boxed, c.floats());
      }
      case DOUBLE_VECTOR -> {
        array = "doubles";
        width = dimension(s);
        assertArrayEquals((double[]) boxed, c.doubles());
      }
      case INT_VECTOR -> {
        array = "ints";
        width = dimension(s);
        assertArrayEquals((int[]) boxed, c.ints());
      }
      case LONG_VECTOR -> {
        array = "longs";
        width = dimension(s);
        assertArrayEquals((long[]) boxed, c.longs());
      }
      case TEXT, BLOB, OBJECT -> {
        array = "objects";
        assertEquals(boxed, c.objects()[0]);
      }
      default -> throw new AssertionError(s.kind());
    }
    assertEquals(List.of(array), arrays(c), s::toString);
    assertEquals(width, c.width(), s::toString);
  }

  private static int dimension(Sample s) {
    return ((VectorType) s.type()).dimension();
  }

  /** The names of the column's arrays that are not null. */
  private static List<String> arrays(ColumnarSink.Column c) {
    List<String> present = new ArrayList<>();
    if (c.ints() != null) {
      present.add("ints");
    }
    if (c.longs() != null) {
      present.add("longs");
    }
    if (c.floats() != null) {
      present.add("floats");
    }
    if (c.doubles() != null) {
      present.add("doubles");
    }
    if (c.booleans() != null) {
      present.add("booleans");
    }
    if (c.objects() != null) {
      present.add("objects");
    }
    return present;
  }

  /** Each typed event renders as {@link CanonicalJson} renders the value it boxes to. */
  @ParameterizedTest
  @MethodSource("samples")
  void jsonLinesSinkRendersTheEventOfTheKindAsItsValue(Sample s) {
    Object boxed = row(s).getObject(0);
    StringBuilder expected = new StringBuilder();
    CanonicalJson.appendValue(expected, boxed);
    StringBuilder out = new StringBuilder();
    Decoding.read(new ResultReader(4), s.body(), new JsonLinesSink(out), null);
    assertEquals(expected.toString(), onlyCell(out), s::toString);
  }

  /** An empty cell of the text and blob kinds renders as their empty value, of the others not. */
  @ParameterizedTest
  @MethodSource("samples")
  void jsonLinesSinkRendersEmptyValuesOfTextAndBlobKindsOnly(Sample s) {
    StringBuilder out = new StringBuilder();
    JsonLinesSink sink = new JsonLinesSink(out);
    sink.onResultStart(metadataOf(s), 1);
    sink.onRowStart(0);
    sink.onEmpty(0);
    sink.onRowEnd(0);
    sink.onResultEnd(1);
    String cell = onlyCell(out);
    switch (s.kind()) {
      case TEXT -> assertEquals("\"\"", cell);
      case BLOB -> assertEquals("\"0x\"", cell);
      case OBJECT -> {} // by the structure of the type: CanonicalJsonTest
      default -> assertEquals("null", cell, s::toString);
    }
  }

  private static RowsMetadata metadataOf(Sample s) {
    RowsCollector rows = new RowsCollector();
    Decoding.read(new ResultReader(4), s.body(), rows, null);
    return rows.metadata();
  }

  /** The one cell of a one-row, one-column line. */
  private static String onlyCell(StringBuilder line) {
    String s = line.toString();
    int from = s.indexOf("\"rows\":[[") + "\"rows\":[[".length();
    int to = s.lastIndexOf("]]}");
    return s.substring(from, to);
  }
}
