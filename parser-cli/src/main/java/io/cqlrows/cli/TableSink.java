package io.cqlrows.cli;

import io.cqlrows.core.ColumnSpec;
import io.cqlrows.core.type.CqlType;
import io.cqlrows.core.type.VectorType;
import java.io.PrintStream;
import java.lang.reflect.Array;
import java.util.List;

/**
 * Prints each ROWS result as a title line ({@code stream N: M rows}, with the connection and query
 * when known) and an aligned text table: column names, a rule, one line per row. Cells are the
 * canonical JSON rendering with the quotes of a JSON string dropped (escapes stay, so control
 * characters remain visible), cut to {@value #MAX_CELL} terminal columns ({@value
 * #MAX_VERTICAL_CELL} in {@link Layout#VERTICAL}). In cells, titles and column names alike, every
 * character a terminal would act on rather than show is escaped that way ({@link TerminalText}). A
 * result whose table would be wider than the terminal prints as vertical blocks under {@link
 * Layout#AUTO}. Vectors show their first {@value #VECTOR_PREVIEW} elements, each cut to {@value
 * #MAX_ELEMENT} characters, then {@code … (N)}. Widths are terminal columns ({@link DisplayWidth}:
 * CJK and emoji take two), so that tables line up. Not thread-safe; one instance per output.
 */
final class TableSink extends RenderedRowsSink {
  /** How results print. */
  enum Layout {
    /** An aligned table. */
    TABLE,
    /** One {@code column | value} block per row, as {@code psql \x} prints. */
    VERTICAL,
    /** A table, or vertical blocks when the table would be wider than the terminal. */
    AUTO
  }

  /** The terminal width when {@code $COLUMNS} does not say. */
  static final int DEFAULT_WIDTH = 120;

  static final int MAX_CELL = 40;

  /** Vertical blocks have room for longer cells. */
  static final int MAX_VERTICAL_CELL = 100;

  static final int VECTOR_PREVIEW = 3;
  static final int MAX_ELEMENT = 12;
  private static final String GAP = "  ";

  private final PrintStream out;
  private final Layout layout;

  /** The widest table {@link Layout#AUTO} prints as a table. */
  private final int width;

  private final int maxCell;

  /** Whether the results until {@link #newStatement} are pages of one table. */
  private final boolean pages;

  /** The column widths of the statement's table so far, or null before its first page. */
  private int[] tableWidths;

  /** Whether the statement's pages print as vertical blocks, once its first page has printed. */
  private boolean vertical;

  /** Records printed so far in the statement's vertical blocks. */
  private int records;

  TableSink(PrintStream out, List<String> selection) {
    this(out, selection, Layout.TABLE, DEFAULT_WIDTH);
  }

  TableSink(PrintStream out, List<String> selection, Layout layout, int width) {
    this(out, selection, layout, width, false);
  }

  /**
   * @param pages whether the results are the pages of one statement until {@link #newStatement}:
   *     then no title is printed (the row count is the caller's), its first page prints the header
   *     and the rule and decides between a table and vertical blocks; the later pages go on with
   *     the same columns, each as wide as the widest cell so far (a wider cell widens its column
   *     from that page on), and vertical blocks go on numbering their records
   */
  TableSink(PrintStream out, List<String> selection, Layout layout, int width, boolean pages) {
    super(selection);
    this.out = out;
    this.layout = layout;
    this.width = width;
    this.maxCell = layout == Layout.VERTICAL ? MAX_VERTICAL_CELL : MAX_CELL;
    this.pages = pages;
  }

  /**
   * The tables of a statement's pages for a terminal ({@link Layout#AUTO} at {@code $COLUMNS}), or
   * with {@code vertical} its vertical blocks.
   */
  static TableSink statementPages(PrintStream out, boolean vertical) {
    return vertical
        ? new TableSink(out, null, Layout.VERTICAL, DEFAULT_WIDTH, true)
        : new TableSink(out, null, Layout.AUTO, terminalWidth(System.getenv("COLUMNS")), true);
  }

  /** The next result starts a new table (the pages of another statement). */
  void newStatement() {
    tableWidths = null;
    records = 0;
  }

  /** The terminal's width: {@code $COLUMNS} when it is a number, else {@value #DEFAULT_WIDTH}. */
  static int terminalWidth(String columns) {
    try {
      int n = Integer.parseInt(columns == null ? "" : columns.trim());
      return n > 0 ? n : DEFAULT_WIDTH;
    } catch (NumberFormatException e) {
      return DEFAULT_WIDTH;
    }
  }

  @Override
  String nullCell() {
    return "null";
  }

  @Override
  void print(String title, List<ColumnSpec> columns, List<String[]> rows) {
    StringBuilder text = new StringBuilder(256);
    int n = rows.size();
    boolean first = !pages || tableWidths == null || tableWidths.length != columns.size();
    if (!pages) {
      text.append(TerminalText.escape(title)).append(n).append(n == 1 ? " row\n" : " rows\n");
    }
    String[] header = new String[columns.size()];
    String[] rule = new String[columns.size()];
    int[] widths = first ? new int[columns.size()] : tableWidths;
    for (int c = 0; c < header.length; c++) {
      header[c] = cut(TerminalText.escape(columns.get(c).name()), maxCell);
      widths[c] = Math.max(widths[c], width(header[c]));
      for (String[] r : rows) {
        widths[c] = Math.max(widths[c], width(r[c]));
      }
      rule[c] = "-".repeat(widths[c]);
    }
    if (first) {
      int total = GAP.length() * Math.max(0, widths.length - 1);
      for (int w : widths) {
        total += w;
      }
      vertical = layout == Layout.VERTICAL || (layout == Layout.AUTO && total > width);
      records = 0;
    }
    tableWidths = widths;
    if (vertical) {
      appendVertical(text, header, rows, records);
      records += n;
    } else {
      if (first) {
        appendLine(text, header, widths);
        appendLine(text, rule, widths);
      }
      for (String[] r : rows) {
        appendLine(text, r, widths);
      }
    }
    out.append(text);
  }

  /**
   * {@code -[ RECORD n ]---} and one {@code name | value} line per column, for every row; the
   * records numbered from {@code before + 1}.
   */
  private static void appendVertical(
      StringBuilder text, String[] header, List<String[]> rows, int before) {
    int nameWidth = 0;
    for (String h : header) {
      nameWidth = Math.max(nameWidth, width(h));
    }
    for (int r = 0; r < rows.size(); r++) {
      String record = "-[ RECORD " + (before + r + 1) + " ]";
      text.append(record)
          .append("-".repeat(Math.max(1, nameWidth + 3 - record.length())))
          .append('\n');
      for (int c = 0; c < header.length; c++) {
        String cell = rows.get(r)[c];
        text.append(header[c]).append(" ".repeat(nameWidth - width(header[c]))).append(" |");
        if (cell != null && !cell.isEmpty()) {
          text.append(' ').append(cell);
        }
        text.append('\n');
      }
    }
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

  /** A value as a cell (see {@link #cell}); a vector abbreviated. */
  @Override
  String render(CqlType type, Object value) {
    if (type instanceof VectorType && value != null) {
      return renderVector(value);
    }
    return cell(unquoted(value));
  }

  /** Unquoted canonical JSON as a cell: escaped for the terminal, cut. */
  @Override
  String cell(String unquoted) {
    return cut(TerminalText.escape(unquoted), maxCell);
  }

  /** {@code [e0,e1,e2,… (N)]} for a primitive array or a list. */
  private static String renderVector(Object vector) {
    List<?> list = vector instanceof List<?> l ? l : null;
    int n = list != null ? list.size() : Array.getLength(vector);
    StringBuilder sb = new StringBuilder("[");
    for (int i = 0; i < Math.min(n, VECTOR_PREVIEW); i++) {
      Object element = list != null ? list.get(i) : Array.get(vector, i);
      sb.append(i > 0 ? "," : "").append(cut(TerminalText.escape(unquoted(element)), MAX_ELEMENT));
    }
    if (n > VECTOR_PREVIEW) {
      sb.append(",… (").append(n).append(')');
    }
    return sb.append(']').toString();
  }

  /** Cuts {@code s} to {@code max} terminal columns, the last one {@code …}. */
  static String cut(String s, int max) {
    return DisplayWidth.cut(s, max);
  }

  /** The terminal columns {@code s} takes ({@link DisplayWidth}). */
  private static int width(String s) {
    return DisplayWidth.of(s);
  }
}
