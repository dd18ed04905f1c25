package io.cqlrows.core;

/**
 * Which implementation copies {@code vector<float|double|int|bigint, N>} values into primitive
 * arrays (the {@code copyTo}/{@code toArray} of {@link io.cqlrows.core.FloatVector} and its
 * siblings, and so {@link io.cqlrows.core.sink.ColumnarSink} and {@link
 * io.cqlrows.core.sink.RowsCollector}).
 *
 * <p>Cassandra writes vector elements big-endian; x86 and ARM read little-endian, so each element
 * is byte-swapped on the way into the array. There are two implementations, with identical results
 * down to the bits of every NaN:
 *
 * <ul>
 *   <li><b>SIMD</b>, with the incubating Vector API ({@code jdk.incubator.vector}) of JDK 17 and
 *       later (the same code on 17, 21 and 25), opt-in: used when the JVM runs with {@code
 *       --add-modules jdk.incubator.vector} and {@code -Dio.cqlrows.simd=true} (the JVM then prints
 *       {@code WARNING: Using incubator modules}). It is never required: nothing else in this
 *       library needs the module. 256-bit vectors, on CPUs that shuffle bytes at that width (AVX2);
 *       heap buffers only, direct and composite buffers keep the NIO bulk copy of the scalar path.
 *   <li><b>Scalar</b>, everywhere else (the module alone does not turn SIMD on): a byte-swapping
 *       load per element. On JDK 25 and later, float vectors of 512 elements or more are copied by
 *       the JDK's own native swapping copy instead (a big-endian {@code FloatBuffer} view's bulk
 *       {@code get}), which is 1.1-1.25x as fast there; on JDK 17 it is not faster.
 * </ul>
 *
 * <p>The choice is made once per JVM, the first time a vector is copied (or {@link #simd()} is
 * called). A SIMD implementation that fails to load or to pass its self-check falls back to scalar
 * silently: a CPU without 256-bit byte vectors, or a JDK whose incubating API lacks a method it
 * calls. {@link #simd()} tells which one is in use.
 *
 * <p><b>Why SIMD is opt-in on every JDK.</b> Only C2 intrinsifies the Vector API. Until the copy is
 * C2-compiled (at start-up, and for a moment after each deoptimisation) it runs the API's plain
 * Java implementation, which is about 100 times slower than the scalar copy and allocates for every
 * vector it copies. And C2 compiles the API's internals from type profiles that every user of the
 * API in the JVM shares: other code that runs vectors of another shape through the same
 * conversions, or C2 compiling the copy before those profiles exist, can leave the compiled copy
 * boxing every vector, many times slower than scalar, for the rest of the JVM's life. SIMD
 * therefore pays off in long-running JVMs that parse many vector pages and use the Vector API for
 * nothing else; {@code docs/performance.md} has the figures. Measure your own workload with and
 * without it before relying on it.
 */
public final class VectorCopy {
  private VectorCopy() {}

  /** Whether vector values are copied with the SIMD (Vector API) implementation in this JVM. */
  public static boolean simd() {
    return BulkCopy.simd();
  }
}
