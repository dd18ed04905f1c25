package io.cqlrows.core.sink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cqlrows.core.type.CqlType;
import io.cqlrows.core.type.CustomType;
import io.cqlrows.core.type.ListType;
import io.cqlrows.core.type.MapType;
import io.cqlrows.core.type.NativeType;
import io.cqlrows.core.type.SetType;
import io.cqlrows.core.type.TupleType;
import io.cqlrows.core.type.UdtType;
import io.cqlrows.core.type.VectorType;
import io.cqlrows.core.value.CqlDuration;
import io.cqlrows.core.value.NotSet;
import io.cqlrows.core.value.TupleValue;
import io.cqlrows.core.value.UdtValue;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnJre;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class CanonicalJsonTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private static final UdtType ADDRESS =
      new UdtType(
          "corpus",
          "address",
          List.of(
              new UdtType.Field("Mixed Case", NativeType.INT),
              new UdtType.Field("with space", NativeType.TEXT),
              new UdtType.Field("zip", NativeType.TEXT)),
          false);

  private static final TupleType INT_TEXT_FLOAT =
      new TupleType(List.of(NativeType.INT, NativeType.TEXT, NativeType.FLOAT));

  private static String json(Object value) {
    StringBuilder sb = new StringBuilder();
    CanonicalJson.appendValue(sb, value);
    return sb.toString();
  }

  private static String empty(CqlType type) {
    StringBuilder sb = new StringBuilder();
    CanonicalJson.appendEmpty(sb, type);
    return sb.toString();
  }

  private static InetAddress inet(int... bytes) throws UnknownHostException {
    byte[] b = new byte[bytes.length];
    for (int i = 0; i < bytes.length; i++) {
      b[i] = (byte) bytes[i];
    }
    return InetAddress.getByAddress(b);
  }

  @Test
  void rendersNullAsJsonNull() {
    assertEquals("null", json(null));
  }

  @Test
  void rendersBooleansAsLiterals() {
    assertEquals("true", json(true));
    assertEquals("false", json(false));
  }

  @Test
  void rendersTinyintSmallintAndIntAsNumbers() {
    assertEquals("-128", json((byte) -128));
    assertEquals("32767", json((short) 32767));
    assertEquals("-2147483648", json(Integer.MIN_VALUE));
    assertEquals("0", json(0));
  }

  @Test
  void rendersBigintAndVarintAsQuotedDecimals() {
    assertEquals("\"9223372036854775807\"", json(Long.MAX_VALUE));
    assertEquals("\"-9223372036854775808\"", json(Long.MIN_VALUE));
    assertEquals(
        "\"-123456789012345678901234567890\"",
        json(new BigInteger("-123456789012345678901234567890")));
    assertEquals("\"0\"", json(BigInteger.ZERO));
  }

  @Test
  void rendersFloatsAsQuotedFloatToString() {
    assertEquals("\"1.5\"", json(1.5f));
    assertEquals("\"NaN\"", json(Float.NaN));
    assertEquals("\"Infinity\"", json(Float.POSITIVE_INFINITY));
    assertEquals("\"-0.0\"", json(-0.0f));
    assertEquals("\"1.4E-45\"", json(Float.MIN_VALUE));
    assertEquals("\"3.4028235E38\"", json(Float.MAX_VALUE));
  }

  @Test
  @EnabledOnJre(JRE.JAVA_17)
  void rendersFloatsWithJava17DigitsNotShortestDigits() {
    // The corpus README's example: JDK 19+ prints 1.1884683E13 for the same float.
    assertEquals("\"1.18846831E13\"", json(Float.intBitsToFloat(1429008869)));
  }

  @Test
  void rendersDoublesAsQuotedDoubleToString() {
    assertEquals("\"4.9E-324\"", json(Double.MIN_VALUE));
    assertEquals("\"-Infinity\"", json(Double.NEGATIVE_INFINITY));
    assertEquals("\"NaN\"", json(Double.NaN));
    assertEquals("\"1.0E10\"", json(1e10));
  }

  @Test
  void rendersDecimalsAsQuotedBigDecimalToString() {
    assertEquals("\"3.14159265358979323846\"", json(new BigDecimal("3.14159265358979323846")));
    assertEquals("\"1E+10\"", json(new BigDecimal("1E+10")));
    assertEquals("\"0.00\"", json(new BigDecimal("0.00")));
    assertEquals("\"-1E+2147483647\"", json(new BigDecimal(BigInteger.ONE.negate(), -2147483647)));
  }

  @Test
  void rendersUuidsInLowercase() {
    assertEquals(
        "\"550e8400-e29b-41d4-a716-446655440000\"",
        json(UUID.fromString("550E8400-E29B-41D4-A716-446655440000")));
  }

  @Test
  void rendersInetWithGetHostAddress() throws UnknownHostException {
    assertEquals("\"192.0.2.10\"", json(inet(192, 0, 2, 10)));
    assertEquals("\"0:0:0:0:0:0:0:1\"", json(inet(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1)));
    assertEquals(
        "\"2001:db8:85a3:0:0:8a2e:370:7334\"",
        json(InetAddress.getByName("2001:db8:85a3::8a2e:370:7334")));
  }

  @Test
  void rendersIpv4MappedIpv6AsIpv4() throws UnknownHostException {
    InetAddress mapped = inet(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1);
    assertEquals("\"192.0.2.1\"", json(mapped));
  }

  @Test
  void rendersDatesWithLocalDateToString() {
    assertEquals("\"2024-02-29\"", json(LocalDate.of(2024, 2, 29)));
    assertEquals("\"+5881580-07-11\"", json(LocalDate.ofEpochDay(Integer.MAX_VALUE)));
    assertEquals("\"-5877641-06-23\"", json(LocalDate.ofEpochDay(Integer.MIN_VALUE)));
  }

  @Test
  void rendersTimesWithLocalTimeToString() {
    assertEquals("\"13:45:30.123456789\"", json(LocalTime.of(13, 45, 30, 123_456_789)));
    assertEquals("\"12:00\"", json(LocalTime.NOON));
    assertEquals("\"00:00:00.000000001\"", json(LocalTime.ofNanoOfDay(1)));
  }

  @Test
  void rendersTimestampsWithInstantToString() {
    assertEquals("\"2024-02-29T12:34:56.789Z\"", json(Instant.parse("2024-02-29T12:34:56.789Z")));
    assertEquals("\"+292278994-08-17T07:12:55.807Z\"", json(Instant.ofEpochMilli(Long.MAX_VALUE)));
    assertEquals("\"1970-01-01T00:00:00Z\"", json(Instant.EPOCH));
  }

  @Test
  void rendersDurationsWithDriverToString() {
    long nanos = ((((5L * 60 + 6) * 60 + 7) * 1000 + 8) * 1000 + 9) * 1000 + 10;
    assertEquals("\"1y2mo25d5h6m7s8ms9us10ns\"", json(new CqlDuration(14, 25, nanos)));
    assertEquals("\"-1d1s\"", json(new CqlDuration(0, -1, -1_000_000_000L)));
    assertEquals("\"\"", json(new CqlDuration(0, 0, 0)));
  }

  @Test
  void writesNonAsciiAndEmojiRaw() {
    assertEquals("\"Grüße 😀 — 你好 𝄞\"", json("Grüße 😀 — 你好 𝄞"));
  }

  @Test
  void escapesQuotesBackslashesAndControlCharacters() {
    assertEquals(
        "\"tab\\there\\nnewline\\r\\nNUL\\u0000end \\\\ \\\"quoted\\\" 'single'\"",
        json("tab\there\nnewline\r\nNUL\u0000end \\ \"quoted\" 'single'"));
    assertEquals("\"\\b\\f\\u000b\\u001b/\"", json("\b\f\u000b\u001b/"));
  }

  @Test
  void escapesDelInLowercaseHexAsTheCorpusDoes() {
    // scalars id 41, c_ascii, exactly as in the corpus's results.jsonl.
    assertEquals(
        "\"\\u0001\\u001f\\u007f ascii control\"", json("\u0001\u001f\u007f ascii control"));
  }

  @Test
  @SuppressWarnings("UnnecessaryStringBuilder") // a CharSequence that is not a String
  void appendStringAcceptsAnyCharSequence() {
    StringBuilder out = new StringBuilder("x=");
    CanonicalJson.appendString(out, new StringBuilder("a\"b"));
    assertEquals("x=\"a\\\"b\"", out.toString());
  }

  @Test
  void rendersEveryControlCharacterAsValidJson() throws Exception {
    StringBuilder all = new StringBuilder();
    for (char c = 0; c < 0x80; c++) {
      all.append(c);
    }
    String rendered = json(all.toString());
    assertEquals(all.toString(), MAPPER.readTree(rendered).asText());
    for (int i = 0; i < rendered.length(); i++) {
      char c = rendered.charAt(i);
      assertTrue(c >= 0x20 && c != 0x7f, "raw control character " + (int) c);
    }
  }

  @Test
  void rendersBlobRemainingBytesWithoutMovingThePosition() {
    byte[] bytes = {0x00, (byte) 0xca, (byte) 0xfe, (byte) 0xba, (byte) 0xbe, 0x7f};
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    buffer.position(1).limit(5);
    assertEquals("\"0xcafebabe\"", json(buffer));
    assertEquals(1, buffer.position());
    assertEquals(5, buffer.limit());
    assertEquals("\"0x\"", json(ByteBuffer.allocate(0)));
  }

  @Test
  void rendersByteArraysAsHex() {
    assertEquals("\"0x000fa0ff\"", json(new byte[] {0x00, 0x0f, (byte) 0xa0, (byte) 0xff}));
    assertEquals("\"0x\"", json(new byte[0]));
  }

  @Test
  void rendersListsAndSetsAsArraysInIterationOrder() {
    assertEquals("[3,1,2]", json(List.of(3, 1, 2)));
    assertEquals("[\"b\",\"a\"]", json(new LinkedHashSet<>(List.of("b", "a"))));
    assertEquals("[]", json(List.of()));
    assertEquals("[null,[\"1\"],[]]", json(Arrays.asList(null, List.of(1L), List.of())));
  }

  @Test
  void rendersMapsAsArraysOfPairsInIterationOrder() {
    Map<Object, Object> map = new LinkedHashMap<>();
    map.put("x", 1);
    map.put("y", -1);
    assertEquals("[[\"x\",1],[\"y\",-1]]", json(map));

    Map<Object, Object> nested = new LinkedHashMap<>();
    nested.put(List.of(1, 2), null);
    nested.put(UUID.fromString("00000000-0000-0000-0000-000000000001"), Map.of());
    assertEquals("[[[1,2],null],[\"00000000-0000-0000-0000-000000000001\",[]]]", json(nested));
    assertEquals("[]", json(Map.of()));
  }

  @Test
  void rendersUdtsAsObjectsInFieldOrder() {
    UdtValue value = new UdtValue(ADDRESS, new Object[] {42, "spaced", null});
    assertEquals("{\"Mixed Case\":42,\"with space\":\"spaced\",\"zip\":null}", json(value));
  }

  @Test
  void escapesUdtFieldNames() {
    UdtType odd =
        new UdtType("ks", "odd", List.of(new UdtType.Field("a\"b\\c", NativeType.INT)), false);
    assertEquals("{\"a\\\"b\\\\c\":1}", json(new UdtValue(odd, new Object[] {1})));
  }

  @Test
  void rendersTuplesAsArraysWithNulls() {
    assertEquals(
        "[1,\"a\",\"1.5\"]", json(new TupleValue(INT_TEXT_FLOAT, new Object[] {1, "a", 1.5f})));
    assertEquals(
        "[null,\"a\",null]", json(new TupleValue(INT_TEXT_FLOAT, new Object[] {null, "a", null})));
  }

  @Test
  void rendersPrimitiveArraysLikeTheirBoxedElements() {
    assertEquals("[\"1.5\",\"-2.25\",\"3.0\"]", json(new float[] {1.5f, -2.25f, 3.0f}));
    assertEquals("[\"4.9E-324\",\"-0.0\"]", json(new double[] {Double.MIN_VALUE, -0.0}));
    assertEquals("[1,-2,2147483647]", json(new int[] {1, -2, Integer.MAX_VALUE}));
    assertEquals("[\"9223372036854775807\",\"0\"]", json(new long[] {Long.MAX_VALUE, 0}));
    assertEquals("[]", json(new float[0]));
  }

  @Test
  void rendersNotSetAsAMarkerObject() {
    assertEquals("{\"not_set\":true}", json(NotSet.INSTANCE));
    assertEquals("[null,{\"not_set\":true},1]", json(Arrays.asList(null, NotSet.INSTANCE, 1)));
  }

  @Test
  void rendersUnknownClassesAsQuotedToString() {
    record Point(int x, String y) {}

    assertEquals("\"Point[x=1, y=\\\"q\\\"]\"", json(new Point(1, "\"q\"")));
  }

  @Test
  void appendsWithoutResettingTheBuilder() {
    StringBuilder out = new StringBuilder("[1,");
    CanonicalJson.appendValue(out, 2L);
    assertEquals("[1,\"2\"", out.toString());
  }

  @Test
  void rendersNestedValuesAsValidJson() throws Exception {
    Map<Object, Object> map = new LinkedHashMap<>();
    map.put("k\n", new UdtValue(ADDRESS, new Object[] {7, "😀", NotSet.INSTANCE}));
    String rendered =
        json(List.of(map, new TupleValue(INT_TEXT_FLOAT, new Object[] {1, null, Float.NaN})));
    JsonNode tree = MAPPER.readTree(rendered);
    assertEquals("k\n", tree.get(0).get(0).get(0).asText());
    assertEquals("😀", tree.get(0).get(0).get(1).get("with space").asText());
    assertEquals("NaN", tree.get(1).get(2).asText());
  }

  @Test
  void rejectsNullCharSequence() {
    assertThrows(
        NullPointerException.class, () -> CanonicalJson.appendString(new StringBuilder(), null));
  }

  @Test
  void rendersEmptyCollectionsAsEmptyArrays() {
    assertEquals("[]", empty(new ListType(NativeType.INT, false)));
    assertEquals("[]", empty(new SetType(NativeType.TEXT, true)));
    assertEquals("[]", empty(new MapType(NativeType.TEXT, NativeType.INT, false)));
  }

  @Test
  void rendersEmptyUdtAsAllNullObject() {
    assertEquals("{\"Mixed Case\":null,\"with space\":null,\"zip\":null}", empty(ADDRESS));
  }

  @Test
  void rendersEmptyTupleAsArrayOfNulls() {
    assertEquals("[null,null,null]", empty(INT_TEXT_FLOAT));
    assertEquals("[null]", empty(new TupleType(List.of(NativeType.INT))));
  }

  @Test
  void rendersEmptyRawBytesAsEmptyHex() {
    assertEquals("\"0x\"", empty(NativeType.BLOB));
    assertEquals("\"0x\"", empty(new CustomType("org.example.Opaque")));
  }

  @Test
  void rendersEmptyVectorAsNull() {
    assertEquals("null", empty(new VectorType(NativeType.FLOAT, 3)));
  }

  @ParameterizedTest
  @EnumSource(NativeType.class)
  void rendersEmptyNativeValuesAsTheDriverDecodesThem(NativeType type) {
    String expected =
        switch (type) {
          case ASCII, TEXT -> "\"\"";
          case BLOB -> "\"0x\"";
          default -> "null";
        };
    assertEquals(expected, empty(type));
  }

  private static String numbers(Object value) {
    StringBuilder sb = new StringBuilder();
    CanonicalJson.appendValueWithNumbers(sb, value);
    return sb.toString();
  }

  @Test
  void withNumbersIntegersUpTo2To53AreJsonNumbersAndLargerOnesStayStrings() throws Exception {
    long exact = 1L << 53;
    assertEquals("9007199254740992", numbers(exact));
    assertEquals("-9007199254740992", numbers(-exact));
    assertEquals("\"9007199254740993\"", numbers(exact + 1));
    assertEquals("\"-9223372036854775808\"", numbers(Long.MIN_VALUE));
    assertEquals("42", numbers(BigInteger.valueOf(42)));
    assertEquals("\"9007199254740993\"", numbers(BigInteger.valueOf(exact + 1)));
    assertEquals(
        "\"123456789012345678901234567890\"",
        numbers(new BigInteger("123456789012345678901234567890")));
    assertEquals("\"1.50\"", numbers(new BigDecimal("1.50")), "decimal stays a string");
    JsonNode n = MAPPER.readTree(numbers(exact));
    assertTrue(n.isIntegralNumber());
    assertEquals(exact, n.longValue());
  }

  @Test
  void withNumbersFiniteFloatingPointValuesReadBackExactly() throws Exception {
    double[] doubles = {0.1, -0.0, 1e300, Double.MIN_VALUE, Double.MAX_VALUE, 123456.789, 1e-7};
    for (double d : doubles) {
      JsonNode n = MAPPER.readTree(numbers(d));
      assertTrue(n.isNumber(), numbers(d));
      assertEquals(Double.doubleToLongBits(d), Double.doubleToLongBits(n.doubleValue()), "" + d);
    }
    float[] floats = {
      0.1f, -0.0f, Float.MIN_VALUE, Float.MAX_VALUE, 3.4028235e38f, 1.17549435e-38f
    };
    for (float f : floats) {
      String text = numbers(f);
      assertEquals(
          Double.doubleToLongBits(f),
          Double.doubleToLongBits(Double.parseDouble(text)),
          "read as a double, exactly the float's value: " + text);
    }
    assertEquals("\"NaN\"", numbers(Double.NaN));
    assertEquals("\"Infinity\"", numbers(Double.POSITIVE_INFINITY));
    assertEquals("\"-Infinity\"", numbers(Float.NEGATIVE_INFINITY));
  }

  @Test
  void withNumbersAppliesAtEveryNestingLevel() throws Exception {
    Map<Object, Object> map = new LinkedHashMap<>();
    map.put(7L, List.of(1.5, Double.NaN));
    assertEquals("[[7,[1.5,\"NaN\"]]]", numbers(map));
    assertEquals("[1,\"9223372036854775807\"]", numbers(new long[] {1, Long.MAX_VALUE}));
    assertEquals("[0.5,\"Infinity\"]", numbers(new float[] {0.5f, Float.POSITIVE_INFINITY}));
    assertEquals("[2.0]", numbers(new double[] {2.0}));
    assertEquals(
        "[7,\"a\",0.25]", numbers(new TupleValue(INT_TEXT_FLOAT, new Object[] {7, "a", 0.25f})));
    assertEquals(
        "{\"Mixed Case\":1,\"with space\":\"x\",\"zip\":null}",
        numbers(new UdtValue(ADDRESS, new Object[] {1, "x", null})));
    assertEquals("[\"7\"]", json(List.of(7L)), "appendValue keeps its strings");
  }
}
