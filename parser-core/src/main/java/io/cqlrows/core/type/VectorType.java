package io.cqlrows.core.type;

import java.util.Objects;

/**
 * {@code vector<element, dimension>} (Cassandra 5.0, sent as custom {@code VectorType(...)}).
 *
 * <p>If the element type is fixed-width in vectors (see {@link CqlType#fixedLengthInVector()}), a
 * value is exactly {@code dimension * width} bytes, packed; otherwise every element carries an
 * unsigned vint length prefix (native_protocol_v5.spec section 5.25; docs/protocol.md, "Vectors").
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
   * Packed width of one vector value, or -1 if the vector is variable-width. When the product does
   * not fit an int the vector is still fixed-width, and {@code Integer.MAX_VALUE} is returned: no
   * value of that size fits a frame, so every value is a length mismatch.
   */
  @Override
  public int fixedLengthInVector() {
    int w = element.fixedLengthInVector();
    if (w < 0) {
      return -1;
    }
    long total = (long) w * dimension;
    return (int) Math.min(total, Integer.MAX_VALUE);
  }

  @Override
  public String toString() {
    return "vector<" + element + ", " + dimension + ">";
  }
}
