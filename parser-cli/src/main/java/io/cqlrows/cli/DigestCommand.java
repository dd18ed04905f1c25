package io.cqlrows.cli;

import io.cqlrows.capture.digest.Digest;
import io.cqlrows.capture.digest.DigestReport;
import io.cqlrows.capture.replay.FileReplay;
import io.cqlrows.capture.replay.ReplayListener;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code cqlrows digest}: a {@link Digest} of a capture, printed as aligned tables or JSON, and
 * optionally drawn as SVG. Exit status 1 when the file holds no CQL connection or a byte stream
 * broke (the digest of what was read is still printed). Single-threaded; one per run.
 */
final class DigestCommand extends CaptureRun {
  /** The widest statement text in the table; longer ones are cut with an ellipsis. */
  static final int STATEMENT_WIDTH = 60;

  private final PrintStream out;
  private final Digest digest;

  DigestCommand(CliOptions options, PrintStream out, PrintStream err) {
    super(options, err);
    this.out = out;
    this.digest =
        new Digest(
            new Digest.Limits(
                Digest.Limits.DEFAULT.maxStatements(),
                Digest.Limits.DEFAULT.maxConnections(),
                options.top()));
  }

  int run() throws IOException {
    if (!replay(digest.handler(this))) {
      return 1;
    }
    DigestReport report = digest.report(options.file().getFileName().toString(), summary);
    for (String note : report.notes()) {
      err.println("cqlrows: " + options.file() + ": " + note);
    }
    if (options.format().equals("json")) {
      out.print(report.toJson());
    } else {
      printTables(report);
    }
    out.flush();
    if (options.svg() != null) {
      Files.writeString(options.svg(), report.toSvg(SVG_STATEMENTS), StandardCharsets.UTF_8);
    }
    return failed ? 1 : 0;
  }

  /** Statements drawn in the SVG image. */
  static final int SVG_STATEMENTS = 8;

  @Override
  public ReplayListener onConnection(FileReplay.Connection c) {
    return null; // the digest's own listener decodes and counts
  }

  private void printTables(DigestReport r) {
    out.printf(
        Locale.ROOT,
        "%s: %d CQL connection(s) of %d TCP, %d statement(s)%s%n",
        TerminalText.escape(r.file()),
        r.cqlConnections(),
        r.tcpConnections(),
        r.statementCount(),
        r.timed() && r.firstNanos() != 0
            ? String.format(
                Locale.ROOT, ", %.3f s of traffic", (r.lastNanos() - r.firstNanos()) / 1e9)
            : ", no packet times: counts only");
    out.println();
    table("statement", r.statements(), r.statementCount(), r.timed());
    table("connection", r.connections(), r.connectionCount(), r.timed());
    table("opcode", r.opcodes(), r.opcodes().size(), r.timed());
  }

  private void table(String what, List<DigestReport.Entry> entries, long all, boolean timed) {
    List<String> header = new ArrayList<>(List.of("count", "errors", "unanswered"));
    if (timed) {
      header.addAll(List.of("min ms", "p50 ms", "p95 ms", "p99 ms", "max ms", "total ms"));
    }
    header.addAll(List.of("rows", "bytes", "pages", what));
    List<List<String>> rows = new ArrayList<>();
    rows.add(header);
    for (DigestReport.Entry e : entries) {
      List<String> row = new ArrayList<>();
      row.add(Long.toString(e.count()));
      row.add(errors(e));
      row.add(Long.toString(e.unanswered()));
      if (timed) {
        DigestReport.Times t = e.times();
        for (long v :
            t == null
                ? new long[] {-1, -1, -1, -1, -1, -1}
                : new long[] {t.min(), t.p50(), t.p95(), t.p99(), t.max(), t.total()}) {
          row.add(v < 0 ? "-" : String.format(Locale.ROOT, "%.3f", v / 1e6));
        }
      }
      row.add(Long.toString(e.rows()));
      row.add(Long.toString(e.responseBytes()));
      row.add(Long.toString(e.pages()));
      row.add(cut(TerminalText.escape(e.name())));
      rows.add(row);
    }
    int[] widths = new int[header.size()];
    for (List<String> row : rows) {
      for (int i = 0; i < row.size() - 1; i++) {
        widths[i] = Math.max(widths[i], row.get(i).length());
      }
    }
    out.println(
        "by "
            + what
            + (entries.size() < all ? " (top " + entries.size() + " of " + all + ")" : "")
            + ":");
    for (List<String> row : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < row.size() - 1; i++) {
        line.append(" ".repeat(widths[i] - row.get(i).length())).append(row.get(i)).append("  ");
      }
      line.append(row.get(row.size() - 1));
      out.println(line);
    }
    out.println();
  }

  /** {@code 3 (0x2200: 2, 0x1200: 1)}, the count alone, and the undecodable ones. */
  private static String errors(DigestReport.Entry e) {
    String undecodable = e.undecodable() == 0 ? "" : " +" + e.undecodable() + " undecodable";
    if (e.errors() == 0) {
      return "0" + undecodable;
    }
    StringBuilder sb = new StringBuilder().append(e.errors()).append(" (");
    boolean first = true;
    for (Map.Entry<Integer, Long> c :
        e.errorCodes().entrySet().stream().sorted(Map.Entry.comparingByKey()).toList()) {
      sb.append(first ? "" : ", ")
          .append(String.format(Locale.ROOT, "0x%04x: %d", c.getKey(), c.getValue()));
      first = false;
    }
    return sb.append(')').append(undecodable).toString();
  }

  private static String cut(String s) {
    String one = s.replaceAll("\\s+", " ").trim();
    return one.length() <= STATEMENT_WIDTH ? one : one.substring(0, STATEMENT_WIDTH - 1) + "…";
  }
}
