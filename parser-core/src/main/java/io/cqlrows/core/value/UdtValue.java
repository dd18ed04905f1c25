package io.cqlrows.core.value;

import io.cqlrows.core.type.UdtType;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * A decoded user-defined type value: one Java value per declared field (see {@link
 * io.cqlrows.core.RowSink} for the Java type of each CQL type). Fields missing from a short value,
 * and NULL fields, are {@code null}. Immutable.
 */
public final class UdtValue {
  private final UdtType type;
  private final Object[] values;

  /**
   * Wraps the decoded field values.
   *
   * @param type the UDT type
   * @param values one value per declared field; the array is owned by the new instance
   */
  public UdtValue(UdtType type, Object[] values) {
    this.type = Objects.requireNonNull(type, "type");
    if (values.length != type.fields().size()) {
      throw new IllegalArgumentException(
          "values: " + values.length + " (expected: " + type.fields().size() + ")");
    }
    this.values = values;
  }

  /** The UDT type. */
  public UdtType type() {
    return type;
  }

  /** Number of declared fields. */
  public int size() {
    return values.length;
  }

  /** The value of field {@code i} (declaration order), or {@code null}. */
  public Object get(int i) {
    return values[i];
  }

  /** The value of the field with this internal (unquoted) name, or {@code null}. */
  public Object get(String fieldName) {
    List<UdtType.Field> fields = type.fields();
    for (int i = 0; i < fields.size(); i++) {
      if (fields.get(i).name().equals(fieldName)) {
        return values[i];
      }
    }
    throw new IllegalArgumentException("no field '" + fieldName + "' in " + type);
  }

  /** The field values in declaration order (unmodifiable; may contain nulls). */
  public List<Object> values() {
    return Collections.unmodifiableList(Arrays.asList(values));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof UdtValue u && type.equals(u.type) && Arrays.deepEquals(values, u.values);
  }

  @Override
  public int hashCode() {
    return 31 * type.hashCode() + Arrays.deepHashCode(values);
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("{");
    for (int i = 0; i < values.length; i++) {
      if (i > 0) {
        sb.append(", ");
      }
      sb.append(type.fields().get(i).name()).append(": ").append(values[i]);
    }
    return sb.append('}').toString();
  }
}
