package io.cqlrows.core.type;

import java.util.Objects;

/**
 * {@code map<key, value>}; see {@link ListType} about frozen-ness.
 *
 * @param key the key type
 * @param value the value type
 * @param frozen whether the type was explicitly marked frozen
 */
public record MapType(CqlType key, CqlType value, boolean frozen) implements CqlType {
  /** Checks both types are present. */
  public MapType {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(value, "value");
  }

  @Override
  public int fixedLengthInVector() {
    return -1;
  }

  @Override
  public String toString() {
    return TypeNames.frozen(frozen, "map<" + key + ", " + value + ">");
  }
}
