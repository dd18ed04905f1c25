package io.cqlrows.cli;

import io.cqlrows.core.ColumnSpec;
import io.cqlrows.core.RowSink;
import io.cqlrows.core.RowsMetadata;
import io.cqlrows.core.sink.CanonicalJson;
import io.cqlrows.core.value.NotSet;
import java.io.PrintStream;
import java.util.List;

/**
 * {@code query}'s line formats, written row by row as the rows arrive (a page is never held): JSON
 * Lines, one object per row ({@code {"column":value,...}}, values in the canonical JSON rendering),
 * or CSV (RFC 4180, a header line once per statement, then one line per row; fields as {@link
 * CsvSink} writes them). With {@code --json-numbers}, JSON Lines write the numbers a JSON reader
 * takes exactly as numbers ({@link CanonicalJson#appendValueWithNumbers}). Not thread-safe; one
 * instance per output.
 */
final class RowLinesSink implements RowSink {
  private final PrintStream out;
  private final boolean csv;
  private final boolean numbers;
  private final StringBuilder line = new StringBuilder(256);
  private final StringBuilder value = new StringBuilder(64);
  private List<ColumnSpec> columns = List.of();
  private boolean headerWritten;
  private long rows;

  /** CSV lines. */
  static RowLinesSink csv(PrintStream out) {
    return new RowLinesSink(out, true, false);
  }

  /** JSON Lines; with {@code numbers}, exact numbers as JSON numbers. */
  static RowLinesSink jsonLines(PrintStream out, boolean numbers) {
    return new RowLinesSink(out, false, numbers);
  }

  private RowLinesSink(PrintStream out, boolean csv, boolean numbers) {
    this.out = out;
    this.csv = csv;
    this.numbers = numbers;
  }

  /** The next rows belong to a new statement: CSV writes its header again. */
  void newStatement() {
    headerWritten = false;
  }

  /** Rows written so far. */
  long rows() {
    return rows;
  }

  @Override
  public void onResultStart(RowsMetadata metadata, int rowCount) {
    columns = metadata.columns().specs();
    if (csv && !headerWritten) {
      line.setLength(0);
      for (int c = 0; c < columns.size(); c++) {
        if (c > 0) {
          line.append(',');
        }
        CsvSink.appendField(line, columns.get(c).name());
      }
      out.append(line.append("\r\n"));
    }
    headerWritten = true;
  }

  @Override
  public void onRowStart(int row) {
    line.setLength(0);
    if (!csv) {
      line.append('{');
    }
  }

  @Override
  public void onRowEnd(int row) {
    out.append(line.append(csv ? "\r\n" : "}\n"));
    rows++;
  }

  /** Starts the field of {@code column}: the separator, and for JSON its name. */
  private void field(int column) {
    if (column > 0) {
      line.append(',');
    }
    if (!csv) {
      CanonicalJson.appendString(line, columns.get(column).name());
      line.append(':');
    }
  }

  @Override
  public void onNull(int column) {
    field(column);
    if (!csv) {
      line.append("null");
    }
  }

  @Override
  public void onNotSet(int column) {
    onObject(column, NotSet.INSTANCE);
  }

  /**
   * An empty value renders as the Java driver decodes it; for the types whose empty value is not a
   * value (int, bigint, uuid, ...) that is NULL, written as a NULL cell.
   */
  @Override
  public void onEmpty(int column) {
    value.setLength(0);
    CanonicalJson.appendEmpty(value, columns.get(column).type());
    if ("null".contentEquals(value)) {
      onNull(column);
      return;
    }
    append(column);
  }

  @Override
  public void onObject(int column, Object v) {
    value.setLength(0);
    if (numbers) {
      CanonicalJson.appendValueWithNumbers(value, v);
    } else {
      CanonicalJson.appendValue(value, v);
    }
    append(column);
  }

  private void append(int column) {
    field(column);
    if (!csv) {
      line.append(value);
      return;
    }
    int n = value.length();
    boolean string = n >= 2 && value.charAt(0) == '"' && value.charAt(n - 1) == '"';
    CsvSink.appendField(line, string ? value.substring(1, n - 1) : value.toString());
  }
}
