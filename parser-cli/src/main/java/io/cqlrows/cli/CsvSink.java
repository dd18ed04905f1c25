package io.cqlrows.cli;

import io.cqlrows.core.ColumnSpec;
import io.cqlrows.core.type.CqlType;
import java.io.PrintStream;
import java.util.List;

/**
 * Prints each ROWS result as CSV (RFC 4180): a header line of column names, then one line per row;
 * results are separated by an empty line. Values are the canonical JSON rendering without the
 * quotes of a JSON string (collections, UDTs and vectors stay JSON); NULL is an empty field, an
 * empty string is {@code ""}. Fields with a comma, a quote, a line break or surrounding spaces are
 * quoted, quotes doubled. Not thread-safe; one instance per output.
 */
final class CsvSink extends RenderedRowsSink {
  private final PrintStream out;
  private boolean first = true;

  CsvSink(PrintStream out, List<String> selection) {
    super(selection);
    this.out = out;
  }

  @Override
  String nullCell() {
    return null;
  }

  @Override
  String render(CqlType type, Object value) {
    return unquoted(value);
  }

  @Override
  void print(String title, List<ColumnSpec> columns, List<String[]> rows) {
    StringBuilder text = new StringBuilder(256);
    if (!first) {
      text.append("\r\n");
    }
    first = false;
    String[] header = new String[columns.size()];
    for (int c = 0; c < header.length; c++) {
      header[c] = columns.get(c).name();
    }
    appendLine(text, header);
    for (String[] r : rows) {
      appendLine(text, r);
    }
    out.append(text);
  }

  private static void appendLine(StringBuilder text, String[] cells) {
    for (int c = 0; c < cells.length; c++) {
      if (c > 0) {
        text.append(',');
      }
      appendField(text, cells[c]);
    }
    text.append("\r\n");
  }

  static void appendField(StringBuilder text, String field) {
    if (field == null) {
      return;
    }
    boolean quote =
        field.isEmpty()
            || field.indexOf(',') >= 0
            || field.indexOf('"') >= 0
            || field.indexOf('\n') >= 0
            || field.indexOf('\r') >= 0
            || field.charAt(0) == ' '
            || field.charAt(field.length() - 1) == ' ';
    if (!quote) {
      text.append(field);
      return;
    }
    text.append('"').append(field.replace("\"", "\"\"")).append('"');
  }
}
