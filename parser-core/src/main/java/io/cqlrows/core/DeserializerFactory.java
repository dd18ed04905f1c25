package io.cqlrows.core;

import java.util.List;

/** Builds the deserializer tree for a type, once per column. */
final class DeserializerFactory {
  private DeserializerFactory() {}

  static ValueDeserializer[] forColumns(List<ColumnSpec> specs, ParseLimits limits) {
    throw new UnsupportedOperationException("in progress");
  }
}
