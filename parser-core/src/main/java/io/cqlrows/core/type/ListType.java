package io.cqlrows.core.type;

import java.util.Objects;

/**
 * {@code list<element>}. Frozen-ness is not sent in {@code [option]} metadata; it is known only
 * when the type came from a class name with a {@code FrozenType(...)} wrapper.
 *
 * @param element the element type
 * @param frozen whether the type was explicitly marked frozen
 */
public record ListType(CqlType element, boolean frozen) implements CqlType {
  /** Checks the element is present. */
  public ListType {
    Objects.requireNonNull(element, "element");
  }

  @Override
  public int fixedLengthInVector() {
    return -1;
  }

  @Override
  public String toString() {
    return TypeNames.frozen(frozen, "list<" + element + ">");
  }
}
