package io.cqlrows.cli;

import io.cqlrows.capture.replay.FileReplay;
import io.cqlrows.capture.replay.ReplayListener;
import io.cqlrows.core.CqlResult;
import io.cqlrows.core.RowSink;
import io.cqlrows.core.sink.CountingSink;
import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.netty.frame.Frame;
import io.cqlrows.netty.frame.Opcode;
import java.io.IOException;
import java.io.PrintStream;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * {@code cqlrows stats}: decodes every response of a capture into a {@link CountingSink} and prints
 * counts per connection and in total. Parse throughput is the RESULT body bytes divided by the time
 * spent inside the parser (framing and I/O excluded). A broken byte stream or a response that
 * cannot be decoded makes the exit status 1. Single-threaded; one per run.
 */
final class StatsCommand extends CaptureRun {
  private static final String[] KINDS = {
    "", "void", "rows", "set_keyspace", "prepared", "schema_change"
  };

  private final PrintStream out;
  private final Counts all = new Counts();
  private long rows;
  private long cells;
  private long nulls;
  private int connections;

  /** The counts of each open connection. */
  private final Map<FileReplay.Connection, Counts> listeners = new HashMap<>();

  StatsCommand(CliOptions options, PrintStream out, PrintStream err) {
    super(options, err);
    this.out = out;
  }

  /** Counts of one connection, or of all. */
  private static final class Counts implements ReplayListener {
    long requestFrames;
    long responseFrames;
    long resultBytes;
    long parseNanos;
    long errors;
    final Map<String, Long> results = new TreeMap<>();
    final CountingSink cells = new CountingSink();
    private long started;
    private int bodyBytes;
    long serverBytes;

    @Override
    public void onProgress(long serverBytes) {
      this.serverBytes = serverBytes;
    }

    @Override
    public void onFrame(boolean fromClient, Frame frame) {
      if (fromClient) {
        requestFrames++;
      } else {
        responseFrames++;
        bodyBytes = frame.opcode() == Opcode.RESULT ? frame.body().readableBytes() : 0;
      }
    }

    @Override
    public RowSink sinkFor(Response response) {
      started = System.nanoTime();
      return cells;
    }

    @Override
    public void onResult(Response response, CqlResult result) {
      parseNanos += System.nanoTime() - started;
      resultBytes += bodyBytes;
      String kind = result.kind() < KINDS.length ? KINDS[result.kind()] : "?";
      results.merge(kind, 1L, Long::sum);
    }

    @Override
    public void onError(Response response, CqlFrameException error) {
      errors++;
    }

    void addTo(Counts all) {
      all.requestFrames += requestFrames;
      all.responseFrames += responseFrames;
      all.resultBytes += resultBytes;
      all.parseNanos += parseNanos;
      all.errors += errors;
      results.forEach((k, v) -> all.results.merge(k, v, Long::sum));
    }
  }

  int run() throws IOException {
    if (!replay()) {
      return 1;
    }
    if (connections > 1) {
      print("all connections", all, -1);
    }
    out.printf(
        Locale.ROOT,
        "total: %d connections, %d rows, %d cells (%d null)%n",
        connections,
        rows,
        cells,
        nulls);
    out.flush();
    return all.errors > 0 || failed ? 1 : 0;
  }

  @Override
  public ReplayListener onConnection(FileReplay.Connection connection) {
    connections++;
    Counts counts = new Counts();
    listeners.put(connection, counts);
    return counts;
  }

  @Override
  public void onEnd(FileReplay.Connection connection, Optional<CqlFrameException> failure) {
    super.onEnd(connection, failure);
    Counts counts = listeners.remove(connection);
    print(connection.label(), counts, counts.serverBytes);
    counts.addTo(all);
    rows += counts.cells.rows();
    cells += counts.cells.cells();
    nulls += counts.cells.nulls() + counts.cells.notSets();
  }

  private void print(String label, Counts c, long serverBytes) {
    StringBuilder kinds = new StringBuilder();
    c.results.forEach(
        (k, v) -> kinds.append(kinds.length() == 0 ? "" : ", ").append(v).append(' ').append(k));
    double mbPerSecond = c.parseNanos == 0 ? 0 : c.resultBytes * 1e3 / c.parseNanos;
    out.printf(Locale.ROOT, "%s:%n", TerminalText.escape(label));
    if (serverBytes >= 0) {
      out.printf(Locale.ROOT, "  bytes from server: %d%n", serverBytes);
    }
    out.printf(
        Locale.ROOT,
        "  frames: %d from client, %d from server%n",
        c.requestFrames,
        c.responseFrames);
    out.printf(
        Locale.ROOT,
        "  results: %s%s%n",
        kinds.length() == 0 ? "none" : kinds,
        c.errors > 0 ? " (" + c.errors + " undecodable)" : "");
    if (serverBytes >= 0) {
      out.printf(
          Locale.ROOT,
          "  rows: %d, cells: %d (%d null)%n",
          c.cells.rows(),
          c.cells.cells(),
          c.cells.nulls() + c.cells.notSets());
    }
    out.printf(
        Locale.ROOT, "  RESULT body bytes: %d, parsed at %.1f MB/s%n", c.resultBytes, mbPerSecond);
  }
}
