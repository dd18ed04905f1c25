package io.cqlrows.bench.capture;

import io.cqlrows.capture.digest.DigestReport;
import io.cqlrows.capture.gen.SyntheticCapture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
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
 * Throughput of whole passes over one capture file, in MB/s of the file (MB = 10^6 bytes).
 *
 * <p>The capture is written once per trial by {@link SyntheticCapture} ({@link CaptureWork#spec}:
 * seed 42, 64 TCP connections, 16 at once, 12 statements, 3% errors, reordered, retransmitted and
 * overlapping segments) into a temporary file, {@link #bytes} long (256 MiB by default), and
 * deleted at the end of the trial. The page cache holds it, so the passes read memory, not disk.
 * One operation is one whole pass over the file:
 *
 * <ul>
 *   <li>{@link #reassemble}: {@code PcapReader} and {@code TcpFlows} into a listener that only
 *       counts the bytes, the floor of the other two;
 *   <li>{@link #replay}: {@code FileReplay}, every result decoded into a {@code CountingSink};
 *   <li>{@link #digest}: {@code Digest.of}, the statement digest of the file.
 * </ul>
 *
 * <p><b>The figure.</b> Each operation adds the file's size in MB to the {@link Megabytes#mb}
 * counter ({@link AuxCounters}), which JMH divides by the iteration's time like the operations: the
 * {@code mb} line of the results is MB/s (JMH labels it {@code ops/s}). The main score is passes
 * per second; {@code mb} is that times the file's size in MB. An iteration runs whole passes until
 * its time is up and is timed to the end of the last one, so a pass is never cut.
 *
 * <p>Every pass is checked against the generator's expectation (bytes reassembled, responses,
 * server errors, rows, pages, unanswered requests), and a wrong count fails the run.
 *
 * <pre>
 * mvn -q -DskipTests package
 * java -jar parser-bench/target/benchmarks.jar CaptureThroughput -prof gc
 * </pre>
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 10)
@Measurement(iterations = 5, time = 10)
@Fork(
    value = 1,
    jvmArgsAppend = {"-Dio.netty.leakDetection.level=disabled", "-Xmx1g"})
@State(Scope.Benchmark)
public class CaptureThroughput {
  /** The capture's target size in bytes (the file ends up slightly larger). */
  @Param({"268435456"})
  public long bytes;

  private Path file;
  private double megabytes;
  private CaptureWork.Totals expected;

  /** MB of capture file passed over in the iteration; reported per second. */
  @AuxCounters(AuxCounters.Type.OPERATIONS)
  @State(Scope.Thread)
  public static class Megabytes {
    /** MB (10^6 bytes) of the file read by the operations of this iteration. */
    public double mb;

    /** Counts from zero in each iteration. */
    @Setup(Level.Iteration)
    public void clear() {
      mb = 0;
    }
  }

  /** Writes the capture. */
  @Setup(Level.Trial)
  public void write() throws IOException {
    file = Files.createTempFile("cqlrows-capture-throughput-", ".pcap");
    long start = System.nanoTime();
    SyntheticCapture.Expected e = CaptureWork.write(bytes, file);
    long millis = (System.nanoTime() - start) / 1_000_000;
    expected = CaptureWork.Totals.of(e);
    long size = Files.size(file);
    if (size != e.fileBytes()) {
      throw new IllegalStateException("file of " + size + " bytes, expected " + e.fileBytes());
    }
    megabytes = size / 1e6;
    System.out.printf(
        "%n%s: %,d bytes, %,d packets, %,d requests, %,d responses, %,d rows; written in %,d ms%n",
        file, size, e.packets(), e.requests(), e.responses(), expected.rows(), millis);
  }

  /** Deletes the capture. */
  @TearDown(Level.Trial)
  public void delete() throws IOException {
    if (file != null) {
      Files.deleteIfExists(file);
    }
  }

  /** Reads and reassembles the capture, counting the bytes of the TCP streams. */
  @Benchmark
  public long reassemble(Megabytes counter) throws IOException {
    CaptureWork.Reassembled r = CaptureWork.reassemble(file);
    expected.check(r);
    counter.mb += megabytes;
    return r.bytes;
  }

  /** Replays the capture, decoding every result into a counting sink. */
  @Benchmark
  public long replay(Megabytes counter) throws IOException {
    CaptureWork.Replayed r = CaptureWork.replay(file);
    expected.check(r);
    counter.mb += megabytes;
    return r.sink.cells();
  }

  /** Digests the capture. */
  @Benchmark
  public DigestReport digest(Megabytes counter) throws IOException {
    DigestReport d = CaptureWork.digest(file);
    expected.check(d);
    counter.mb += megabytes;
    return d;
  }
}
