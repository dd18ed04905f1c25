package io.cqlrows.cli;

import io.cqlrows.core.ColumnSpec;
import io.cqlrows.core.ResultColumns;
import io.cqlrows.core.RowSink;
import io.cqlrows.core.RowsMetadata;
import io.cqlrows.core.sink.CanonicalJson;
import io.cqlrows.core.type.CqlType;
import java.util.ArrayList;
import java.util.List;

/**
 * Base of the text outputs that print a whole result at once (table, CSV): renders each cell of the
 * selected columns to a string as it arrives and hands the result to {@link #print} at its end. An
 * aborted result prints nothing. Not thread-safe; one instance per output.
 */
abstract class RenderedRowsSink implements RowSink {
  /** Column names to print, or null for all. */
  private final List<String> selection;

  /** Position of each result column among the printed ones, or -1. */
  private int[] slot = new int[0];

  /** The printed columns of the current result. */
  private List<ColumnSpec> columns = List.of();

  private List<String[]> rows = new ArrayList<>();
  private String[] row;

  /** The title of the next result (connection, stream, query). */
  private String title = "";

  RenderedRowsSink(List<String> selection) {
    this.selection = selection;
  }

  /** Sets the title printed with the next result. */
  final void setTitle(String title) {
    this.title = title;
  }

  @Override
  public final void onResultStart(RowsMetadata metadata, int rowCount) {
    ResultColumns all = metadata.columns();
    slot = new int[all.size()];
    List<ColumnSpec> printed = new ArrayList<>();
    for (int i = 0; i < all.size(); i++) {
      boolean wanted = selection == null || selection.contains(all.get(i).name());
      slot[i] = wanted ? printed.size() : -1;
      if (wanted) {
        printed.add(all.get(i));
      }
    }
    columns = printed;
    rows = new ArrayList<>(Math.min(rowCount, 1024));
  }

  @Override
  public final boolean wantsColumn(int column) {
    return slot[column] >= 0;
  }

  @Override
  public final void onRowStart(int rowIndex) {
    row = new String[columns.size()];
  }

  @Override
  public final void onRowEnd(int rowIndex) {
    rows.add(row);
  }

  @Override
  public final void onNull(int column) {
    row[slot[column]] = nullCell();
  }

  @Override
  public final void onNotSet(int column) {
    row[slot[column]] = "not set";
  }

  /**
   * An empty value renders as the Java driver decodes it; for the types whose empty value is not a
   * value (int, bigint, uuid, ...) that is NULL, printed as {@link #nullCell()}.
   */
  @Override
  public final void onEmpty(int column) {
    StringBuilder sb = new StringBuilder();
    CanonicalJson.appendEmpty(sb, columns.get(slot[column]).type());
    row[slot[column]] = sb.toString().equals("null") ? nullCell() : cell(unquoted(sb));
  }

  @Override
  public final void onObject(int column, Object value) {
    int s = slot[column];
    row[s] = render(columns.get(s).type(), value);
  }

  @Override
  public final void onResultEnd(int rowCount) {
    if (!columns.isEmpty()) { // a result with none of the selected columns prints nothing
      print(title, columns, rows);
    }
    rows = new ArrayList<>();
    title = "";
  }

  /** How a NULL cell prints. */
  abstract String nullCell();

  /** A value as a cell. */
  abstract String render(CqlType type, Object value);

  /** The cell of a value whose canonical JSON, unquoted, is {@code unquoted}; that by default. */
  String cell(String unquoted) {
    return unquoted;
  }

  /** Prints one result. */
  abstract void print(String title, List<ColumnSpec> columns, List<String[]> rows);

  /** The canonical JSON of a value, without the quotes if it is a JSON string. */
  static String unquoted(Object value) {
    StringBuilder sb = new StringBuilder();
    CanonicalJson.appendValue(sb, value);
    return unquoted(sb);
  }

  private static String unquoted(StringBuilder sb) {
    int n = sb.length();
    return n >= 2 && sb.charAt(0) == '"' && sb.charAt(n - 1) == '"'
        ? sb.substring(1, n - 1)
        : sb.toString();
  }
}
