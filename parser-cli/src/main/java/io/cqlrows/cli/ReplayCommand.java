package io.cqlrows.cli;

import io.cqlrows.capture.replay.ConnectionReplay;
import io.cqlrows.capture.replay.PreparedStatements;
import io.cqlrows.capture.replay.ReplayListener;
import io.cqlrows.core.CqlResult;
import io.cqlrows.core.RowSink;
import io.cqlrows.core.RowsResult;
import io.cqlrows.core.sink.CanonicalJson;
import io.cqlrows.core.sink.JsonLinesSink;
import io.cqlrows.netty.frame.CqlFrameException;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;

/**
 * {@code cqlrows replay}: prints the ROWS results of every connection of a capture, in the chosen
 * format. A connection whose byte stream breaks gets one line on stderr; the others are still
 * replayed, and the exit status is 1. A response that cannot be decoded is printed as an error and
 * the replay goes on; the exit status is 1 too. Single-threaded; one instance per run.
 */
final class ReplayCommand implements ReplayListener {
  /** Above this many bytes a connection's progress is reported on stderr. */
  static final long PROGRESS_STEP = 32L << 20;

  private final CliOptions options;
  private final PrintStream out;
  private final PrintStream err;
  private final JsonLinesSink json;
  private final RenderedRowsSink text;
  private final ArrowOutput arrow;

  /** Results and error lines printed so far. */
  private long printed;

  /** Whether an error line was printed for a response. */
  private boolean undecodable;

  private String file;
  private long total;
  private long nextProgress;

  ReplayCommand(CliOptions options, PrintStream out, PrintStream err) throws IOException {
    this.options = options;
    this.out = out;
    this.err = err;
    this.json = options.format().equals("jsonl") ? new JsonLinesSink(out) : null;
    this.text =
        switch (options.format()) {
          case "table" ->
              new TableSink(
                  out,
                  options.columns(),
                  TableSink.Layout.AUTO,
                  TableSink.terminalWidth(System.getenv("COLUMNS")));
          case "vertical" ->
              new TableSink(
                  out, options.columns(), TableSink.Layout.VERTICAL, TableSink.DEFAULT_WIDTH);
          case "csv" -> new CsvSink(out, options.columns());
          default -> null;
        };
    this.arrow =
        options.format().equals("arrow")
            ? new ArrowOutput(options.output(), options.oneArrowFile(), options.columns(), out)
            : null;
  }

  int run() throws IOException {
    if (arrow == null) {
      return replay();
    }
    try (arrow) {
      return replay();
    }
  }

  private int replay() throws IOException {
    int status = 0;
    PreparedStatements prepared = new PreparedStatements();
    file = options.file().toString();
    for (Captures.Connection c : Captures.open(options)) {
      if (printed >= options.limit()) {
        break;
      }
      for (String note : c.notes()) {
        err.println("cqlrows: " + file + ": " + c.label() + ": " + note);
      }
      total = c.serverToClient().length;
      nextProgress = PROGRESS_STEP;
      try {
        ConnectionReplay.replay(
            c.label(),
            c.clientToServer(),
            c.serverToClient(),
            c.midStream(),
            options.features(),
            prepared,
            options.limits(),
            this);
      } catch (CqlFrameException e) {
        err.println("cqlrows: " + file + ": " + c.label() + ": " + CqlRowsCli.oneLine(e));
        status = 1;
      }
    }
    out.flush();
    return undecodable ? 1 : status;
  }

  @Override
  public RowSink sinkFor(Response response) {
    if (printed >= options.limit()
        || (options.stream() != null && options.stream() != response.streamId())) {
      return null;
    }
    if (arrow != null) {
      return arrow.sinkFor(response.connection(), response.streamId(), response.query());
    }
    if (json != null) {
      json.setLeadingMembers(members(response));
      if (options.columns() != null) {
        json.selectColumnsByName(options.columns().toArray(new String[0]));
      }
      return json;
    }
    text.setTitle(
        response.connection()
            + ", stream "
            + response.streamId()
            + (response.query() != null ? ": " + response.query() : "")
            + ": ");
    return text;
  }

  /** {@code "connection":...,"stream":N,"query":...} */
  private static String members(Response response) {
    StringBuilder sb = new StringBuilder(96);
    sb.append("\"connection\":");
    CanonicalJson.appendString(sb, response.connection());
    sb.append(",\"stream\":").append(response.streamId()).append(",\"query\":");
    if (response.query() == null) {
      sb.append("null");
    } else {
      CanonicalJson.appendString(sb, response.query());
    }
    return sb.toString();
  }

  @Override
  public void onResult(Response response, CqlResult result) {
    if (result instanceof RowsResult) {
      printed++;
    }
    if (arrow != null) {
      endResult();
    }
  }

  private void endResult() {
    try {
      arrow.endResult();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void onError(Response response, CqlFrameException error) {
    if (printed >= options.limit()
        || (options.stream() != null && options.stream() != response.streamId())) {
      return;
    }
    printed++;
    undecodable = true;
    if (arrow != null) {
      endResult();
    }
    if (json == null) {
      // a line of the table output (or of stderr): its names and messages come from the capture
      PrintStream to = options.format().equals("csv") || arrow != null ? err : out;
      to.println(
          TerminalText.escape(
              response.connection()
                  + ", stream "
                  + response.streamId()
                  + ": error: "
                  + CqlRowsCli.oneLine(error)));
      return;
    }
    StringBuilder line = new StringBuilder(128);
    line.append('{').append(members(response)).append(",\"error\":");
    CanonicalJson.appendString(line, CqlRowsCli.oneLine(error));
    out.append(line.append("}\n"));
  }

  @Override
  public void onSkipped(boolean fromClient, int bytes) {
    if (bytes > 0) {
      err.println(
          "cqlrows: "
              + file
              + ": skipped "
              + bytes
              + " bytes of "
              + (fromClient ? "client" : "server")
              + " data to the first provable frame boundary");
    }
  }

  @Override
  public void onProgress(long serverBytes) {
    if (total > PROGRESS_STEP && serverBytes >= nextProgress) {
      nextProgress += PROGRESS_STEP;
      err.println(
          "cqlrows: " + file + ": " + (serverBytes >> 20) + " of " + (total >> 20) + " MiB");
    }
  }
}
