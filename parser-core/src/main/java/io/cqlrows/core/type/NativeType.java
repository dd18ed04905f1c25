package io.cqlrows.core.type;

/**
 * The CQL types without parameters, with their {@code [option]} ids (native_protocol_v5.spec
 * section 4.2.5.2).
 *
 * <p>{@link #fixedLengthInVector()} follows Cassandra's marshal types (docs/protocol.md,
 * "Vectors"): only boolean (1), int and float (4), bigint, double and timestamp (8), uuid and
 * timeuuid (16) are fixed-width inside a vector. In Cassandra smallint, tinyint, date, time and
 * counter are variable-width (length-prefixed) even though their CQL values have a fixed size; a
 * parser that guesses otherwise misreads real data.
 */
public enum NativeType implements CqlType {
  ASCII(0x0001, "ascii", -1),
  BIGINT(0x0002, "bigint", 8),
  BLOB(0x0003, "blob", -1),
  BOOLEAN(0x0004, "boolean", 1),
  /** Counter values are plain 8-byte longs in results, but variable-width inside vectors. */
  COUNTER(0x0005, "counter", -1),
  DECIMAL(0x0006, "decimal", -1),
  DOUBLE(0x0007, "double", 8),
  FLOAT(0x0008, "float", 4),
  INT(0x0009, "int", 4),
  TIMESTAMP(0x000B, "timestamp", 8),
  UUID(0x000C, "uuid", 16),
  /** {@code text} / {@code varchar}; option ids 0x000D and the legacy 0x000A both map here. */
  TEXT(0x000D, "text", -1),
  VARINT(0x000E, "varint", -1),
  TIMEUUID(0x000F, "timeuuid", 16),
  INET(0x0010, "inet", -1),
  DATE(0x0011, "date", -1),
  TIME(0x0012, "time", -1),
  SMALLINT(0x0013, "smallint", -1),
  TINYINT(0x0014, "tinyint", -1),
  DURATION(0x0015, "duration", -1);

  private final int optionId;
  private final String cql;
  private final int fixedLengthInVector;

  NativeType(int optionId, String cql, int fixedLengthInVector) {
    this.optionId = optionId;
    this.cql = cql;
    this.fixedLengthInVector = fixedLengthInVector;
  }

  /** The {@code [option]} id that denotes this type. */
  public int optionId() {
    return optionId;
  }

  @Override
  public int fixedLengthInVector() {
    return fixedLengthInVector;
  }

  /**
   * The native type for an {@code [option]} id, or {@code null} if the id is not a native type
   * (custom 0x0000, collections, UDT, tuple, or undefined).
   */
  public static NativeType fromOptionId(int id) {
    switch (id) {
      case 0x0001:
        return ASCII;
      case 0x0002:
        return BIGINT;
      case 0x0003:
        return BLOB;
      case 0x0004:
        return BOOLEAN;
      case 0x0005:
        return COUNTER;
      case 0x0006:
        return DECIMAL;
      case 0x0007:
        return DOUBLE;
      case 0x0008:
        return FLOAT;
      case 0x0009:
        return INT;
      case 0x000A:
        return TEXT; // legacy "text" id: never sent by Cassandra, accepted by all
      case 0x000B:
        return TIMESTAMP;
      case 0x000C:
        return UUID;
      case 0x000D:
        return TEXT;
      case 0x000E:
        return VARINT;
      case 0x000F:
        return TIMEUUID;
      case 0x0010:
        return INET;
      case 0x0011:
        return DATE;
      case 0x0012:
        return TIME;
      case 0x0013:
        return SMALLINT;
      case 0x0014:
        return TINYINT;
      case 0x0015:
        return DURATION;
      default:
        return null;
    }
  }

  /** The CQL spelling, e.g. {@code text}. */
  @Override
  public String toString() {
    return cql;
  }
}
