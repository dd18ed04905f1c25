package io.cqlrows.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.core.type.NativeType;
import io.cqlrows.core.type.VectorType;
import io.cqlrows.testing.CqlBytes;
import io.cqlrows.testing.RecordingSink;
import io.netty.buffer.ByteBuf;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The row loop on its own: whole windows, and resumption at row boundaries. */
class RowsParserTest {
  private static final ResultColumns COLUMNS =
      ResultColumns.of(
          List.of(
              new ColumnSpec("ks", "t", "id", NativeType.INT),
              new ColumnSpec("ks", "t", "name", NativeType.TEXT),
              new ColumnSpec("ks", "t", "v", new VectorType(NativeType.FLOAT, 2))));

  /** Twenty rows of cells (no metadata): id, name (NULL every third row), v. */
  private static ByteBuf rows() {
    CqlBytes b = CqlBytes.create();
    for (int r = 0; r < 20; r++) {
      b.int32(4).int32(r);
      if (r % 3 == 0) {
        b.nullCell();
      } else {
        b.bytes(CqlBytes.create().hex("6e").int8('0' + r % 10).toHex());
      }
      b.int32(8).hex("3f800000").int32(Float.floatToIntBits(r));
    }
    return b.toByteBuf();
  }

  private static RowsParser parser(RecordingSink sink) {
    return new RowsParser(
        new RowsMetadata(0, COLUMNS.size(), null, null, COLUMNS),
        DeserializerFactory.forColumns(COLUMNS.specs(), ParseLimits.defaults()),
        sink,
        20);
  }

  @Test
  void resumesAtRowBoundariesForEverySplit() {
    ByteBuf all = rows();
    try {
      RecordingSink whole = new RecordingSink();
      RowsParser p = parser(whole);
      assertEquals(all.writerIndex(), p.parse(all, 0, 0, all.writerIndex(), true));
      assertTrue(p.done());
      Random random = new Random(42);
      for (int trial = 0; trial < 200; trial++) {
        RecordingSink parts = new RecordingSink();
        RowsParser q = parser(parts);
        int pos = 0;
        int available = 0;
        while (!q.done()) {
          available = Math.min(all.writerIndex(), available + 1 + random.nextInt(40));
          int next = q.parse(all, 0, pos, available, false);
          assertTrue(next >= pos && next <= available);
          pos = next;
        }
        assertEquals(all.writerIndex(), pos);
        assertEquals(whole.events(), parts.events(), "trial " + trial);
      }
    } finally {
      all.release();
    }
  }

  @Test
  void stopsWithoutEventsWhenTheFirstRowIsIncomplete() {
    ByteBuf all = rows();
    try {
      RecordingSink sink = new RecordingSink();
      RowsParser p = parser(sink);
      assertEquals(0, p.parse(all, 0, 0, 10, false));
      assertTrue(sink.events().isEmpty());
      assertFalse(p.done());
      assertEquals(0, p.rowsDelivered());
    } finally {
      all.release();
    }
  }

  @Test
  void reportsTheRowAndColumnOfATruncatedCellWhenComplete() {
    ByteBuf all = rows();
    try {
      CqlParseException e =
          assertThrows(
              CqlParseException.class,
              () -> parser(new RecordingSink()).parse(all, 0, 0, all.writerIndex() - 3, true));
      assertEquals(CqlParseException.Reason.TRUNCATED, e.reason());
      assertEquals(19, e.row());
      assertEquals(2, e.column());
      assertEquals("v", e.columnName());
    } finally {
      all.release();
    }
  }
}
