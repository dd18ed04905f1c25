package io.cqlrows.cli;

import io.cqlrows.capture.replay.FileReplay;
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
final class ReplayCommand extends CaptureRun implements ReplayListener {
  private final PrintStream out;
  private final JsonLinesSink json;
  private final RenderedRowsSink text;
  private final ArrowOutput arrow;

  /** Results and error lines printed so far. */
  private long printed;

  /** Whether an error line was printed for a response. */
  private boolean undecodable;

  ReplayCommand(CliOptions options, PrintStream out, PrintStream err) throws IOException {
    super(options, err);
    this.out = out;
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
      return replayAll();
    }
    try (arrow) {
      return replayAll();
    }
  }

  private int replayAll() throws IOException {
    boolean found = replay();
    out.flush();
    return !found || failed || undecodable ? 1 : 0;
  }

  @Override
  public ReplayListener onConnection(FileReplay.Connection connection) {
    return this;
  }

  @Override
  public boolean done() {
    return printed >= options.limit();
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
}
