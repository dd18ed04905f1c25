package io.cqlrows.core.type;

import java.util.Objects;

/**
 * A custom type that cqlrows does not interpret (an unknown or internal marshal class). Its values
 * are delivered as raw bytes.
 *
 * @param className the class name as sent by the server
 */
public record CustomType(String className) implements CqlType {
  /** Checks the name is present. */
  public CustomType {
    Objects.requireNonNull(className, "className");
  }

  @Override
  public int fixedLengthInVector() {
    return -1;
  }

  /** CQL spells custom types as a quoted class name: {@code 'org.example.MyType'}. */
  @Override
  public String toString() {
    return "'" + className + "'";
  }
}
