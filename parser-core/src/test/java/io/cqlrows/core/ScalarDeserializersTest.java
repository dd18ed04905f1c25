package io.cqlrows.core;

import static io.cqlrows.core.Decoding.assertError;
import static io.cqlrows.core.RowsBodies.list;
import static io.cqlrows.core.RowsBodies.opt;
import static io.cqlrows.core.RowsBodies.single;
import static io.cqlrows.core.RowsBodies.singleOption;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.core.CqlParseException.Reason;
import io.cqlrows.core.sink.Row;
import io.cqlrows.core.sink.RowsCollector;
import io.cqlrows.core.type.NativeType;
import io.cqlrows.core.value.CqlDuration;
import io.cqlrows.testing.RecordingSink;
import io.netty.buffer.ByteBufUtil;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Native types: the encodings of native_protocol_v5.spec section 5, with test values from the
 * Python driver's test_marshalling.py and the Java driver's codec tests.
 */
class ScalarDeserializersTest {

  private static Arguments v(NativeType type, String hex, String event, Object value) {
    return Arguments.of(type, hex, event, value);
  }

  private static Arguments obj(NativeType type, String hex, Object value) {
    return v(type, hex, "0:object " + value, value);
  }

  private static InetAddress inet(String literal) {
    try {
      return InetAddress.getByName(literal);
    } catch (UnknownHostException e) {
      throw new AssertionError(e);
    }
  }

  /** The drivers' test values: (type, cell hex, sink event, Java object). */
  static Stream<Arguments> specVectors() {
    return Stream.of(
        v(NativeType.BOOLEAN, "01", "0:boolean true", true),
        v(NativeType.BOOLEAN, "00", "0:boolean false", false),
        v(NativeType.BOOLEAN, "02", "0:boolean true", true),
        v(NativeType.BIGINT, "7fffffffffffffff", "0:bigint 9223372036854775807", Long.MAX_VALUE),
        v(NativeType.BIGINT, "8000000000000000", "0:bigint -9223372036854775808", Long.MIN_VALUE),
        v(NativeType.COUNTER, "7fffffffffffffff", "0:bigint 9223372036854775807", Long.MAX_VALUE),
        v(NativeType.COUNTER, "8000000000000000", "0:bigint -9223372036854775808", Long.MIN_VALUE),
        v(
            NativeType.TIMESTAMP,
            "000001337f62ee79",
            "0:timestamp 1320692149881",
            Instant.parse("2011-11-07T18:55:49.881Z")),
        v(
            NativeType.TIMESTAMP,
            "00000150c57e4c00",
            "0:timestamp 1446422400000",
            Instant.parse("2015-11-02T00:00:00Z")),
        v(
            NativeType.TIMESTAMP,
            "ffffffffffffffff",
            "0:timestamp -1",
            Instant.parse("1969-12-31T23:59:59.999Z")),
        obj(
            NativeType.DECIMAL,
            "0000000d0a4a04225e91048ab118fe",
            new BigDecimal("1243878957943.1234124191998")),
        obj(NativeType.DECIMAL, "00000006e5de5d9859", new BigDecimal("-112233.441191")),
        obj(NativeType.DECIMAL, "0000001400face", new BigDecimal(BigInteger.valueOf(64206), 20)),
        obj(NativeType.DECIMAL, "00000014ff0532", new BigDecimal(BigInteger.valueOf(-64206), 20)),
        obj(NativeType.DECIMAL, "0000000001", BigDecimal.ONE),
        obj(NativeType.DECIMAL, "000000040080", new BigDecimal("0.0128")),
        v(NativeType.DOUBLE, "40d2fa0800000000", "0:double 19432.125", 19432.125d),
        v(NativeType.DOUBLE, "c0d2fa0800000000", "0:double -19432.125", -19432.125d),
        v(
            NativeType.DOUBLE,
            "7fef000000000000",
            "0:double 1.7415152243978685E308",
            1.7415152243978685e+308),
        v(NativeType.FLOAT, "4697d040", "0:float 19432.125", 19432.125f),
        v(NativeType.FLOAT, "c697d040", "0:float -19432.125", -19432.125f),
        v(
            NativeType.FLOAT,
            "7f7f0000",
            "0:float " + Float.intBitsToFloat(0x7f7f0000),
            Float.intBitsToFloat(0x7f7f0000)),
        v(NativeType.INT, "7f500000", "0:int 2135949312", 2135949312),
        v(NativeType.INT, "fffdcb91", "0:int -144495", -144495),
        obj(
            NativeType.VARINT,
            "661efdf2e3b19f7c045f15",
            new BigInteger("123456789123456789123456789")),
        obj(NativeType.VARINT, "00", BigInteger.ZERO),
        obj(NativeType.INET, "413436a9", inet("65.52.54.169")),
        obj(NativeType.INET, "2a001328e102ccc00000000000000122", inet("2a00:1328:e102:ccc0::122")),
        obj(NativeType.INET, "7f000001", inet("127.0.0.1")),
        obj(NativeType.INET, "00000000000000000000000000000001", inet("::1")),
        v(
            NativeType.TEXT,
            "e381bee38197e381a6",
            "0:string \u307e\u3057\u3066",
            "\u307e\u3057\u3066"),
        v(NativeType.ASCII, "616263", "0:string abc", "abc"),
        v(NativeType.BLOB, "cafe", "0:blob cafe", ByteBuffer.wrap(new byte[] {(byte) 0xca, -2})),
        v(
            NativeType.UUID,
            "49157efcef3c9de31698af801fb40b2a",
            "0:uuid 49157efc-ef3c-9de3-1698-af801fb40b2a",
            UUID.fromString("49157efc-ef3c-9de3-1698-af801fb40b2a")),
        v(
            NativeType.TIMEUUID,
            "af5943a3ea3c11e1ab63c42c032279f0",
            "0:uuid af5943a3-ea3c-11e1-ab63-c42c032279f0",
            UUID.fromString("af5943a3-ea3c-11e1-ab63-c42c032279f0")),
        v(NativeType.DATE, "80000001", "0:date 1", LocalDate.of(1970, 1, 2)),
        v(NativeType.DATE, "7fffffff", "0:date -1", LocalDate.of(1969, 12, 31)),
        v(NativeType.TIME, "0000000000000001", "0:time 1", LocalTime.ofNanoOfDay(1)),
        v(NativeType.TIME, "0000000000000000", "0:time 0", LocalTime.MIDNIGHT),
        v(NativeType.TIME, "00004e94914effff", "0:time 86399999999999", LocalTime.MAX),
        v(NativeType.TINYINT, "7f", "0:tinyint 127", (byte) 127),
        v(NativeType.TINYINT, "80", "0:tinyint -128", (byte) -128),
        v(NativeType.SMALLINT, "7fff", "0:smallint 32767", (short) 32767),
        v(NativeType.SMALLINT, "8000", "0:smallint -32768", (short) -32768),
        v(NativeType.SMALLINT, "0000", "0:smallint 0", (short) 0),
        obj(NativeType.DURATION, "020406", new CqlDuration(1, 2, 3)));
  }

  @ParameterizedTest
  @MethodSource("specVectors")
  void deliversSpecVectorAsTypedEvent(NativeType type, String hex, String event, Object value) {
    assertEquals(event, Decoding.cellEvent(single(type.optionId(), hex)));
  }

  @ParameterizedTest
  @MethodSource("specVectors")
  void boxesSpecVectorInRowsCollector(NativeType type, String hex, String event, Object value) {
    assertEquals(value, Decoding.value(single(type.optionId(), hex)));
  }

  @ParameterizedTest
  @MethodSource("specVectors")
  void decodesSpecVectorAsListElement(NativeType type, String hex, String event, Object value) {
    String cell = "00000001" + String.format("%08x", hex.length() / 2) + hex;
    assertEquals(List.of(value), Decoding.value(singleOption(list(opt(type.optionId())), cell)));
  }

  @Test
  void decodesLegacyTextIdAsText() {
    assertEquals("0:string ab", Decoding.cellEvent(single(0x000A, "6162")));
  }

  @ParameterizedTest
  @CsvSource({
    "00000000, -2147483648, -5877641-06-23",
    "80000000, 0, 1970-01-01",
    "ffffffff, 2147483647, +5881580-07-11",
  })
  void decodesDateExtremesAsEpochDays(String hex, int epochDays, String iso) {
    assertEquals("0:date " + epochDays, Decoding.cellEvent(single(0x0011, hex)));
    assertEquals(LocalDate.parse(iso), Decoding.value(single(0x0011, hex)));
  }

  /** The varint table of native_protocol_v5.spec section 5.24, and more values derived from it. */
  @ParameterizedTest
  @CsvSource({
    "00, 0",
    "01, 1",
    "7f, 127",
    "0080, 128",
    "0081, 129",
    "ff, -1",
    "80, -128",
    "ff7f, -129",
    "00ff, 255",
    "0100, 256",
    "ff00, -256",
    "008000, 32768",
    "008000000000000000, 9223372036854775808",
    "8000000000000000, -9223372036854775808",
    "0000ff, 255",
  })
  void decodesVarintTable(String hex, String value) {
    assertEquals(new BigInteger(value), Decoding.value(single(0x000E, hex)));
  }

  @Test
  void decodesDecimalWithNegativeScale() {
    BigDecimal d = (BigDecimal) Decoding.value(single(0x0006, "ffffff9c00face"));
    assertEquals(-100, d.scale());
    assertEquals(BigInteger.valueOf(64206), d.unscaledValue());
    assertEquals(0, new BigDecimal("64206E+100").compareTo(d));
  }

  /** Durations, encoded by the rules of section 5.8: (months, days, nanoseconds). */
  @ParameterizedTest
  @CsvSource({
    "000000, 0, 0, 0",
    "010305, -1, -2, -3",
    "180000, 12, 0, 0",
    "0000f077359400, 0, 0, 1000000000",
    "000001, 0, 0, -1",
    "f0fffffffef0fffffffefffffffffffffffffe, 2147483647, 2147483647, 9223372036854775807",
    "f0fffffffff0ffffffffffffffffffffffffff, -2147483648, -2147483648, -9223372036854775808",
  })
  void decodesDurationVectors(String hex, int months, int days, long nanos) {
    CqlDuration expected = new CqlDuration(months, days, nanos);
    assertEquals(expected, Decoding.value(single(0x0015, hex)));
    assertEquals("0:object " + expected, Decoding.cellEvent(single(0x0015, hex)));
  }

  @Test
  void rejectsDurationWithTrailingBytes() {
    // three components, then one byte too many
    CqlParseException e = Decoding.error(single(0x0015, "02040600"));
    assertError(e, Reason.TRAILING_BYTES, "value", bodySize(0x0015, "02040600") - 1, 0, 0);
    assertSame(NativeType.DURATION, e.type());
  }

  @Test
  void rejectsDurationWithMixedSigns() {
    // months 1, days -1, nanoseconds 0: Cassandra never stores such a duration
    CqlParseException e = Decoding.error(single(0x0015, "020100"));
    assertEquals(Reason.INVALID_VALUE, e.reason());
    assertSame(NativeType.DURATION, e.type());
  }

  @Test
  void rejectsDurationWithMissingComponent() {
    CqlParseException e = Decoding.error(single(0x0015, "0204"));
    assertError(e, Reason.TRUNCATED, "vint", bodySize(0x0015, "0204"), 0, 0);
  }

  @Test
  void rejectsDurationWithTruncatedVint() {
    // nanoseconds start with a 9-byte vint marker but only 2 bytes follow
    String hex = "0204ff0102";
    CqlParseException e = Decoding.error(single(0x0015, hex));
    assertError(e, Reason.TRUNCATED, "vint", bodySize(0x0015, hex) - 3, 0, 0);
  }

  @Test
  void rejectsDurationMonthsBeyondInt() {
    // months = 2^31: zig-zag 2^32, a 5-byte vint
    CqlParseException e = Decoding.error(single(0x0015, "f1000000000000"));
    assertError(e, Reason.INVALID_VALUE, "value", bodySize(0x0015, "f1000000000000") - 7, 0, 0);
  }

  /** A zero-length cell: onEmpty, except for the types whose empty value is a normal value. */
  @ParameterizedTest
  @EnumSource(NativeType.class)
  void deliversEmptyCellPerEmptyPolicy(NativeType type) {
    String event = Decoding.cellEvent(single(type.optionId(), ""));
    switch (type) {
      case TEXT:
      case ASCII:
        assertEquals("0:string ", event);
        break;
      case BLOB:
        assertEquals("0:blob ", event);
        break;
      default:
        assertEquals("0:empty", event);
    }
  }

  @ParameterizedTest
  @EnumSource(NativeType.class)
  void recordsEmptyStateInRowsCollector(NativeType type) {
    Row row = Decoding.row(single(type.optionId(), ""));
    boolean valueType =
        type == NativeType.TEXT || type == NativeType.ASCII || type == NativeType.BLOB;
    assertEquals(!valueType, row.isEmpty(0));
    assertEquals(false, row.isNull(0));
    if (type == NativeType.BLOB) {
      assertEquals(ByteBuffer.allocate(0), row.getObject(0));
    } else if (valueType) {
      assertEquals("", row.getObject(0));
    } else {
      assertEquals(null, row.getObject(0));
    }
  }

  @ParameterizedTest
  @EnumSource(NativeType.class)
  void decodesEmptyListElementPerEmptyPolicy(NativeType type) {
    Object expected;
    switch (type) {
      case TEXT:
      case ASCII:
        expected = "";
        break;
      case BLOB:
        expected = ByteBuffer.allocate(0);
        break;
      default:
        expected = null;
    }
    Object value = Decoding.value(singleOption(list(opt(type.optionId())), "00000001 00000000"));
    assertEquals(Arrays.asList(expected), value);
  }

  @Test
  void decodesNullForLengthMinusOne() {
    assertEquals("0:null", Decoding.cellEvent(single(0x0009, null)));
    assertTrue(Decoding.row(single(0x0009, null)).isNull(0));
  }

  /** Fixed-width types need exactly their width, or none (an empty value; section 5). */
  @ParameterizedTest
  @CsvSource({
    "INT, 000000",
    "INT, 0000000000",
    "SMALLINT, 00",
    "SMALLINT, 000000",
    "TINYINT, 0000",
    "BOOLEAN, 0000",
    "BIGINT, 00000000000000",
    "COUNTER, 000000000000000000",
    "FLOAT, 000000",
    "DOUBLE, 000000000000000000",
    "TIMESTAMP, 00000000",
    "DATE, 000000",
    "TIME, 0000000000",
    "UUID, 000000000000000000000000000000",
    "TIMEUUID, 0000000000000000000000000000000000",
    "INET, 0000000000",
    "INET, 00000000000000000000000000000000ff",
    "DECIMAL, 00000000",
  })
  void rejectsWrongLengthForType(NativeType type, String hex) {
    CqlParseException e = Decoding.error(single(type.optionId(), hex));
    int offset = bodySize(type.optionId(), hex) - hex.length() / 2;
    assertError(e, Reason.LENGTH_MISMATCH, "value", offset, 0, 0);
    assertSame(type, e.type());
  }

  @Test
  void rejectsWrongLengthListElement() {
    String cell = "00000002 00000004 00000001 00000003 000002";
    CqlParseException e = Decoding.error(singleOption(list(opt(0x0009)), cell));
    int size = RowsBodies.rows().column("v", list(opt(0x0009))).row(cell).bytes().size();
    assertError(e, Reason.LENGTH_MISMATCH, "value", size - 3, 0, 0);
  }

  @ParameterizedTest
  @CsvSource({"00004e94914f0000", "ffffffffffffffff", "7fffffffffffffff"})
  void rejectsTimeOutOfRange(String hex) {
    CqlParseException e = Decoding.error(single(0x0012, hex));
    assertError(e, Reason.INVALID_VALUE, "value", bodySize(0x0012, hex) - 8, 0, 0);
    assertSame(NativeType.TIME, e.type());
  }

  @Test
  void rejectsTimeOutOfRangeAsListElement() {
    CqlParseException e =
        Decoding.error(singleOption(list(opt(0x0012)), "00000001 00000008 00004e94914f0000"));
    assertEquals(Reason.INVALID_VALUE, e.reason());
  }

  /** Documented: malformed UTF-8, and non-ASCII bytes in ascii, are INVALID_VALUE at the byte. */
  @ParameterizedTest
  @CsvSource({"13, 61ff62, 1", "13, 61c3, 1", "13, e6bca2e6bc, 3", "1, 80, 0", "1, 616263e9, 3"})
  void rejectsInvalidUtf8AndNonAsciiBytes(int optionId, String hex, int badByte) {
    CqlParseException e = Decoding.error(single(optionId, hex));
    assertError(
        e,
        Reason.INVALID_VALUE,
        "value",
        bodySize(optionId, hex) - hex.length() / 2 + badByte,
        0,
        0);
    assertSame(NativeType.fromOptionId(optionId), e.type());
  }

  /** With ParseLimits.replaceMalformedText: decoded with U+FFFD as the JDK replaces, no error. */
  @Test
  void decodesInvalidUtf8WithReplacementCharacterWhenLenient() {
    ResultReader lenient =
        new ResultReader(4, ParseLimits.builder().replaceMalformedText(true).build());
    RecordingSink events = new RecordingSink();
    Decoding.read(lenient, single(0x000D, "61ff62"), events, null);
    assertTrue(events.events().contains("0:string a\uFFFDb"), events.events()::toString);
    for (String[] c :
        new String[][] {
          {"0001", "61c3", "a\uFFFD"},
          {"000d", "61c3", "a\uFFFD"},
          {"0001", "80", "\uFFFD"},
          {"0001", "c3a9", "\uFFFD\uFFFD"}
        }) {
      RowsCollector rows = new RowsCollector();
      Decoding.read(lenient, single(Integer.parseInt(c[0], 16), c[1]), rows, null);
      assertEquals(c[2], rows.rows().get(0).getObject(0), c[0] + " " + c[1]);
    }
  }

  @Test
  void deliversBlobAsBorrowedViewOfCellBytes() {
    byte[] bytes = new byte[300];
    for (int i = 0; i < bytes.length; i++) {
      bytes[i] = (byte) i;
    }
    String hex = ByteBufUtil.hexDump(bytes);
    assertEquals("0:blob " + hex, Decoding.cellEvent(single(0x0003, hex)));
    assertEquals(ByteBuffer.wrap(bytes), Decoding.value(single(0x0003, hex)));
  }

  private static int bodySize(int optionId, String cellHex) {
    return RowsBodies.rows().column("v", optionId).row(cellHex).bytes().size();
  }
}
