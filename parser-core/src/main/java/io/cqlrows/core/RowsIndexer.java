package io.cqlrows.core;

import io.cqlrows.core.ScalarDeserializers.TimeDeserializer;
import io.netty.buffer.ByteBuf;

/**
 * The structural parse of a ROWS result for a {@link LazyPage}: every cell's length is read and
 * checked, every value is checked as {@link RowsParser} would check it on its way to a sink, and
 * where each cell starts is recorded; no value is decoded into anything kept.
 *
 * <p>What is checked per cell, by the column's {@link InlineCells} kind: the length ({@code -1}
 * NULL, {@code -2} not set, below that invalid, past the end truncated); for the fixed-width kinds
 * the exact width (or 0, empty); a {@code time} that it is a time of day; UTF-8 text, by a scan for
 * bytes above 0x7F and, only when there is one, the decoder's verdict ({@link
 * TextDeserializer#validate}); every other type by its deserializer's {@link
 * ValueDeserializer#validate}. The errors are those {@link RowsParser} raises for the same bytes,
 * with the same offset, row and column, so a cell the index accepts is one every getter of {@link
 * LazyRow} decodes without an error.
 */
final class RowsIndexer {
  private RowsIndexer() {}

  /**
   * Checks the rows in {@code [from, end)} and records where each cell starts.
   *
   * @param buf the body. Borrowed.
   * @param bodyStart index of the body's first byte, for error offsets
   * @param cells receives, row-major, each cell's index relative to {@code from}: the index of its
   *     4-byte length; its length is {@code rows x kinds.length}
   * @return the index after the last row
   */
  static int index(
      ByteBuf buf,
      int bodyStart,
      int from,
      int end,
      RowsMetadata metadata,
      ValueDeserializer[] deserializers,
      int[] kinds,
      int rows,
      int[] cells) {
    final int width = kinds.length;
    final byte[] a = buf.hasArray() ? buf.array() : null;
    final int base = a != null ? buf.arrayOffset() : 0;
    int p = from;
    int row = 0;
    int column = -1;
    int cell = 0;
    try {
      for (; row < rows; row++) {
        for (column = 0; column < width; column++) {
          if (end - p < 4) {
            throw RowsParser.truncated("cell length", p, 4, end - p);
          }
          cells[cell++] = p - from;
          final int len = InlineCells.int32(a, base, buf, p);
          p += 4;
          if (len < 0) {
            if (len < -2) {
              throw RowsParser.invalidLength(len, p - 4);
            }
            continue;
          }
          if (len > end - p) {
            throw RowsParser.truncated("cell", p, len, end - p);
          }
          final int width0 = fixedWidth(kinds[column]);
          if (width0 > 0) {
            if (len != width0 && len != 0) {
              throw deserializers[column].lengthMismatch(p, width0, len);
            }
            if (len != 0 && kinds[column] == InlineCells.TIME) {
              TimeDeserializer.checked(
                  InlineCells.int64(a, base, buf, p), p, deserializers[column].type);
            }
          } else if (kinds[column] == InlineCells.TEXT) {
            if (a == null || !Ascii.all(a, base + p, len)) {
              deserializers[column].validate(buf, p, len);
            }
          } else if (kinds[column] != InlineCells.BLOB) {
            ValueDeserializer d = deserializers[column];
            if (len != 0 || d.emptyIsValue()) {
              d.validate(buf, p, len);
            }
          }
          p += len;
        }
        column = -1;
      }
      return p;
    } catch (CqlParseException e) {
      ColumnSpec spec = column >= 0 ? metadata.columns().get(column) : null;
      throw e.withContext(
          buf,
          bodyStart,
          row,
          column,
          spec == null ? null : spec.name(),
          spec == null ? null : spec.type());
    }
  }

  /** The width of the values of a fixed-width inline kind, or 0 for the other kinds. */
  static int fixedWidth(int kind) {
    switch (kind) {
      case InlineCells.BOOLEAN:
      case InlineCells.TINYINT:
        return 1;
      case InlineCells.SMALLINT:
        return 2;
      case InlineCells.INT:
      case InlineCells.FLOAT:
      case InlineCells.DATE:
        return 4;
      case InlineCells.BIGINT:
      case InlineCells.DOUBLE:
      case InlineCells.TIMESTAMP:
      case InlineCells.TIME:
        return 8;
      case InlineCells.UUID:
        return 16;
      default:
        return 0;
    }
  }
}
