package io.cqlrows.core;

import io.cqlrows.core.CqlParseException.Reason;
import io.cqlrows.core.type.CqlType;
import io.cqlrows.core.type.ListType;
import io.cqlrows.core.type.MapType;
import io.cqlrows.core.type.NativeType;
import io.cqlrows.core.type.SetType;
import io.cqlrows.core.type.TupleType;
import io.cqlrows.core.type.UdtType;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads an {@code [option]} type (native_protocol_v5.spec sections 3 and 4.2.5.2; the ids are in
 * docs/protocol.md) into a {@link CqlType}. Custom types (id 0x0000) go through {@link
 * CustomTypeNameParser}, which is how vectors arrive. Recursion is bounded by {@link
 * ParseLimits#maxTypeDepth()}.
 */
final class CqlTypeReader {
  private static final int CUSTOM = 0x0000;
  private static final int LIST = 0x0020;
  private static final int MAP = 0x0021;
  private static final int SET = 0x0022;
  private static final int UDT = 0x0030;
  private static final int TUPLE = 0x0031;

  private CqlTypeReader() {}

  static CqlType read(BodyReader in, ParseLimits limits) {
    try {
      return read(in, limits, 1);
    } catch (StackOverflowError e) {
      // Only reachable when maxTypeDepth is configured far above any real schema (as in
      // CustomTypeNameParser): report it like any other type nested too deeply.
      throw in.error(
          Reason.TYPE_TOO_DEEP,
          "option",
          in.position,
          "types nest too deeply for the thread's stack (maxTypeDepth "
              + limits.maxTypeDepth()
              + ")");
    }
  }

  private static CqlType read(BodyReader in, ParseLimits limits, int depth) {
    int at = in.position;
    if (depth > limits.maxTypeDepth()) {
      throw in.error(
          Reason.TYPE_TOO_DEEP,
          "option",
          at,
          "nesting deeper than " + limits.maxTypeDepth() + " (ParseLimits.maxTypeDepth)");
    }
    int id = in.readUnsignedShort("option id");
    NativeType nativeType = NativeType.fromOptionId(id);
    if (nativeType != null) {
      return nativeType;
    }
    switch (id) {
      case CUSTOM:
        return readCustom(in, limits);
      case LIST:
        return new ListType(read(in, limits, depth + 1), false);
      case SET:
        return new SetType(read(in, limits, depth + 1), false);
      case MAP:
        CqlType key = read(in, limits, depth + 1);
        return new MapType(key, read(in, limits, depth + 1), false);
      case UDT:
        return readUdt(in, limits, depth);
      case TUPLE:
        return new TupleType(readComponents(in, limits, depth));
      default:
        throw in.error(
            Reason.UNKNOWN_TYPE_ID,
            "option id",
            at,
            "0x" + Integer.toHexString(id) + " is not a type id of the protocol");
    }
  }

  private static CqlType readCustom(BodyReader in, ParseLimits limits) {
    int nameAt = in.position;
    String name = in.readString("custom type name");
    try {
      return CustomTypeNameParser.parse(name, limits);
    } catch (CqlParseException e) {
      throw CqlParseException.at(e.reason(), e.field(), nameAt, null, e.detail());
    }
  }

  private static UdtType readUdt(BodyReader in, ParseLimits limits, int depth) {
    String keyspace = in.readString("udt keyspace");
    String name = in.readString("udt name");
    int countAt = in.position;
    int n = in.readUnsignedShort("udt field count");
    checkFieldCount(in, limits, n, countAt);
    List<UdtType.Field> fields = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      String fieldName = in.readString("udt field name");
      fields.add(new UdtType.Field(fieldName, read(in, limits, depth + 1)));
    }
    return new UdtType(keyspace, name, fields, false);
  }

  private static List<CqlType> readComponents(BodyReader in, ParseLimits limits, int depth) {
    int countAt = in.position;
    int n = in.readUnsignedShort("tuple component count");
    checkFieldCount(in, limits, n, countAt);
    List<CqlType> types = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      types.add(read(in, limits, depth + 1));
    }
    return types;
  }

  private static void checkFieldCount(BodyReader in, ParseLimits limits, int n, int at) {
    if (n > limits.maxUdtFields()) {
      throw in.error(
          Reason.LIMIT_EXCEEDED,
          "field count",
          at,
          n + " fields, more than " + limits.maxUdtFields() + " (ParseLimits.maxUdtFields)");
    }
    // each field needs at least a 2-byte option id
    if ((long) n * 2 > in.remaining()) {
      throw in.truncated("field count", (long) n * 2);
    }
  }
}
