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
 * the exact width (or 0, empty); a {@code time} that it is a time of day; UTF-8 text by {@link
 * TextChecks#utf8} and, only when that refuses it, the deserializer ({@link
 * TextDeserializer#validate}), which gives the error; every other type by its deserializer's {@link
 * ValueDeserializer#validate}. The errors are those {@link RowsParser} raises for the same bytes,
 * with the same offset, row and column, so a cell the index accepts is one every getter of {@link
 * LazyRow} decodes without an error.
 */
final class RowsIndexer {
  /** What the index checks of a column's non-empty values. */
  // FIXED: the width; TIME: the width and the range; TEXT: well-formed UTF-8, else the
  // deserializer, which gives the error; BYTES: nothing; VALIDATE: the deserializer.
  private static final byte FIXED = 0;

  private static final byte TIME = 1;
  private static final byte TEXT = 2;
  private static final byte BYTES = 3;
  private static final byte VALIDATE = 4;

  private RowsIndexer() {}

  /**
   * Checks the rows in {@code [from, end)} and records where each row starts.
   *
   * @param buf the body. Borrowed.
   * @param bodyStart index of the body's first byte, for error offsets
   * @param rowStarts receives each row's index relative to {@code from}: the index of its first
   *     cell's 4-byte length
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
      int[] rowStarts) {
    final int width = kinds.length;
    // per column: the width of a fixed-width value (0 for the other kinds), and what to check
    final int[] widths = new int[width];
    final byte[] checks = new byte[width];
    for (int c = 0; c < width; c++) {
      widths[c] = fixedWidth(kinds[c]);
      checks[c] = check(kinds[c]);
    }
    final byte[] a = buf.hasArray() ? buf.array() : null;
    final int base = a != null ? buf.arrayOffset() : 0;
    int p = from;
    int row = 0;
    int column = -1;
    try {
      for (; row < rows; row++) {
        rowStarts[row] = p - from;
        for (column = 0; column < width; column++) {
          if (end - p < 4) {
            throw RowsParser.truncated("cell length", p, 4, end - p);
          }
          final int len = InlineCells.int32(a, base, buf, p);
          p += 4;
          if (len <= 0) {
            // NULL, not set or empty: every kind accepts them
            if (len < -2) {
              throw RowsParser.invalidLength(len, p - 4);
            }
            continue;
          }
          if (len > end - p) {
            throw RowsParser.truncated("cell", p, len, end - p);
          }
          switch (checks[column]) {
            case FIXED:
              if (len != widths[column]) {
                throw deserializers[column].lengthMismatch(p, widths[column], len);
              }
              break;
            case TIME:
              if (len != 8) {
                throw deserializers[column].lengthMismatch(p, 8, len);
              }
              TimeDeserializer.checked(
                  InlineCells.int64(a, base, buf, p), p, deserializers[column].type);
              break;
            case TEXT:
              if (a == null || !TextChecks.utf8(a, base + p, len)) {
                deserializers[column].validate(buf, p, len);
              }
              break;
            case VALIDATE:
              deserializers[column].validate(buf, p, len);
              break;
            default: // BYTES: any bytes are a value
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

  private static byte check(int kind) {
    if (kind == InlineCells.TIME) {
      return TIME;
    } else if (fixedWidth(kind) > 0) {
      return FIXED;
    } else if (kind == InlineCells.TEXT) {
      return TEXT;
    } else if (kind == InlineCells.BLOB) {
      return BYTES;
    }
    return VALIDATE;
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
