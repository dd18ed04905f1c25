package io.cqlrows.core.type;

import java.util.Objects;

/**
 * {@code set<element>}; see {@link ListType} about frozen-ness.
 *
 * @param element the element type
 * @param frozen whether the type was explicitly marked frozen
 */
public record SetType(CqlType element, boolean frozen) implements CqlType {
  /** Checks the element is present. */
  public SetType {
    Objects.requireNonNull(element, "element");
  }

  @Override
  public int fixedLengthInVector() {
    return -1;
  }

  @Override
  public String toString() {
    return TypeNames.frozen(frozen, "set<" + element + ">");
  }
}
