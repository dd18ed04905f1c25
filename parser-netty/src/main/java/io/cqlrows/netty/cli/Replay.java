package io.cqlrows.netty.cli;

import io.cqlrows.core.ParseLimits;
import io.cqlrows.core.ResultReader;
import io.cqlrows.core.sink.JsonLinesSink;
import io.cqlrows.core.sink.RowSink;
import io.cqlrows.netty.CqlPipeline;
import io.cqlrows.netty.cli.CqlRowsCli.ReplayOptions;
import io.cqlrows.netty.frame.Frame;
import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;

/**
 * One {@code replay} run: feeds a capture file in chunks through an {@link EmbeddedChannel} with
 * the {@link CqlPipeline} handlers and a {@link ReplayPrinter} at the end.
 *
 * <p>Chunks are copied into buffers the channel owns (the decoder may keep a partial frame across
 * chunks, so the read array cannot be shared). Single-threaded; one instance per run.
 */
final class Replay {
  /** Bytes handed to the channel per read, like one socket read. */
  static final int CHUNK_SIZE = 64 * 1024;

  private final ReplayOptions options;
  private final PrintStream out;
  private final PrintStream err;

  Replay(ReplayOptions options, PrintStream out, PrintStream err) {
    this.options = options;
    this.out = out;
    this.err = err;
  }

  /** Replays the capture; returns the exit status. */
  int run() throws IOException {
    try (InputStream in = Files.newInputStream(options.file())) {
      byte[] chunk = new byte[CHUNK_SIZE];
      int n = in.readNBytes(chunk, 0, CHUNK_SIZE);
      if (n == 0) {
        return 0; // an empty capture holds no results
      }
      ReplayPrinter printer = new ReplayPrinter(out, options.table(), options.limit());
      EmbeddedChannel channel = new EmbeddedChannel();
      try {
        install(channel, chunk[0] & 0x7F, printer);
        while (n > 0 && printer.fatal() == null && printer.wantsMore()) {
          ByteBuf buf = channel.alloc().buffer(n).writeBytes(chunk, 0, n);
          channel.writeInbound(buf); // Ownership transferred: the decoder releases it
          n = in.readNBytes(chunk, 0, CHUNK_SIZE);
        }
        if (printer.fatal() == null && printer.wantsMore()) {
          channel.close(); // the decoders report input that ends inside a frame or segment
        }
        return status(printer);
      } finally {
        channel.finishAndReleaseAll();
        out.flush();
      }
    }
  }

  /**
   * Installs the pipeline. The reader uses the protocol version of the first frame and prints the
   * cells of {@code No_metadata} results as raw bytes (the capture's PREPARED results are not
   * matched to their EXECUTEs: that needs the client-to-server side).
   */
  private void install(EmbeddedChannel channel, int version, ReplayPrinter printer) {
    ResultReader reader = new ResultReader(Math.max(3, version), ParseLimits.defaults())
        .rawCellsWithoutMetadata(true);
    JsonLinesSink json = options.table() ? null : new JsonLinesSink(out);
    TableSink table = options.table() ? new TableSink(out) : null;
    CqlPipeline.installDetecting(channel.pipeline(), reader, frame -> {
      if (!printer.wantsMore()) {
        return null; // the frame passes on to the printer, which releases it
      }
      return sinkFor(frame, json, table);
    });
    channel.pipeline().addLast("replayPrinter", printer);
  }

  private static RowSink sinkFor(Frame frame, JsonLinesSink json, TableSink table) {
    if (json != null) {
      json.setLeadingMembers("\"stream\":" + frame.streamId());
      return json;
    }
    table.setStream(frame.streamId());
    return table;
  }

  private int status(ReplayPrinter printer) {
    Throwable fatal = printer.fatal();
    if (fatal != null) {
      err.println("cqlrows: " + options.file() + ": " + CqlRowsCli.oneLine(fatal));
      return 1;
    }
    return 0;
  }
}
