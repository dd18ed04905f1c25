package io.cqlrows.core;

import io.cqlrows.core.CqlParseException.Reason;
import io.cqlrows.core.type.CqlType;
import io.cqlrows.core.type.CustomType;
import io.cqlrows.core.type.ListType;
import io.cqlrows.core.type.MapType;
import io.cqlrows.core.type.NativeType;
import io.cqlrows.core.type.SetType;
import io.cqlrows.core.type.TupleType;
import io.cqlrows.core.type.UdtType;
import io.cqlrows.core.type.VectorType;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Parses the Java class-name strings that a server sends for a custom type ({@code [option]} id
 * 0x0000), such as {@code org.apache.cassandra.db.marshal.VectorType(...FloatType , 3)}, into a
 * {@link CqlType} (docs/protocol.md, "Custom types").
 *
 * <p>The accepted syntax is the one of Apache Cassandra's {@code db/marshal/TypeParser.java}, which
 * serves as the reference; this is an independent recursive-descent implementation. It is stricter
 * than Cassandra in a few places that no server produces: parameters must be separated by exactly
 * one comma (no leading, doubled or trailing commas), and the whole string must be consumed.
 *
 * <p>This class is the grammar; {@link TypeNameScanner} reads the characters and tokens, and {@link
 * MarshalTypes} names the marshal classes of the native types.
 */
final class CustomTypeNameParser {
  private final TypeNameScanner in;
  private final ParseLimits limits;

  private CustomTypeNameParser(String str, ParseLimits limits) {
    this.in = new TypeNameScanner(str);
    this.limits = limits;
  }

  /**
   * Parses a custom type class name.
   *
   * <p>Names without a {@code '.'} are taken to be in {@code org.apache.cassandra.db.marshal}. The
   * marshal classes of the CQL native types map to {@link NativeType} ({@code DateType} to {@code
   * timestamp}); {@code ListType}, {@code SetType}, {@code MapType}, {@code TupleType}, {@code
   * UserType} (hex-encoded name and field names) and {@code VectorType} to the matching records;
   * {@code FrozenType(X)} marks a list, set, map or UDT as frozen and is transparent for anything
   * else; {@code ReversedType(X)} and the legacy {@code (reversed=true)} parameter yield the base
   * type. Any other class, with its parameters, becomes a {@link CustomType} holding that part of
   * the string verbatim.
   *
   * <p>Recursion is bounded by {@link ParseLimits#maxTypeDepth()}, which is checked before every
   * nested type is parsed. Should a depth limit configured far above the default still exhaust the
   * thread's stack, that too is reported as {@link Reason#TYPE_TOO_DEEP}.
   *
   * @param className the class name as sent by the server
   * @param limits the limits to apply: maximum length, nesting depth, UDT fields and tuple
   *     components, vector dimension
   * @return the type
   * @throws CqlParseException with {@link Reason#LIMIT_EXCEEDED} if the string, a UDT or a tuple,
   *     or a vector dimension is larger than allowed, {@link Reason#TYPE_TOO_DEEP} if types nest
   *     deeper than allowed, or {@link Reason#INVALID_TYPE_NAME} for any other malformation; the
   *     detail gives the (0-based) character position
   */
  public static CqlType parse(String className, ParseLimits limits) {
    Objects.requireNonNull(limits, "limits");
    CustomTypeNameParser parser =
        new CustomTypeNameParser(className == null ? "" : className, limits);
    if (parser.in.length() > limits.maxTypeNameLength()) {
      throw parser.in.fail(
          Reason.LIMIT_EXCEEDED,
          "type name of "
              + parser.in.length()
              + " chars exceeds the limit of "
              + limits.maxTypeNameLength(),
          0);
    }
    try {
      return parser.parseWhole();
    } catch (StackOverflowError e) {
      // Only reachable when maxTypeDepth is configured far above any real schema.
      throw parser.in.fail(
          Reason.TYPE_TOO_DEEP,
          "types nest too deeply for the thread's stack (maxTypeDepth "
              + limits.maxTypeDepth()
              + ")");
    }
  }

  /** Parses one type that must span the whole string, blanks around it aside. */
  CqlType parseWhole() {
    CqlType type = parseType(1);
    in.skipBlanks();
    if (!in.atEnd()) {
      throw in.fail(Reason.INVALID_TYPE_NAME, "expected end of string, found " + in.found());
    }
    return type;
  }

  /** Parses one type at nesting level {@code depth} (the outermost type is level 1). */
  CqlType parseType(int depth) {
    if (depth > limits.maxTypeDepth()) {
      throw in.fail(Reason.TYPE_TOO_DEEP, "types nest deeper than " + limits.maxTypeDepth());
    }
    in.skipBlanks();
    int start = in.position();
    String name = in.readIdentifier("type name");
    int nameEnd = in.position();
    String simple = MarshalTypes.simpleName(name);
    in.skipBlanks();
    NativeType nativeType = MarshalTypes.nativeType(simple);
    if (nativeType != null) {
      if (in.peek('(')) {
        skipDefaultParameters();
      }
      return nativeType;
    }
    switch (simple) {
      case "ListType":
        return new ListType(single(simple, depth), false);
      case "SetType":
        return new SetType(single(simple, depth), false);
      case "MapType":
        return map(depth);
      case "FrozenType":
        return freeze(single(simple, depth));
      case "ReversedType":
        return single(simple, depth);
      case "TupleType":
        return tuple(depth);
      case "UserType":
        return udt(depth);
      case "VectorType":
        return vector(depth);
      default:
        return unknown(start, nameEnd, depth);
    }
  }

  /** Skips {@code ()}, {@code (reversed)}, {@code (reversed=true)}: they never change the type. */
  void skipDefaultParameters() {
    in.expect('(');
    in.skipBlanks();
    if (in.consume(')')) {
      return;
    }
    do {
      in.skipBlanks();
      in.readIdentifier("parameter name");
      in.skipBlanks();
      if (in.consume('=')) {
        in.skipBlanks();
        in.readIdentifier("parameter value");
        in.skipBlanks();
      }
    } while (in.consume(','));
    in.expect(')');
  }

  /** A parenthesised, comma-separated list of types, possibly empty. */
  List<CqlType> typeParameters(int depth) {
    in.expect('(');
    List<CqlType> types = new ArrayList<>();
    in.skipBlanks();
    if (in.consume(')')) {
      return types;
    }
    do {
      if (types.size() == limits.maxUdtFields()) {
        throw in.fail(
            Reason.LIMIT_EXCEEDED, "more than " + limits.maxUdtFields() + " type parameters");
      }
      types.add(parseType(depth + 1));
      in.skipBlanks();
    } while (in.consume(','));
    in.expect(')');
    return types;
  }

  CqlType single(String what, int depth) {
    return exactTypeParameters(what, 1, depth).get(0);
  }

  MapType map(int depth) {
    List<CqlType> kv = exactTypeParameters("MapType", 2, depth);
    return new MapType(kv.get(0), kv.get(1), false);
  }

  TupleType tuple(int depth) {
    int at = in.position();
    List<CqlType> components = typeParameters(depth);
    if (components.isEmpty()) {
      throw in.fail(Reason.INVALID_TYPE_NAME, "TupleType needs at least 1 component", at);
    }
    return new TupleType(components);
  }

  /** Type parameters that must number exactly {@code arity}. */
  List<CqlType> exactTypeParameters(String what, int arity, int depth) {
    int at = in.position();
    if (!in.peek('(')) {
      throw in.fail(
          Reason.INVALID_TYPE_NAME, "expected '(' after " + what + ", found " + in.found());
    }
    List<CqlType> types = typeParameters(depth);
    if (types.size() != arity) {
      throw in.fail(
          Reason.INVALID_TYPE_NAME,
          what
              + " takes "
              + arity
              + " type parameter"
              + (arity == 1 ? "" : "s")
              + ", got "
              + types.size(),
          at);
    }
    return types;
  }

  /** {@code FrozenType(X)}: freezes collections and UDTs, leaves anything else as it is. */
  static CqlType freeze(CqlType type) {
    if (type instanceof ListType l) {
      return new ListType(l.element(), true);
    }
    if (type instanceof SetType s) {
      return new SetType(s.element(), true);
    }
    if (type instanceof MapType m) {
      return new MapType(m.key(), m.value(), true);
    }
    if (type instanceof UdtType u) {
      return new UdtType(u.keyspace(), u.name(), u.fields(), true);
    }
    return type;
  }

  /** {@code UserType(keyspace,hexName,hexField:type,...)}. */
  UdtType udt(int depth) {
    in.expect('(');
    in.skipBlanks();
    String keyspace = in.readIdentifier("keyspace");
    in.skipBlanks();
    in.expect(',');
    in.skipBlanks();
    String name = in.readHex("UDT name");
    List<UdtType.Field> fields = new ArrayList<>();
    in.skipBlanks();
    while (in.consume(',')) {
      if (fields.size() == limits.maxUdtFields()) {
        throw in.fail(Reason.LIMIT_EXCEEDED, "more than " + limits.maxUdtFields() + " UDT fields");
      }
      in.skipBlanks();
      String fieldName = in.readHex("UDT field name");
      in.skipBlanks();
      in.expect(':');
      fields.add(new UdtType.Field(fieldName, parseType(depth + 1)));
      in.skipBlanks();
    }
    in.expect(')');
    return new UdtType(keyspace, name, fields, false);
  }

  /** {@code VectorType(type , dimension)}. */
  VectorType vector(int depth) {
    in.expect('(');
    CqlType element = parseType(depth + 1);
    in.skipBlanks();
    in.expect(',');
    in.skipBlanks();
    int at = in.position();
    int dimension = dimension(in.readIdentifier("vector dimension"), at);
    in.skipBlanks();
    in.expect(')');
    return new VectorType(element, dimension);
  }

  /** A positive decimal int, at most {@link ParseLimits#maxVectorDimension()}. */
  int dimension(String token, int at) {
    String bad = "vector dimension '" + token + "'";
    boolean negative = token.charAt(0) == '-';
    int i = negative || token.charAt(0) == '+' ? 1 : 0;
    if (i == token.length()) {
      throw in.fail(Reason.INVALID_TYPE_NAME, bad + " is not a number", at);
    }
    long value = 0;
    for (; i < token.length(); i++) {
      char c = token.charAt(i);
      if (c < '0' || c > '9') {
        throw in.fail(Reason.INVALID_TYPE_NAME, bad + " is not a number", at);
      }
      value = value * 10 + (c - '0');
      if (value > Integer.MAX_VALUE) {
        throw in.fail(Reason.INVALID_TYPE_NAME, bad + " is not an int", at);
      }
    }
    if (negative || value == 0) {
      throw in.fail(Reason.INVALID_TYPE_NAME, bad + " is not positive", at);
    }
    if (value > limits.maxVectorDimension()) {
      throw in.fail(
          Reason.LIMIT_EXCEEDED, bad + " exceeds the limit of " + limits.maxVectorDimension(), at);
    }
    return (int) value;
  }

  /** A class cqlrows does not interpret: skips its parameters, keeps the text verbatim. */
  CustomType unknown(int start, int nameEnd, int depth) {
    if (!in.peek('(')) {
      return new CustomType(in.text(start, nameEnd));
    }
    in.skipParenthesized(depth, limits.maxTypeDepth());
    return new CustomType(in.text(start, in.position()));
  }
}
