package io.cqlrows.core;

/**
 * Which implementation copies {@code vector<float|double|int|bigint, N>} values into primitive
 * arrays (the {@code copyTo}/{@code toArray} of {@link io.cqlrows.core.sink.FloatVector} and its
 * siblings, and so {@link io.cqlrows.core.sink.ColumnarSink} and {@link
 * io.cqlrows.core.sink.RowsCollector}).
 *
 * <p>Cassandra writes vector elements big-endian; x86 and ARM read little-endian, so each element
 * is byte-swapped on the way into the array. There are two implementations, with identical
 * results down to the bits of every NaN:
 *
 * <ul>
 *   <li><b>SIMD</b>, with the incubating Vector API of JDK 17 ({@code jdk.incubator.vector}), used
 *       automatically when the JVM runs with {@code --add-modules jdk.incubator.vector} (the JVM
 *       then prints {@code WARNING: Using incubator modules}). It is never required: nothing else
 *       in this library needs the module. 256-bit vectors where the CPU shuffles bytes at that
 *       width (AVX2), else 128-bit; it applies to heap buffers, while direct and composite buffers
 *       keep the NIO bulk copy of the scalar path.
 *   <li><b>Scalar</b>, everywhere else: a byte-swapping load per element. Forced with {@code
 *       -Dio.cqlrows.simd=false}, even when the module is present.
 * </ul>
 *
 * <p>The choice is made once per JVM, the first time a vector is copied (or {@link #simd()} is
 * called). A SIMD implementation that fails to load or to pass its self-check falls back to scalar
 * silently: a CPU without 128-bit byte vectors, or a JDK whose incubating API no longer has the
 * methods it calls (JDK 20 removed {@code fromByteArray}). {@link #simd()} tells which one won.
 */
public final class VectorCopy {
  private VectorCopy() {}

  /** Whether vector values are copied with the SIMD (Vector API) implementation in this JVM. */
  public static boolean simd() {
    return BulkCopy.simd();
  }
}
