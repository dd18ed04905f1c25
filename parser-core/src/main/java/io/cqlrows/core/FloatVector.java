package io.cqlrows.core;

/**
 * A read-only view of a {@code vector<float, N>} cell, reading big-endian elements straight from
 * the frame bytes. The view a sink receives is borrowed: valid only during that call, as the parser
 * reuses the instance for the next cell. The view {@link LazyRow#floatVector} returns is valid
 * while its page is.
 */
public interface FloatVector {
  /** The number of elements, N. */
  int dimension();

  /** Element {@code i}, {@code 0 <= i < dimension()}. */
  float get(int i);

  /**
   * Copies all elements into {@code dst} starting at {@code dstOffset}, in one bulk big-endian copy
   * where the buffer allows it.
   *
   * @throws IndexOutOfBoundsException if {@code dst} has fewer than {@code dimension()} slots from
   *     {@code dstOffset}
   */
  void copyTo(float[] dst, int dstOffset);

  /** A new array with all elements. */
  default float[] toArray() {
    float[] a = new float[dimension()];
    copyTo(a, 0);
    return a;
  }
}
