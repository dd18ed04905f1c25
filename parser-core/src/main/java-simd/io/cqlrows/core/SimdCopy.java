package io.cqlrows.core;

import java.nio.ByteOrder;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorSpecies;

/**
 * The SIMD {@link BulkCopy.Copier}, with the incubating Vector API of JDK 17. Compiled apart
 * (see {@link BulkCopy}); {@link BulkCopy} calls {@link #copier()} by reflection.
 *
 * <p>{@code FloatVector.fromByteArray(species, a, p, BIG_ENDIAN).intoArray(dst, i)} (a load and a
 * constant byte-reversing shuffle), then a scalar tail. Arrays only: {@link BulkCopy} hands heap
 * buffers' arrays to a copier, and keeps the NIO bulk {@code get} (a native swapping copy) for
 * direct and composite buffers, which {@code fromByteBuffer} did not beat. Measured in
 * parser-bench's {@code SimdVariantsBenchmark} against an explicit {@code ByteVector} + {@code
 * rearrange} + {@code reinterpretAsFloats}, lanewise shifts, and 128- against 256-bit species: all
 * within the noise of each other, about 4x the scalar loop on floats and 1.6x on doubles; this is
 * the simplest.
 *
 * <p>One width, 256 bits, in static final species: C2 only intrinsifies the Vector API where the
 * species is a constant, so the loops name them rather than take them as parameters (a loop C2
 * compiled on its own, OSR or before its callers, would box every vector). Not the preferred
 * species: on AVX-512 CPUs without VBMI a 512-bit byte shuffle is not intrinsified by JDK 17 and
 * would be far slower than scalar. And one width only: the JDK 17 API devirtualises its internals
 * (the reinterpreting behind the byte swap) from type profiles shared by all users of a vector
 * type in the JVM, and when {@code FloatVector}s of two shapes went through them, C2's copy
 * boxed every vector: 12 KB and 20x the time per 1536-float copy (a 128-bit variant, tested in
 * the same JVM, did that). CPUs without 256-bit byte vectors (AVX2) get the scalar path.
 *
 * <p>Until C2 has compiled a copy (the interpreter and C1 never intrinsify the Vector API), it
 * runs the API's plain Java implementation: much slower than scalar, and allocating several times
 * the bytes it copies. It pays off in a JVM that parses many pages.
 */
final class SimdCopy implements BulkCopy.Copier {
  private static final ByteOrder BE = ByteOrder.BIG_ENDIAN;
  private static final VectorSpecies<Float> F = FloatVector.SPECIES_256;
  private static final VectorSpecies<Double> D = DoubleVector.SPECIES_256;
  private static final VectorSpecies<Integer> I = IntVector.SPECIES_256;
  private static final VectorSpecies<Long> L = LongVector.SPECIES_256;

  private SimdCopy() {}

  /**
   * The copier, after a self-check that runs every method (the vector loop and the tail) against
   * {@link ScalarCopy}. Throws if the CPU has no 256-bit byte vectors, if the Vector API lacks a
   * method this class calls (JDK 20 removed {@code fromByteArray}: the {@link LinkageError}
   * surfaces here, not on a later copy), or if a result differs; {@link BulkCopy#select} then
   * falls back to scalar.
   */
  static BulkCopy.Copier copier() {
    int bits = ByteVector.SPECIES_PREFERRED.vectorBitSize();
    if (bits < 256) {
      throw new UnsupportedOperationException("no SIMD copy with " + bits + "-bit vectors");
    }
    SimdCopy copier = new SimdCopy();
    selfCheck(copier);
    return copier;
  }

  @Override
  public void floats(byte[] a, int p, float[] dst, int off, int n) {
    int i = 0;
    for (int bound = F.loopBound(n); i < bound; i += F.length(), p += F.vectorByteSize()) {
      FloatVector.fromByteArray(F, a, p, BE).intoArray(dst, off + i);
    }
    ScalarCopy.floatLoop(a, p, dst, off + i, n - i);
  }

  @Override
  public void doubles(byte[] a, int p, double[] dst, int off, int n) {
    int i = 0;
    for (int bound = D.loopBound(n); i < bound; i += D.length(), p += D.vectorByteSize()) {
      DoubleVector.fromByteArray(D, a, p, BE).intoArray(dst, off + i);
    }
    ScalarCopy.doubleLoop(a, p, dst, off + i, n - i);
  }

  @Override
  public void ints(byte[] a, int p, int[] dst, int off, int n) {
    int i = 0;
    for (int bound = I.loopBound(n); i < bound; i += I.length(), p += I.vectorByteSize()) {
      IntVector.fromByteArray(I, a, p, BE).intoArray(dst, off + i);
    }
    ScalarCopy.intLoop(a, p, dst, off + i, n - i);
  }

  @Override
  public void longs(byte[] a, int p, long[] dst, int off, int n) {
    int i = 0;
    for (int bound = L.loopBound(n); i < bound; i += L.length(), p += L.vectorByteSize()) {
      LongVector.fromByteArray(L, a, p, BE).intoArray(dst, off + i);
    }
    ScalarCopy.longLoop(a, p, dst, off + i, n - i);
  }

  // ---- self-check ----

  /** 37 elements from offset 3: a vector loop and a tail, every method, against scalar. */
  private static void selfCheck(BulkCopy.Copier simd) {
    int n = 37;
    byte[] a = new byte[3 + n * 8];
    for (int i = 0; i < a.length; i++) {
      a[i] = (byte) (i * 73 + 0x35); // distinct bytes: a wrong order shows
    }
    float[] fs = new float[n];
    float[] fe = new float[n];
    simd.floats(a, 3, fs, 0, n);
    ScalarCopy.floatLoop(a, 3, fe, 0, n);
    double[] ds = new double[n];
    double[] de = new double[n];
    simd.doubles(a, 3, ds, 0, n);
    ScalarCopy.doubleLoop(a, 3, de, 0, n);
    int[] is = new int[n];
    int[] ie = new int[n];
    simd.ints(a, 3, is, 0, n);
    ScalarCopy.intLoop(a, 3, ie, 0, n);
    long[] ls = new long[n];
    long[] le = new long[n];
    simd.longs(a, 3, ls, 0, n);
    ScalarCopy.longLoop(a, 3, le, 0, n);
    for (int i = 0; i < n; i++) {
      if (Float.floatToRawIntBits(fs[i]) != Float.floatToRawIntBits(fe[i])
          || Double.doubleToRawLongBits(ds[i]) != Double.doubleToRawLongBits(de[i])
          || is[i] != ie[i] || ls[i] != le[i]) {
        throw new IllegalStateException("SIMD copy self-check failed at element " + i);
      }
    }
  }
}
