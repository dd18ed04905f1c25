package io.cqlrows.core;

import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/**
 * The SIMD {@link BulkCopy.Copier}, with the incubating Vector API, on JDK 17 and on the newer JDKs
 * alike. Compiled apart (see {@link BulkCopy}); {@link BulkCopy} calls {@link #copier()} by
 * reflection.
 *
 * <p>{@code ByteVector.fromArray(species, a, p).rearrange(swap).reinterpretAsFloats()
 * .intoArray(dst, i)}: a load, a constant shuffle that reverses the bytes of each lane, a
 * reinterpretation that costs nothing, a store; then a scalar tail. It uses only API that every JDK
 * from 16 on has: {@code FloatVector.fromByteArray(species, a, p, BIG_ENDIAN)}, which does the same
 * in one call, is gone from JDK 20 on (those JDKs load through {@code MemorySegment}).
 * parser-bench's {@code SimdVariantsBenchmark} compares this loop with {@code fromByteArray},
 * lanewise shifts and a 128-bit species: all within the noise of each other, about 4x the scalar
 * loop on floats and 1.6-2.6x on doubles, on JDK 17 and 25.
 *
 * <p>Arrays only: {@link BulkCopy} hands heap buffers' arrays to a copier, and keeps the NIO bulk
 * {@code get} (a native swapping copy) for direct and composite buffers.
 *
 * <p>One width, 256 bits, in static final species and shuffles: C2 only intrinsifies the Vector API
 * where the species is a constant, so the loops name them rather than take them as parameters (a
 * loop C2 compiled on its own, OSR or before its callers, would box every vector). Not the
 * preferred species: on AVX-512 CPUs without VBMI a 512-bit byte shuffle is not intrinsified by JDK
 * 17 and would be far slower than scalar. And one width only: the API devirtualises its internals
 * (the reinterpreting behind the byte swap) from type profiles shared by all users of a vector type
 * in the JVM, and once vectors of two shapes go through them, C2's copy boxes every vector: 12 KB
 * and 20x the time per 1536-float copy. CPUs without 256-bit byte vectors (AVX2) get the scalar
 * path.
 *
 * <p>Until C2 has compiled a copy (the interpreter and C1 never intrinsify the Vector API), it runs
 * the API's plain Java implementation: much slower than scalar, and allocating several times the
 * bytes it copies. It pays off in a JVM that parses many pages.
 */
final class SimdCopy implements BulkCopy.Copier {
  private static final VectorSpecies<Byte> B = ByteVector.SPECIES_256;

  /** Reverses the 4 bytes of each 32-bit lane: big-endian to the CPU's little-endian. */
  private static final VectorShuffle<Byte> SWAP4 = VectorShuffle.fromOp(B, i -> i ^ 3);

  /** Reverses the 8 bytes of each 64-bit lane. */
  private static final VectorShuffle<Byte> SWAP8 = VectorShuffle.fromOp(B, i -> i ^ 7);

  /** Bytes per vector. */
  private static final int STEP = 32;

  private SimdCopy() {}

  /**
   * The copier, after a self-check that runs every method (the vector loop and the tail) against
   * {@link ScalarCopy}. Throws if the CPU has no 256-bit byte vectors, if the Vector API lacks a
   * method this class calls (the {@link LinkageError} surfaces here, not on a later copy), or if a
   * result differs (the shuffles assume the API's little-endian lane layout); {@link
   * BulkCopy#select} then falls back to scalar.
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
    for (int bound = n & ~7; i < bound; i += 8, p += STEP) {
      ByteVector.fromArray(B, a, p).rearrange(SWAP4).reinterpretAsFloats().intoArray(dst, off + i);
    }
    ScalarCopy.floatLoop(a, p, dst, off + i, n - i);
  }

  @Override
  public void doubles(byte[] a, int p, double[] dst, int off, int n) {
    int i = 0;
    for (int bound = n & ~3; i < bound; i += 4, p += STEP) {
      ByteVector.fromArray(B, a, p).rearrange(SWAP8).reinterpretAsDoubles().intoArray(dst, off + i);
    }
    ScalarCopy.doubleLoop(a, p, dst, off + i, n - i);
  }

  @Override
  public void ints(byte[] a, int p, int[] dst, int off, int n) {
    int i = 0;
    for (int bound = n & ~7; i < bound; i += 8, p += STEP) {
      ByteVector.fromArray(B, a, p).rearrange(SWAP4).reinterpretAsInts().intoArray(dst, off + i);
    }
    ScalarCopy.intLoop(a, p, dst, off + i, n - i);
  }

  @Override
  public void longs(byte[] a, int p, long[] dst, int off, int n) {
    int i = 0;
    for (int bound = n & ~3; i < bound; i += 4, p += STEP) {
      ByteVector.fromArray(B, a, p).rearrange(SWAP8).reinterpretAsLongs().intoArray(dst, off + i);
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
          || is[i] != ie[i]
          || ls[i] != le[i]) {
        throw new IllegalStateException("SIMD copy self-check failed at element " + i);
      }
    }
  }
}
