package io.cqlrows.core.sink;

import static io.cqlrows.core.RowsBodies.custom;
import static io.cqlrows.core.RowsBodies.list;
import static io.cqlrows.core.RowsBodies.opt;
import static io.cqlrows.core.RowsBodies.vectorClass;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.core.Decoding;
import io.cqlrows.core.ResultReader;
import io.cqlrows.core.RowsBodies;
import io.cqlrows.core.VectorCopy;
import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.util.BitSet;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ColumnarSinkTest {

  private static ColumnarSink read(ByteBuf body) {
    ColumnarSink sink = new ColumnarSink();
    Decoding.read(new ResultReader(4), body, sink, null);
    return sink;
  }

  private static String hex(ByteBuffer b) {
    StringBuilder sb = new StringBuilder();
    while (b.hasRemaining()) {
      sb.append(String.format("%02x", b.get()));
    }
    return sb.toString();
  }

  @Test
  void storesScalarColumnsInPrimitiveArraysWithNullBitmap() {
    ColumnarSink sink =
        read(
            RowsBodies.rows()
                .column("i", 0x0009)
                .column("l", 0x0002)
                .column("f", 0x0008)
                .column("d", 0x0007)
                .column("b", 0x0004)
                .column("u", 0x000C)
                .row(
                    "00000001",
                    "0000000000000002",
                    "3f800000",
                    "4000000000000000",
                    "01",
                    "00112233445566778899aabbccddeeff")
                .row(null, null, null, null, null, null)
                .row(
                    "ffffffff",
                    "fffffffffffffffe",
                    "",
                    "c000000000000000",
                    "00",
                    "ffeeddccbbaa99887766554433221100")
                .build());
    assertEquals(3, sink.rowCount());
    assertEquals(6, sink.columnCount());
    assertArrayEquals(new int[] {1, 0, -1}, sink.column(0).ints());
    assertArrayEquals(new long[] {2, 0, -2}, sink.column(1).longs());
    assertArrayEquals(new float[] {1f, 0f, 0f}, sink.column(2).floats());
    assertArrayEquals(new double[] {2d, 0d, -2d}, sink.column(3).doubles());
    assertArrayEquals(new boolean[] {true, false, false}, sink.column(4).booleans());
    assertArrayEquals(
        new long[] {
          0x0011223344556677L, 0x8899aabbccddeeffL, 0, 0, 0xffeeddccbbaa9988L, 0x7766554433221100L
        },
        sink.column(5).longs());
    assertEquals(2, sink.column(5).width());
    BitSet row1 = new BitSet();
    row1.set(1);
    for (int c = 0; c < 6; c++) {
      BitSet expected = (BitSet) row1.clone();
      if (c == 2) {
        expected.set(2); // an empty float is no value either
      }
      assertEquals(expected, sink.column(c).nulls(), "column " + c);
    }
    assertTrue(sink.column(0).isNull(1));
    assertFalse(sink.column(0).isNull(0));
    // only the array of the column's kind exists
    assertNull(sink.column(0).longs());
    assertNull(sink.column(0).objects());
  }

  @Test
  void storesIntLikeAndLongLikeTypesInTheirArrays() {
    ColumnarSink sink =
        read(
            RowsBodies.rows()
                .column("ti", 0x0014)
                .column("si", 0x0013)
                .column("dt", 0x0011)
                .column("ts", 0x000B)
                .column("tm", 0x0012)
                .column("c", 0x0005)
                .row(
                    "ff",
                    "8000",
                    "80000001",
                    "000001337f62ee79",
                    "0000000000000001",
                    "0000000000000009")
                .build());
    assertArrayEquals(new int[] {-1}, sink.column(0).ints());
    assertArrayEquals(new int[] {-32768}, sink.column(1).ints());
    assertArrayEquals(new int[] {1}, sink.column(2).ints());
    assertArrayEquals(new long[] {1320692149881L}, sink.column(3).longs());
    assertArrayEquals(new long[] {1}, sink.column(4).longs());
    assertArrayEquals(new long[] {9}, sink.column(5).longs());
  }

  @Test
  void storesOtherTypesAsObjects() {
    ColumnarSink sink =
        read(
            RowsBodies.rows()
                .column("s", 0x000D)
                .column("bl", 0x0003)
                .column("l", list(opt(0x0009)))
                .column("vs", custom(vectorClass("ShortType", 2)))
                .row("6869", "cafe", "00000001 00000004 00000007", "02 0001 02 0002")
                .row(null, "", "", null)
                .build());
    assertArrayEquals(new Object[] {"hi", null}, sink.column(0).objects());
    assertEquals("cafe", hex((ByteBuffer) sink.column(1).objects()[0]));
    assertEquals("", hex((ByteBuffer) sink.column(1).objects()[1]));
    assertEquals(List.of(7), sink.column(2).objects()[0]);
    assertTrue(sink.column(2).isNull(1)); // an empty list cell is no value
    assertEquals(List.of((short) 1, (short) 2), sink.column(3).objects()[0]);
    assertNull(sink.column(3).floats());
  }

  /** 100 rows of vector<float, 4>: one row-major float[400], NULL rows zero and flagged. */
  @Test
  void storesFloatVectorColumnAsRowMajorMatrix() {
    Random random = new Random(4);
    int rows = 100;
    int dim = 4;
    float[] expected = new float[rows * dim];
    RowsBodies.Builder b =
        RowsBodies.rows().column("id", 0x0009).column("v", custom(vectorClass("FloatType", dim)));
    BitSet nullRows = new BitSet();
    for (int r = 0; r < rows; r++) {
      if (r % 9 == 4 || r == rows - 1) {
        nullRows.set(r);
        b.row(String.format("%08x", r), null);
        continue;
      }
      StringBuilder cell = new StringBuilder();
      for (int i = 0; i < dim; i++) {
        float f = random.nextFloat() * 2 - 1;
        expected[r * dim + i] = f;
        cell.append(String.format("%08x", Float.floatToIntBits(f)));
      }
      b.row(String.format("%08x", r), cell.toString());
    }
    ColumnarSink sink = read(b.build());
    ColumnarSink.Column v = sink.column(1);
    assertEquals(rows, sink.rowCount());
    assertEquals(dim, v.width());
    assertEquals(rows * dim, v.floats().length);
    assertArrayEquals(expected, v.floats());
    assertEquals(nullRows, v.nulls());
    assertEquals(rows, sink.column(0).ints().length);
    assertEquals(99, sink.column(0).ints()[99]);
  }

  @Test
  void storesDoubleIntAndBigintVectorColumns() {
    ColumnarSink sink =
        read(
            RowsBodies.rows()
                .column("d", custom(vectorClass("DoubleType", 2)))
                .column("i", custom(vectorClass("Int32Type", 3)))
                .column("l", custom(vectorClass("LongType", 1)))
                .row(
                    "3ff8000000000000 c000000000000000",
                    "00000001 00000002 00000003",
                    "0000000000000007")
                .row(null, "00000004 00000005 00000006", null)
                .build());
    assertArrayEquals(new double[] {1.5, -2, 0, 0}, sink.column(0).doubles());
    assertArrayEquals(new int[] {1, 2, 3, 4, 5, 6}, sink.column(1).ints());
    assertArrayEquals(new long[] {7, 0}, sink.column(2).longs());
    assertTrue(sink.column(0).isNull(1));
    assertTrue(sink.column(2).isNull(1));
  }

  @Test
  void trimsArraysToRowCount() {
    for (int rows : new int[] {0, 1, 3, 64, 65, 130}) {
      RowsBodies.Builder b = RowsBodies.rows().column("i", 0x0009).column("s", 0x000D);
      for (int r = 0; r < rows; r++) {
        b.row(String.format("%08x", r), r % 2 == 0 ? null : "61");
      }
      ColumnarSink sink = read(b.build());
      assertEquals(rows, sink.rowCount());
      assertEquals(rows, sink.column(0).ints().length, "rows " + rows);
      assertEquals(rows, sink.column(1).objects().length, "rows " + rows);
    }
  }

  @Test
  void replacesPreviousResult() {
    ColumnarSink sink = new ColumnarSink();
    ResultReader reader = new ResultReader(4);
    Decoding.read(
        reader,
        RowsBodies.rows()
            .column("a", 0x0009)
            .column("b", 0x0009)
            .row("00000001", "00000002")
            .row(null, null)
            .build(),
        sink,
        null);
    Decoding.read(
        reader, RowsBodies.rows().column("c", 0x0007).row("3ff0000000000000").build(), sink, null);
    assertEquals(1, sink.columnCount());
    assertEquals(1, sink.rowCount());
    assertEquals("c", sink.column(0).spec().name());
    assertArrayEquals(new double[] {1}, sink.column(0).doubles());
    assertTrue(sink.column(0).nulls().isEmpty());
  }

  @Test
  void nullCellsOfAHugeVectorColumnAllocateNothingBeyondTheFrame() throws Exception {
    RowsBodies.Builder b =
        RowsBodies.rows()
            .column("v", RowsBodies.vector("org.apache.cassandra.db.marshal.FloatType", 1 << 20));
    for (int r = 0; r < 4000; r++) {
      b.row((String) null);
    }
    ByteBuf body = b.build();
    com.sun.management.ThreadMXBean mx =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    long before = mx.getThreadAllocatedBytes(Thread.currentThread().getId());
    ColumnarSink sink = read(body);
    long allocated = mx.getThreadAllocatedBytes(Thread.currentThread().getId()) - before;
    assertEquals(4000, sink.rowCount());
    assertEquals(4000, sink.column(0).nulls().cardinality());
    assertTrue(allocated < 16L << 20, "allocated " + allocated + " bytes for 4000 NULL cells");
  }

  @Test
  void padsTrailingNullRowsOfAnOrdinaryMatrixToTheFullRowCount() {
    RowsBodies.Builder b =
        RowsBodies.rows()
            .column("v", RowsBodies.vector("org.apache.cassandra.db.marshal.FloatType", 4));
    b.row("3f800000400000004040000040800000");
    for (int r = 0; r < 9; r++) {
      b.row((String) null);
    }
    ColumnarSink sink = read(b.build());
    assertEquals(40, sink.column(0).floats().length);
    assertEquals(4f, sink.column(0).floats()[3]);
    assertEquals(0f, sink.column(0).floats()[39]);
  }

  @Test
  void copiesAVectorPageStraightIntoAMatrixSizedFromTheFrame() throws Exception {
    RowsBodies.Builder b =
        RowsBodies.rows()
            .column("v", RowsBodies.vector("org.apache.cassandra.db.marshal.FloatType", 1536));
    StringBuilder cell = new StringBuilder();
    for (int i = 0; i < 1536; i++) {
      cell.append(String.format("%08x", Float.floatToIntBits(i)));
    }
    for (int r = 0; r < 200; r++) {
      b.row(cell.toString());
    }
    ByteBuf body = b.build();
    ColumnarSink sink = new ColumnarSink();
    ResultReader reader = new ResultReader(4);
    Decoding.read(reader, body.copy(), sink, null); // warm up the classes
    com.sun.management.ThreadMXBean mx =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    long matrixBytes = 200L * 1536 * 4;
    long bound = matrixBytes + (256 << 10);
    ByteBuf page = body.copy();
    long before = mx.getThreadAllocatedBytes(Thread.currentThread().getId());
    Decoding.read(reader, page, sink, null);
    long allocated = mx.getThreadAllocatedBytes(Thread.currentThread().getId()) - before;
    body.release();
    float[] matrix = sink.column(0).floats();
    assertEquals(200 * 1536, matrix.length);
    assertEquals(1535f, matrix[199 * 1536 + 1535]);
    // The bound holds for the scalar copy from the first read; this class also runs in the
    // scalar-fallback JVM, where it is checked. The SIMD copy allocates whenever it is not
    // C2-compiled code, and JDK 17's C2 can settle on a form that boxes every vector for good
    // (seen in this JVM: 6 MB a page still after 60 s of reads), one reason it is opt-in (see
    // VectorCopy).
    if (!VectorCopy.simd()) {
      assertTrue(
          allocated < bound,
          "allocated " + allocated + " bytes for a " + matrixBytes + "-byte matrix: one copy");
    }
  }

  @Test
  void reusesItsArraysAcrossPagesWhenAsked() {
    String vector = RowsBodies.vector("org.apache.cassandra.db.marshal.FloatType", 2);
    ColumnarSink sink = new ColumnarSink().reuseArrays(true);
    ResultReader reader = new ResultReader(4);
    Decoding.read(
        reader,
        RowsBodies.rows()
            .column("id", 0x0009)
            .column("v", vector)
            .row("00000001", "3f80000040000000")
            .row("00000002", "4040000040800000")
            .build(),
        sink,
        null);
    float[] matrix = sink.column(1).floats();
    int[] ids = sink.column(0).ints();
    Decoding.read(
        reader,
        RowsBodies.rows().column("id", 0x0009).column("v", vector).row("00000003", null).build(),
        sink,
        null);
    assertEquals(1, sink.rowCount());
    assertSame(matrix, sink.column(1).floats(), "the same matrix, no allocation");
    assertSame(ids, sink.column(0).ints());
    assertEquals(3, sink.column(0).ints()[0]);
    assertTrue(sink.column(1).isNull(0));
    assertEquals(0f, sink.column(1).floats()[0], "a NULL row's slots are zeroed");
    assertEquals(0f, sink.column(1).floats()[1]);
    assertFalse(sink.column(1).isNull(1), "the bitmap is per result");
  }

  @Test
  void collectsOnlySelectedColumnsAndSkipsTheOthersUndecoded() {
    ColumnarSink sink = new ColumnarSink().selectColumnsByName("id", "d", "absent");
    // column t is text; column bad is an int whose cells have 3 bytes: never decoded, no error
    Decoding.read(
        new ResultReader(4),
        RowsBodies.rows()
            .column("id", 0x0009)
            .column("t", 0x000D)
            .column("bad", 0x0009)
            .column("d", 0x0007)
            .row("00000001", "6869", "000000", "3ff0000000000000")
            .row("00000002", null, "000000", null)
            .build(),
        sink,
        null);
    assertEquals(2, sink.rowCount());
    assertEquals(4, sink.columnCount());
    assertTrue(sink.isSelected(0));
    assertFalse(sink.isSelected(1));
    assertFalse(sink.isSelected(2));
    assertTrue(sink.isSelected(3));
    assertArrayEquals(new int[] {1, 2}, sink.column(0).ints());
    assertArrayEquals(new double[] {1d, 0d}, sink.column(3).doubles());
    assertTrue(sink.column(3).isNull(1));
    org.junit.jupiter.api.Assertions.assertThrows(
        IllegalArgumentException.class, () -> sink.column(1), "column 1 was not selected");

    sink.selectColumns(1);
    Decoding.read(
        new ResultReader(4),
        RowsBodies.rows().column("id", 0x0009).column("t", 0x000D).row("00000003", "6869").build(),
        sink,
        null);
    assertFalse(sink.isSelected(0));
    assertEquals(List.of("hi"), List.of(sink.column(1).objects()));
    org.junit.jupiter.api.Assertions.assertThrows(
        IllegalArgumentException.class, () -> sink.selectColumns(-1));

    sink.selectAllColumns();
    Decoding.read(
        new ResultReader(4),
        RowsBodies.rows().column("id", 0x0009).column("t", 0x000D).row("00000004", "6869").build(),
        sink,
        null);
    assertTrue(sink.isSelected(0) && sink.isSelected(1));
  }

  /** Paging into reused arrays with only primitive columns selected allocates ~nothing. */
  @Test
  void pagingPrimitiveColumnsIntoReusedArraysAllocatesNothingPerRow() {
    RowsBodies.Builder b =
        RowsBodies.rows()
            .column("id", 0x0009)
            .column("t", 0x000D)
            .column("ts", 0x000B)
            .column("u", 0x000C)
            .column("f", 0x0008)
            .column("v", RowsBodies.vector(RowsBodies.MARSHAL + "FloatType", 2));
    int rows = 5000;
    for (int r = 0; r < rows; r++) {
      b.row(
          String.format("%08x", r),
          "74657874",
          "0000000000000001",
          "00112233445566778899aabbccddeeff",
          r % 10 == 0 ? null : "3f800000",
          "3f80000040000000");
    }
    ByteBuf body = b.build();
    ColumnarSink sink =
        new ColumnarSink().reuseArrays(true).selectColumnsByName("id", "ts", "u", "f", "v");
    ResultReader reader = new ResultReader(4);
    for (int i = 0; i < 3; i++) { // first page allocates the arrays; warm the code
      Decoding.read(reader, body.copy(), sink, null);
    }
    com.sun.management.ThreadMXBean mx =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    long before = mx.getThreadAllocatedBytes(Thread.currentThread().getId());
    Decoding.read(reader, body, sink, null);
    long allocated = mx.getThreadAllocatedBytes(Thread.currentThread().getId()) - before;
    assertEquals(rows, sink.rowCount());
    assertEquals(rows - 1, sink.column(0).ints()[rows - 1]);
    assertEquals(rows / 10, sink.column(4).nulls().cardinality());
    assertTrue(allocated < rows, "allocated " + allocated + " bytes for " + rows + " rows");
  }
}
