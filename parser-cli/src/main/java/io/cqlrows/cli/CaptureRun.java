package io.cqlrows.cli;

import io.cqlrows.capture.replay.FileReplay;
import io.cqlrows.netty.frame.CqlFrameException;
import java.io.IOException;
import java.io.PrintStream;
import java.util.Optional;

/**
 * What {@code replay}, {@code stats} and {@code digest} share: the {@link FileReplay} their options
 * describe, and a handler base that prints notes, failures and progress on stderr. A capture with
 * no CQL connection is an error. Single-threaded; one per run.
 */
abstract class CaptureRun implements FileReplay.Handler {
  /** Progress is printed for files above this size, every this many bytes. */
  static final long PROGRESS_STEP = 32L << 20;

  final CliOptions options;
  final PrintStream err;

  /** The file's name as given, for messages. */
  final String file;

  /** Whether a byte stream broke. */
  boolean failed;

  private long nextProgress = PROGRESS_STEP;

  CaptureRun(CliOptions options, PrintStream err) {
    this.options = options;
    this.err = err;
    this.file = options.file().toString();
  }

  /** Replays the file into this handler; false if it holds no CQL connection (said on stderr). */
  boolean replay() throws IOException {
    return replay(this);
  }

  /** Replays the file into {@code handler}; false if it holds no CQL connection. */
  boolean replay(FileReplay.Handler handler) throws IOException {
    FileReplay.Builder b =
        FileReplay.builder()
            .assumedFeatures(options.features())
            .limits(options.limits())
            .flowLimits(options.flowLimits())
            .clientToServer(options.clientToServer());
    if (options.port() != null) {
      b.serverPort(options.port());
    }
    summary = b.build().replay(options.file(), handler);
    if (summary.cqlConnections() == 0) {
      err.println(
          "cqlrows: "
              + file
              + ": no CQL connection in "
              + summary.tcpConnections()
              + " TCP connection(s)"
              + (options.port() == null
                  ? " (on port 9042 or starting like CQL; try --port)"
                  : " on port " + options.port()));
      return false;
    }
    return true;
  }

  /** What the replay found; null before {@link #replay}. */
  FileReplay.Summary summary;

  @Override
  public void onNote(FileReplay.Connection connection, String note) {
    err.println(
        "cqlrows: " + file + ": " + (connection == null ? "" : connection.label() + ": ") + note);
  }

  @Override
  public void onEnd(FileReplay.Connection connection, Optional<CqlFrameException> failure) {
    if (failure.isPresent()) {
      failed = true;
      err.println(
          "cqlrows: "
              + file
              + ": "
              + connection.label()
              + ": "
              + CqlRowsCli.oneLine(failure.get()));
    }
  }

  @Override
  public void onProgress(long bytesRead, long fileSize) {
    if (fileSize > PROGRESS_STEP && bytesRead >= nextProgress) {
      nextProgress = bytesRead + PROGRESS_STEP;
      err.println(
          "cqlrows: " + file + ": " + (bytesRead >> 20) + " of " + (fileSize >> 20) + " MiB");
    }
  }
}
