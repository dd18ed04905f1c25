package io.cqlrows.core;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The portable {@link BulkCopy.Copier} on JDK {@value #FROM_JDK} and later: {@link ScalarCopy}'s
 * loops, except for float vectors of {@value #MIN_FLOATS} elements or more, which go through the
 * bulk {@code get} of a big-endian {@code FloatBuffer} view over the array: the JDK's own swapping
 * copy, native code (the copy {@link BulkCopy} uses for buffers without an array).
 *
 * <p>Why only there (JMH, {@code FloorBenchmark.nioByteSwap} against {@code byteSwap}, see
 * parser-bench/RESULTS.md): on JDK 25 the native copy moves 768 and 1536 floats 1.1-1.25x as fast
 * as the Java loop, whose byte swaps that JDK does not vectorise, and the compiled code allocates
 * no view. On JDK 17 it is no faster (0.97-1.09x) and C2 does not always remove the views (56 bytes
 * a copy). For short vectors the views' set-up outweighs the gain (under about 300 floats the loop
 * wins), and for doubles the native copy is slower (0.80-0.86x the loop on both JDKs), so those
 * keep the loop. Both copies keep every bit (NaN payloads included).
 */
final class NativeSwapCopy implements BulkCopy.Copier {
  static final NativeSwapCopy INSTANCE = new NativeSwapCopy();

  /** The first JDK feature release this copier is the portable one on. */
  static final int FROM_JDK = 25;

  /** The shortest float copy that goes through the native swapping copy. */
  static final int MIN_FLOATS = 512;

  private NativeSwapCopy() {}

  @Override
  public void floats(byte[] a, int p, float[] dst, int off, int n) {
    if (n >= MIN_FLOATS) {
      ByteBuffer.wrap(a, p, n * 4).order(ByteOrder.BIG_ENDIAN).asFloatBuffer().get(dst, off, n);
    } else {
      ScalarCopy.floatLoop(a, p, dst, off, n);
    }
  }

  @Override
  public void doubles(byte[] a, int p, double[] dst, int off, int n) {
    ScalarCopy.doubleLoop(a, p, dst, off, n);
  }

  @Override
  public void ints(byte[] a, int p, int[] dst, int off, int n) {
    ScalarCopy.intLoop(a, p, dst, off, n);
  }

  @Override
  public void longs(byte[] a, int p, long[] dst, int off, int n) {
    ScalarCopy.longLoop(a, p, dst, off, n);
  }
}
