package io.cqlrows.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.core.sink.Row;
import io.cqlrows.core.sink.RowsCollector;
import io.cqlrows.testing.RecordingSink;
import io.netty.buffer.ByteBuf;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Reads test bodies and releases them. Each helper takes ownership of the body (Ownership
 * transferred: the helper releases), and checks before releasing that the parser neither retained,
 * released nor moved it.
 */
public final class Decoding {
  private Decoding() {}

  /** Reads {@code body} with {@code reader}; the body is checked untouched and released. */
  public static CqlResult read(
      ResultReader reader, ByteBuf body, RowSink sink, ResultColumns prepared) {
    int readerIndex = body.readerIndex();
    int writerIndex = body.writerIndex();
    try {
      return reader.read(body, sink, prepared);
    } finally {
      assertEquals(1, body.refCnt(), "refCnt after read");
      assertEquals(readerIndex, body.readerIndex(), "readerIndex after read");
      assertEquals(writerIndex, body.writerIndex(), "writerIndex after read");
      assertTrue(body.release());
    }
  }

  /** All sink events of a protocol v4 read. */
  public static List<String> events(ByteBuf body) {
    RecordingSink sink = new RecordingSink();
    read(new ResultReader(4), body, sink, null);
    return sink.events();
  }

  /** Only the cell events ({@code "0:int 1"}), without start/row/end markers. */
  public static List<String> cellEvents(ByteBuf body) {
    return events(body).stream()
        .filter(e -> Character.isDigit(e.charAt(0)))
        .collect(Collectors.toList());
  }

  /** The one cell event of a one-column, one-row body. */
  public static String cellEvent(ByteBuf body) {
    List<String> cells = cellEvents(body);
    assertEquals(1, cells.size(), () -> "cell events: " + cells);
    return cells.get(0);
  }

  /** The rows, materialised by {@link RowsCollector}. */
  public static List<Row> rows(ByteBuf body) {
    RowsCollector sink = new RowsCollector();
    read(new ResultReader(4), body, sink, null);
    return sink.rows();
  }

  /** The one row of a body. */
  public static Row row(ByteBuf body) {
    List<Row> rows = rows(body);
    assertEquals(1, rows.size());
    return rows.get(0);
  }

  /** The object {@link RowsCollector} keeps for the first cell of a one-row body. */
  public static Object value(ByteBuf body) {
    return row(body).getObject(0);
  }

  /** The exception a protocol v4 read of {@code body} throws. */
  public static CqlParseException error(ByteBuf body) {
    return error(new ResultReader(4), body, null);
  }

  /** The exception a read throws. */
  public static CqlParseException error(ResultReader reader, ByteBuf body, ResultColumns prepared) {
    return assertThrows(
        CqlParseException.class, () -> read(reader, body, new RecordingSink(), prepared));
  }

  /** Asserts the reason, field, offset, row and column of an error. */
  public static void assertError(
      CqlParseException e,
      CqlParseException.Reason reason,
      String field,
      int offset,
      int row,
      int column) {
    assertEquals(reason, e.reason(), e::getMessage);
    assertEquals(field, e.field(), e::getMessage);
    assertEquals(offset, e.offset(), e::getMessage);
    assertEquals(row, e.row(), e::getMessage);
    assertEquals(column, e.column(), e::getMessage);
  }
}
