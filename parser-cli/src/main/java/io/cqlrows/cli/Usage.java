package io.cqlrows.cli;

/** The help texts. */
final class Usage {
  private Usage() {}

  /** The option that accepts malformed text. */
  private static final String LENIENT_TEXT = String.join("\n",
      "  --lenient-text   decode text cells that are not valid UTF-8 (and ascii cells with",
      "                   bytes above 0x7F) with U+FFFD replacement characters; without it",
      "                   such a cell makes its result an error (a damaged or hostile capture)");

  /** The options that turn ScyllaDB's protocol extensions on. */
  private static final String EXTENSIONS = String.join("\n",
      "  --scylla-metadata-id",
      "                   the connection uses ScyllaDB's SCYLLA_USE_METADATA_ID: v4 PREPARED",
      "                   results and EXECUTE requests carry a result_metadata_id",
      "  --extension NAME turn on a ScyllaDB protocol extension: SCYLLA_USE_METADATA_ID,",
      "                   SCYLLA_LWT_ADD_METADATA_MARK, TABLETS_ROUTING_V1 or",
      "                   SCYLLA_RATE_LIMIT_ERROR (repeatable)",
      "                   Both apply to connections whose STARTUP is not in FILE (no client",
      "                   side, or captured mid-connection); a captured STARTUP says by itself",
      "                   which extensions its connection uses.");

  static final String MAIN = String.join("\n",
      "usage: cqlrows COMMAND [OPTIONS] FILE",
      "",
      "Commands:",
      "  replay   print the ROWS results of a capture",
      "  stats    count connections, frames, results, rows, cells and bytes of a capture",
      "",
      "FILE is a tcpdump/Wireshark capture (pcap or pcapng), or the raw server-to-client bytes",
      "of one CQL connection (with its client-to-server bytes beside it as *.c2s.* or given",
      "with --c2s). Protocol v3, v4 and v5, with or without LZ4 or Snappy compression, are",
      "detected by themselves.",
      "",
      "'cqlrows COMMAND --help' describes a command.",
      "Exit status: 0 done, 1 unreadable input or broken byte stream, 2 usage error.",
      "");

  static final String REPLAY = String.join("\n",
      "usage: cqlrows replay [--format jsonl|table|csv] [--columns A,B] [--limit N]",
      "                      [--stream N] [--port P] [--c2s FILE] [--lenient-text]",
      "                      [--format arrow --output DIR|FILE.arrow]",
      "                      [--scylla-metadata-id] [--extension NAME] FILE",
      "",
      "Prints every ROWS result of FILE, connection by connection in the order they start,",
      "results in capture order. With the client's side (a pcap holds both; a raw",
      "server-to-client file needs its *.c2s.* companion), every result names its query and",
      "results of prepared statements sent with No_metadata are decoded with the columns of",
      "their PREPARED result; without it their cells print as raw bytes.",
      "",
      "  --format jsonl   one JSON object per result (the default): {\"connection\":...,",
      "                   \"stream\":N,\"query\":...,\"columns\":[...],\"row_count\":N,\"rows\":[...]}",
      "  --format table   a title line and an aligned table per result; long cells are cut",
      "                   and vectors abbreviated",
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
      LENIENT_TEXT,
      EXTENSIONS,
      "",
      "A response that cannot be decoded prints {\"connection\":...,\"stream\":N,\"error\":\"...\"}",
      "(or an error line) and the replay goes on. A broken byte stream (bad header, CRC",
      "mismatch, corrupt compression, truncation) ends with one line on stderr and exit 1.",
      "");

  static final String STATS = String.join("\n",
      "usage: cqlrows stats [--port P] [--c2s FILE] [--lenient-text] [--scylla-metadata-id]",
      "                     [--extension NAME] FILE",
      "",
      "Decodes every response of FILE (see 'cqlrows --help') and prints, per connection and",
      "in total: frames in each direction, results by kind, rows, cells, NULL cells, bytes of",
      "RESULT bodies, and parse throughput (MB/s of RESULT bodies through the parser).",
      "",
      "  --port P, --c2s FILE   as for replay",
      LENIENT_TEXT,
      EXTENSIONS,
      "");
}
