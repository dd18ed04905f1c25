package io.cqlrows.core;

import io.cqlrows.core.CqlParseException.Reason;
import io.cqlrows.core.ScalarDeserializers.DateDeserializer;
import io.cqlrows.core.ScalarDeserializers.TimeDeserializer;
import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/**
 * The row loop of one ROWS result: {@code rows_count x columns_count} cells, each a {@code [bytes]}
 * (native_protocol_v5.spec section 4.2.5.2). Per cell it reads the length, then decodes the value:
 * fixed-width native types, text and blobs by a switch on the column's {@link InlineCells} kind
 * right in the loop (for heap buffers reading from the backing array), every other type by one
 * virtual call to the column's deserializer.
 *
 * <p>The loop, the switch and the sink calls are one method on purpose: the JIT compiles it as a
 * whole, with a sink call site per kind. A method per cell or per switch would be too large for the
 * JIT to inline, and its calls would then cost about as much as decoding a page of mixed scalars.
 * Only the error paths call out, to small helpers.
 *
 * <p><b>Resumable.</b> {@link #parse} consumes whole rows only. With {@code complete == false} it
 * first checks that the next row's bytes are all present and, if not, stops at the row boundary and
 * returns; a later call with more bytes resumes there. With {@code complete == true} the window is
 * the whole rest of the body, and a row that runs past it is a TRUNCATED error.
 *
 * <p>Not thread-safe; one instance per result being parsed.
 */
final class RowsParser {
  /** The kind of a column the sink does not want: its cells are skipped by length. */
  private static final int SKIP = -1;

  private final RowsMetadata metadata;
  private final ResultColumns columns;
  private final ValueDeserializer[] deserializers;

  /** Per column, its {@link InlineCells} kind, or {@link #SKIP}. */
  private final int[] kinds;

  private final RowSink sink;
  private final int rowCount;
  private int nextRow;

  RowsParser(RowsMetadata metadata, ValueDeserializer[] deserializers, RowSink sink, int rowCount) {
    this.metadata = metadata;
    this.columns = metadata.columns();
    this.deserializers = deserializers;
    this.sink = sink;
    this.rowCount = rowCount;
    this.kinds = new int[deserializers.length];
    for (int c = 0; c < kinds.length; c++) {
      kinds[c] = sink.wantsColumn(c) ? InlineCells.kindOf(deserializers[c]) : SKIP;
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

  /** The metadata of the result. */
  RowsMetadata metadata() {
    return metadata;
  }

  /** The deserializer of each column. */
  ValueDeserializer[] deserializers() {
    return deserializers;
  }

  /** {@code rows_count}. */
  int rowCount() {
    return rowCount;
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
    final RowSink sink = this.sink;
    final int[] kinds = this.kinds;
    final int width = kinds.length;
    // a is buf's backing array, or null: then every read goes through buf
    final byte[] a = buf.hasArray() ? buf.array() : null;
    final int base = a != null ? buf.arrayOffset() : 0;
    // one duplicate per call, re-windowed for each blob cell, instead of a slice per cell
    ByteBuf blobView = null;
    int p = from;
    int row = nextRow;
    int column = -1;
    try {
      for (; row < rowCount; row++) {
        if (!complete && rowEnd(a, base, buf, p, end) < 0) {
          break;
        }
        sink.onRowStart(row);
        for (column = 0; column < width; column++) {
          if (end - p < 4) {
            throw truncated("cell length", p, 4, end - p);
          }
          final int len = InlineCells.int32(a, base, buf, p);
          p += 4;
          if (len < 0) {
            nullOrNotSet(len, p - 4, column);
            continue;
          }
          if (len > end - p) {
            throw truncated("cell", p, len, end - p);
          }
          // each case its own sink call site; a fixed-width cell of another length goes to
          // otherLength (empty, or an error)
          switch (kinds[column]) {
            case SKIP:
              break;
            case InlineCells.INT:
              if (len == 4) {
                sink.onInt(column, InlineCells.int32(a, base, buf, p));
              } else {
                otherLength(column, p, 4, len);
              }
              break;
            case InlineCells.BIGINT:
              if (len == 8) {
                sink.onBigint(column, InlineCells.int64(a, base, buf, p));
              } else {
                otherLength(column, p, 8, len);
              }
              break;
            case InlineCells.TEXT:
              String s =
                  a != null
                      ? new String(a, base + p, len, StandardCharsets.UTF_8)
                      : buf.toString(p, len, StandardCharsets.UTF_8);
              sink.onString(
                  column, ((TextDeserializer) deserializers[column]).checkedUtf8(s, buf, p, len));
              break;
            case InlineCells.BLOB:
              if (blobView == null) {
                blobView = buf.duplicate();
              }
              sink.onBlob(column, blobView.setIndex(p, p + len));
              break;
            case InlineCells.UUID:
              if (len == 16) {
                sink.onUuid(
                    column,
                    InlineCells.int64(a, base, buf, p),
                    InlineCells.int64(a, base, buf, p + 8));
              } else {
                otherLength(column, p, 16, len);
              }
              break;
            case InlineCells.TIMESTAMP:
              if (len == 8) {
                sink.onTimestamp(column, InlineCells.int64(a, base, buf, p));
              } else {
                otherLength(column, p, 8, len);
              }
              break;
            case InlineCells.DOUBLE:
              if (len == 8) {
                sink.onDouble(column, Double.longBitsToDouble(InlineCells.int64(a, base, buf, p)));
              } else {
                otherLength(column, p, 8, len);
              }
              break;
            case InlineCells.FLOAT:
              if (len == 4) {
                sink.onFloat(column, Float.intBitsToFloat(InlineCells.int32(a, base, buf, p)));
              } else {
                otherLength(column, p, 4, len);
              }
              break;
            case InlineCells.BOOLEAN:
              if (len == 1) {
                sink.onBoolean(column, InlineCells.int8(a, base, buf, p) != 0);
              } else {
                otherLength(column, p, 1, len);
              }
              break;
            case InlineCells.TINYINT:
              if (len == 1) {
                sink.onTinyint(column, InlineCells.int8(a, base, buf, p));
              } else {
                otherLength(column, p, 1, len);
              }
              break;
            case InlineCells.SMALLINT:
              if (len == 2) {
                sink.onSmallint(column, InlineCells.int16(a, base, buf, p));
              } else {
                otherLength(column, p, 2, len);
              }
              break;
            case InlineCells.DATE:
              if (len == 4) {
                sink.onDate(column, DateDeserializer.epochDays(InlineCells.int32(a, base, buf, p)));
              } else {
                otherLength(column, p, 4, len);
              }
              break;
            case InlineCells.TIME:
              if (len == 8) {
                sink.onTime(
                    column,
                    TimeDeserializer.checked(
                        InlineCells.int64(a, base, buf, p), p, deserializers[column].type));
              } else {
                otherLength(column, p, 8, len);
              }
              break;
            default: // InlineCells.CALL
              ValueDeserializer d = deserializers[column];
              if (len == 0 && !d.emptyIsValue()) {
                sink.onEmpty(column);
              } else {
                d.deliver(buf, p, len, sink, column);
              }
          }
          p += len;
        }
        column = -1;
        sink.onRowEnd(row);
        nextRow = row + 1;
      }
      return p;
    } catch (CqlParseException e) {
      ColumnSpec spec = column >= 0 ? columns.get(column) : null;
      throw e.withContext(
          buf,
          bodyStart,
          row,
          column,
          spec == null ? null : spec.name(),
          spec == null ? null : spec.type());
    }
  }

  static CqlParseException truncated(String what, int at, int need, int have) {
    return CqlParseException.at(
        Reason.TRUNCATED, what, at, null, "need " + need + " bytes, have " + have);
  }

  /** A fixed-width cell of {@code len != width} bytes: empty, or the column's length error. */
  private void otherLength(int column, int p, int width, int len) {
    if (len == 0) {
      sink.onEmpty(column);
    } else {
      throw deserializers[column].lengthMismatch(p, width, len);
    }
  }

  private void nullOrNotSet(int len, int at, int column) {
    if (len == -1) {
      if (kinds[column] != SKIP) {
        sink.onNull(column);
      }
    } else if (len == -2) {
      if (kinds[column] != SKIP) {
        sink.onNotSet(column);
      }
    } else {
      throw invalidLength(len, at);
    }
  }

  /** The error for a cell length below -2. */
  static CqlParseException invalidLength(int len, int at) {
    return CqlParseException.at(
        Reason.INVALID_LENGTH, "cell length", at, null, len + " (expected: >= -2)");
  }

  /** The index after the row starting at {@code p}, or -1 if it is not all in {@code [p, end)}. */
  private int rowEnd(byte[] array, int base, ByteBuf buf, int p, int end) {
    for (int c = 0; c < kinds.length; c++) {
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
