package io.cqlrows.bench.rows;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
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
 * The floors no parser of these pages can beat: {@link #copyBytes} copies the whole body into a
 * {@code byte[]} in one bulk copy (memory bandwidth); {@link #byteSwap} copies every vector cell of
 * a fixed-width vector page into a preallocated {@code float[]}/{@code double[]} through a
 * big-endian {@link VarHandle} loop, knowing where each cell starts (the scalar byte-swap floor:
 * what {@code ColumnarSink} has to do for the vectors, with no parsing at all); {@link
 * #nioByteSwap} does the same through the JDK's swapping bulk copy of a big-endian NIO view (native
 * code, the copy {@code BulkCopy} uses for buffers without an array), for comparison.
 *
 * <p>The class itself holds no parameter: {@code shape} lives in {@link Page} and {@code
 * vectorShape} in {@link VectorPage}, so each benchmark runs only over its own shapes.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 2, jvmArgsAppend = "-Dio.netty.leakDetection.level=disabled")
@State(Scope.Thread)
public class FloorBenchmark {
  private static final VarHandle FLOAT_BE =
      MethodHandles.byteArrayViewVarHandle(float[].class, ByteOrder.BIG_ENDIAN);
  private static final VarHandle DOUBLE_BE =
      MethodHandles.byteArrayViewVarHandle(double[].class, ByteOrder.BIG_ENDIAN);

  /** A page of any shape and a {@code byte[]} of its size. */
  @State(Scope.Thread)
  public static class Page {
    @Param public RowsShape shape;

    ByteBuf body;
    byte[] copy;
    boolean copied;

    @Setup(Level.Trial)
    public void setUp() {
      RowsShape.Page page = shape.page();
      body = Unpooled.wrappedBuffer(page.bytes);
      copy = new byte[page.bytes.length];
    }

    @TearDown(Level.Trial)
    public void check() {
      try {
        if (copied
            && !Arrays.equals(
                copy,
                0,
                copy.length,
                body.array(),
                body.arrayOffset(),
                body.arrayOffset() + copy.length)) {
          throw new IllegalStateException("copyBytes on " + shape + ": the copy differs");
        }
      } finally {
        body.release();
      }
    }
  }

  /** One bulk copy of the body bytes into a {@code byte[]}. */
  @Benchmark
  public byte[] copyBytes(Page p) {
    p.copied = true;
    ByteBuf in = p.body.duplicate();
    in.getBytes(in.readerIndex(), p.copy);
    return p.copy;
  }

  /** A fixed-width vector page, the offsets of its vector cells and the destination matrix. */
  @State(Scope.Thread)
  public static class VectorPage {
    @Param({"VECTOR_768F", "VECTOR_1536F", "VECTOR_128D"})
    public RowsShape vectorShape;

    RowsShape.Page page;
    float[] floats;
    double[] doubles;
    boolean swapped;

    @Setup(Level.Trial)
    public void setUp() {
      page = vectorShape.page();
      int slots = page.rows * page.vectorDimension;
      if (page.vectorElementBytes == 4) {
        floats = new float[slots];
      } else {
        doubles = new double[slots];
      }
    }

    /** Compares the matrix with the cells' big-endian bytes. */
    @TearDown(Level.Trial)
    public void check() {
      if (swapped) {
        page.checkVectors("byteSwap", floats, doubles);
      }
    }
  }

  /** Every vector cell, big-endian, into the preallocated matrix: the scalar byte-swap floor. */
  @Benchmark
  public Object byteSwap(VectorPage v) {
    v.swapped = true;
    byte[] bytes = v.page.bytes;
    int[] offsets = v.page.vectorOffsets;
    int n = v.page.vectorDimension;
    if (v.floats != null) {
      float[] dst = v.floats;
      for (int row = 0, to = 0; row < offsets.length; row++) {
        for (int i = 0, at = offsets[row]; i < n; i++, at += 4) {
          dst[to++] = (float) FLOAT_BE.get(bytes, at);
        }
      }
      return dst;
    }
    double[] dst = v.doubles;
    for (int row = 0, to = 0; row < offsets.length; row++) {
      for (int i = 0, at = offsets[row]; i < n; i++, at += 8) {
        dst[to++] = (double) DOUBLE_BE.get(bytes, at);
      }
    }
    return dst;
  }

  /**
   * As {@link #byteSwap}, each vector through a big-endian {@code FloatBuffer} (or {@code
   * DoubleBuffer}) view's bulk {@code get}: the JDK's native swapping copy instead of a Java loop.
   */
  @Benchmark
  public Object nioByteSwap(VectorPage v) {
    v.swapped = true;
    ByteBuffer bytes = ByteBuffer.wrap(v.page.bytes).order(ByteOrder.BIG_ENDIAN);
    int[] offsets = v.page.vectorOffsets;
    int n = v.page.vectorDimension;
    if (v.floats != null) {
      float[] dst = v.floats;
      for (int row = 0; row < offsets.length; row++) {
        bytes.position(offsets[row]);
        bytes.asFloatBuffer().get(dst, row * n, n);
      }
      return dst;
    }
    double[] dst = v.doubles;
    for (int row = 0; row < offsets.length; row++) {
      bytes.position(offsets[row]);
      bytes.asDoubleBuffer().get(dst, row * n, n);
    }
    return dst;
  }
}
