package io.cqlrows.netty.cli;

import io.cqlrows.core.ColumnSpec;
import io.cqlrows.core.RowsMetadata;
import io.cqlrows.core.sink.CanonicalJson;
import io.cqlrows.core.sink.RowSink;
import io.cqlrows.core.type.CqlType;
import io.cqlrows.core.type.VectorType;
import java.io.PrintStream;
import java.lang.reflect.Array;
import java.util.ArrayList;
import java.util.List;

/**
 * Prints each ROWS result as {@code stream N: M rows} and an aligned text table: column names,
 * a rule, one line per row. Cells are rendered by {@link CanonicalJson} with the quotes of a
 * value rendered as a JSON string dropped (text, bigint, float, blob, dates...; escapes stay, so
 * control characters remain visible); other cells are cut to {@value #MAX_CELL} characters.
 * Vectors show their first {@value #VECTOR_PREVIEW} elements, each cut to {@value
 * #MAX_ELEMENT} characters, then {@code … (N)}.
 *
 * <p>A result is buffered until {@link #onResultEnd}; an aborted one prints nothing. Borrowed
 * buffers are copied by {@link RowSink}'s defaults before they reach {@link #onObject}. Not
 * thread-safe; one instance per output.
 */
final class TableSink implements RowSink {
  static final int MAX_CELL = 40;
  static final int VECTOR_PREVIEW = 3;
  static final int MAX_ELEMENT = 12;
  private static final String GAP = "  ";

  private final PrintStream out;
  /** Stream id of the next result, for its title line. */
  private int stream;
  /** The current result's columns. */
  private List<ColumnSpec> columns = List.of();
  /** The rendered cells of the current result. */
  private List<String[]> rows = new ArrayList<>();
  /** The row being read. */
  private String[] row;

  TableSink(PrintStream out) {
    this.out = out;
  }

  /** Sets the stream id printed in the next result's title. */
  void setStream(int streamId) {
    this.stream = streamId;
  }

  @Override
  public void onResultStart(RowsMetadata metadata, int rowCount) {
    columns = metadata.columns().specs();
    rows = new ArrayList<>(Math.min(rowCount, 1024));
  }

  @Override
  public void onRowStart(int rowIndex) {
    row = new String[columns.size()];
  }

  @Override
  public void onRowEnd(int rowIndex) {
    rows.add(row);
  }

  @Override
  public void onNull(int column) {
    row[column] = "null";
  }

  @Override
  public void onNotSet(int column) {
    row[column] = "not set";
  }

  @Override
  public void onEmpty(int column) {
    StringBuilder sb = new StringBuilder();
    CanonicalJson.appendEmpty(sb, columns.get(column).type());
    row[column] = sb.toString();
  }

  @Override
  public void onObject(int column, Object value) {
    row[column] = render(columns.get(column).type(), value);
  }

  @Override
  public void onResultEnd(int rowCount) {
    StringBuilder text = new StringBuilder(256);
    text.append("stream ").append(stream).append(": ").append(rowCount)
        .append(rowCount == 1 ? " row\n" : " rows\n");
    String[] header = new String[columns.size()];
    String[] rule = new String[columns.size()];
    int[] widths = new int[columns.size()];
    for (int c = 0; c < header.length; c++) {
      header[c] = cut(columns.get(c).name(), MAX_CELL);
      widths[c] = width(header[c]);
      for (String[] r : rows) {
        widths[c] = Math.max(widths[c], width(r[c]));
      }
      rule[c] = "-".repeat(widths[c]);
    }
    appendLine(text, header, widths);
    appendLine(text, rule, widths);
    for (String[] r : rows) {
      appendLine(text, r, widths);
    }
    out.append(text);
    rows = new ArrayList<>();
  }

  private static void appendLine(StringBuilder text, String[] cells, int[] widths) {
    int start = text.length();
    for (int c = 0; c < cells.length; c++) {
      String cell = cells[c] == null ? "" : cells[c];
      text.append(cell);
      if (c < cells.length - 1) {
        text.append(" ".repeat(widths[c] - width(cell))).append(GAP);
      }
    }
    int end = text.length();
    while (end > start && text.charAt(end - 1) == ' ') {
      end--;
    }
    text.setLength(end);
    text.append('\n');
  }

  /** A value as a cell: unquoted canonical JSON, cut; a vector abbreviated. */
  static String render(CqlType type, Object value) {
    if (type instanceof VectorType && value != null) {
      return renderVector(value);
    }
    return cut(unquoted(value), MAX_CELL);
  }

  /** {@code [e0,e1,e2,… (N)]} for a primitive array or a list. */
  private static String renderVector(Object vector) {
    List<?> list = vector instanceof List<?> l ? l : null;
    int n = list != null ? list.size() : Array.getLength(vector);
    StringBuilder sb = new StringBuilder("[");
    for (int i = 0; i < Math.min(n, VECTOR_PREVIEW); i++) {
      Object element = list != null ? list.get(i) : Array.get(vector, i);
      sb.append(i > 0 ? "," : "").append(cut(unquoted(element), MAX_ELEMENT));
    }
    if (n > VECTOR_PREVIEW) {
      sb.append(",… (").append(n).append(')');
    }
    return sb.append(']').toString();
  }

  /** The canonical JSON of a value, without the quotes if it is a JSON string. */
  private static String unquoted(Object value) {
    StringBuilder sb = new StringBuilder();
    CanonicalJson.appendValue(sb, value);
    int n = sb.length();
    return n >= 2 && sb.charAt(0) == '"' && sb.charAt(n - 1) == '"'
        ? sb.substring(1, n - 1)
        : sb.toString();
  }

  /** Cuts {@code s} to {@code max} code points, the last one {@code …}. */
  static String cut(String s, int max) {
    if (s.codePointCount(0, s.length()) <= max) {
      return s;
    }
    return s.substring(0, s.offsetByCodePoints(0, max - 1)) + "…";
  }

  private static int width(String s) {
    return s == null ? 0 : s.codePointCount(0, s.length());
  }
}
