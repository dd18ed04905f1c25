package io.cqlrows.core;

import static io.cqlrows.core.Decoding.assertError;
import static io.cqlrows.core.RowsBodies.MARSHAL;
import static io.cqlrows.core.RowsBodies.vectorClass;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.cqlrows.core.CqlParseException.Reason;
import io.cqlrows.core.type.NativeType;
import io.cqlrows.core.type.VectorType;
import io.cqlrows.core.value.CqlDuration;
import io.cqlrows.testing.CqlBytes;
import io.cqlrows.testing.RecordingSink;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code vector<T, N>} as Cassandra writes it (docs/protocol.md, "Vectors"), with the Java driver's
 * VectorCodecTest values among the cases.
 */
class VectorDeserializersTest {
  private static final String FROZEN_LIST_INT =
      MARSHAL + "FrozenType(" + MARSHAL + "ListType(" + MARSHAL + "Int32Type))";
  private static final String FROZEN_MAP_INT_ASCII =
      MARSHAL
          + "FrozenType("
          + MARSHAL
          + "MapType("
          + MARSHAL
          + "Int32Type,"
          + MARSHAL
          + "AsciiType))";

  private static ByteBuf vectorCell(String elementClass, int dimension, String cellHex) {
    return RowsBodies.single(vectorClass(elementClass, dimension), cellHex);
  }

  private static int valueOffset(String elementClass, int dimension, String cellHex) {
    String className = vectorClass(elementClass, dimension);
    int size =
        RowsBodies.rows().column("v", RowsBodies.custom(className)).row(cellHex).bytes().size();
    return size - cellHex.replace(" ", "").length() / 2;
  }

  private static Object value(String elementClass, int dimension, String cellHex) {
    return Decoding.value(vectorCell(elementClass, dimension, cellHex));
  }

  private static String event(String elementClass, int dimension, String cellHex) {
    return Decoding.cellEvent(vectorCell(elementClass, dimension, cellHex));
  }

  private static CqlParseException error(String elementClass, int dimension, String cellHex) {
    return Decoding.error(vectorCell(elementClass, dimension, cellHex));
  }

  // ---- fast path: float, double, int, bigint ----

  @Test
  void deliversFloatVectorAsView() {
    assertEquals("0:floatvector [1.0, 2.5]", event("FloatType", 2, "3f800000 40200000"));
    assertEquals(
        "0:floatvector [1.0, 2.0, 3.0]", event("FloatType", 3, "3f800000 40000000 40400000"));
    assertArrayEquals(
        new float[] {1f, 2f, 3f}, (float[]) value("FloatType", 3, "3f800000 40000000 40400000"));
  }

  @Test
  void deliversDoubleIntAndBigintVectorsAsViews() {
    assertEquals(
        "0:doublevector [1.5, -2.0]", event("DoubleType", 2, "3ff8000000000000 c000000000000000"));
    assertEquals(
        "0:intvector [1, -1, 2147483647]", event("Int32Type", 3, "00000001 ffffffff 7fffffff"));
    assertEquals("0:longvector [1, 2]", event("LongType", 2, "0000000000000001 0000000000000002"));
    assertEquals("0:longvector [1, -2]", event("LongType", 2, "0000000000000001 fffffffffffffffe"));
    assertArrayEquals(
        new double[] {1.5, -2.0},
        (double[]) value("DoubleType", 2, "3ff8000000000000 c000000000000000"));
    assertArrayEquals(
        new int[] {1, -1, Integer.MAX_VALUE},
        (int[]) value("Int32Type", 3, "00000001 ffffffff 7fffffff"));
    assertArrayEquals(
        new long[] {1, -2}, (long[]) value("LongType", 2, "0000000000000001 fffffffffffffffe"));
  }

  @Test
  void rejectsFloatVectorOfWrongSize() {
    String cell = "3f800000 40000000";
    CqlParseException e = error("FloatType", 3, cell);
    assertError(e, Reason.LENGTH_MISMATCH, "value", valueOffset("FloatType", 3, cell), 0, 0);
    assertEquals(new VectorType(NativeType.FLOAT, 3), e.type());
    String longer = "3f800000 40000000 40400000 00";
    assertEquals(Reason.LENGTH_MISMATCH, error("FloatType", 3, longer).reason());
    assertEquals(Reason.LENGTH_MISMATCH, error("LongType", 1, "00000001").reason());
  }

  // ---- other fixed-width elements, at a stride ----

  @Test
  void decodesFixedWidthElementsAtStride() {
    assertEquals(List.of(true, false), value("BooleanType", 2, "01 00"));
    assertEquals(List.of(true, false, true), value("BooleanType", 3, "01 00 01"));
    assertEquals(
        List.of(UUID.fromString("00112233-4455-6677-8899-aabbccddeeff")),
        value("UUIDType", 1, "00112233445566778899aabbccddeeff"));
    assertEquals(
        List.of(Instant.ofEpochMilli(1), Instant.ofEpochMilli(-1)),
        value("TimestampType", 2, "0000000000000001 ffffffffffffffff"));
    assertEquals("0:object [true, false]", event("BooleanType", 2, "01 00"));
  }

  @Test
  void rejectsStrideVectorOfWrongSize() {
    String cell = "01 00 01 00";
    assertError(
        error("BooleanType", 3, cell),
        Reason.LENGTH_MISMATCH,
        "value",
        valueOffset("BooleanType", 3, cell),
        0,
        0);
  }

  // ---- variable-width elements, vint-prefixed ----

  @Test
  void decodesVariableWidthElementsAfterVintLengths() {
    assertEquals(List.of("ab", "cde"), value("AsciiType", 2, "02 6162 03 636465"));
    assertEquals(
        List.of(
            ByteBuffer.wrap(new byte[] {(byte) 0xca, (byte) 0xfe}),
            ByteBuffer.wrap(new byte[] {(byte) 0xab, (byte) 0xcd})),
        value("BytesType", 2, "02 cafe 02 abcd"));
    assertEquals(
        List.of(BigInteger.ZERO, BigInteger.valueOf(128), BigInteger.valueOf(-129)),
        value("IntegerType", 3, "01 00 02 0080 02 ff7f"));
    assertEquals(List.of("ab", ""), value("UTF8Type", 2, "02 6162 00"));
    assertEquals(List.of(new CqlDuration(1, 2, 3)), value("DurationType", 1, "03 020406"));
    assertEquals(List.of(new BigDecimal("1.5")), value("DecimalType", 1, "05 00000001 0f"));
    assertEquals(
        List.of(InetAddress.getLoopbackAddress(), inet("::1")),
        value("InetAddressType", 2, "04 7f000001 10 00000000000000000000000000000001"));
    assertEquals("0:object [ab, ]", event("UTF8Type", 2, "02 6162 00"));
  }

  private static InetAddress inet(String literal) {
    try {
      return InetAddress.getByName(literal);
    } catch (java.net.UnknownHostException e) {
      throw new AssertionError(e);
    }
  }

  /** Fixed-size CQL values that Cassandra still length-prefixes inside vectors. */
  @Test
  void decodesSmallintTinyintDateTimeCounterAsVintPrefixed() {
    assertEquals(
        List.of((short) 10, (short) 20, (short) 30),
        value("ShortType", 3, "02 000a 02 0014 02 001e"));
    assertEquals(
        List.of((byte) 1, (byte) -1, (byte) 127), value("ByteType", 3, "01 01 01 ff 01 7f"));
    assertEquals(
        List.of(LocalDate.EPOCH, LocalDate.of(1970, 1, 2)),
        value("SimpleDateType", 2, "04 80000000 04 80000001"));
    assertEquals(
        List.of(LocalTime.ofNanoOfDay(1), LocalTime.ofNanoOfDay(2)),
        value("TimeType", 2, "08 0000000000000001 08 0000000000000002"));
    assertEquals(
        List.of(LocalTime.MIDNIGHT, LocalTime.ofNanoOfDay(1)),
        value("TimeType", 2, "08 0000000000000000 08 0000000000000001"));
    assertEquals(
        List.of(1L, 2L), value("CounterColumnType", 2, "08 0000000000000001 08 0000000000000002"));
  }

  /** Read as vints, element 0 is empty and element 1 claims 10 bytes of the 4 left. */
  @Test
  void rejectsSmallintVectorWrittenAsRawShorts() {
    String cell = "000a 0014 001e";
    CqlParseException e = error("ShortType", 3, cell);
    assertError(e, Reason.TRUNCATED, "vector element", valueOffset("ShortType", 3, cell) + 2, 0, 0);
  }

  @Test
  void rejectsTrailingBytesInVintVector() {
    String cell = "02 6162 00 00";
    assertError(
        error("UTF8Type", 2, cell),
        Reason.TRAILING_BYTES,
        "value",
        valueOffset("UTF8Type", 2, cell) + 4,
        0,
        0);
  }

  @Test
  void rejectsTruncatedVint() {
    // c0 announces a 3-byte vint; the value has 2 bytes
    String cell = "c040";
    assertError(
        error("UTF8Type", 1, cell),
        Reason.TRUNCATED,
        "vint",
        valueOffset("UTF8Type", 1, cell),
        0,
        0);
  }

  @Test
  void rejectsVintVectorShorterThanItsDimension() {
    String cell = "00 00";
    assertError(
        error("UTF8Type", 3, cell),
        Reason.TRUNCATED,
        "value",
        valueOffset("UTF8Type", 3, cell),
        0,
        0);
  }

  @Test
  void rejectsBadElementInsideVintVector() {
    assertEquals(Reason.LENGTH_MISMATCH, error("ShortType", 1, "03 000000").reason());
    assertEquals(Reason.INVALID_VALUE, error("TimeType", 1, "08 00004e94914f0000").reason());
  }

  @Test
  void decodesTwoHundredByteTextElementWithTwoByteVint() {
    String a200 = "61".repeat(200);
    String cell = "80c8" + a200 + "01 62";
    assertEquals(List.of("a".repeat(200), "b"), value("UTF8Type", 2, cell));
    // the same with the DSL's vint encoder
    String dsl = CqlBytes.create().vint(200).hex(a200).vint(1).hex("62").toHex();
    assertEquals(cell.replace(" ", ""), dsl);
  }

  @Test
  void decodesVectorOfFrozenMaps() {
    String cell =
        "11 00000001 00000004 00000001 00000001 61" + " 11 00000001 00000004 00000002 00000001 62";
    assertEquals(List.of(Map.of(1, "a"), Map.of(2, "b")), value(FROZEN_MAP_INT_ASCII, 2, cell));
  }

  @Test
  void decodesVectorOfFrozenLists() {
    String cell = "14 00000002 00000004 00000001 00000004 00000002 0c 00000001 00000004 00000003";
    assertEquals(List.of(List.of(1, 2), List.of(3)), value(FROZEN_LIST_INT, 2, cell));
  }

  // ---- nested vectors ----

  @Test
  void decodesNestedFixedVectorsWithoutPrefixes() {
    List<?> ints = (List<?>) value(vectorClass("Int32Type", 1), 2, "00000001 00000002");
    assertEquals(2, ints.size());
    assertArrayEquals(new int[] {1}, (int[]) ints.get(0));
    assertArrayEquals(new int[] {2}, (int[]) ints.get(1));
    List<?> floats =
        (List<?>) value(vectorClass("FloatType", 2), 2, "3f800000 40200000 40400000 40900000");
    assertArrayEquals(new float[] {1f, 2.5f}, (float[]) floats.get(0));
    assertArrayEquals(new float[] {3f, 4.5f}, (float[]) floats.get(1));
    assertEquals(
        Reason.LENGTH_MISMATCH,
        error(vectorClass("Int32Type", 1), 2, "00000001 00000002 00000003").reason());
  }

  @Test
  void decodesNestedVariableVectorsWithPrefixes() {
    assertEquals(
        List.of(List.of("ab"), List.of("cdef")),
        value(vectorClass("UTF8Type", 1), 2, "03 02 6162 05 04 63646566"));
  }

  // ---- empty ----

  @Test
  void deliversEmptyVectorCellAsEmptyEvent() {
    for (String element : List.of("FloatType", "UTF8Type", "BooleanType", "ShortType")) {
      assertEquals("0:empty", event(element, 2, ""), element);
    }
    assertNull(value("FloatType", 2, ""));
  }

  @Test
  void viewFailsFastAfterTheSinkCall() {
    List<FloatVector> kept = new ArrayList<>();
    RecordingSink recording = new RecordingSink();
    RowSink sink =
        new ForwardingSink(recording) {
          @Override
          public void onFloatVector(int column, FloatVector value) {
            kept.add(value);
            assertThrows(IndexOutOfBoundsException.class, () -> value.get(2));
            assertThrows(IndexOutOfBoundsException.class, () -> value.copyTo(new float[2], 1));
          }
        };
    Decoding.read(new ResultReader(4), vectorCell("FloatType", 2, "3f800000 40200000"), sink, null);
    assertEquals(1, kept.size());
    assertThrows(RuntimeException.class, () -> kept.get(0).get(0));
  }

  // ---- differential: fast path versus a reference big-endian decode ----

  enum Element {
    FLOAT("FloatType", 4),
    DOUBLE("DoubleType", 8),
    INT("Int32Type", 4),
    BIGINT("LongType", 8);

    final String className;
    final int width;

    Element(String className, int width) {
      this.className = className;
      this.width = width;
    }
  }

  enum BufferKind {
    HEAP,
    HEAP_WITH_ARRAY_OFFSET,
    DIRECT,
    COMPOSITE
  }

  static Stream<Arguments> differentialCases() {
    List<Arguments> cases = new ArrayList<>();
    int[] dims = {1, 2, 3, 5, 8, 16, 100, 768, 1024, 2048};
    for (Element e : Element.values()) {
      for (int dim : dims) {
        for (BufferKind kind : BufferKind.values()) {
          cases.add(Arguments.of(e, dim, kind));
        }
      }
    }
    return cases.stream();
  }

  @ParameterizedTest
  @MethodSource("differentialCases")
  void fastPathMatchesReferenceDecode(Element element, int dim, BufferKind kind) {
    Random random = new Random(31L * dim + element.name().hashCode() * 7L + kind.name().hashCode());
    int rows = 3;
    byte[][] cells = new byte[rows][];
    RowsBodies.Builder b =
        RowsBodies.rows().column("v", RowsBodies.custom(vectorClass(element.className, dim)));
    for (int r = 0; r < rows; r++) {
      cells[r] = new byte[dim * element.width];
      random.nextBytes(cells[r]);
      b.row(ByteBufUtil.hexDump(cells[r]));
    }
    b.row((String) null);
    byte[] body = b.bytes().toArray();
    ByteBuf buf = buffer(kind, body, random);
    Capture capture = new Capture(dim);
    Decoding.read(new ResultReader(4), buf, capture, null);

    assertEquals(rows + 1, capture.rows.size());
    for (int r = 0; r < rows; r++) {
      ByteBuffer ref = ByteBuffer.wrap(cells[r]); // big-endian by default
      Object[] got = capture.rows.get(r);
      for (Object array : got) {
        switch (element) {
          case FLOAT:
            {
              float[] expected = new float[dim];
              ref.asFloatBuffer().get(expected);
              assertArrayEquals(expected, (float[]) array);
              break;
            }
          case DOUBLE:
            {
              double[] expected = new double[dim];
              ref.asDoubleBuffer().get(expected);
              assertArrayEquals(expected, (double[]) array);
              break;
            }
          case INT:
            {
              int[] expected = new int[dim];
              ref.asIntBuffer().get(expected);
              assertArrayEquals(expected, (int[]) array);
              break;
            }
          default:
            {
              long[] expected = new long[dim];
              ref.asLongBuffer().get(expected);
              assertArrayEquals(expected, (long[]) array);
            }
        }
      }
    }
    assertNull(capture.rows.get(rows));
  }

  /** The body as a buffer of the given kind; the caller owns the buffer and releases it. */
  private static ByteBuf buffer(BufferKind kind, byte[] body, Random random) {
    switch (kind) {
      case HEAP:
        return Unpooled.wrappedBuffer(body);
      case HEAP_WITH_ARRAY_OFFSET:
        {
          byte[] padded = new byte[body.length + 5];
          System.arraycopy(body, 0, padded, 5, body.length);
          ByteBuf buf = Unpooled.wrappedBuffer(padded, 5, body.length);
          assertEquals(5, buf.arrayOffset());
          return buf;
        }
      case DIRECT:
        {
          ByteBuf buf = Unpooled.directBuffer(body.length);
          buf.writeBytes(body);
          return buf;
        }
      default:
        {
          // three pieces, split at random points: vectors straddle component boundaries
          int a = 1 + random.nextInt(body.length - 2);
          int c = a + 1 + random.nextInt(body.length - a - 1);
          ByteBuf direct = Unpooled.directBuffer(c - a);
          direct.writeBytes(body, a, c - a);
          CompositeByteBuf composite = Unpooled.compositeBuffer();
          composite.addComponents(
              true,
              Unpooled.wrappedBuffer(body, 0, a),
              direct,
              Unpooled.wrappedBuffer(body, c, body.length - c));
          return composite;
        }
    }
  }

  /** Per row: toArray(), get(i) for every i, and copyTo at an offset, or null for NULL. */
  private static final class Capture implements RowSink {
    private static final int OFFSET = 3;
    final List<Object[]> rows = new ArrayList<>();
    private final int dim;
    private Object[] current;

    Capture(int dim) {
      this.dim = dim;
    }

    @Override
    public void onRowStart(int row) {
      current = null;
    }

    @Override
    public void onRowEnd(int row) {
      rows.add(current);
    }

    @Override
    public void onNull(int column) {}

    @Override
    public void onNotSet(int column) {
      throw new AssertionError("not set");
    }

    @Override
    public void onEmpty(int column) {
      throw new AssertionError("empty");
    }

    @Override
    public void onObject(int column, Object value) {
      throw new AssertionError("boxed: " + value);
    }

    @Override
    public void onFloatVector(int column, FloatVector v) {
      assertEquals(dim, v.dimension());
      float[] byGet = new float[dim];
      for (int i = 0; i < dim; i++) {
        byGet[i] = v.get(i);
      }
      float[] padded = new float[dim + OFFSET + 2];
      v.copyTo(padded, OFFSET);
      assertArrayEquals(new float[OFFSET], Arrays.copyOfRange(padded, 0, OFFSET));
      assertArrayEquals(new float[2], Arrays.copyOfRange(padded, OFFSET + dim, padded.length));
      current = new Object[] {v.toArray(), byGet, Arrays.copyOfRange(padded, OFFSET, OFFSET + dim)};
    }

    @Override
    public void onDoubleVector(int column, DoubleVector v) {
      assertEquals(dim, v.dimension());
      double[] byGet = new double[dim];
      for (int i = 0; i < dim; i++) {
        byGet[i] = v.get(i);
      }
      double[] padded = new double[dim + OFFSET + 2];
      v.copyTo(padded, OFFSET);
      assertArrayEquals(new double[OFFSET], Arrays.copyOfRange(padded, 0, OFFSET));
      assertArrayEquals(new double[2], Arrays.copyOfRange(padded, OFFSET + dim, padded.length));
      current = new Object[] {v.toArray(), byGet, Arrays.copyOfRange(padded, OFFSET, OFFSET + dim)};
    }

    @Override
    public void onIntVector(int column, IntVector v) {
      assertEquals(dim, v.dimension());
      int[] byGet = new int[dim];
      for (int i = 0; i < dim; i++) {
        byGet[i] = v.get(i);
      }
      int[] padded = new int[dim + OFFSET + 2];
      v.copyTo(padded, OFFSET);
      assertArrayEquals(new int[OFFSET], Arrays.copyOfRange(padded, 0, OFFSET));
      assertArrayEquals(new int[2], Arrays.copyOfRange(padded, OFFSET + dim, padded.length));
      current = new Object[] {v.toArray(), byGet, Arrays.copyOfRange(padded, OFFSET, OFFSET + dim)};
    }

    @Override
    public void onLongVector(int column, LongVector v) {
      assertEquals(dim, v.dimension());
      long[] byGet = new long[dim];
      for (int i = 0; i < dim; i++) {
        byGet[i] = v.get(i);
      }
      long[] padded = new long[dim + OFFSET + 2];
      v.copyTo(padded, OFFSET);
      assertArrayEquals(new long[OFFSET], Arrays.copyOfRange(padded, 0, OFFSET));
      assertArrayEquals(new long[2], Arrays.copyOfRange(padded, OFFSET + dim, padded.length));
      current = new Object[] {v.toArray(), byGet, Arrays.copyOfRange(padded, OFFSET, OFFSET + dim)};
    }
  }

  /** Forwards the mandatory events to another sink. */
  private static class ForwardingSink implements RowSink {
    private final RowSink delegate;

    ForwardingSink(RowSink delegate) {
      this.delegate = delegate;
    }

    @Override
    public void onRowStart(int row) {
      delegate.onRowStart(row);
    }

    @Override
    public void onRowEnd(int row) {
      delegate.onRowEnd(row);
    }

    @Override
    public void onNull(int column) {
      delegate.onNull(column);
    }

    @Override
    public void onNotSet(int column) {
      delegate.onNotSet(column);
    }

    @Override
    public void onEmpty(int column) {
      delegate.onEmpty(column);
    }

    @Override
    public void onObject(int column, Object value) {
      delegate.onObject(column, value);
    }
  }
}
