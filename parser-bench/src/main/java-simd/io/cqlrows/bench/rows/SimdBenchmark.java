package io.cqlrows.bench.rows;

import io.cqlrows.core.ResultReader;
import io.cqlrows.core.VectorCopy;
import io.cqlrows.core.sink.ColumnarSink;
import io.cqlrows.core.sink.CountingSink;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;
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
import org.openjdk.jmh.infra.Blackhole;

/**
 * The SIMD copy path ({@link VectorCopy}) on the fixed-width vector pages: the same parses as
 * {@link RowsParserBenchmark#parseColumnarReused} and {@link RowsParserBenchmark#parseToBlackhole},
 * whose forks run without the Vector API module and so measure the scalar path on the same bytes,
 * and {@link #simdFloor}, the SIMD counterpart of {@link FloorBenchmark#byteSwap}: every vector
 * cell byte-swapped into the matrix as {@code SimdCopy} does it, knowing where each cell starts.
 * Run them in one JMH run with those, e.g. {@code
 * (RowsParserBenchmark.parseColumnarReused|FloorBenchmark|SimdBenchmark) -p shape=VECTOR_1536F -p
 * vectorShape=VECTOR_1536F}.
 *
 * <p>The forks add {@code --add-modules=jdk.incubator.vector} and the opt-in {@code
 * -Dio.cqlrows.simd=true} (they print JMH's and the JVM's incubator warnings on stderr); the setup
 * fails if the SIMD path is nevertheless not active, so the comparison cannot silently measure
 * scalar twice. A {@code -jvmArgsAppend} on the command line replaces the annotation's: repeat both
 * in it.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
    value = 2,
    jvmArgsAppend = {
      "--add-modules=jdk.incubator.vector",
      "-Dio.cqlrows.simd=true",
      "-Dio.netty.leakDetection.level=disabled"
    })
@State(Scope.Thread)
public class SimdBenchmark {
  private static final ByteOrder BE = ByteOrder.BIG_ENDIAN;
  private static final VarHandle FLOAT_BE = MethodHandles.byteArrayViewVarHandle(float[].class, BE);
  private static final VarHandle DOUBLE_BE =
      MethodHandles.byteArrayViewVarHandle(double[].class, BE);

  /** As {@code SimdCopy} on a CPU with 256-bit byte vectors (AVX2). */
  private static final VectorSpecies<Byte> B = ByteVector.SPECIES_256;

  private static final VectorShuffle<Byte> SWAP4 = VectorShuffle.fromOp(B, i -> i ^ 3);
  private static final VectorShuffle<Byte> SWAP8 = VectorShuffle.fromOp(B, i -> i ^ 7);

  @Param({"VECTOR_768F", "VECTOR_1536F", "VECTOR_128D"})
  public RowsShape shape;

  private RowsShape.Page page;
  private ByteBuf body;
  private ResultReader reader;
  private ColumnarSink columnarReused;
  private BlackholeRowSink blackholeSink;
  private CountingSink counting;
  private float[] floats;
  private double[] doubles;
  private boolean parsed;
  private boolean swapped;

  @Setup(Level.Trial)
  public void setUp(Blackhole bh) {
    if (!VectorCopy.simd()) {
      throw new IllegalStateException("the SIMD copy path is not active in this fork");
    }
    page = shape.page();
    body = Unpooled.wrappedBuffer(page.bytes);
    reader = new ResultReader(4);
    columnarReused = new ColumnarSink().reuseArrays(true);
    blackholeSink = new BlackholeRowSink(bh);
    counting = new CountingSink();
    int slots = page.rows * page.vectorDimension;
    if (page.vectorElementBytes == 4) {
      floats = new float[slots];
    } else {
      doubles = new double[slots];
    }
  }

  /** {@link RowsParserBenchmark#parseColumnarReused} with the SIMD copy. */
  @Benchmark
  public ColumnarSink parseColumnarReused() {
    parsed = true;
    reader.read(body.duplicate(), columnarReused);
    return columnarReused;
  }

  /** {@link RowsParserBenchmark#parseToBlackhole} with the SIMD copy. */
  @Benchmark
  public long parseToBlackhole() {
    reader.read(body.duplicate(), blackholeSink);
    return blackholeSink.rows;
  }

  /**
   * The parse with a sink that counts the vector cells without copying them: the part of {@link
   * #parseColumnarReused} no copy, scalar or SIMD, can speed up (cell framing, length checks, the
   * sink calls).
   */
  @Benchmark
  public CountingSink parseWithoutCopy() {
    counting.reset();
    reader.read(body.duplicate(), counting);
    return counting;
  }

  /** Every vector cell into the preallocated matrix with the Vector API: the SIMD floor. */
  @Benchmark
  public Object simdFloor() {
    swapped = true;
    byte[] a = page.bytes;
    int[] offsets = page.vectorOffsets;
    int n = page.vectorDimension;
    if (floats != null) {
      float[] dst = floats;
      for (int row = 0; row < offsets.length; row++) {
        int to = row * n;
        int p = offsets[row];
        int i = 0;
        for (int bound = n & ~7; i < bound; i += 8, p += 32) {
          ByteVector.fromArray(B, a, p)
              .rearrange(SWAP4)
              .reinterpretAsFloats()
              .intoArray(dst, to + i);
        }
        for (; i < n; i++, p += 4) {
          dst[to + i] = (float) FLOAT_BE.get(a, p);
        }
      }
      return dst;
    }
    double[] dst = doubles;
    for (int row = 0; row < offsets.length; row++) {
      int to = row * n;
      int p = offsets[row];
      int i = 0;
      for (int bound = n & ~3; i < bound; i += 4, p += 32) {
        ByteVector.fromArray(B, a, p)
            .rearrange(SWAP8)
            .reinterpretAsDoubles()
            .intoArray(dst, to + i);
      }
      for (; i < n; i++, p += 8) {
        dst[to + i] = (double) DOUBLE_BE.get(a, p);
      }
    }
    return dst;
  }

  /** Rows, checksum and value count of each parse; every vector element of each matrix. */
  @TearDown(Level.Trial)
  public void check() {
    try {
      if (parsed) {
        RowsParserBenchmark.checkColumnar(
            page, "SimdBenchmark.parseColumnarReused", columnarReused);
      }
      if (blackholeSink.rows > 0) {
        page.check(
            "SimdBenchmark.parseToBlackhole",
            blackholeSink.rows,
            blackholeSink.intSum,
            blackholeSink.values);
      }
      if (counting.rows() > 0) {
        page.check(
            "SimdBenchmark.parseWithoutCopy", counting.rows(), page.intSum, counting.values());
      }
      if (swapped) {
        page.checkVectors("SimdBenchmark.simdFloor", floats, doubles);
      }
    } finally {
      body.release();
    }
  }
}
