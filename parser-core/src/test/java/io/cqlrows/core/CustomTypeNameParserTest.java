package io.cqlrows.core;

import static io.cqlrows.core.type.NativeType.ASCII;
import static io.cqlrows.core.type.NativeType.BIGINT;
import static io.cqlrows.core.type.NativeType.BLOB;
import static io.cqlrows.core.type.NativeType.BOOLEAN;
import static io.cqlrows.core.type.NativeType.COUNTER;
import static io.cqlrows.core.type.NativeType.DATE;
import static io.cqlrows.core.type.NativeType.DECIMAL;
import static io.cqlrows.core.type.NativeType.DOUBLE;
import static io.cqlrows.core.type.NativeType.DURATION;
import static io.cqlrows.core.type.NativeType.FLOAT;
import static io.cqlrows.core.type.NativeType.INET;
import static io.cqlrows.core.type.NativeType.INT;
import static io.cqlrows.core.type.NativeType.SMALLINT;
import static io.cqlrows.core.type.NativeType.TEXT;
import static io.cqlrows.core.type.NativeType.TIME;
import static io.cqlrows.core.type.NativeType.TIMESTAMP;
import static io.cqlrows.core.type.NativeType.TIMEUUID;
import static io.cqlrows.core.type.NativeType.TINYINT;
import static io.cqlrows.core.type.NativeType.UUID;
import static io.cqlrows.core.type.NativeType.VARINT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

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
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class CustomTypeNameParserTest {
  private static final ParseLimits DEFAULTS = ParseLimits.defaults();
  private static final ParseLimits NO_LENGTH_LIMIT =
      ParseLimits.builder().maxTypeNameLength(Integer.MAX_VALUE).build();

  private static final UdtType ADDRESS =
      new UdtType(
          "corpus",
          "address",
          List.of(
              new UdtType.Field("street", TEXT),
              new UdtType.Field("city", TEXT),
              new UdtType.Field("zip", INT)),
          true);

  /**
   * Every custom type string of the corpus's {@code a-v4/results.jsonl} ({@code
   * columns[].wire_type}), with the Java driver's spelling of it ({@code columns[].type}).
   */
  static Stream<Arguments> corpusTypes() {
    return Stream.of(
        corpus("org.apache.cassandra.db.marshal.DurationType", DURATION, "duration"),
        corpus(
            "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.AsciiType , 2)",
            vec(ASCII, 2),
            "vector<ascii, 2>"),
        corpus(
            "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.LongType , 4)",
            vec(BIGINT, 4),
            "vector<bigint, 4>"),
        corpus(
            "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.BytesType , 2)",
            vec(BLOB, 2),
            "vector<blob, 2>"),
        corpus(
            "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.BooleanType , 3)",
            vec(BOOLEAN, 3),
            "vector<boolean, 3>"),
        corpus(
            "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.SimpleDateType , 2)",
            vec(DATE, 2),
            "vector<date, 2>"),
        corpus(
            "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.DecimalType , 2)",
            vec(DECIMAL, 2),
            "vector<decimal, 2>"),
        corpus(
            "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.DoubleType , 8)",
            vec(DOUBLE, 8),
            "vector<double, 8>"),
        corpus(
            "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.DurationType , 2)",
            vec(DURATION, 2),
            "vector<duration, 2>"),
        corpus(
            "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FloatType , 1)",
            vec(FLOAT, 1),
            "vector<float, 1>"),
        corpus(
            "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FloatType , 1536)",
            vec(FLOAT, 1536),
            "vector<float, 1536>"),
        corpus(
            "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FloatType , 3)",
            vec(FLOAT, 3),
            "vector<float, 3>"),
        corpus(
            "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FrozenType(org.apache.cassandra.db.marshal.MapType(org.apache.cassandra.db.marshal.UTF8Type,org.apache.cassandra.db.marshal.Int32Type)) , 2)",
            vec(new MapType(TEXT, INT, true), 2),
            "vector<frozen<map<text, int>>, 2>"),
        corpus(
            "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.InetAddressType , 2)",
            vec(INET, 2),
            "vector<inet, 2>"),
        corpus(
            "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.Int32Type , 4)",
            vec(INT, 4),
            "vector<int, 4>"),
        corpus(
            "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.ListType(org.apache.cassandra.db.marshal.Int32Type) , 2)",
            vec(new ListType(INT, false), 2),
            "vector<list<int>, 2>"),
        corpus(
            "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FrozenType(org.apache.cassandra.db.marshal.SetType(org.apache.cassandra.db.marshal.Int32Type)) , 2)",
            vec(new SetType(INT, true), 2),
            "vector<frozen<set<int>>, 2>"),
        corpus(
            "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.ShortType , 3)",
            vec(SMALLINT, 3),
            "vector<smallint, 3>"),
        corpus(
            "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.UTF8Type , 3)",
            vec(TEXT, 3),
            "vector<text, 3>"),
        corpus(
            "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.TimeType , 2)",
            vec(TIME, 2),
            "vector<time, 2>"),
        corpus(
            "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.TimestampType , 2)",
            vec(TIMESTAMP, 2),
            "vector<timestamp, 2>"),
        corpus(
            "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.TimeUUIDType , 2)",
            vec(TIMEUUID, 2),
            "vector<timeuuid, 2>"),
        corpus(
            "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.ByteType , 3)",
            vec(TINYINT, 3),
            "vector<tinyint, 3>"),
        corpus(
            "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.TupleType(org.apache.cassandra.db.marshal.Int32Type,org.apache.cassandra.db.marshal.UTF8Type) , 2)",
            vec(new TupleType(List.of(INT, TEXT)), 2),
            "vector<frozen<tuple<int, text>>, 2>"),
        corpus(
            "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FrozenType(org.apache.cassandra.db.marshal.UserType(corpus,61646472657373,737472656574:org.apache.cassandra.db.marshal.UTF8Type,63697479:org.apache.cassandra.db.marshal.UTF8Type,7a6970:org.apache.cassandra.db.marshal.Int32Type)) , 2)",
            vec(ADDRESS, 2),
            "vector<frozen<\"corpus\".\"address\">, 2>"),
        corpus(
            "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.UUIDType , 2)",
            vec(UUID, 2),
            "vector<uuid, 2>"),
        corpus(
            "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.IntegerType , 2)",
            vec(VARINT, 2),
            "vector<varint, 2>"),
        corpus(
            "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FloatType , 2) , 2)",
            vec(vec(FLOAT, 2), 2),
            "vector<vector<float, 2>, 2>"),
        corpus(
            "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.UTF8Type , 2) , 2)",
            vec(vec(TEXT, 2), 2),
            "vector<vector<text, 2>, 2>"),
        corpus(
            "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FloatType , 2)",
            vec(FLOAT, 2),
            "vector<float, 2>"),
        corpus(
            "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.Int32Type , 2)",
            vec(INT, 2),
            "vector<int, 2>"),
        corpus(
            "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.CounterColumnType , 2)",
            vec(COUNTER, 2),
            "vector<counter, 2>"),
        corpus(
            "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FloatType , 128)",
            vec(FLOAT, 128),
            "vector<float, 128>"));
  }

  @ParameterizedTest(name = "{2}")
  @MethodSource("corpusTypes")
  void parsesCorpusCustomTypesToDriverSpelling(String wire, CqlType expected, String driverCql) {
    CqlType type = parse(wire);
    assertEquals(expected, type);
    assertEquals(driverCql, type.toString());
  }

  @Test
  void parsesVectorOfFloat() {
    CqlType type =
        parse(
            "org.apache.cassandra.db.marshal.VectorType(org.apache.cassandra.db.marshal.FloatType , 3)");
    assertEquals(vec(FLOAT, 3), type);
    assertEquals(12, type.fixedLengthInVector());
  }

  @Test
  void parsesDurationTypeAsDuration() {
    assertEquals(DURATION, parse("org.apache.cassandra.db.marshal.DurationType"));
  }

  @Test
  void mapsEveryNativeMarshalClass() {
    Map<String, NativeType> expected =
        Map.ofEntries(
            Map.entry("AsciiType", ASCII),
            Map.entry("LongType", BIGINT),
            Map.entry("BytesType", BLOB),
            Map.entry("BooleanType", BOOLEAN),
            Map.entry("CounterColumnType", COUNTER),
            Map.entry("DecimalType", DECIMAL),
            Map.entry("DoubleType", DOUBLE),
            Map.entry("FloatType", FLOAT),
            Map.entry("Int32Type", INT),
            Map.entry("UTF8Type", TEXT),
            Map.entry("TimestampType", TIMESTAMP),
            Map.entry("DateType", TIMESTAMP),
            Map.entry("UUIDType", UUID),
            Map.entry("IntegerType", VARINT),
            Map.entry("TimeUUIDType", TIMEUUID),
            Map.entry("InetAddressType", INET),
            Map.entry("SimpleDateType", DATE),
            Map.entry("TimeType", TIME),
            Map.entry("ShortType", SMALLINT),
            Map.entry("ByteType", TINYINT),
            Map.entry("DurationType", DURATION));
    for (Map.Entry<String, NativeType> e : expected.entrySet()) {
      assertEquals(e.getValue(), parse(e.getKey()), e.getKey());
      String qualified = "org.apache.cassandra.db.marshal." + e.getKey();
      assertEquals(e.getValue(), parse(qualified), qualified);
    }
  }

  @Test
  void acceptsShortNames() {
    assertEquals(new ListType(INT, false), parse("ListType(Int32Type)"));
    assertEquals(new SetType(TEXT, false), parse("SetType(UTF8Type)"));
    assertEquals(new MapType(TEXT, BIGINT, false), parse("MapType(UTF8Type,LongType)"));
    assertEquals(
        new MapType(TEXT, BIGINT, false),
        parse("MapType(org.apache.cassandra.db.marshal.UTF8Type,LongType)"));
    assertEquals(vec(FLOAT, 3), parse("VectorType(FloatType , 3)"));
    assertEquals("list<int>", parse("ListType(Int32Type)").toString());
  }

  @Test
  void acceptsWhitespaceAroundCommasAndParentheses() {
    for (String s :
        List.of(
            "VectorType(FloatType,3)",
            "VectorType(FloatType , 3)",
            "VectorType(FloatType, 3)",
            "VectorType(FloatType ,3)",
            "VectorType( FloatType ,3 )",
            "VectorType(\tFloatType\n,\t3\n)",
            "  VectorType(FloatType , 3)  ",
            "VectorType (FloatType , 3)")) {
      assertEquals(vec(FLOAT, 3), parse(s), s);
    }
    for (String s : List.of("MapType(Int32Type,UTF8Type)", "MapType( Int32Type ,UTF8Type )")) {
      assertEquals(new MapType(INT, TEXT, false), parse(s), s);
    }
    assertEquals(
        new TupleType(List.of(INT, TEXT, DOUBLE)),
        parse("TupleType( Int32Type , UTF8Type ,DoubleType)"));
  }

  @Test
  void treatsEmptyParenthesesAsNoParameters() {
    assertEquals(INT, parse("Int32Type()"));
    assertEquals(INT, parse("Int32Type( )"));
    assertEquals(new ListType(TEXT, false), parse("ListType(UTF8Type())"));
  }

  @Test
  void acceptsLegacyReversedParameter() {
    assertEquals(BIGINT, parse("LongType(reversed=true)"));
    assertEquals(BIGINT, parse("LongType(reversed)"));
    assertEquals(BIGINT, parse("LongType( reversed = false )"));
    assertEquals(BIGINT, parse("org.apache.cassandra.db.marshal.LongType(reversed=true)"));
  }

  @Test
  void unwrapsReversedType() {
    assertEquals(
        INT,
        parse(
            "org.apache.cassandra.db.marshal.ReversedType(org.apache.cassandra.db.marshal.Int32Type)"));
    assertEquals(vec(FLOAT, 2), parse("ReversedType(VectorType(FloatType , 2))"));
    assertEquals(new ListType(INT, true), parse("ReversedType(FrozenType(ListType(Int32Type)))"));
  }

  @Test
  void freezesCollectionsAndUdtsAtAnyDepth() {
    CqlType scylla = parse("ListType(FrozenType(ListType(Int32Type)))");
    assertEquals(new ListType(new ListType(INT, true), false), scylla);
    assertEquals("list<frozen<list<int>>>", scylla.toString());

    CqlType map =
        parse("MapType(FrozenType(MapType(Int32Type,Int32Type)),FrozenType(SetType(UUIDType)))");
    assertEquals(new MapType(new MapType(INT, INT, true), new SetType(UUID, true), false), map);
    assertEquals("map<frozen<map<int, int>>, frozen<set<uuid>>>", map.toString());

    CqlType deep =
        parse(
            "org.apache.cassandra.db.marshal.FrozenType(org.apache.cassandra.db.marshal.MapType("
                + "org.apache.cassandra.db.marshal.UTF8Type,org.apache.cassandra.db.marshal"
                + ".FrozenType(org.apache.cassandra.db.marshal.ListType(org.apache.cassandra.db"
                + ".marshal.FrozenType(org.apache.cassandra.db.marshal.MapType(org.apache"
                + ".cassandra.db.marshal.Int32Type,org.apache.cassandra.db.marshal.UTF8Type))))))");
    assertEquals("frozen<map<text, frozen<list<frozen<map<int, text>>>>>>", deep.toString());
  }

  @Test
  void treatsFrozenTypeAsTransparentForOtherTypes() {
    assertEquals(INT, parse("FrozenType(Int32Type)"));
    assertEquals(new TupleType(List.of(INT)), parse("FrozenType(TupleType(Int32Type))"));
    assertEquals(vec(FLOAT, 3), parse("FrozenType(VectorType(FloatType , 3))"));
    assertEquals(new CustomType("com.example.Foo"), parse("FrozenType(com.example.Foo)"));
    assertEquals(new ListType(INT, true), parse("FrozenType(FrozenType(ListType(Int32Type)))"));
  }

  @Test
  void parsesUserTypeWithHexEncodedNames() {
    // "Quoted Type" with fields "Mixed Case" and "with space"; "ünï" is UTF-8 c3bc 6e c3af.
    CqlType type =
        parse(
            "UserType(corpus,51756f7465642054797065,4d697865642043617365:Int32Type,"
                + "77697468207370616365:UTF8Type , C3BC6EC3AF : ListType(Int32Type))");
    UdtType expected =
        new UdtType(
            "corpus",
            "Quoted Type",
            List.of(
                new UdtType.Field("Mixed Case", INT),
                new UdtType.Field("with space", TEXT),
                new UdtType.Field("\u00fcn\u00ef", new ListType(INT, false))),
            false);
    assertEquals(expected, type);
    assertEquals("corpus.\"Quoted Type\"", type.toString());
  }

  @Test
  void parsesUserTypeWithoutFields() {
    assertEquals(new UdtType("ks", "a", List.of(), false), parse("UserType(ks,61)"));
  }

  @Test
  void parsesNestedTuplesAndUdtsInCollections() {
    CqlType type =
        parse(
            "MapType(UTF8Type,TupleType(Int32Type,TupleType(UTF8Type,DoubleType),"
                + "UserType(ks,61,62:Int32Type)))");
    TupleType inner = new TupleType(List.of(TEXT, DOUBLE));
    UdtType udt = new UdtType("ks", "a", List.of(new UdtType.Field("b", INT)), false);
    assertEquals(new MapType(TEXT, new TupleType(List.of(INT, inner, udt)), false), type);
  }

  @Test
  void keepsUnknownTypesVerbatim() {
    for (String s :
        List.of(
            "org.apache.cassandra.db.marshal.LexicalUUIDType",
            "org.apache.cassandra.db.marshal.EmptyType",
            "EmptyType",
            "com.example.Foo",
            "com.example.ListType(Int32Type)",
            "org.apache.cassandra.db.marshal.CompositeType(org.apache.cassandra.db.marshal"
                + ".Int32Type,org.apache.cassandra.db.marshal.UTF8Type)",
            "org.apache.cassandra.db.marshal.DynamicCompositeType(a=>org.apache.cassandra.db"
                + ".marshal.Int32Type,b=>org.apache.cassandra.db.marshal.UTF8Type)",
            "org.apache.cassandra.db.marshal.PartitionerDefinedOrder("
                + "org.apache.cassandra.dht.Murmur3Partitioner)",
            "ColumnToCollectionType(6c:ListType(Int32Type),6d:MapType(UTF8Type,Int32Type))",
            "com.example.Foo(a(b(c)) , d=>e(f), g:h)",
            "com.example.Foo()")) {
      CqlType type = parse(s);
      assertEquals(new CustomType(s), type, s);
      assertEquals("'" + s + "'", type.toString());
    }
    assertEquals(new CustomType("com.example.Foo(x)"), parse("  com.example.Foo(x) \n"));
  }

  @Test
  void keepsUnknownTypesNestedInKnownOnes() {
    assertEquals(
        new ListType(new CustomType("com.example.Foo(x=>y)"), false),
        parse("ListType(com.example.Foo(x=>y))"));
    assertEquals(
        vec(new CustomType("DynamicCompositeType(a=>Int32Type,b=>UTF8Type)"), 2),
        parse("VectorType( DynamicCompositeType(a=>Int32Type,b=>UTF8Type) , 2)"));
    assertEquals(
        new MapType(new CustomType("EmptyType"), new CustomType("Foo(a , b)"), false),
        parse("MapType(EmptyType , Foo(a , b) )"));
  }

  static Stream<Arguments> malformedNames() {
    return Stream.of(
        malformed("", Reason.INVALID_TYPE_NAME),
        malformed("   ", Reason.INVALID_TYPE_NAME),
        malformed("(", Reason.INVALID_TYPE_NAME),
        malformed(")", Reason.INVALID_TYPE_NAME),
        malformed("Int32Type)", Reason.INVALID_TYPE_NAME),
        malformed("Int32Type Int32Type", Reason.INVALID_TYPE_NAME),
        malformed("Int32Type,", Reason.INVALID_TYPE_NAME),
        malformed("Int32Type$", Reason.INVALID_TYPE_NAME),
        malformed("Int32Type(reversed=)", Reason.INVALID_TYPE_NAME),
        malformed("Int32Type(reversed", Reason.INVALID_TYPE_NAME),
        malformed("ListType(Int32Type", Reason.INVALID_TYPE_NAME),
        malformed("ListType(Int32Type))", Reason.INVALID_TYPE_NAME),
        malformed("ListType(Int32Type)x", Reason.INVALID_TYPE_NAME),
        malformed("ListType", Reason.INVALID_TYPE_NAME),
        malformed("ListType()", Reason.INVALID_TYPE_NAME),
        malformed("ListType(,Int32Type)", Reason.INVALID_TYPE_NAME),
        malformed("ListType(Int32Type,)", Reason.INVALID_TYPE_NAME),
        malformed("ListType(Int32Type,UTF8Type)", Reason.INVALID_TYPE_NAME),
        malformed("MapType(Int32Type)", Reason.INVALID_TYPE_NAME),
        malformed("MapType(Int32Type,UTF8Type,UTF8Type)", Reason.INVALID_TYPE_NAME),
        malformed("MapType(Int32Type,,UTF8Type)", Reason.INVALID_TYPE_NAME),
        malformed("MapType(Int32Type UTF8Type)", Reason.INVALID_TYPE_NAME),
        malformed("FrozenType()", Reason.INVALID_TYPE_NAME),
        malformed("ReversedType(Int32Type,Int32Type)", Reason.INVALID_TYPE_NAME),
        malformed("TupleType()", Reason.INVALID_TYPE_NAME),
        malformed("TupleType", Reason.INVALID_TYPE_NAME),
        malformed("VectorType(FloatType , 0)", Reason.INVALID_TYPE_NAME),
        malformed("VectorType(FloatType , -1)", Reason.INVALID_TYPE_NAME),
        malformed("VectorType(FloatType , 99999999999)", Reason.INVALID_TYPE_NAME),
        malformed("VectorType(FloatType , 2147483648)", Reason.INVALID_TYPE_NAME),
        malformed("VectorType(FloatType , abc)", Reason.INVALID_TYPE_NAME),
        malformed("VectorType(FloatType , 3.5)", Reason.INVALID_TYPE_NAME),
        malformed("VectorType(FloatType , +)", Reason.INVALID_TYPE_NAME),
        malformed("VectorType(FloatType , )", Reason.INVALID_TYPE_NAME),
        malformed("VectorType(FloatType)", Reason.INVALID_TYPE_NAME),
        malformed("VectorType(FloatType , 3 , 4)", Reason.INVALID_TYPE_NAME),
        malformed("VectorType(3)", Reason.INVALID_TYPE_NAME),
        malformed("VectorType", Reason.INVALID_TYPE_NAME),
        malformed("VectorType(FloatType , 1048577)", Reason.LIMIT_EXCEEDED),
        malformed("UserType(ks,6g)", Reason.INVALID_TYPE_NAME),
        malformed("UserType(ks,616)", Reason.INVALID_TYPE_NAME),
        malformed("UserType(ks,ff)", Reason.INVALID_TYPE_NAME),
        malformed("UserType(ks,61,zz:Int32Type)", Reason.INVALID_TYPE_NAME),
        malformed("UserType(ks,61,62 Int32Type)", Reason.INVALID_TYPE_NAME),
        malformed("UserType(ks,61,62:)", Reason.INVALID_TYPE_NAME),
        malformed("UserType(ks,61,)", Reason.INVALID_TYPE_NAME),
        malformed("UserType(ks)", Reason.INVALID_TYPE_NAME),
        malformed("UserType(,61)", Reason.INVALID_TYPE_NAME),
        malformed("UserType(ks,,62:Int32Type)", Reason.INVALID_TYPE_NAME),
        malformed("com.example.Foo(bar", Reason.INVALID_TYPE_NAME),
        malformed("com.example.Foo(a(b)", Reason.INVALID_TYPE_NAME),
        malformed("com.example.Foo(a\"b)", Reason.INVALID_TYPE_NAME),
        malformed("com.example.Foo(a)(b)", Reason.INVALID_TYPE_NAME),
        malformed("ListType(Int32Type\u00e9)", Reason.INVALID_TYPE_NAME));
  }

  @ParameterizedTest(name = "\"{0}\" -> {1}")
  @MethodSource("malformedNames")
  void rejectsMalformedNames(String name, Reason reason) {
    assertEquals(reason, failure(name, DEFAULTS));
  }

  @Test
  void rejectsNull() {
    assertEquals(Reason.INVALID_TYPE_NAME, failure(null, DEFAULTS));
  }

  @Test
  void rejects100000DeepNestingWithoutStackOverflow() {
    int n = 100_000;
    String lists = "ListType(".repeat(n) + "Int32Type" + ")".repeat(n);
    assertEquals(Reason.TYPE_TOO_DEEP, failure(lists, NO_LENGTH_LIMIT));
    String frozen = "FrozenType(".repeat(n) + "Int32Type" + ")".repeat(n);
    assertEquals(Reason.TYPE_TOO_DEEP, failure(frozen, NO_LENGTH_LIMIT));
    String vectors = "VectorType(".repeat(n) + "FloatType" + " , 2)".repeat(n);
    assertEquals(Reason.TYPE_TOO_DEEP, failure(vectors, NO_LENGTH_LIMIT));
    String unclosed = "ListType(".repeat(n);
    assertEquals(Reason.TYPE_TOO_DEEP, failure(unclosed, NO_LENGTH_LIMIT));
    String unknown = "com.example.Foo(".repeat(n) + ")".repeat(n);
    assertEquals(Reason.TYPE_TOO_DEEP, failure(unknown, NO_LENGTH_LIMIT));
  }

  @Test
  void reportsStackExhaustionAsTooDeepWhenDepthLimitIsHuge() {
    ParseLimits unlimited =
        ParseLimits.builder()
            .maxTypeNameLength(Integer.MAX_VALUE)
            .maxTypeDepth(Integer.MAX_VALUE)
            .build();
    int n = 1_000_000;
    String lists = "ListType(".repeat(n) + "Int32Type" + ")".repeat(n);
    assertEquals(Reason.TYPE_TOO_DEEP, failure(lists, unlimited));
  }

  @Test
  void appliesDepthLimitExactly() {
    ParseLimits three = ParseLimits.builder().maxTypeDepth(3).build();
    assertEquals(
        new ListType(new ListType(INT, false), false),
        CustomTypeNameParser.parse("ListType(ListType(Int32Type))", three));
    assertEquals(Reason.TYPE_TOO_DEEP, failure("ListType(ListType(ListType(Int32Type)))", three));
    assertEquals(new CustomType("Foo(a(b))"), CustomTypeNameParser.parse("Foo(a(b))", three));
    assertEquals(Reason.TYPE_TOO_DEEP, failure("Foo(a(b(c)))", three));
    assertEquals(
        Reason.TYPE_TOO_DEEP, failure("ListType(UserType(ks,61,62:ListType(Int32Type)))", three));
  }

  @Test
  void rejectsOverlongName() {
    String name = "org.apache.cassandra.db.marshal.Int32Type";
    ParseLimits exact = ParseLimits.builder().maxTypeNameLength(name.length()).build();
    assertEquals(INT, CustomTypeNameParser.parse(name, exact));
    ParseLimits shorter = ParseLimits.builder().maxTypeNameLength(name.length() - 1).build();
    assertEquals(Reason.LIMIT_EXCEEDED, failure(name, shorter));
    String huge = "ListType(".repeat(10_000) + "Int32Type" + ")".repeat(10_000);
    assertEquals(Reason.LIMIT_EXCEEDED, failure(huge, DEFAULTS));
  }

  @Test
  void rejectsTooManyFieldsOrComponents() {
    ParseLimits two = ParseLimits.builder().maxUdtFields(2).build();
    assertEquals(
        2,
        ((UdtType) CustomTypeNameParser.parse("UserType(ks,61,62:Int32Type,63:Int32Type)", two))
            .fields()
            .size());
    assertEquals(
        Reason.LIMIT_EXCEEDED,
        failure("UserType(ks,61,62:Int32Type,63:Int32Type,64:Int32Type)", two));
    assertEquals(
        new TupleType(List.of(INT, INT)),
        CustomTypeNameParser.parse("TupleType(Int32Type,Int32Type)", two));
    assertEquals(Reason.LIMIT_EXCEEDED, failure("TupleType(Int32Type,Int32Type,Int32Type)", two));
  }

  @Test
  void appliesVectorDimensionLimit() {
    ParseLimits ten = ParseLimits.builder().maxVectorDimension(10).build();
    assertEquals(vec(FLOAT, 10), CustomTypeNameParser.parse("VectorType(FloatType , 10)", ten));
    assertEquals(Reason.LIMIT_EXCEEDED, failure("VectorType(FloatType , 11)", ten));
  }

  @Test
  void reportsPositionInDetail() {
    CqlParseException e =
        assertThrows(
            CqlParseException.class, () -> CustomTypeNameParser.parse("MapType(A B)", DEFAULTS));
    assertEquals("custom type name", e.field());
    assertEquals(-1, e.offset());
    assertTrue(e.detail().contains("at char 10"), e.detail());

    String longName = "com.example.Foo(" + "a".repeat(1000);
    CqlParseException tooLong =
        assertThrows(CqlParseException.class, () -> CustomTypeNameParser.parse(longName, DEFAULTS));
    assertTrue(tooLong.detail().length() < 250, tooLong.detail());
  }

  /** Truncations and single-character mutations of the corpus strings never escape as others. */
  @Test
  void neverThrowsAnythingButCqlParseException() {
    String replacements = "(),: =>-0xZ\t";
    corpusTypes()
        .map(a -> (String) a.get()[0])
        .forEach(
            wire -> {
              for (int i = 0; i <= wire.length(); i++) {
                parseOrReject(wire.substring(0, i));
                parseOrReject(wire.substring(i));
                for (int r = 0; r < replacements.length() && i < wire.length(); r++) {
                  String head = wire.substring(0, i);
                  parseOrReject(head + replacements.charAt(r) + wire.substring(i + 1));
                }
              }
            });
  }

  private static void parseOrReject(String name) {
    try {
      CustomTypeNameParser.parse(name, DEFAULTS);
    } catch (CqlParseException expected) {
      // fine: a clean rejection
    } catch (RuntimeException | StackOverflowError e) {
      fail("parse(\"" + name + "\") threw " + e, e);
    }
  }

  private static CqlType parse(String name) {
    return CustomTypeNameParser.parse(name, DEFAULTS);
  }

  private static Reason failure(String name, ParseLimits limits) {
    return assertThrows(CqlParseException.class, () -> CustomTypeNameParser.parse(name, limits))
        .reason();
  }

  private static VectorType vec(CqlType element, int dimension) {
    return new VectorType(element, dimension);
  }

  private static Arguments corpus(String wire, CqlType expected, String driverCql) {
    return Arguments.of(wire, expected, driverCql);
  }

  private static Arguments malformed(String name, Reason reason) {
    return Arguments.of(name, reason);
  }
}
