package io.cqlrows.core;

import io.cqlrows.core.type.NativeType;
import java.util.Map;

/**
 * The marshal classes of Apache Cassandra ({@code org.apache.cassandra.db.marshal}) that stand for
 * the CQL native types, as they appear in a custom type's class name, for {@link
 * CustomTypeNameParser}. Two classes give {@code timestamp}: {@code TimestampType} and the older
 * {@code DateType}; {@code date} is {@code SimpleDateType}.
 */
final class MarshalTypes {
  /** The package assumed for a class name without a {@code '.'}. */
  static final String MARSHAL_PACKAGE = "org.apache.cassandra.db.marshal.";

  private static final Map<String, NativeType> NATIVE =
      Map.ofEntries(
          Map.entry("AsciiType", NativeType.ASCII),
          Map.entry("LongType", NativeType.BIGINT),
          Map.entry("BytesType", NativeType.BLOB),
          Map.entry("BooleanType", NativeType.BOOLEAN),
          Map.entry("CounterColumnType", NativeType.COUNTER),
          Map.entry("DecimalType", NativeType.DECIMAL),
          Map.entry("DoubleType", NativeType.DOUBLE),
          Map.entry("FloatType", NativeType.FLOAT),
          Map.entry("Int32Type", NativeType.INT),
          Map.entry("UTF8Type", NativeType.TEXT),
          Map.entry("TimestampType", NativeType.TIMESTAMP),
          Map.entry("DateType", NativeType.TIMESTAMP),
          Map.entry("UUIDType", NativeType.UUID),
          Map.entry("IntegerType", NativeType.VARINT),
          Map.entry("TimeUUIDType", NativeType.TIMEUUID),
          Map.entry("InetAddressType", NativeType.INET),
          Map.entry("SimpleDateType", NativeType.DATE),
          Map.entry("TimeType", NativeType.TIME),
          Map.entry("ShortType", NativeType.SMALLINT),
          Map.entry("ByteType", NativeType.TINYINT),
          Map.entry("DurationType", NativeType.DURATION));

  private MarshalTypes() {}

  /** The name without the marshal package, or "" for a class outside that package. */
  static String simpleName(String name) {
    if (name.indexOf('.') < 0) {
      return name;
    }
    return name.startsWith(MARSHAL_PACKAGE) ? name.substring(MARSHAL_PACKAGE.length()) : "";
  }

  /** The native type of a marshal class, by its {@linkplain #simpleName simple name}, or null. */
  static NativeType nativeType(String simpleName) {
    return NATIVE.get(simpleName);
  }
}
