package io.cqlrows.cli;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;

/** The help texts. */
final class Usage {
  private Usage() {}

  /** A usage error, with the help text to print after it. */
  static final class Mistake extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;
    final String help;

    /** The option that is not known, or null for other mistakes. */
    final String unknownOption;

    /** For an unknown option: the known option it is closest to, or null. */
    final String suggestion;

    Mistake(String message, String help) {
      this(message, help, null, null);
    }

    private Mistake(String message, String help, String unknownOption, String suggestion) {
      super(message);
      this.help = help;
      this.unknownOption = unknownOption;
      this.suggestion = suggestion;
    }
  }

  /**
   * The error for an option the command does not know: it says so and, when a known option is
   * within a few keystrokes of it, names that one.
   */
  static Mistake unknownOption(
      String given, Collection<String> withValue, Collection<String> flags, String help) {
    List<String> known = new ArrayList<>(withValue);
    known.addAll(flags);
    String closest = closest(given, known);
    return new Mistake(
        "unknown option: " + given + (closest == null ? "" : " (did you mean " + closest + "?)"),
        help,
        given,
        closest);
  }

  /**
   * The known option nearest to {@code given} by edit distance (insertions, deletions,
   * substitutions and swaps of neighbours, case ignored), if that distance is at most a third of
   * the longer name (and at least 2 is allowed); ties go to the first in {@code known}'s iteration
   * order. Null when none is that close.
   */
  static String closest(String given, Collection<String> known) {
    String g = given.toLowerCase(Locale.ROOT);
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String k : known) {
      int d = distance(g, k.toLowerCase(Locale.ROOT));
      int allowed = Math.max(2, Math.max(g.length(), k.length()) / 3);
      if (d <= allowed && d < bestDistance) {
        best = k;
        bestDistance = d;
      }
    }
    return best;
  }

  /** The optimal string alignment distance between {@code a} and {@code b}. */
  static int distance(String a, String b) {
    int n = a.length();
    int m = b.length();
    if (Math.abs(n - m) > 64) {
      return Math.abs(n - m); // far apart: no suggestion, and no large table for a long argument
    }
    int[][] d = new int[n + 1][m + 1];
    for (int i = 0; i <= n; i++) {
      d[i][0] = i;
    }
    for (int j = 0; j <= m; j++) {
      d[0][j] = j;
    }
    for (int i = 1; i <= n; i++) {
      for (int j = 1; j <= m; j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        int v = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
        if (i > 1
            && j > 1
            && a.charAt(i - 1) == b.charAt(j - 2)
            && a.charAt(i - 2) == b.charAt(j - 1)) {
          v = Math.min(v, d[i - 2][j - 2] + 1);
        }
        d[i][j] = v;
      }
    }
    return d[n][m];
  }

  /** The option that accepts malformed text. */
  private static final String LENIENT_TEXT =
      String.join(
          "\n",
          "  --lenient-text   decode text cells that are not valid UTF-8 (and ascii cells with",
          "                   bytes above 0x7F) with U+FFFD replacement characters; without it",
          "                   such a cell makes its result an error (a damaged or hostile",
          "                   capture)");

  /** The options that turn ScyllaDB's protocol extensions on. */
  private static final String EXTENSIONS =
      String.join(
          "\n",
          "  --scylla-metadata-id",
          "                   the connection uses ScyllaDB's SCYLLA_USE_METADATA_ID: v4 PREPARED",
          "                   results and EXECUTE requests carry a result_metadata_id",
          "  --extension NAME turn on a ScyllaDB protocol extension: SCYLLA_USE_METADATA_ID,",
          "                   SCYLLA_LWT_ADD_METADATA_MARK, TABLETS_ROUTING_V1 or",
          "                   SCYLLA_RATE_LIMIT_ERROR (repeatable)",
          "                   Both apply to connections whose STARTUP is not in FILE (no client",
          "                   side, or captured mid-connection); a captured STARTUP says by itself",
          "                   which extensions its connection uses.");

  /** The options that bound the memory of reading a capture. */
  private static final String BOUNDS =
      String.join(
          "\n",
          "  --max-open-connections N",
          "                   TCP connections kept open at once (default 10000); over it the",
          "                   least recently active one is closed early, with a note",
          "  --max-buffered-mib N",
          "                   MiB of packets kept while they wait for missing or reordered",
          "                   bytes, all connections together (default 32, at most 4 per",
          "                   direction of a connection); over it a hole is given up as a gap");

  static final String MAIN =
      String.join(
          "\n",
          "usage: cqlrows COMMAND [OPTIONS] FILE",
          "       cqlrows query [OPTIONS] \"SELECT ...\"",
          "",
          "Commands:",
          "  query    run statements against a live server and print or export every page",
          "  replay   print the ROWS results of a capture",
          "  stats    count connections, frames, results, rows, cells and bytes of a capture",
          "  digest   per statement of a capture: count, errors, response times, rows, bytes",
          "",
          "FILE is a tcpdump/Wireshark capture (pcap or pcapng), or the raw server-to-client bytes",
          "of one CQL connection (with its client-to-server bytes beside it as *.c2s.* or given",
          "with --c2s). Protocol v3, v4 and v5, with or without LZ4 or Snappy compression, are",
          "detected by themselves. Captures are read as streams, in memory bounded by the",
          "options below, whatever their size or the order of their packets.",
          "",
          "'cqlrows COMMAND --help' describes a command.",
          "Exit status: 0 done, 1 unreadable input, a broken byte stream or a response that",
          "could not be decoded, 2 usage error.",
          "");

  static final String REPLAY =
      String.join(
          "\n",
          "usage: cqlrows replay [--format jsonl|table|vertical|csv] [--columns A,B] [--limit N]",
          "                      [--stream N] [--port P] [--c2s FILE] [--lenient-text]",
          "                      [--format arrow --output DIR|FILE.arrow]",
          "                      [--scylla-metadata-id] [--extension NAME] FILE",
          "",
          "Prints every ROWS result of FILE in capture order (the results of connections that",
          "overlap in time are interleaved). With the client's side (a pcap holds both; a raw",
          "server-to-client file needs its *.c2s.* companion), every result names its query and",
          "results of prepared statements sent with No_metadata are decoded with the columns of",
          "their PREPARED result; without it their cells print as raw bytes.",
          "",
          "  --format jsonl   one JSON object per result (the default): {\"connection\":...,",
          "                   \"stream\":N,\"query\":...,\"columns\":[...],\"row_count\":N,"
              + "\"rows\":[...]}",
          "  --format table   a title line and an aligned table per result; long cells are cut",
          "                   and vectors abbreviated; a table wider than the terminal ($COLUMNS,",
          "                   else 120) prints as --format vertical",
          "  --format vertical",
          "                   a title line and one 'column | value' block per row",
          "  --format csv     a header line and one line per row per result; results are",
          "                   separated by an empty line",
          "  --format arrow --output DIR",
          "                   one Arrow IPC file per ROWS result in DIR (created if needed),",
          "                   named NNNNN-CONNECTION-streamS-QUERY.arrow in capture order; each",
          "                   file written is printed with its row count",
          "  --format arrow --output FILE.arrow --stream N",
          "                   the ROWS results of stream N (the pages of one query) as the",
          "                   record batches of one Arrow IPC file; when the stream goes on",
          "                   with other columns, in FILE-2.arrow, FILE-3.arrow, ...",
          "  --columns A,B    print only these columns (exact names) of each result",
          "  --limit N        stop after N results (error lines included)",
          "  --stream N       print only results on stream N",
          "  --port P         in a pcap, the CQL server's port (default: connections on 9042, or",
          "                   else any connection whose bytes start like CQL)",
          "  --c2s FILE       the client-to-server bytes of a raw server-to-client FILE",
          BOUNDS,
          LENIENT_TEXT,
          EXTENSIONS,
          "",
          "A response that cannot be decoded prints {\"connection\":...,\"stream\":N,"
              + "\"error\":\"...\"}",
          "(or an error line), the replay goes on, and the exit status is 1. A broken byte stream",
          "(bad header, a length over the limit, CRC mismatch, corrupt compression, truncation)",
          "ends with one line on stderr and exit 1.",
          "");

  static final String QUERY =
      String.join(
          "\n",
          "usage: cqlrows query [--host H] [--port P] [--protocol auto|4|5]",
          "                     [--compression none|lz4|snappy] [--user U] [--password-env VAR]",
          "                     [--keyspace K] [--consistency LEVEL] [--page-size N]",
          "                     [--format table|vertical|jsonl|csv|arrow] [--output FILE]",
          "                     [--json-numbers] [--max-rows N] [--streaming] [--quiet]",
          "                     [--timing] [--tracing] [--arrow-batch-rows N]",
          "                     [--arrow-decimal SCALE] [--arrow-inet text|binary]",
          "                     [--timeout S] [--file F]",
          "                     [--ssl] [--ssl-ca FILE] [--ssl-cert FILE --ssl-key FILE]",
          "                     [--ssl-insecure] [--ssl-server-name NAME]",
          "                     [--cqlshrc FILE | --no-cqlshrc] [STATEMENT...]",
          "",
          "Runs each statement on one connection and writes every page of its result as it",
          "arrives, following the paging state; the total row count goes to stderr at the end,",
          "and for DDL what changed (CREATED TABLE ks.t). An LWT prints its [applied] row.",
          "Statements come from the command line, else from --file F, else from stdin, one per",
          "line (empty lines and lines starting with -- or // are skipped).",
          "",
          "  --host H         the server (default 127.0.0.1)",
          "  --port P         its CQL port (default 9042)",
          "  --protocol V     auto (the default: v5, or v4 when the server refuses v5), 4 or 5",
          "  --compression C  none, lz4 or snappy (v4); by default LZ4, or none when the server",
          "                   refuses it",
          "  --user U         authenticate as U (PasswordAuthenticator); the password comes from",
          "  --password-env VAR",
          "                   the environment variable VAR, else from a prompt on the terminal",
          "                   (never from the command line, where ps would show it)",
          "  --keyspace K     USE K before the statements",
          "  --consistency L  ANY, ONE, TWO, THREE, QUORUM, ALL, LOCAL_QUORUM, EACH_QUORUM,",
          "                   SERIAL, LOCAL_SERIAL or LOCAL_ONE (the default)",
          "  --page-size N    rows per page (default 5000)",
          "  --format table   an aligned table per statement (the default), its pages under one",
          "                   header; a first page wider than the terminal ($COLUMNS, else",
          "                   120) makes the statement print as --format vertical",
          "  --format vertical",
          "                   one 'column | value' block per row",
          "  --format jsonl   one JSON object per row: {\"column\":value,...}; bigint, varint,",
          "                   float and double values are strings of their exact value",
          "  --json-numbers   with jsonl: those are JSON numbers where a reader takes them",
          "                   exactly (integers up to 2^53 in size, finite floating-point",
          "                   values); larger integers, NaN and infinities stay strings",
          "  --format csv     a header line, then one line per row (RFC 4180)",
          "  --format arrow   an Arrow IPC file (needs --output), one record batch per page",
          "  --arrow-batch-rows N",
          "                   gather pages into record batches of at least N rows (the last",
          "                   may be smaller); memory holds one such batch and one page",
          "  --arrow-decimal SCALE",
          "                   decimals as Decimal128(38, SCALE), rounded half-even (default:",
          "                   text, exact at any scale)",
          "  --arrow-inet text|binary",
          "                   inet as its text form, 10.0.0.1 (the default), or its address",
          "                   bytes",
          "  --output FILE    write to FILE instead of stdout",
          "  --max-rows N     fetch at most N rows per statement",
          "  --streaming      hand large pages to the output row by row as they arrive (memory:",
          "                   one row, or one batch of 1024 rows for arrow), for huge vector pages",
          "  --quiet          print nothing but results and errors: no progress line (else",
          "                   shown on stderr when it is a terminal), no row counts, no schema",
          "                   change lines",
          "  --timing         after each statement, its time, pages, rows and rows/s on stderr",
          "  --tracing        trace each statement (its first page) and print the trace on",
          "                   stderr after its result: the events from system_traces and the",
          "                   coordinator's duration, as cqlsh's TRACING ON",
          "  --timeout S      wait at most S seconds for the connection (TCP, TLS, handshake)",
          "                   and for each page (default 120; 0: no limit)",
          "  --ssl            speak TLS; the server's certificate is checked against the JDK's",
          "                   trust store and must name --host (each --ssl-* option implies --ssl)",
          "  --ssl-ca FILE    trust the certificate authorities of this PEM bundle instead",
          "  --ssl-cert FILE  with --ssl-key FILE: a client certificate chain and its private key",
          "                   (PEM, unencrypted PKCS#8), for servers that require mutual TLS",
          "  --ssl-insecure   do not check the server's certificate at all (a warning says so)",
          "  --ssl-server-name NAME",
          "                   check the certificate against NAME and send it as SNI, instead of",
          "                   --host (a server reached by address, or through an SNI proxy)",
          "  --cqlshrc FILE   read host, port, timeout, credentials, keyspace and TLS settings",
          "                   from this cqlsh configuration file instead of ~/.cassandra/cqlshrc",
          "                   (options given here win; a password there is used only when no one",
          "                   but the file's owner can read it)",
          "  --no-cqlshrc     read no cqlsh configuration file",
          "",
          "Exit status: 0 done, 1 a server error (one line: its name and message), a failed",
          "connection or TLS handshake, or a lost one, 2 usage error, 130 interrupted (Ctrl-C",
          "while connecting ends at once; later it stops after the current page, and what was",
          "written stays a valid file).",
          "");

  static final String STATS =
      String.join(
          "\n",
          "usage: cqlrows stats [--port P] [--c2s FILE] [--lenient-text] [--scylla-metadata-id]",
          "                     [--extension NAME] FILE",
          "",
          "Decodes every response of FILE (see 'cqlrows --help') and prints, per connection and",
          "in total: frames in each direction, results by kind, rows, cells, NULL cells, bytes of",
          "RESULT bodies, and parse throughput (MB/s of RESULT bodies through the parser).",
          "",
          "  --port P, --c2s FILE   as for replay",
          BOUNDS,
          LENIENT_TEXT,
          EXTENSIONS,
          "");

  static final String DIGEST =
      String.join(
          "\n",
          "usage: cqlrows digest [--format table|json] [--top N] [--svg FILE] [--port P]",
          "                      [--c2s FILE] [--max-open-connections N] [--max-buffered-mib N]",
          "                      [--lenient-text] [--scylla-metadata-id] [--extension NAME] FILE",
          "",
          "Digests the requests of FILE (see 'cqlrows --help'): per statement (each QUERY,",
          "EXECUTE and BATCH; an EXECUTE by the text of its PREPARE, or its id when the PREPARE",
          "is not in FILE; a BATCH by its statements), across connections, the requests",
          "answered, server errors by code, response times (from the request's last byte to",
          "the response's last byte, by capture time) min/p50/p95/p99/max and total, rows",
          "returned, response bytes and pages; sorted by total time. Then the same per",
          "connection and per request opcode. Requests whose response is not in FILE are",
          "counted apart ('unanswered'). Raw byte streams have no times: counts only.",
          "",
          "  --format table   aligned tables (the default)",
          "  --format json    one JSON object: {\"statements\":[{\"statement\":...,\"count\":N,",
          "                   \"errors\":N,\"error_codes\":{...},\"min_ms\":...,\"p50_ms\":...,",
          "                   \"p95_ms\":...,\"p99_ms\":...,\"max_ms\":...,\"total_ms\":...,",
          "                   \"rows\":N,\"response_bytes\":N,...}],\"connections\":[...],",
          "                   \"opcodes\":[...],...}",
          "  --top N          list the N statements and connections with the largest total",
          "                   time (default 20; 0: all)",
          "  --svg FILE       also write an SVG image of the response-time histograms of the",
          "                   top statements",
          "  --port P, --c2s FILE   as for replay",
          BOUNDS,
          LENIENT_TEXT,
          EXTENSIONS,
          "");
}
