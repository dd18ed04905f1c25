package io.cqlrows.core;

import static io.cqlrows.core.RowsBodies.vectorClass;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.cqlrows.core.BulkCopyDifferentialTest.Element;
import io.cqlrows.core.BulkCopyDifferentialTest.Kind;
import io.cqlrows.core.sink.ColumnarSink;
import io.cqlrows.core.sink.Row;
import io.cqlrows.core.sink.RowsCollector;
import io.netty.buffer.ByteBufUtil;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A whole ROWS body with {@code vector<float|double|int|bigint, N>} columns of awkward dimensions,
 * special values (NaN payloads, -0.0, infinities, subnormals) and NULLs, read by {@link
 * ResultReader} into {@link ColumnarSink} (fresh and reused arrays) and {@link RowsCollector}:
 * every element must have the raw bits of the body's bytes.
 *
 * <p>Surefire runs this class in the SIMD JVM and in the scalar-fallback JVM (see {@link
 * VectorCopyPathTest}), so both paths are held to the same bits.
 */
class VectorCopyRowsTest {
  /** Columns 1..: element and dimension; column 0 is an int id. */
  private static final Element[] ELEMENTS = {
    Element.FLOAT, Element.DOUBLE, Element.INT, Element.BIGINT, Element.FLOAT, Element.DOUBLE,
  };

  private static final int[] DIMENSIONS = {37, 300, 9, 64, 1536, 1};
  private static final String[] CLASSES = {
    "FloatType", "DoubleType", "Int32Type", "LongType", "FloatType", "DoubleType"
  };
  private static final int ROWS = 13;

  @ParameterizedTest
  @EnumSource(
      value = Kind.class,
      names = {"HEAP", "HEAP_ARRAY_OFFSET", "POOLED_HEAP", "DIRECT", "POOLED_DIRECT", "COMPOSITE"})
  void everySinkGetsTheExactBitsOfTheBody(Kind kind) {
    Random random = new Random(7 + kind.name().hashCode());
    RowsBodies.Builder b = RowsBodies.rows().column("id", 0x0009);
    for (int c = 0; c < ELEMENTS.length; c++) {
      b.column("v" + c, RowsBodies.custom(vectorClass(CLASSES[c], DIMENSIONS[c])));
    }
    // cells[row][column - 1]: the value bytes, null for NULL
    byte[][][] cells = new byte[ROWS][ELEMENTS.length][];
    for (int r = 0; r < ROWS; r++) {
      String[] hex = new String[ELEMENTS.length + 1];
      hex[0] = String.format("%08x", r);
      for (int c = 0; c < ELEMENTS.length; c++) {
        if (random.nextInt(5) == 0) {
          continue; // NULL
        }
        cells[r][c] = BulkCopyDifferentialTest.elements(ELEMENTS[c], DIMENSIONS[c], random);
        hex[c + 1] = ByteBufUtil.hexDump(cells[r][c]);
      }
      b.row(hex);
    }
    byte[] body = b.bytes().toArray();

    ColumnarSink fresh = new ColumnarSink();
    ColumnarSink reused = new ColumnarSink().reuseArrays(true);
    RowsCollector collector = new RowsCollector();
    ResultReader reader = new ResultReader(4);
    for (int page = 0; page < 2; page++) { // twice: the reused arrays are overwritten
      Decoding.read(reader, kind.wrap(body, random), fresh, null);
      Decoding.read(reader, kind.wrap(body, random), reused, null);
      collector.clear();
      Decoding.read(reader, kind.wrap(body, random), collector, null);
      check(cells, fresh);
      check(cells, reused);
      check(cells, collector.rows());
    }
  }

  private static void check(byte[][][] cells, ColumnarSink sink) {
    assertEquals(ROWS, sink.rowCount());
    for (int c = 0; c < ELEMENTS.length; c++) {
      ColumnarSink.Column col = sink.column(c + 1);
      int n = DIMENSIONS[c];
      assertEquals(n, col.width());
      for (int r = 0; r < ROWS; r++) {
        assertEquals(cells[r][c] == null, col.isNull(r));
        if (cells[r][c] != null) {
          Object matrix =
              switch (ELEMENTS[c]) {
                case FLOAT -> col.floats();
                case DOUBLE -> col.doubles();
                case INT -> col.ints();
                case BIGINT -> col.longs();
              };
          checkBits(cells[r][c], ELEMENTS[c], matrix, r * n, n, "columnar row " + r + " col " + c);
        }
      }
    }
  }

  private static void check(byte[][][] cells, List<Row> rows) {
    assertEquals(ROWS, rows.size());
    for (int r = 0; r < ROWS; r++) {
      for (int c = 0; c < ELEMENTS.length; c++) {
        Object v = rows.get(r).getObject(c + 1);
        assertEquals(cells[r][c] == null, v == null);
        if (v != null) {
          checkBits(cells[r][c], ELEMENTS[c], v, 0, DIMENSIONS[c], "row " + r + " col " + c);
        }
      }
    }
  }

  private static void checkBits(
      byte[] cell, Element e, Object array, int from, int n, String where) {
    ByteBuffer b = ByteBuffer.wrap(cell);
    for (int i = 0; i < n; i++) {
      long expected = e.width == 4 ? b.getInt(i * 4) : b.getLong(i * 8);
      long got =
          switch (e) {
            case FLOAT -> Float.floatToRawIntBits(((float[]) array)[from + i]);
            case DOUBLE -> Double.doubleToRawLongBits(((double[]) array)[from + i]);
            case INT -> ((int[]) array)[from + i];
            case BIGINT -> ((long[]) array)[from + i];
          };
      if (got != expected) {
        throw new AssertionError(
            where
                + " element "
                + i
                + ": 0x"
                + Long.toHexString(got)
                + ", expected 0x"
                + Long.toHexString(expected));
      }
    }
  }
}
