package io.cqlrows.core.value;

import io.cqlrows.core.type.TupleType;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * A decoded tuple value: one Java value per component of the type; missing trailing components and
 * NULL components are {@code null}. Immutable.
 */
public final class TupleValue {
  private final TupleType type;
  private final Object[] values;

  /**
   * Wraps the decoded component values.
   *
   * @param type the tuple type
   * @param values one value per component; the array is owned by the new instance
   */
  public TupleValue(TupleType type, Object[] values) {
    this.type = Objects.requireNonNull(type, "type");
    if (values.length != type.components().size()) {
      throw new IllegalArgumentException(
          "values: " + values.length + " (expected: " + type.components().size() + ")");
    }
    this.values = values;
  }

  /** The tuple type. */
  public TupleType type() {
    return type;
  }

  /** Number of components of the type. */
  public int size() {
    return values.length;
  }

  /** Component {@code i}, or {@code null}. */
  public Object get(int i) {
    return values[i];
  }

  /** The components in order (unmodifiable; may contain nulls). */
  public List<Object> values() {
    return Collections.unmodifiableList(Arrays.asList(values));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TupleValue t && type.equals(t.type) && Arrays.deepEquals(values, t.values);
  }

  @Override
  public int hashCode() {
    return 31 * type.hashCode() + Arrays.deepHashCode(values);
  }

  @Override
  public String toString() {
    return Arrays.deepToString(values).replace('[', '(').replace(']', ')');
  }
}
