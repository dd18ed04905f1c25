package io.cqlrows.bench.rows;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.CompilerControl;
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
 * How to byte-swap big-endian vector cells with the JDK 17 Vector API: the variants {@code
 * SimdCopy} was chosen from, each copying every vector cell of a page (as {@link
 * FloorBenchmark#byteSwap}, which is the scalar reference) into a preallocated matrix. Heap
 * variants read the page's {@code byte[]}; {@code direct*} read a direct {@link ByteBuffer} copy of
 * it (the NIO bulk {@code get} of {@code ScalarCopy} against {@code fromByteBuffer}).
 *
 * <ul>
 *   <li>{@code be256}, {@code be128}: {@code FloatVector.fromByteArray(species, a, p, BIG_ENDIAN)}
 *       (internally a byte rearrange), 256- and 128-bit species.
 *   <li>{@code shuffle256}, {@code shuffle128}: {@code ByteVector.fromArray} + a constant
 *       byte-reversing {@code rearrange} + {@code reinterpretAsFloats()}.
 *   <li>{@code shift256}: native-order lanes, then the swap as lanewise shifts, ands and ors.
 * </ul>
 *
 * <p>On the 2-core AVX2 machine of the first measurement (noisy, shared; best iteration of 1-2
 * forks, ops/s on VECTOR_1536F / VECTOR_128D): scalar 7.0k / 90k; be256 30k / 148k, be128 27k /
 * 151k, shuffle256 25k / 167k, shuffle128 28k / 138k, shift256 25k / 74k; direct buffers: NIO 9.1k
 * / 74k, directBe256 11k / 74k in one run and 5.7k / 50k in the other, directBe128 6.5k / 35k. The
 * heap variants are within the noise of each other (at cache bandwidth), so {@code SimdCopy} uses
 * the simplest, {@code be256}; direct buffers keep the NIO path.
 *
 * <p>{@code call*}: the same copies as one non-inlined call per cell, as the parser makes them (the
 * per-call setup of a vector loop is not hoisted out of a row loop there). Best iterations:
 * callScalar 6.1k / 38k, callBe256 17k / 103k, callBe128 16k / 116k, callShuffle256 18k / 102k,
 * against be256 17k / 120k in the same (busier) run: a few ns per call, no variant clearly ahead.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(
    value = 1,
    jvmArgsAppend = {
      "--add-modules=jdk.incubator.vector",
      "-Dio.cqlrows.simd=true",
      "-Dio.netty.leakDetection.level=disabled"
    })
@State(Scope.Thread)
public class SimdVariantsBenchmark {
  private static final ByteOrder BE = ByteOrder.BIG_ENDIAN;
  private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
  private static final VarHandle FLOAT_BE = MethodHandles.byteArrayViewVarHandle(float[].class, BE);
  private static final VarHandle DOUBLE_BE =
      MethodHandles.byteArrayViewVarHandle(double[].class, BE);

  private static final VectorSpecies<Float> F256 = FloatVector.SPECIES_256;
  private static final VectorSpecies<Float> F128 = FloatVector.SPECIES_128;
  private static final VectorSpecies<Double> D256 = DoubleVector.SPECIES_256;
  private static final VectorSpecies<Double> D128 = DoubleVector.SPECIES_128;
  private static final VectorSpecies<Integer> I256 = IntVector.SPECIES_256;
  private static final VectorSpecies<Long> L256 = LongVector.SPECIES_256;
  private static final VectorSpecies<Byte> B256 = ByteVector.SPECIES_256;
  private static final VectorSpecies<Byte> B128 = ByteVector.SPECIES_128;
  private static final VectorShuffle<Byte> SWAP4_256 = VectorShuffle.fromOp(B256, i -> i ^ 3);
  private static final VectorShuffle<Byte> SWAP4_128 = VectorShuffle.fromOp(B128, i -> i ^ 3);
  private static final VectorShuffle<Byte> SWAP8_256 = VectorShuffle.fromOp(B256, i -> i ^ 7);
  private static final VectorShuffle<Byte> SWAP8_128 = VectorShuffle.fromOp(B128, i -> i ^ 7);

  /** A vector page, its bytes also in a direct buffer, and the destination matrix. */
  @State(Scope.Thread)
  public static class Cells {
    @Param({"VECTOR_1536F", "VECTOR_128D"})
    public RowsShape vectorShape;

    RowsShape.Page page;
    byte[] bytes;
    ByteBuffer direct;
    int[] offsets;
    int n;
    float[] floats;
    double[] doubles;
    boolean ran;

    @Setup(Level.Trial)
    public void setUp() {
      page = vectorShape.page();
      bytes = page.bytes;
      direct = ByteBuffer.allocateDirect(bytes.length).put(bytes).flip();
      offsets = page.vectorOffsets;
      n = page.vectorDimension;
      if (page.vectorElementBytes == 4) {
        floats = new float[page.rows * n];
      } else {
        doubles = new double[page.rows * n];
      }
    }

    /** The last variant's matrix against the cells read one by one. */
    @TearDown(Level.Iteration)
    public void check() {
      if (!ran) {
        return;
      }
      ByteBuffer b = ByteBuffer.wrap(bytes);
      for (int row = 0; row < page.rows; row++) {
        for (int i = 0; i < n; i++) {
          int at = offsets[row] + i * page.vectorElementBytes;
          boolean same =
              floats != null
                  ? Float.floatToRawIntBits(floats[row * n + i]) == b.getInt(at)
                  : Double.doubleToRawLongBits(doubles[row * n + i]) == b.getLong(at);
          if (!same) {
            throw new IllegalStateException(vectorShape + ": row " + row + " element " + i);
          }
        }
      }
      if (floats != null) {
        java.util.Arrays.fill(floats, 0f);
      } else {
        java.util.Arrays.fill(doubles, 0d);
      }
      ran = false;
    }
  }

  @Benchmark
  public Object scalar(Cells c) {
    c.ran = true;
    byte[] a = c.bytes;
    int n = c.n;
    if (c.floats != null) {
      float[] dst = c.floats;
      for (int row = 0; row < c.offsets.length; row++) {
        int to = row * n;
        for (int i = 0, p = c.offsets[row]; i < n; i++, p += 4) {
          dst[to + i] = (float) FLOAT_BE.get(a, p);
        }
      }
      return dst;
    }
    double[] dst = c.doubles;
    for (int row = 0; row < c.offsets.length; row++) {
      int to = row * n;
      for (int i = 0, p = c.offsets[row]; i < n; i++, p += 8) {
        dst[to + i] = (double) DOUBLE_BE.get(a, p);
      }
    }
    return dst;
  }

  @Benchmark
  public Object be256(Cells c) {
    c.ran = true;
    byte[] a = c.bytes;
    int n = c.n;
    if (c.floats != null) {
      float[] dst = c.floats;
      for (int row = 0; row < c.offsets.length; row++) {
        int to = row * n;
        for (int i = 0, p = c.offsets[row]; i < n; i += 8, p += 32) {
          FloatVector.fromByteArray(F256, a, p, BE).intoArray(dst, to + i);
        }
      }
      return dst;
    }
    double[] dst = c.doubles;
    for (int row = 0; row < c.offsets.length; row++) {
      int to = row * n;
      for (int i = 0, p = c.offsets[row]; i < n; i += 4, p += 32) {
        DoubleVector.fromByteArray(D256, a, p, BE).intoArray(dst, to + i);
      }
    }
    return dst;
  }

  @Benchmark
  public Object be128(Cells c) {
    c.ran = true;
    byte[] a = c.bytes;
    int n = c.n;
    if (c.floats != null) {
      float[] dst = c.floats;
      for (int row = 0; row < c.offsets.length; row++) {
        int to = row * n;
        for (int i = 0, p = c.offsets[row]; i < n; i += 4, p += 16) {
          FloatVector.fromByteArray(F128, a, p, BE).intoArray(dst, to + i);
        }
      }
      return dst;
    }
    double[] dst = c.doubles;
    for (int row = 0; row < c.offsets.length; row++) {
      int to = row * n;
      for (int i = 0, p = c.offsets[row]; i < n; i += 2, p += 16) {
        DoubleVector.fromByteArray(D128, a, p, BE).intoArray(dst, to + i);
      }
    }
    return dst;
  }

  @Benchmark
  public Object shuffle256(Cells c) {
    c.ran = true;
    byte[] a = c.bytes;
    int n = c.n;
    if (c.floats != null) {
      float[] dst = c.floats;
      for (int row = 0; row < c.offsets.length; row++) {
        int to = row * n;
        for (int i = 0, p = c.offsets[row]; i < n; i += 8, p += 32) {
          ByteVector.fromArray(B256, a, p)
              .rearrange(SWAP4_256)
              .reinterpretAsFloats()
              .intoArray(dst, to + i);
        }
      }
      return dst;
    }
    double[] dst = c.doubles;
    for (int row = 0; row < c.offsets.length; row++) {
      int to = row * n;
      for (int i = 0, p = c.offsets[row]; i < n; i += 4, p += 32) {
        ByteVector.fromArray(B256, a, p)
            .rearrange(SWAP8_256)
            .reinterpretAsDoubles()
            .intoArray(dst, to + i);
      }
    }
    return dst;
  }

  @Benchmark
  public Object shuffle128(Cells c) {
    c.ran = true;
    byte[] a = c.bytes;
    int n = c.n;
    if (c.floats != null) {
      float[] dst = c.floats;
      for (int row = 0; row < c.offsets.length; row++) {
        int to = row * n;
        for (int i = 0, p = c.offsets[row]; i < n; i += 4, p += 16) {
          ByteVector.fromArray(B128, a, p)
              .rearrange(SWAP4_128)
              .reinterpretAsFloats()
              .intoArray(dst, to + i);
        }
      }
      return dst;
    }
    double[] dst = c.doubles;
    for (int row = 0; row < c.offsets.length; row++) {
      int to = row * n;
      for (int i = 0, p = c.offsets[row]; i < n; i += 2, p += 16) {
        ByteVector.fromArray(B128, a, p)
            .rearrange(SWAP8_128)
            .reinterpretAsDoubles()
            .intoArray(dst, to + i);
      }
    }
    return dst;
  }

  @Benchmark
  public Object shift256(Cells c) {
    c.ran = true;
    byte[] a = c.bytes;
    int n = c.n;
    if (c.floats != null) {
      float[] dst = c.floats;
      for (int row = 0; row < c.offsets.length; row++) {
        int to = row * n;
        for (int i = 0, p = c.offsets[row]; i < n; i += 8, p += 32) {
          IntVector v = IntVector.fromByteArray(I256, a, p, LE);
          v.lanewise(VectorOperators.LSHL, 24)
              .or(v.and(0xff00).lanewise(VectorOperators.LSHL, 8))
              .or(v.lanewise(VectorOperators.LSHR, 8).and(0xff00))
              .or(v.lanewise(VectorOperators.LSHR, 24))
              .reinterpretAsFloats()
              .intoArray(dst, to + i);
        }
      }
      return dst;
    }
    double[] dst = c.doubles;
    for (int row = 0; row < c.offsets.length; row++) {
      int to = row * n;
      for (int i = 0, p = c.offsets[row]; i < n; i += 4, p += 32) {
        LongVector v = LongVector.fromByteArray(L256, a, p, LE);
        v = v.lanewise(VectorOperators.LSHL, 32).or(v.lanewise(VectorOperators.LSHR, 32));
        v =
            v.and(0x0000ffff0000ffffL)
                .lanewise(VectorOperators.LSHL, 16)
                .or(v.lanewise(VectorOperators.LSHR, 16).and(0x0000ffff0000ffffL));
        v =
            v.and(0x00ff00ff00ff00ffL)
                .lanewise(VectorOperators.LSHL, 8)
                .or(v.lanewise(VectorOperators.LSHR, 8).and(0x00ff00ff00ff00ffL));
        v.reinterpretAsDoubles().intoArray(dst, to + i);
      }
    }
    return dst;
  }

  /** Direct buffer, the scalar path: a big-endian NIO view's bulk get per cell. */
  @Benchmark
  public Object directNio(Cells c) {
    c.ran = true;
    ByteBuffer b = c.direct;
    int n = c.n;
    if (c.floats != null) {
      for (int row = 0; row < c.offsets.length; row++) {
        b.slice(c.offsets[row], n * 4).order(BE).asFloatBuffer().get(c.floats, row * n, n);
      }
      return c.floats;
    }
    for (int row = 0; row < c.offsets.length; row++) {
      b.slice(c.offsets[row], n * 8).order(BE).asDoubleBuffer().get(c.doubles, row * n, n);
    }
    return c.doubles;
  }

  /** Direct buffer: {@code fromByteBuffer(species, b, p, BIG_ENDIAN)}, 256-bit. */
  @Benchmark
  public Object directBe256(Cells c) {
    c.ran = true;
    ByteBuffer b = c.direct;
    int n = c.n;
    if (c.floats != null) {
      float[] dst = c.floats;
      for (int row = 0; row < c.offsets.length; row++) {
        int to = row * n;
        for (int i = 0, p = c.offsets[row]; i < n; i += 8, p += 32) {
          FloatVector.fromByteBuffer(F256, b, p, BE).intoArray(dst, to + i);
        }
      }
      return dst;
    }
    double[] dst = c.doubles;
    for (int row = 0; row < c.offsets.length; row++) {
      int to = row * n;
      for (int i = 0, p = c.offsets[row]; i < n; i += 4, p += 32) {
        DoubleVector.fromByteBuffer(D256, b, p, BE).intoArray(dst, to + i);
      }
    }
    return dst;
  }

  /** Direct buffer: {@code fromByteBuffer(species, b, p, BIG_ENDIAN)}, 128-bit. */
  @Benchmark
  public Object directBe128(Cells c) {
    c.ran = true;
    ByteBuffer b = c.direct;
    int n = c.n;
    if (c.floats != null) {
      float[] dst = c.floats;
      for (int row = 0; row < c.offsets.length; row++) {
        int to = row * n;
        for (int i = 0, p = c.offsets[row]; i < n; i += 4, p += 16) {
          FloatVector.fromByteBuffer(F128, b, p, BE).intoArray(dst, to + i);
        }
      }
      return dst;
    }
    double[] dst = c.doubles;
    for (int row = 0; row < c.offsets.length; row++) {
      int to = row * n;
      for (int i = 0, p = c.offsets[row]; i < n; i += 2, p += 16) {
        DoubleVector.fromByteBuffer(D128, b, p, BE).intoArray(dst, to + i);
      }
    }
    return dst;
  }

  // ---- one call per cell, not inlined: what the parser does (a sink call per cell) ----

  @Benchmark
  public Object callScalar(Cells c) {
    c.ran = true;
    for (int row = 0; row < c.offsets.length; row++) {
      if (c.floats != null) {
        scalarFloats(c.bytes, c.offsets[row], c.floats, row * c.n, c.n);
      } else {
        scalarDoubles(c.bytes, c.offsets[row], c.doubles, row * c.n, c.n);
      }
    }
    return c.floats != null ? c.floats : c.doubles;
  }

  @Benchmark
  public Object callBe256(Cells c) {
    c.ran = true;
    for (int row = 0; row < c.offsets.length; row++) {
      if (c.floats != null) {
        be256Floats(c.bytes, c.offsets[row], c.floats, row * c.n, c.n);
      } else {
        be256Doubles(c.bytes, c.offsets[row], c.doubles, row * c.n, c.n);
      }
    }
    return c.floats != null ? c.floats : c.doubles;
  }

  @Benchmark
  public Object callShuffle256(Cells c) {
    c.ran = true;
    for (int row = 0; row < c.offsets.length; row++) {
      if (c.floats != null) {
        shuffle256Floats(c.bytes, c.offsets[row], c.floats, row * c.n, c.n);
      } else {
        shuffle256Doubles(c.bytes, c.offsets[row], c.doubles, row * c.n, c.n);
      }
    }
    return c.floats != null ? c.floats : c.doubles;
  }

  @Benchmark
  public Object callBe128(Cells c) {
    c.ran = true;
    for (int row = 0; row < c.offsets.length; row++) {
      if (c.floats != null) {
        be128Floats(c.bytes, c.offsets[row], c.floats, row * c.n, c.n);
      } else {
        be128Doubles(c.bytes, c.offsets[row], c.doubles, row * c.n, c.n);
      }
    }
    return c.floats != null ? c.floats : c.doubles;
  }

  @CompilerControl(CompilerControl.Mode.DONT_INLINE)
  static void scalarFloats(byte[] a, int p, float[] dst, int off, int n) {
    for (int i = 0; i < n; i++, p += 4) {
      dst[off + i] = (float) FLOAT_BE.get(a, p);
    }
  }

  @CompilerControl(CompilerControl.Mode.DONT_INLINE)
  static void scalarDoubles(byte[] a, int p, double[] dst, int off, int n) {
    for (int i = 0; i < n; i++, p += 8) {
      dst[off + i] = (double) DOUBLE_BE.get(a, p);
    }
  }

  @CompilerControl(CompilerControl.Mode.DONT_INLINE)
  static void be256Floats(byte[] a, int p, float[] dst, int off, int n) {
    int i = 0;
    for (int bound = F256.loopBound(n); i < bound; i += 8, p += 32) {
      FloatVector.fromByteArray(F256, a, p, BE).intoArray(dst, off + i);
    }
    for (; i < n; i++, p += 4) {
      dst[off + i] = (float) FLOAT_BE.get(a, p);
    }
  }

  @CompilerControl(CompilerControl.Mode.DONT_INLINE)
  static void be256Doubles(byte[] a, int p, double[] dst, int off, int n) {
    int i = 0;
    for (int bound = D256.loopBound(n); i < bound; i += 4, p += 32) {
      DoubleVector.fromByteArray(D256, a, p, BE).intoArray(dst, off + i);
    }
    for (; i < n; i++, p += 8) {
      dst[off + i] = (double) DOUBLE_BE.get(a, p);
    }
  }

  @CompilerControl(CompilerControl.Mode.DONT_INLINE)
  static void be128Floats(byte[] a, int p, float[] dst, int off, int n) {
    int i = 0;
    for (int bound = F128.loopBound(n); i < bound; i += 4, p += 16) {
      FloatVector.fromByteArray(F128, a, p, BE).intoArray(dst, off + i);
    }
    for (; i < n; i++, p += 4) {
      dst[off + i] = (float) FLOAT_BE.get(a, p);
    }
  }

  @CompilerControl(CompilerControl.Mode.DONT_INLINE)
  static void be128Doubles(byte[] a, int p, double[] dst, int off, int n) {
    int i = 0;
    for (int bound = D128.loopBound(n); i < bound; i += 2, p += 16) {
      DoubleVector.fromByteArray(D128, a, p, BE).intoArray(dst, off + i);
    }
    for (; i < n; i++, p += 8) {
      dst[off + i] = (double) DOUBLE_BE.get(a, p);
    }
  }

  @CompilerControl(CompilerControl.Mode.DONT_INLINE)
  static void shuffle256Floats(byte[] a, int p, float[] dst, int off, int n) {
    int i = 0;
    for (int bound = F256.loopBound(n); i < bound; i += 8, p += 32) {
      ByteVector.fromArray(B256, a, p)
          .rearrange(SWAP4_256)
          .reinterpretAsFloats()
          .intoArray(dst, off + i);
    }
    for (; i < n; i++, p += 4) {
      dst[off + i] = (float) FLOAT_BE.get(a, p);
    }
  }

  @CompilerControl(CompilerControl.Mode.DONT_INLINE)
  static void shuffle256Doubles(byte[] a, int p, double[] dst, int off, int n) {
    int i = 0;
    for (int bound = D256.loopBound(n); i < bound; i += 4, p += 32) {
      ByteVector.fromArray(B256, a, p)
          .rearrange(SWAP8_256)
          .reinterpretAsDoubles()
          .intoArray(dst, off + i);
    }
    for (; i < n; i++, p += 8) {
      dst[off + i] = (double) DOUBLE_BE.get(a, p);
    }
  }
}
