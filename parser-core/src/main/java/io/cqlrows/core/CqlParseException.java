package io.cqlrows.core;

import io.cqlrows.core.type.CqlType;
import io.netty.buffer.ByteBuf;

/**
 * A RESULT body (or a part of one: a type, a value, a custom payload) that cqlrows cannot accept: a
 * truncated body, an invalid length, a value of the wrong size, an unknown type id, a limit
 * exceeded. The {@link CqlException} of {@code cqlrows-core}.
 *
 * <p>It carries where the problem is: the {@link #reason()}, the wire {@link #field()} being read,
 * the byte {@link #offset()} from the start of the RESULT body, the {@link #row()} and {@link
 * #column()} (or {@code -1}), the column name and the CQL type. The message is derived from these
 * fields, for example {@code truncated cell at offset 1234 (row 7, column 3 'embedding'
 * vector<float, 768>): need 3072 bytes, have 100}. Tests and callers should inspect the fields, not
 * the message text.
 *
 * <p>Instances are immutable. The parser creates them with the absolute buffer index and adds the
 * row and column context on the way out ({@link #withContext}).
 */
public final class CqlParseException extends CqlException {
  private static final long serialVersionUID = 1L;

  /** What was wrong with the input. */
  public enum Reason implements CqlException.Reason {
    /** Fewer bytes than a length, count or fixed-width field requires. */
    TRUNCATED,
    /** A length below {@code -2} (or below {@code -1} where not-set is not allowed). */
    INVALID_LENGTH,
    /** A value whose size is not the one its type requires (e.g. 3 bytes for an int). */
    LENGTH_MISMATCH,
    /** Bytes left over after a complete value (vector, UDT, tuple, collection). */
    TRAILING_BYTES,
    /** A count (columns, rows, elements, fields) that is negative. */
    INVALID_COUNT,
    /** An {@code [option]} type id that the protocol does not define. */
    UNKNOWN_TYPE_ID,
    /** A custom type class name that cannot be parsed. */
    INVALID_TYPE_NAME,
    /** Type nesting deeper than {@link ParseLimits#maxTypeDepth()}. */
    TYPE_TOO_DEEP,
    /** A configured limit of {@link ParseLimits} was exceeded. */
    LIMIT_EXCEEDED,
    /** A value whose bytes are well framed but mean nothing valid (e.g. time beyond 24 h). */
    INVALID_VALUE,
    /** A RESULT kind that the protocol does not define. */
    UNKNOWN_RESULT_KIND,
    /** Result metadata that cannot be used: No_metadata without prepared columns, or a mismatch. */
    METADATA_MISMATCH
  }

  private static final int NOT_SET = Integer.MIN_VALUE;

  private final Reason reason;
  private final String field;
  private final String detail;
  private final int index;
  private final int offset;
  private final int row;
  private final int column;
  private final String columnName;
  private final CqlType type;
  private final String hexSnippet;

  private CqlParseException(
      Reason reason,
      String field,
      String detail,
      int index,
      int offset,
      int row,
      int column,
      String columnName,
      CqlType type,
      String hexSnippet,
      Throwable cause) {
    super(null, cause);
    this.reason = reason;
    this.field = field;
    this.detail = detail;
    this.index = index;
    this.offset = offset;
    this.row = row;
    this.column = column;
    this.columnName = columnName;
    this.type = type;
    this.hexSnippet = hexSnippet;
  }

  /**
   * Creates an exception at an absolute buffer index; the parser converts it to a body offset and
   * adds row and column context.
   *
   * @param reason what was wrong
   * @param field the wire field being read, in spec vocabulary ({@code "rows_count"}, {@code
   *     "cell"}, {@code "list element"})
   * @param index absolute reader index in the buffer being parsed, or {@code -1} if unknown
   * @param type the CQL type being decoded, or {@code null}
   * @param detail what was expected and found, e.g. {@code "need 8 bytes, have 3"}
   */
  static CqlParseException at(Reason reason, String field, int index, CqlType type, String detail) {
    return new CqlParseException(
        reason, field, detail, index, NOT_SET, -1, -1, null, type, null, null);
  }

  /** Returns a copy with the body offset, row and column context filled in where still unknown. */
  CqlParseException withContext(
      ByteBuf body, int bodyStart, int row, int column, String columnName, CqlType columnType) {
    int off = offset != NOT_SET ? offset : (index >= 0 ? index - bodyStart : -1);
    String snippet = hexSnippet;
    if (snippet == null && body != null && index >= bodyStart) {
      snippet = hexAround(body, index);
    }
    return new CqlParseException(
        reason,
        field,
        detail,
        index,
        off,
        this.row >= 0 ? this.row : row,
        this.column >= 0 ? this.column : column,
        this.columnName != null ? this.columnName : columnName,
        this.type != null ? this.type : columnType,
        snippet,
        getCause());
  }

  /**
   * Returns a copy whose offset is shifted by {@code delta} (used when a body is parsed in parts).
   */
  CqlParseException shifted(long delta) {
    if (offset == NOT_SET || offset < 0) {
      return this;
    }
    long off = offset + delta;
    return new CqlParseException(
        reason,
        field,
        detail,
        index,
        (int) Math.min(Integer.MAX_VALUE, off),
        row,
        column,
        columnName,
        type,
        hexSnippet,
        getCause());
  }

  private static String hexAround(ByteBuf buf, int index) {
    int from = Math.max(buf.readerIndex(), index - 8);
    int to = Math.min(buf.writerIndex(), index + 24);
    if (from >= to || index > buf.writerIndex()) {
      return "";
    }
    StringBuilder sb = new StringBuilder((to - from) * 3);
    for (int i = from; i < to; i++) {
      if (i == index) {
        sb.append('>');
      } else if (i > from) {
        sb.append(' ');
      }
      int b = buf.getUnsignedByte(i);
      sb.append(Character.forDigit(b >> 4, 16)).append(Character.forDigit(b & 0xF, 16));
    }
    return sb.toString();
  }

  /** What was wrong. */
  @Override
  public Reason reason() {
    return reason;
  }

  /** The wire field being read, e.g. {@code "rows_count"}, {@code "cell"}, {@code "map key"}. */
  public String field() {
    return field;
  }

  /** Bytes from the start of the RESULT body (the byte after the envelope prelude), or -1. */
  public int offset() {
    return offset == NOT_SET ? -1 : offset;
  }

  /** Zero-based row index, or -1 when the error is not inside a row. */
  public int row() {
    return row;
  }

  /** Zero-based column index, or -1 when the error is not inside a column. */
  public int column() {
    return column;
  }

  /** The column's name, or {@code null}. */
  public String columnName() {
    return columnName;
  }

  /** The CQL type being decoded, or {@code null}. */
  public CqlType type() {
    return type;
  }

  /** What was expected and what was found, e.g. {@code need 8 bytes, have 3}. */
  public String detail() {
    return detail;
  }

  /** Up to 32 bytes of hex around the offset, the failing byte marked with {@code >}; or "". */
  public String hexSnippet() {
    return hexSnippet == null ? "" : hexSnippet;
  }

  @Override
  public String getMessage() {
    StringBuilder sb = new StringBuilder(96);
    sb.append(reason.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' '));
    sb.append(' ').append(field);
    int off = offset();
    if (off >= 0) {
      sb.append(" at offset ").append(off);
    }
    boolean paren = row >= 0 || column >= 0 || type != null;
    if (paren) {
      sb.append(" (");
      String sep = "";
      if (row >= 0) {
        sb.append("row ").append(row);
        sep = ", ";
      }
      if (column >= 0) {
        sb.append(sep).append("column ").append(column);
        if (columnName != null) {
          sb.append(" '").append(columnName).append('\'');
        }
        sep = " ";
      }
      if (type != null) {
        sb.append(sep.isEmpty() ? "" : " ").append(type);
      }
      sb.append(')');
    }
    if (detail != null && !detail.isEmpty()) {
      sb.append(": ").append(detail);
    }
    if (hexSnippet != null && !hexSnippet.isEmpty()) {
      sb.append(" [").append(hexSnippet).append(']');
    }
    return sb.toString();
  }
}
