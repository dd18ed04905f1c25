package io.cqlrows.core;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.ByteOrder;
import java.util.Arrays;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * The SIMD {@link BulkCopy.Copier}s, with the incubating Vector API of JDK 17. Compiled apart
 * (see {@link BulkCopy}); {@link BulkCopy} calls {@link #copier()} by reflection.
 *
 * <p>Heap buffers: {@code FloatVector.fromByteArray(species, a, p, BIG_ENDIAN).intoArray(dst, i)}
 * (a load and a constant byte-reversing shuffle), then a scalar tail. Measured in parser-bench's
 * {@code SimdVariantsBenchmark} against an explicit {@code ByteVector} + {@code rearrange} +
 * {@code reinterpretAsFloats}, lanewise shifts, and 128- against 256-bit species: all within the
 * noise of each other, about 4x the scalar loop on floats and 1.6x on doubles; this is the
 * simplest. Direct and composite buffers keep the scalar path's NIO bulk {@code get} (a native
 * swapping copy), which {@code fromByteBuffer} did not beat.
 *
 * <p>Two widths, each a class whose species are static finals so that C2 intrinsifies every
 * operation: 256-bit where the CPU shuffles bytes in 256-bit vectors (AVX2), else 128-bit (SSSE3,
 * NEON). Not the preferred species: on AVX-512 CPUs without VBMI a 512-bit byte shuffle is not
 * intrinsified by JDK 17 and would be far slower than scalar.
 */
final class SimdCopy {
  private static final ByteOrder BE = ByteOrder.BIG_ENDIAN;

  private SimdCopy() {}

  /**
   * The copier for this CPU, after a self-check that runs every method on every code path (the
   * vector loop and the tail, heap and direct) against {@link ScalarCopy}. Throws if the CPU has
   * no 128-bit byte vectors, if the Vector API lacks a method this class calls (JDK 20 removed
   * {@code fromByteArray}: the {@link LinkageError} surfaces here, not on a later copy), or if a
   * result differs; {@link BulkCopy#select} then falls back to scalar.
   */
  static BulkCopy.Copier copier() {
    BulkCopy.Copier copier = forBits(Math.min(ByteVector.SPECIES_PREFERRED.vectorBitSize(), 256));
    selfCheck(copier);
    return copier;
  }

  /** The copier of this vector width (256 or 128 bits). Tests use both. */
  static BulkCopy.Copier forBits(int bits) {
    switch (bits) {
      case 256:
        return new Bits256();
      case 128:
        return new Bits128();
      default:
        throw new UnsupportedOperationException("no SIMD copy with " + bits + "-bit vectors");
    }
  }

  static final class Bits256 implements BulkCopy.Copier {
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_256;
    private static final VectorSpecies<Double> D = DoubleVector.SPECIES_256;
    private static final VectorSpecies<Integer> I = IntVector.SPECIES_256;
    private static final VectorSpecies<Long> L = LongVector.SPECIES_256;

    @Override
    public void floats(ByteBuf buf, int index, float[] dst, int off, int n) {
      if (buf.hasArray()) {
        SimdCopy.floats(F, buf.array(), buf.arrayOffset() + index, dst, off, n);
      } else {
        ScalarCopy.INSTANCE.floats(buf, index, dst, off, n);
      }
    }

    @Override
    public void doubles(ByteBuf buf, int index, double[] dst, int off, int n) {
      if (buf.hasArray()) {
        SimdCopy.doubles(D, buf.array(), buf.arrayOffset() + index, dst, off, n);
      } else {
        ScalarCopy.INSTANCE.doubles(buf, index, dst, off, n);
      }
    }

    @Override
    public void ints(ByteBuf buf, int index, int[] dst, int off, int n) {
      if (buf.hasArray()) {
        SimdCopy.ints(I, buf.array(), buf.arrayOffset() + index, dst, off, n);
      } else {
        ScalarCopy.INSTANCE.ints(buf, index, dst, off, n);
      }
    }

    @Override
    public void longs(ByteBuf buf, int index, long[] dst, int off, int n) {
      if (buf.hasArray()) {
        SimdCopy.longs(L, buf.array(), buf.arrayOffset() + index, dst, off, n);
      } else {
        ScalarCopy.INSTANCE.longs(buf, index, dst, off, n);
      }
    }
  }

  static final class Bits128 implements BulkCopy.Copier {
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_128;
    private static final VectorSpecies<Double> D = DoubleVector.SPECIES_128;
    private static final VectorSpecies<Integer> I = IntVector.SPECIES_128;
    private static final VectorSpecies<Long> L = LongVector.SPECIES_128;

    @Override
    public void floats(ByteBuf buf, int index, float[] dst, int off, int n) {
      if (buf.hasArray()) {
        SimdCopy.floats(F, buf.array(), buf.arrayOffset() + index, dst, off, n);
      } else {
        ScalarCopy.INSTANCE.floats(buf, index, dst, off, n);
      }
    }

    @Override
    public void doubles(ByteBuf buf, int index, double[] dst, int off, int n) {
      if (buf.hasArray()) {
        SimdCopy.doubles(D, buf.array(), buf.arrayOffset() + index, dst, off, n);
      } else {
        ScalarCopy.INSTANCE.doubles(buf, index, dst, off, n);
      }
    }

    @Override
    public void ints(ByteBuf buf, int index, int[] dst, int off, int n) {
      if (buf.hasArray()) {
        SimdCopy.ints(I, buf.array(), buf.arrayOffset() + index, dst, off, n);
      } else {
        ScalarCopy.INSTANCE.ints(buf, index, dst, off, n);
      }
    }

    @Override
    public void longs(ByteBuf buf, int index, long[] dst, int off, int n) {
      if (buf.hasArray()) {
        SimdCopy.longs(L, buf.array(), buf.arrayOffset() + index, dst, off, n);
      } else {
        ScalarCopy.INSTANCE.longs(buf, index, dst, off, n);
      }
    }
  }

  // ---- the loops: s is a constant once inlined into Bits256 or Bits128 ----

  static void floats(VectorSpecies<Float> s, byte[] a, int p, float[] dst, int off, int n) {
    int i = 0;
    for (int bound = s.loopBound(n); i < bound; i += s.length(), p += s.vectorByteSize()) {
      FloatVector.fromByteArray(s, a, p, BE).intoArray(dst, off + i);
    }
    ScalarCopy.floats(a, p, dst, off + i, n - i);
  }

  static void doubles(VectorSpecies<Double> s, byte[] a, int p, double[] dst, int off, int n) {
    int i = 0;
    for (int bound = s.loopBound(n); i < bound; i += s.length(), p += s.vectorByteSize()) {
      DoubleVector.fromByteArray(s, a, p, BE).intoArray(dst, off + i);
    }
    ScalarCopy.doubles(a, p, dst, off + i, n - i);
  }

  static void ints(VectorSpecies<Integer> s, byte[] a, int p, int[] dst, int off, int n) {
    int i = 0;
    for (int bound = s.loopBound(n); i < bound; i += s.length(), p += s.vectorByteSize()) {
      IntVector.fromByteArray(s, a, p, BE).intoArray(dst, off + i);
    }
    ScalarCopy.ints(a, p, dst, off + i, n - i);
  }

  static void longs(VectorSpecies<Long> s, byte[] a, int p, long[] dst, int off, int n) {
    int i = 0;
    for (int bound = s.loopBound(n); i < bound; i += s.length(), p += s.vectorByteSize()) {
      LongVector.fromByteArray(s, a, p, BE).intoArray(dst, off + i);
    }
    ScalarCopy.longs(a, p, dst, off + i, n - i);
  }

  // ---- self-check ----

  /** 37 elements from offset 3 of a heap and a direct buffer: a vector loop and a tail. */
  private static void selfCheck(BulkCopy.Copier simd) {
    int n = 37;
    byte[] bytes = new byte[3 + n * 8];
    for (int i = 0; i < bytes.length; i++) {
      bytes[i] = (byte) (i * 73 + 0x35); // distinct bytes: a wrong order shows
    }
    ByteBuf heap = Unpooled.wrappedBuffer(bytes);
    ByteBuf direct = Unpooled.directBuffer(bytes.length).writeBytes(bytes);
    try {
      for (ByteBuf buf : new ByteBuf[] {heap, direct}) {
        float[] fs = new float[n];
        float[] fe = new float[n];
        simd.floats(buf, 3, fs, 0, n);
        ScalarCopy.INSTANCE.floats(buf, 3, fe, 0, n);
        double[] ds = new double[n];
        double[] de = new double[n];
        simd.doubles(buf, 3, ds, 0, n);
        ScalarCopy.INSTANCE.doubles(buf, 3, de, 0, n);
        int[] is = new int[n];
        int[] ie = new int[n];
        simd.ints(buf, 3, is, 0, n);
        ScalarCopy.INSTANCE.ints(buf, 3, ie, 0, n);
        long[] ls = new long[n];
        long[] le = new long[n];
        simd.longs(buf, 3, ls, 0, n);
        ScalarCopy.INSTANCE.longs(buf, 3, le, 0, n);
        for (int i = 0; i < n; i++) {
          if (Float.floatToRawIntBits(fs[i]) != Float.floatToRawIntBits(fe[i])
              || Double.doubleToRawLongBits(ds[i]) != Double.doubleToRawLongBits(de[i])) {
            throw new IllegalStateException("SIMD copy self-check failed at " + i);
          }
        }
        if (!Arrays.equals(is, ie) || !Arrays.equals(ls, le)) {
          throw new IllegalStateException("SIMD copy self-check failed");
        }
      }
    } finally {
      heap.release();
      direct.release();
    }
  }
}
