package io.cqlrows.bench.capture;

import io.cqlrows.capture.digest.Digest;
import io.cqlrows.capture.digest.DigestReport;
import io.cqlrows.capture.gen.ConnectionStats;
import io.cqlrows.capture.gen.StatementStats;
import io.cqlrows.capture.gen.SyntheticCapture;
import io.cqlrows.capture.pcap.PcapPacket;
import io.cqlrows.capture.pcap.PcapReader;
import io.cqlrows.capture.pcap.TcpFlow;
import io.cqlrows.capture.pcap.TcpFlows;
import io.cqlrows.capture.replay.FileReplay;
import io.cqlrows.capture.replay.ReplayListener;
import io.cqlrows.core.CqlResult;
import io.cqlrows.core.RowSink;
import io.cqlrows.core.sink.CountingSink;
import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.netty.frame.CqlServerError;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The three passes over a capture file that {@link CaptureThroughput} and {@link CaptureMemory}
 * measure, the capture they run on, and the checks of each pass against what the generator says the
 * file holds ({@link SyntheticCapture.Expected}), so that a pass that skips work fails instead of
 * looking fast.
 *
 * <ul>
 *   <li>{@link #reassemble}: {@link PcapReader} and {@link TcpFlows}, into a listener that only
 *       counts the bytes: the floor of reading and reassembling the file.
 *   <li>{@link #replay}: {@link FileReplay} with default options, every RESULT decoded into one
 *       {@link CountingSink}.
 *   <li>{@link #digest}: {@link Digest#of} with {@link Digest.Limits#DEFAULT}.
 * </ul>
 */
final class CaptureWork {
  private CaptureWork() {}

  /**
   * The capture: the spec of {@link SyntheticCapture}'s example and {@code main} (seed 42, 64
   * connections, 16 at once, 12 statements, 3% errors, 1% of response segments reordered, 0.5%
   * retransmitted, 0.2% overlapping, none lost), of {@code bytes} bytes.
   */
  static SyntheticCapture.Spec spec(long bytes) {
    return SyntheticCapture.example(bytes, 42);
  }

  /**
   * Writes the capture of {@link #spec}{@code (bytes)} to {@code file} and waits until the kernel
   * has written it to disk, so that its writeback does not run during the passes (the page cache
   * still holds it: the passes read memory).
   */
  static SyntheticCapture.Expected write(long bytes, Path file) throws IOException {
    SyntheticCapture.Expected e = SyntheticCapture.write(spec(bytes), file);
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
      ch.force(true);
    }
    return e;
  }

  /** What {@link #reassemble} counted. */
  static final class Reassembled implements TcpFlows.Listener {
    long bytes;
    long gapBytes;
    long connections;

    @Override
    public void onData(
        TcpFlow flow, boolean fromClient, byte[] data, int offset, int length, long timestamp) {
      bytes += length;
    }

    @Override
    public void onGap(TcpFlow flow, boolean fromClient, long length) {
      gapBytes += length;
    }

    @Override
    public void onClose(TcpFlow flow) {
      connections++;
    }
  }

  /** Reads and reassembles the file, counting the bytes of every stream. */
  static Reassembled reassemble(Path file) throws IOException {
    Reassembled counted = new Reassembled();
    TcpFlows flows = new TcpFlows(0, TcpFlows.Limits.DEFAULT, counted);
    try (PcapReader reader = PcapReader.open(file)) {
      for (PcapPacket p; (p = reader.next()) != null; ) {
        flows.add(p);
      }
    }
    flows.finish();
    return counted;
  }

  /** What {@link #replay} counted: every connection's results go into one {@link CountingSink}. */
  static final class Replayed implements FileReplay.Handler, ReplayListener {
    final CountingSink sink = new CountingSink();
    long connections;
    long responses;
    long serverErrors;
    long undecodable;
    long unanswered;
    long notes;
    String firstNote;
    FileReplay.Summary summary;

    @Override
    public ReplayListener onConnection(FileReplay.Connection connection) {
      connections++;
      return this;
    }

    @Override
    public void onNote(FileReplay.Connection connection, String note) {
      if (notes++ == 0) {
        firstNote = (connection == null ? "" : connection.label() + ": ") + note;
      }
    }

    @Override
    public RowSink sinkFor(Response response) {
      return sink;
    }

    @Override
    public void onResult(Response response, CqlResult result) {}

    @Override
    public void onError(Response response, CqlFrameException error) {
      undecodable++;
    }

    @Override
    public void onServerError(Response response, CqlServerError error) {
      serverErrors++;
    }

    @Override
    public void onResponse(Response response) {
      responses++;
    }

    @Override
    public void onUnanswered(io.cqlrows.capture.replay.Request request) {
      unanswered++;
    }
  }

  /** Replays the file, decoding every result into a counting sink. */
  static Replayed replay(Path file) throws IOException {
    Replayed counted = new Replayed();
    counted.summary = FileReplay.builder().build().replay(file, counted);
    return counted;
  }

  /** Digests the file. */
  static DigestReport digest(Path file) throws IOException {
    return Digest.of(file, FileReplay.builder().build(), Digest.Limits.DEFAULT);
  }

  /** The totals of a capture's expectation that the checks compare with. */
  record Totals(
      long fileBytes,
      int connections,
      long streamBytes,
      long lostBytes,
      long responses,
      long serverErrors,
      long rows,
      long pages,
      long unanswered,
      long lostResponses) {
    static Totals of(SyntheticCapture.Expected e) {
      long stream = 0;
      long lost = 0;
      for (ConnectionStats c : e.connectionStats()) {
        stream += c.clientBytes() + c.serverBytes() - c.lostClientBytes() - c.lostServerBytes();
        lost += c.lostClientBytes() + c.lostServerBytes();
      }
      long errors = 0;
      long rows = 0;
      long pages = 0;
      long unanswered = 0;
      long lostResponses = 0;
      for (StatementStats s : e.statements().values()) {
        errors += s.errors();
        rows += s.rows();
        pages += s.pages();
        unanswered += s.unanswered();
        lostResponses += s.lost();
      }
      return new Totals(
          e.fileBytes(),
          e.connections(),
          stream,
          lost,
          e.responses(),
          errors,
          rows,
          pages,
          unanswered,
          lostResponses);
    }

    void check(Reassembled r) {
      same("reassembled bytes", streamBytes, r.bytes);
      same("gap bytes", lostBytes, r.gapBytes);
      same("TCP connections", connections, r.connections);
    }

    void check(Replayed r) {
      same("bytes read", fileBytes, r.summary.bytesRead());
      same("CQL connections", connections, r.connections);
      same("responses", responses, r.responses);
      same("server errors", serverErrors, r.serverErrors);
      same("rows", rows, r.sink.rows());
      same("ROWS results", pages, r.sink.results());
      same("unanswered requests", unanswered, r.unanswered);
      same("undecodable responses", lostResponses, r.undecodable);
    }

    void check(DigestReport d) {
      same("bytes read", fileBytes, d.bytesRead());
      same("CQL connections", connections, d.cqlConnections());
      long count = 0;
      long errors = 0;
      long rowCount = 0;
      long pageCount = 0;
      long unansweredCount = 0;
      for (DigestReport.Entry op : d.opcodes()) {
        count += op.count();
        errors += op.errors();
        rowCount += op.rows();
        pageCount += op.pages();
        unansweredCount += op.unanswered();
      }
      same("responses", responses, count);
      same("server errors", serverErrors, errors);
      same("rows", rows, rowCount);
      same("ROWS results", pages, pageCount);
      same("unanswered requests", unanswered, unansweredCount);
    }

    private static void same(String what, long expected, long actual) {
      if (expected != actual) {
        throw new IllegalStateException(what + ": " + actual + ", expected " + expected);
      }
    }
  }
}
