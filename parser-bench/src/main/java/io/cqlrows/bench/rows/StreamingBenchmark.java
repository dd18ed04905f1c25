package io.cqlrows.bench.rows;

import io.cqlrows.core.FloatVector;
import io.cqlrows.core.ParseLimits;
import io.cqlrows.core.RowSink;
import io.cqlrows.core.RowsMetadata;
import io.cqlrows.core.RowsResult;
import io.cqlrows.core.sink.ColumnarSink;
import io.cqlrows.netty.CqlPipeline;
import io.cqlrows.netty.frame.Compression;
import io.cqlrows.netty.internal.BytesToFrameDecoder;
import io.cqlrows.netty.rows.RowsFrameHandler;
import io.cqlrows.netty.rows.RowsResponse;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A 64 MiB ROWS page of {@code id int, v vector<float, 1536>} (10,900 rows) arriving as a v4 frame
 * in 64 KiB reads through {@link CqlPipeline} on an {@link EmbeddedChannel}, parsed {@code whole}
 * (the decoder gathers the frame, then the rows handler parses it) or {@code streaming} ({@link
 * BytesToFrameDecoder#streamResultsFrom}, {@link RowsFrameHandler#expectStreaming}: rows are parsed
 * as the reads arrive).
 *
 * <ul>
 *   <li>{@link #page}: the whole page into a {@link ColumnarSink} reusing its matrix: total time
 *       per page (throughput).
 *   <li>{@link #timeToFirstRow}: from the first read until the read that completed the first row
 *       has returned; the rest of the page is fed outside the measurement. In whole mode that read
 *       also parses every other row, so the trial also prints the delay to the first row itself
 *       (measured with {@code System.nanoTime} around the reads).
 * </ul>
 *
 * <p>Memory: after every read the trial records the bytes the decoder and the rows handler hold
 * (the page's bytes waiting to be parsed, beyond the sink's own matrix); the maximum is printed at
 * the end of each trial, and a streaming trial that held 1 MiB or more fails.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(
    value = 2,
    jvmArgsAppend = {"-Dio.netty.leakDetection.level=disabled", "-Xmx4g"})
@State(Scope.Thread)
public class StreamingBenchmark {
  static final int ROWS = 10_900;
  static final int DIMENSION = 1536;
  static final int READ = 64 * 1024;
  static final int STREAM_ID = 1;

  @Param({"whole", "streaming"})
  public String mode;

  private byte[] wire;
  private ByteBuf wireBuf;

  /** The checksum of the page's vectors: the sum of every row's first and last element. */
  private double expectedChecksum;

  private EmbeddedChannel channel;
  private BytesToFrameDecoder decoder;
  private RowsFrameHandler rows;
  private final ColumnarSink columnar = new ColumnarSink().reuseArrays(true);
  private final FirstRow firstRow = new FirstRow();
  private long maxHeld;
  private long pages;

  /** Sum and count of first-row delays measured inside {@link #timeToFirstRow}. */
  private long firstRowDelays;

  private long firstRowSamples;

  /** Where {@link #timeToFirstRow} stopped writing, or -1. */
  private int restFrom = -1;

  private int lastRows;

  /** Counts rows and notes the first one; nothing kept. */
  static final class FirstRow implements RowSink {
    long rows;
    long firstRowNanos;
    double sum;

    @Override
    public void onResultStart(RowsMetadata metadata, int rowCount) {
      rows = 0;
      firstRowNanos = 0;
      sum = 0;
    }

    @Override
    public void onRowStart(int row) {}

    @Override
    public void onRowEnd(int row) {
      if (rows++ == 0) {
        firstRowNanos = System.nanoTime();
      }
    }

    @Override
    public void onNull(int column) {}

    @Override
    public void onNotSet(int column) {}

    @Override
    public void onEmpty(int column) {}

    @Override
    public void onObject(int column, Object value) {}

    @Override
    public void onFloatVector(int column, FloatVector value) {
      sum += value.get(0) + value.get(value.dimension() - 1);
    }
  }

  @Setup(Level.Trial)
  public void setUp() {
    RowsBody body = new RowsBody(2);
    body.column("id", RowsShape.INT)
        .customColumn("v", RowsBody.vectorClass("FloatType", DIMENSION));
    body.int32(ROWS);
    Random r = new Random(1234);
    for (int row = 0; row < ROWS; row++) {
      body.int32(4).int32(row);
      body.int32(DIMENSION * 4);
      for (int i = 0; i < DIMENSION; i++) {
        float f = (float) r.nextGaussian();
        if (i == 0 || i == DIMENSION - 1) {
          expectedChecksum += f;
        }
        body.int32(Float.floatToRawIntBits(f));
      }
    }
    byte[] b = body.toByteArray();
    wire = new byte[9 + b.length];
    ByteBuf w = Unpooled.wrappedBuffer(wire).writerIndex(0);
    w.writeByte(0x84).writeByte(0).writeShort(STREAM_ID).writeByte(0x08).writeInt(b.length);
    w.writeBytes(b);
    wireBuf = Unpooled.wrappedBuffer(wire);
    channel = new EmbeddedChannel();
    ParseLimits limits = ParseLimits.defaults();
    CqlPipeline cql =
        CqlPipeline.install(channel.pipeline(), 4, Compression.NONE, limits, null)
            .streamResultsFrom(mode.equals("streaming") ? 1 << 20 : 0);
    rows = cql.rows();
    decoder = (BytesToFrameDecoder) channel.pipeline().get(CqlPipeline.BYTES_TO_FRAME_DECODER);
  }

  private void expect(RowSink sink) {
    if (mode.equals("streaming")) {
      rows.expectStreaming(STREAM_ID, sink, null);
    } else {
      rows.expect(STREAM_ID, sink);
    }
  }

  /**
   * Writes the reads from {@code from}; stops after the read that completes a first row if asked.
   */
  private int write(int from, boolean untilFirstRow) {
    int at = from;
    while (at < wire.length) {
      int n = Math.min(READ, wire.length - at);
      // a socket read: a buffer the pipeline owns and releases (a retained view of the wire)
      channel.writeInbound(wireBuf.retainedSlice(at, n));
      at += n;
      long held = (long) decoder.bufferedBytes() + rows.bufferedBytes();
      if (held > maxHeld) {
        maxHeld = held;
      }
      if (untilFirstRow && firstRow.rows > 0) {
        break;
      }
    }
    return at;
  }

  private void finish() {
    Object out = channel.readInbound();
    if (!(out instanceof RowsResponse response)) {
      throw new IllegalStateException(
          mode
              + ": expected a RowsResponse, got "
              + out
              + " (decoder holds "
              + decoder.bufferedBytes()
              + " bytes, rows handler "
              + rows.bufferedBytes()
              + ", first-row sink saw "
              + firstRow.rows
              + " rows)");
    }
    lastRows = ((RowsResult) response.result()).rowCount();
    pages++;
  }

  /** The whole page, 64 KiB read by read, into the columnar sink. */
  @Benchmark
  public ColumnarSink page() {
    expect(columnar);
    write(0, false);
    finish();
    return columnar;
  }

  /** From the first read to the first complete row in the sink. */
  @Benchmark
  public long timeToFirstRow() {
    firstRow.rows = 0;
    expect(firstRow);
    long start = System.nanoTime();
    restFrom = write(0, true);
    firstRowDelays += firstRow.firstRowNanos - start;
    firstRowSamples++;
    return firstRow.firstRowNanos;
  }

  /**
   * Feeds the rest of the page after {@link #timeToFirstRow}, outside the measurement (a fixture of
   * this state: JMH hands a fixture of another state a different instance).
   */
  @TearDown(Level.Invocation)
  public void feedRest() {
    if (restFrom >= 0) {
      write(restFrom, false);
      finish();
      restFrom = -1;
    }
  }

  @TearDown(Level.Trial)
  public void check() {
    try {
      if (pages == 0) {
        return;
      }
      if (lastRows != ROWS) {
        throw new IllegalStateException(mode + ": " + lastRows + " rows, expected " + ROWS);
      }
      if (columnar.rowCount() == ROWS) {
        float[] m = columnar.column(1).floats();
        double sum = 0;
        for (int row = 0; row < ROWS; row++) {
          sum += m[row * DIMENSION] + m[row * DIMENSION + DIMENSION - 1];
        }
        checkSum(sum);
      } else if (firstRow.rows == ROWS) {
        checkSum(firstRow.sum);
      }
      System.out.printf(
          "%n%s: %d pages, max held by decoder + rows handler: %,d bytes%n", mode, pages, maxHeld);
      if (firstRowSamples > 0) {
        // the op time of timeToFirstRow also holds, in whole mode, the parse of the other rows
        // (they are parsed in the same call); this is the delay to the first row alone
        System.out.printf(
            "%s: first row after %.3f ms on average (%d samples)%n",
            mode, firstRowDelays / 1e6 / firstRowSamples, firstRowSamples);
      }
      if (mode.equals("streaming") && maxHeld >= 1 << 20) {
        throw new IllegalStateException("streaming held " + maxHeld + " bytes (limit 1 MiB)");
      }
    } finally {
      channel.finishAndReleaseAll();
      wireBuf.release();
    }
  }

  private void checkSum(double sum) {
    if (Math.abs(sum - expectedChecksum) > 1e-3 * Math.max(1, Math.abs(expectedChecksum))) {
      throw new IllegalStateException(
          mode + ": checksum " + sum + ", expected " + expectedChecksum);
    }
  }
}
