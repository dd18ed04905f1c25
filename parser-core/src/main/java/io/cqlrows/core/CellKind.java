package io.cqlrows.core;

import io.cqlrows.core.type.CqlType;
import io.cqlrows.core.type.CustomType;
import io.cqlrows.core.type.NativeType;
import io.cqlrows.core.type.VectorType;
import java.util.Objects;

/**
 * How the values of a CQL type reach a {@link RowSink}: the typed event of a top-level cell, and so
 * the form a sink stores it in. {@link #of} is the one table from CQL type to kind. The sinks
 * cqlrows ships ({@code RowsCollector}, {@code ColumnarSink}, {@code JsonLinesSink}, the Arrow
 * sink) decide how to keep a column's values by its kind, and look at the type itself only where
 * the kind leaves a choice: a vector's dimension, and the types of kind {@link #OBJECT}.
 *
 * <p>The fixed-width kinds, {@link #BOOLEAN} to {@link #UUID}, carry one primitive value per cell
 * (two longs for {@link #UUID}); the four vector kinds {@code N} primitives; {@link #TEXT} a
 * string, {@link #BLOB} bytes, {@link #OBJECT} a Java object. Inside a collection, UDT, tuple or
 * vector a value is boxed as {@link RowSink}'s default event for its kind boxes it.
 *
 * <p>A cell without a value reaches {@link RowSink#onNull}, {@link RowSink#onNotSet} or {@link
 * RowSink#onEmpty} whatever its kind. A zero-length cell is {@code onEmpty} for every kind except
 * {@link #TEXT} and {@link #BLOB}, whose empty string and empty bytes are values.
 */
public enum CellKind {
  /** {@code boolean}: {@link RowSink#onBoolean}. */
  BOOLEAN,

  /** {@code tinyint}: {@link RowSink#onTinyint}. */
  TINYINT,

  /** {@code smallint}: {@link RowSink#onSmallint}. */
  SMALLINT,

  /** {@code int}: {@link RowSink#onInt}. */
  INT,

  /** {@code bigint} and {@code counter}: {@link RowSink#onBigint}. */
  BIGINT,

  /** {@code float}: {@link RowSink#onFloat}. */
  FLOAT,

  /** {@code double}: {@link RowSink#onDouble}. */
  DOUBLE,

  /** {@code timestamp}: {@link RowSink#onTimestamp}, milliseconds since the epoch. */
  TIMESTAMP,

  /** {@code date}: {@link RowSink#onDate}, days since the epoch. */
  DATE,

  /** {@code time}: {@link RowSink#onTime}, nanoseconds since midnight. */
  TIME,

  /** {@code uuid} and {@code timeuuid}: {@link RowSink#onUuid}, two longs. */
  UUID,

  /** {@code text} and {@code ascii}: {@link RowSink#onString}. */
  TEXT,

  /** {@code blob}, and custom types cqlrows does not interpret: {@link RowSink#onBlob}. */
  BLOB,

  /** {@code vector<float, N>}: {@link RowSink#onFloatVector}. */
  FLOAT_VECTOR,

  /** {@code vector<double, N>}: {@link RowSink#onDoubleVector}. */
  DOUBLE_VECTOR,

  /** {@code vector<int, N>}: {@link RowSink#onIntVector}. */
  INT_VECTOR,

  /** {@code vector<bigint, N>}: {@link RowSink#onLongVector}. */
  LONG_VECTOR,

  /**
   * Every other type: {@code decimal}, {@code varint}, {@code inet}, {@code duration}, lists, sets,
   * maps, UDTs, tuples and the other vectors, by {@link RowSink#onObject}.
   */
  OBJECT;

  /**
   * The kind of the values of {@code type}.
   *
   * @throws NullPointerException if {@code type} is null
   */
  public static CellKind of(CqlType type) {
    Objects.requireNonNull(type, "type");
    if (type instanceof NativeType n) {
      return ofNative(n);
    }
    if (type instanceof VectorType v) {
      return ofVectorOf(v.element());
    }
    if (type instanceof CustomType) {
      return BLOB;
    }
    return OBJECT; // list, set, map, UDT, tuple
  }

  private static CellKind ofNative(NativeType n) {
    return switch (n) {
      case BOOLEAN -> BOOLEAN;
      case TINYINT -> TINYINT;
      case SMALLINT -> SMALLINT;
      case INT -> INT;
      case BIGINT, COUNTER -> BIGINT;
      case FLOAT -> FLOAT;
      case DOUBLE -> DOUBLE;
      case TIMESTAMP -> TIMESTAMP;
      case DATE -> DATE;
      case TIME -> TIME;
      case UUID, TIMEUUID -> UUID;
      case TEXT, ASCII -> TEXT;
      case BLOB -> BLOB;
      case DECIMAL, VARINT, INET, DURATION -> OBJECT;
    };
  }

  /**
   * Vectors of the four element types that are packed at a fixed width of 4 or 8 bytes in
   * Cassandra's encoding; {@code counter}, a bigint elsewhere, is length-prefixed inside vectors.
   */
  private static CellKind ofVectorOf(CqlType element) {
    if (element == NativeType.FLOAT) {
      return FLOAT_VECTOR;
    } else if (element == NativeType.DOUBLE) {
      return DOUBLE_VECTOR;
    } else if (element == NativeType.INT) {
      return INT_VECTOR;
    } else if (element == NativeType.BIGINT) {
      return LONG_VECTOR;
    }
    return OBJECT;
  }
}
