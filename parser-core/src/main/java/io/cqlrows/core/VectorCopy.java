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
 * silently: a CPU without 256-bit byte vectors, or a JDK whose incubating API no longer has the
 * methods it calls. {@link #simd()} tells which one won.
 *
 * <p>Why opt-in, on every JDK: two properties of the Vector API (measured on JDK 17 and 25, see
 * {@code docs/performance.md}). Only C2 intrinsifies it: until the copy is C2-compiled (at
 * start-up, and for a moment after each deoptimisation) it runs a plain Java implementation that is
 * about 100 times slower than scalar and allocates for every vector it copies (with C1 only: 170
 * bytes per byte copied on JDK 17, 26 on JDK 25), so SIMD pays off only in JVMs that parse many
 * pages. And its internals are devirtualised from type profiles shared by every user of the API in
 * the JVM: code elsewhere that runs, say, 128-bit {@code FloatVector}s through the same byte-order
 * conversions can make the compiled copy box every vector (measured: 20x slower than scalar), and
 * so can C2 compiling the copy before those internals have a type profile (seen in a test JVM busy
 * with other work: 12 KB allocated per 1536-float copy, for good). The same boxing compiled code
 * was also seen once with no other user of the API: one JMH fork of {@code SimdBenchmark} out of
 * several ran the whole trial at 800 pages/s and 57 KB allocated per row, against 22,600 pages/s
 * and none in the others (parser-bench/RESULTS.md). Measure your own workload with and without the
 * module before relying on it.
 */
public final class VectorCopy {
  private VectorCopy() {}

  /** Whether vector values are copied with the SIMD (Vector API) implementation in this JVM. */
  public static boolean simd() {
    return BulkCopy.simd();
  }
}
