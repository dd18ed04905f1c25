/**
 * The immutable CQL type tree ({@link io.cqlrows.core.type.CqlType}) and the parser for custom
 * type class names ({@link io.cqlrows.core.type.CustomTypeNameParser}). All types are immutable and
 * thread-safe; each prints as CQL.
 */
package io.cqlrows.core.type;
