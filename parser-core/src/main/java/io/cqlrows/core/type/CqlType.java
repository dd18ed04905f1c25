package io.cqlrows.core.type;

/**
 * An immutable CQL type tree, as read from result metadata ({@code [option]},
 * native_protocol_v5.spec section 4.2.5.2) or from a custom type class name (vectors always arrive
 * that way).
 *
 * <p>Every implementation prints as CQL in {@link Object#toString()}: {@code vector<float, 3>},
 * {@code map<text, frozen<list<int>>>}, {@code corpus.address}. The spelling is the one the Apache
 * Cassandra Java driver produces with {@code asCql(true, true)}, so tools can compare the two.
 *
 * <p>Dispatch on a type happens once, when the deserializers for a result's columns are built,
 * never per value.
 */
public sealed interface CqlType
    permits NativeType, ListType, SetType, MapType, TupleType, UdtType, VectorType, CustomType {

  /**
   * The encoded width of a value of this type when it is a <em>vector element</em>, or {@code -1}
   * if vector elements of this type are length-prefixed (unsigned vint).
   *
   * <p>This follows Apache Cassandra's {@code AbstractType.valueLengthIfFixed()} exactly, not the
   * size of the CQL value: {@code smallint}, {@code tinyint}, {@code date}, {@code time} and {@code
   * counter} are <em>variable</em> inside vectors (the table is in docs/protocol.md, "Vectors").
   */
  int fixedLengthInVector();
}
