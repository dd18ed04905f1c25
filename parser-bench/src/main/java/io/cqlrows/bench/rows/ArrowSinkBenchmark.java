package io.cqlrows.bench.rows;

import io.cqlrows.arrow.ArrowSink;
import io.cqlrows.core.ResultReader;
import io.cqlrows.core.sink.ColumnarSink;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
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
 * One ROWS page (protocol v4) into an {@link ArrowSink} with reused vectors, against the same page
 * into a {@link ColumnarSink} with reused arrays, in the same run: the Arrow output's cost over the
 * columnar fast path. One operation = one page. Run with {@code -prof gc} for the bytes allocated
 * on the Java heap per page (Arrow's buffers are off-heap and reused).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
    value = 2,
    jvmArgsAppend = {
      "-Dio.netty.leakDetection.level=disabled",
      "--add-opens=java.base/java.nio=ALL-UNNAMED",
      "-Dslf4j.internal.verbosity=ERROR"
    })
@State(Scope.Thread)
public class ArrowSinkBenchmark {

  @Param({"VECTOR_1536F", "MIXED_SCALARS"})
  public RowsShape shape;

  private ByteBuf body;
  private ResultReader reader;
  private BufferAllocator allocator;
  private ArrowSink arrow;
  private ColumnarSink columnar;

  @Setup(Level.Trial)
  public void setUp() {
    body = Unpooled.wrappedBuffer(shape.page().bytes);
    reader = new ResultReader(4);
    allocator = new RootAllocator();
    arrow = new ArrowSink(allocator).reuseVectors(true);
    columnar = new ColumnarSink().reuseArrays(true);
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    arrow.close();
    allocator.close();
  }

  /** The page into Arrow vectors, reused across pages. */
  @Benchmark
  public ArrowSink parseArrowReused() {
    reader.read(body.duplicate(), arrow);
    return arrow;
  }

  /** The same page into ColumnarSink's reused arrays: the reference. */
  @Benchmark
  public ColumnarSink parseColumnarReused() {
    reader.read(body.duplicate(), columnar);
    return columnar;
  }
}
