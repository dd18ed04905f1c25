/**
 * The immutable CQL type tree ({@link io.cqlrows.core.type.CqlType}): native types, collections,
 * UDTs, tuples, vectors and custom class-name types, as the result metadata describes them. All
 * types are immutable and thread-safe; each prints as CQL. This package depends on nothing else in
 * cqlrows.
 */
package io.cqlrows.core.type;
