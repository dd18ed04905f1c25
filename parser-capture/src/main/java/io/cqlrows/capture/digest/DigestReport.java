package io.cqlrows.capture.digest;

import io.cqlrows.core.sink.CanonicalJson;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a {@link Digest} found in a capture: per statement, per connection and per request opcode,
 * how many requests were answered, how they failed, how long they took and what they returned.
 * Lists are sorted by total response time, then by count, largest first. Immutable.
 *
 * @param file the capture's name
 * @param timed whether the capture has packet times (raw byte streams have none: counts only)
 * @param tcpConnections TCP connections in the capture (1 for raw bytes)
 * @param cqlConnections those replayed as CQL
 * @param bytesRead bytes of the file read
 * @param firstNanos capture time of the first CQL byte, or 0
 * @param lastNanos capture time of the last CQL byte, or 0
 * @param statements QUERY, EXECUTE and BATCH requests by statement, the top ones (see {@link
 *     Digest.Limits#top()})
 * @param statementCount distinct statements in all, of which {@code statements} lists the top
 * @param connections requests by connection, the top ones
 * @param connectionCount connections with requests in all
 * @param opcodes requests by opcode, all of them
 * @param notes limits that folded statements or connections together
 */
public record DigestReport(
    String file,
    boolean timed,
    long tcpConnections,
    long cqlConnections,
    long bytesRead,
    long firstNanos,
    long lastNanos,
    List<Entry> statements,
    long statementCount,
    List<Entry> connections,
    long connectionCount,
    List<Entry> opcodes,
    List<String> notes) {
  /** Copies the lists. */
  public DigestReport {
    statements = List.copyOf(statements);
    connections = List.copyOf(connections);
    opcodes = List.copyOf(opcodes);
    notes = List.copyOf(notes);
  }

  /**
   * One statement, connection or opcode.
   *
   * @param name the statement's CQL text as sent (for an EXECUTE, its PREPARE's text, or {@code
   *     EXECUTE 0x...} with the id when the PREPARE is not in the capture; for a BATCH, {@code
   *     BATCH:} and its statements joined by {@code "; "}), the connection's {@code client ->
   *     server}, or the opcode's name
   * @param kind {@code QUERY}, {@code EXECUTE} or {@code BATCH} for a statement; {@code connection}
   *     or {@code opcode} for the others
   * @param count requests answered in the capture
   * @param errors answers that were a server ERROR
   * @param errorCodes those by error code, ascending
   * @param undecodable answers that could not be decoded
   * @param unanswered requests whose answer is not in the capture
   * @param rows rows returned by ROWS results
   * @param responseBytes size of the answers: envelope headers and bodies, uncompressed
   * @param pages ROWS results
   * @param times response times of the answers, when the capture has packet times
   */
  public record Entry(
      String name,
      String kind,
      long count,
      long errors,
      Map<Integer, Long> errorCodes,
      long undecodable,
      long unanswered,
      long rows,
      long responseBytes,
      long pages,
      Times times) {
    /** Copies the codes. */
    public Entry {
      errorCodes = Map.copyOf(errorCodes);
    }
  }

  /**
   * Response times, from a request's last byte to its answer's last byte, in nanoseconds.
   * Percentiles are nearest-rank: exact up to 1,024 answers, then within 1/64 (1.6%).
   *
   * @param count answers timed
   * @param min the shortest
   * @param p50 the median
   * @param p95 the 95th percentile
   * @param p99 the 99th percentile
   * @param max the longest
   * @param total the sum
   * @param histogram counts by bucket, ascending, only buckets with answers
   */
  public record Times(
      long count,
      long min,
      long p50,
      long p95,
      long p99,
      long max,
      long total,
      List<Bucket> histogram) {
    /** Copies the histogram. */
    public Times {
      histogram = List.copyOf(histogram);
    }
  }

  /**
   * Answers whose response time lies in {@code [lowNanos, highNanos)}.
   *
   * @param lowNanos the bucket's smallest time
   * @param highNanos one past its largest
   * @param count answers in it
   */
  public record Bucket(long lowNanos, long highNanos, long count) {}

  /**
   * The report as one JSON object: the file's counts, and {@code statements}, {@code connections}
   * and {@code opcodes} lists whose elements hold {@code statement} (or {@code connection}, {@code
   * opcode}), {@code kind}, {@code count}, {@code errors}, {@code error_codes} (an object from
   * {@code 0x}-hex code to count), {@code undecodable}, {@code unanswered}, {@code min_ms}, {@code
   * p50_ms}, {@code p95_ms}, {@code p99_ms}, {@code max_ms}, {@code total_ms} (null when the
   * capture has no times), {@code rows}, {@code response_bytes} and {@code pages}. Times are
   * milliseconds with microsecond precision. Strings are escaped, so the capture's text cannot
   * break the JSON.
   */
  public String toJson() {
    StringBuilder sb = new StringBuilder(4096);
    sb.append("{\"file\":");
    CanonicalJson.appendString(sb, file);
    sb.append(",\"timed\":").append(timed);
    sb.append(",\"tcp_connections\":").append(tcpConnections);
    sb.append(",\"cql_connections\":").append(cqlConnections);
    sb.append(",\"bytes_read\":").append(bytesRead);
    sb.append(",\"duration_ms\":");
    if (timed && lastNanos >= firstNanos && firstNanos != 0) {
      sb.append(ms(lastNanos - firstNanos));
    } else {
      sb.append("null");
    }
    sb.append(",\"statement_count\":").append(statementCount);
    sb.append(",\"statements\":");
    list(sb, statements, "statement");
    sb.append(",\"connection_count\":").append(connectionCount);
    sb.append(",\"connections\":");
    list(sb, connections, "connection");
    sb.append(",\"opcodes\":");
    list(sb, opcodes, "opcode");
    sb.append(",\"notes\":[");
    for (int i = 0; i < notes.size(); i++) {
      if (i > 0) {
        sb.append(',');
      }
      CanonicalJson.appendString(sb, notes.get(i));
    }
    return sb.append("]}\n").toString();
  }

  private static void list(StringBuilder sb, List<Entry> entries, String nameKey) {
    sb.append('[');
    for (int i = 0; i < entries.size(); i++) {
      if (i > 0) {
        sb.append(',');
      }
      Entry e = entries.get(i);
      sb.append("{\"").append(nameKey).append("\":");
      CanonicalJson.appendString(sb, e.name());
      sb.append(",\"kind\":");
      CanonicalJson.appendString(sb, e.kind());
      sb.append(",\"count\":").append(e.count());
      sb.append(",\"errors\":").append(e.errors());
      sb.append(",\"error_codes\":{");
      boolean first = true;
      for (Map.Entry<Integer, Long> c :
          e.errorCodes().entrySet().stream().sorted(Map.Entry.comparingByKey()).toList()) {
        if (!first) {
          sb.append(',');
        }
        first = false;
        sb.append(String.format(Locale.ROOT, "\"0x%04x\":", c.getKey())).append(c.getValue());
      }
      sb.append('}');
      sb.append(",\"undecodable\":").append(e.undecodable());
      sb.append(",\"unanswered\":").append(e.unanswered());
      Times t = e.times();
      timeField(sb, "min_ms", t, t == null ? 0 : t.min());
      timeField(sb, "p50_ms", t, t == null ? 0 : t.p50());
      timeField(sb, "p95_ms", t, t == null ? 0 : t.p95());
      timeField(sb, "p99_ms", t, t == null ? 0 : t.p99());
      timeField(sb, "max_ms", t, t == null ? 0 : t.max());
      timeField(sb, "total_ms", t, t == null ? 0 : t.total());
      sb.append(",\"rows\":").append(e.rows());
      sb.append(",\"response_bytes\":").append(e.responseBytes());
      sb.append(",\"pages\":").append(e.pages());
      sb.append('}');
    }
    sb.append(']');
  }

  private static void timeField(StringBuilder sb, String name, Times t, long nanos) {
    sb.append(",\"").append(name).append("\":");
    if (t == null || t.count() == 0) {
      sb.append("null");
    } else {
      sb.append(ms(nanos));
    }
  }

  /**
   * The report as an SVG image (an SVG 1.1 document, self-contained: no scripts, no external
   * resources): a title, then for each of the first {@code statements} statements that have
   * response times, in this report's order, a panel with its text (cut to 100 characters), count,
   * p50, p99 and total, a histogram of its response times, and marks at its p50 and p99. All
   * histograms share one logarithmic time axis, labelled at powers of ten (on an axis narrower than
   * that, at 1, 2 and 5 times them). Without times (a capture of raw bytes) the image says so. The
   * capture's text is escaped, and characters that XML does not allow are replaced, so it cannot
   * break the document. Write it as UTF-8.
   *
   * @throws IllegalArgumentException if {@code statements < 1}
   */
  public String toSvg(int statements) {
    return DigestSvg.render(this, statements);
  }

  /** Milliseconds with three decimals (microseconds), as a JSON number. */
  static String ms(long nanos) {
    return String.format(Locale.ROOT, "%.3f", nanos / 1e6);
  }
}
