package io.cqlrows.core.type;

import java.util.Objects;

/**
 * {@code vector<element, dimension>} (Cassandra 5.0, sent as custom {@code VectorType(...)}).
 *
 * <p>If the element type is fixed-width in vectors (see {@link CqlType#fixedLengthInVector()}),
 * a value is exactly {@code dimension * width} bytes, packed; otherwise every element carries an
 * unsigned vint length prefix (spec §6).
 *
 * @param element the element type
 * @param dimension the number of elements, at least 1
 */
public record VectorType(CqlType element, int dimension) implements CqlType {
  /** Checks the element is present and the dimension positive. */
  public VectorType {
    Objects.requireNonNull(element, "element");
    if (dimension <= 0) {
      throw new IllegalArgumentException("dimension: " + dimension + " (expected: > 0)");
    }
  }

  /**
   * Packed width of one vector value, or -1 if the vector is variable-width. Also -1 when the
   * product does not fit an int (such a value could never be in one frame anyway).
   */
  @Override
  public int fixedLengthInVector() {
    int w = element.fixedLengthInVector();
    if (w < 0) {
      return -1;
    }
    long total = (long) w * dimension;
    return total > Integer.MAX_VALUE ? -1 : (int) total;
  }

  @Override
  public String toString() {
    return "vector<" + element + ", " + dimension + ">";
  }
}
