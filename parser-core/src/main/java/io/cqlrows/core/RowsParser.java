package io.cqlrows.core;

import io.cqlrows.core.CqlParseException.Reason;
import io.netty.buffer.ByteBuf;

/**
 * The row loop of one ROWS result: {@code rows_count x columns_count} cells, each a {@code [bytes]}
 * (native_protocol_v5.spec section 4.2.5.2). Per cell it reads the length, then decodes the value:
 * fixed-width native types and text inline ({@link InlineCells}, a switch and, for heap buffers,
 * reads from the backing array), every other type by one virtual call to the column's
 * deserializer.
 *
 * <p><b>Resumable.</b> {@link #parse} consumes whole rows only. With {@code complete == false} it
 * first checks that the next row's bytes are all present and, if not, stops at the row boundary
 * and returns; a later call with more bytes resumes there. With {@code complete == true} the
 * window is the whole rest of the body, and a row that runs past it is a TRUNCATED error.
 *
 * <p>Not thread-safe; one instance per result being parsed.
 */
final class RowsParser {
  private final RowsMetadata metadata;
  private final ResultColumns columns;
  private final ValueDeserializer[] deserializers;
  private final boolean[] wanted;
  private final int[] kinds;
  private final RowSink sink;
  private final int rowCount;
  private int nextRow;
  /**
   * A duplicate of the buffer being parsed, re-windowed for each blob cell: one per {@link #parse}
   * call instead of a slice per cell (slices were 40% of a mixed-scalar parse). Null between
   * calls.
   */
  private ByteBuf blobView;

  RowsParser(RowsMetadata metadata, ValueDeserializer[] deserializers, RowSink sink, int rowCount) {
    this.metadata = metadata;
    this.columns = metadata.columns();
    this.deserializers = deserializers;
    this.sink = sink;
    this.rowCount = rowCount;
    this.wanted = new boolean[deserializers.length];
    this.kinds = new int[deserializers.length];
    for (int c = 0; c < wanted.length; c++) {
      wanted[c] = sink.wantsColumn(c);
      kinds[c] = InlineCells.kindOf(deserializers[c]);
    }
  }

  /** Whether every row has been delivered. */
  boolean done() {
    return nextRow == rowCount;
  }

  /** The result, once {@link #done()}. */
  RowsResult result() {
    return new RowsResult(metadata, rowCount);
  }

  /** Rows delivered so far. */
  int rowsDelivered() {
    return nextRow;
  }

  /**
   * Delivers whole rows from {@code [from, end)}.
   *
   * @param buf the body. Borrowed.
   * @param bodyStart index of the body's first byte, for error offsets
   * @return the index after the last complete row delivered
   */
  int parse(ByteBuf buf, int bodyStart, int from, int end, boolean complete) {
    int p = from;
    int row = nextRow;
    int column = -1;
    byte[] array = buf.hasArray() ? buf.array() : null;
    int base = array != null ? buf.arrayOffset() : 0;
    try {
      for (; row < rowCount; row++) {
        if (!complete && rowEnd(array, base, buf, p, end) < 0) {
          break;
        }
        sink.onRowStart(row);
        for (column = 0; column < deserializers.length; column++) {
          p = cell(array, base, buf, p, end, column);
        }
        column = -1;
        sink.onRowEnd(row);
        nextRow = row + 1;
      }
      return p;
    } catch (CqlParseException e) {
      ColumnSpec spec = column >= 0 ? columns.get(column) : null;
      throw e.withContext(buf, bodyStart, row, column,
          spec == null ? null : spec.name(), spec == null ? null : spec.type());
    } finally {
      blobView = null;
    }
  }

  /**
   * One cell at {@code p}: returns the index after it.
   *
   * @param array {@code buf}'s backing array, or null
   * @param base {@code buf.arrayOffset()} if {@code array} is not null
   */
  private int cell(byte[] array, int base, ByteBuf buf, int p, int end, int column) {
    if (end - p < 4) {
      throw CqlParseException.at(Reason.TRUNCATED, "cell length", p, null,
          "need 4 bytes, have " + (end - p));
    }
    int len = InlineCells.int32(array, base, buf, p);
    p += 4;
    if (len < 0) {
      nullOrNotSet(len, p - 4, column);
      return p;
    }
    if (len > end - p) {
      throw CqlParseException.at(Reason.TRUNCATED, "cell", p, null,
          "need " + len + " bytes, have " + (end - p));
    }
    if (wanted[column]) {
      ValueDeserializer d = deserializers[column];
      int kind = kinds[column];
      if (kind == InlineCells.BLOB) {
        if (blobView == null) {
          blobView = buf.duplicate();
        }
        sink.onBlob(column, blobView.setIndex(p, p + len));
      } else if (kind != InlineCells.CALL) {
        InlineCells.deliver(kind, array, base, buf, p, len, sink, column, d);
      } else if (len == 0 && !d.emptyIsValue()) {
        sink.onEmpty(column);
      } else {
        d.deliver(buf, p, len, sink, column);
      }
    }
    return p + len;
  }

  private void nullOrNotSet(int len, int at, int column) {
    if (len == -1) {
      if (wanted[column]) {
        sink.onNull(column);
      }
    } else if (len == -2) {
      if (wanted[column]) {
        sink.onNotSet(column);
      }
    } else {
      throw CqlParseException.at(Reason.INVALID_LENGTH, "cell length", at, null,
          len + " (expected: >= -2)");
    }
  }

  /** The index after the row starting at {@code p}, or -1 if it is not all in {@code [p, end)}. */
  private int rowEnd(byte[] array, int base, ByteBuf buf, int p, int end) {
    for (int c = 0; c < deserializers.length; c++) {
      if (end - p < 4) {
        return -1;
      }
      int len = InlineCells.int32(array, base, buf, p);
      p += 4;
      if (len > 0) {
        if (len > end - p) {
          return -1;
        }
        p += len;
      }
    }
    return p;
  }
}
