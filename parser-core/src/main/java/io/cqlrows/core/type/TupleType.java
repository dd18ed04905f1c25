package io.cqlrows.core.type;

import java.util.List;

/**
 * {@code tuple<T1, T2, ...>}. Tuples are always frozen and print as {@code frozen<tuple<...>>}.
 *
 * @param components the component types, in order (an unmodifiable copy)
 */
public record TupleType(List<CqlType> components) implements CqlType {
  /** Copies the components. */
  public TupleType {
    components = List.copyOf(components);
  }

  @Override
  public int fixedLengthInVector() {
    return -1;
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("frozen<tuple<");
    for (int i = 0; i < components.size(); i++) {
      if (i > 0) {
        sb.append(", ");
      }
      sb.append(components.get(i));
    }
    return sb.append(">>").toString();
  }
}
