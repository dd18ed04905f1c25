package io.cqlrows.core;

import static io.cqlrows.core.RowsBodies.list;
import static io.cqlrows.core.RowsBodies.map;
import static io.cqlrows.core.RowsBodies.opt;
import static io.cqlrows.core.RowsBodies.set;
import static io.cqlrows.core.RowsBodies.tuple;
import static io.cqlrows.core.RowsBodies.udt;
import static io.cqlrows.core.RowsBodies.vector;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.core.CqlParseException.Reason;
import io.cqlrows.core.InlineCellsTest.Form;
import io.cqlrows.core.sink.ColumnarSink;
import io.cqlrows.core.sink.CountingSink;
import io.cqlrows.core.sink.JsonLinesSink;
import io.cqlrows.core.sink.RowsCollector;
import io.cqlrows.core.type.NativeType;
import io.cqlrows.core.value.TupleValue;
import io.cqlrows.core.value.UdtValue;
import io.cqlrows.testing.Allocations;
import io.cqlrows.testing.Corpus;
import io.cqlrows.testing.RecordingSink;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Text cells are strict by default ({@link ParseLimits#replaceMalformedText()}): malformed UTF-8 in
 * {@code text} and non-ASCII bytes in {@code ascii} are {@link Reason#INVALID_VALUE} at the first
 * bad byte, at every nesting level, from every buffer kind, into every sink and through the
 * streaming path; an encoded U+FFFD is valid text; and the lenient option decodes them with U+FFFD.
 *
 * <p>Every body has two columns, {@code id int} and {@code v} of the type under test, and two rows:
 * row 0 holds valid text, row 1 the value under test, so a wrong row or column shows.
 */
class MalformedTextTest {
  private static final String INT = opt(0x0009);
  private static final String TEXT = opt(0x000D);
  private static final String ASCII = opt(0x0001);

  private static final ParseLimits LENIENT =
      ParseLimits.builder().replaceMalformedText(true).build();

  /**
   * Malformed UTF-8: a lone continuation byte, a byte that never occurs, a cut sequence, an
   * overlong NUL, a surrogate (U+D800) and U+110000.
   */
  static final List<String> BAD_UTF8 = HostileBodiesTest.BAD_UTF8;

  /** Valid UTF-8 beyond ASCII: U+FFFD itself, e-acute, a CJK ideograph, an emoji. */
  static final List<String> GOOD_UTF8 = List.of("efbfbd", "c3a9", "e6bca2", "f09f9880");

  /** Not ASCII: bytes above 0x7F, and an encoded U+FFFD. */
  static final List<String> BAD_ASCII = List.of("80", "e9", "ff", "efbfbd");

  /** ASCII at its edges. */
  static final List<String> GOOD_ASCII = List.of("00", "7f");

  /** Where the text under test sits in the {@code v} cell. */
  @SuppressWarnings("ImmutableEnumChecker") // stateless lambdas
  enum Place {
    CELL_TEXT(TEXT, NativeType.TEXT, v -> v, 0, o -> o),
    CELL_ASCII(ASCII, NativeType.ASCII, v -> v, 0, o -> o),
    LIST_TEXT(
        list(TEXT),
        NativeType.TEXT,
        v -> "00000002" + lp("6f6b") + lp(v),
        14,
        o -> ((List<?>) o).get(1)),
    SET_ASCII(
        set(ASCII),
        NativeType.ASCII,
        v -> "00000002" + lp("6f6b") + lp(v),
        14,
        o -> ((List<?>) o).get(1)),
    MAP_KEY(
        map(TEXT, INT),
        NativeType.TEXT,
        v -> "00000002" + lp("6f6b") + lp("00000001") + lp(v) + lp("00000002"),
        22,
        o -> new ArrayList<>(((Map<?, ?>) o).keySet()).get(1)),
    MAP_VALUE(
        map(INT, TEXT),
        NativeType.TEXT,
        v -> "00000002" + lp("00000001") + lp("6f6b") + lp("00000002") + lp(v),
        30,
        o -> new ArrayList<>(((Map<?, ?>) o).values()).get(1)),
    UDT_FIELD(
        udt("ks", "u", "i", INT, "f", TEXT),
        NativeType.TEXT,
        v -> lp("00000007") + lp(v),
        12,
        o -> ((UdtValue) o).get(1)),
    TUPLE_COMPONENT(
        tuple(INT, TEXT),
        NativeType.TEXT,
        v -> lp("00000007") + lp(v),
        12,
        o -> ((TupleValue) o).get(1)),
    /** {@code vector<text, 2>}: unsigned-vint-prefixed elements. */
    VECTOR_TEXT(
        vector("UTF8Type", 2),
        NativeType.TEXT,
        v -> "026f6b" + vlp(v),
        4,
        o -> ((List<?>) o).get(1)),
    VECTOR_ASCII(
        vector("AsciiType", 2),
        NativeType.ASCII,
        v -> "026f6b" + vlp(v),
        4,
        o -> ((List<?>) o).get(1)),
    /** {@code list<frozen<list<text>>>}. */
    NESTED_LIST(
        list(list(TEXT)),
        NativeType.TEXT,
        v -> "00000001" + lp("00000002" + lp("6f6b") + lp(v)),
        22,
        o -> ((List<?>) ((List<?>) o).get(0)).get(1));

    final String option;
    final NativeType textType;
    final Function<String, String> cell;

    /** The byte offset of the text value in the cell. */
    final int valueAt;

    /** The text value out of the cell's {@link RowsCollector} object. */
    final Function<Object, Object> value;

    Place(
        String option,
        NativeType textType,
        Function<String, String> cell,
        int valueAt,
        Function<Object, Object> value) {
      this.option = option;
      this.textType = textType;
      this.cell = cell;
      this.valueAt = valueAt;
      this.value = value;
    }

    boolean ascii() {
      return textType == NativeType.ASCII;
    }

    /** The text value around {@code middle}: "a" before it, "b" after it. */
    static String text(String middle) {
      return "61" + middle + "62";
    }

    RowsBodies.Builder body(String middle) {
      return RowsBodies.rows()
          .column("id", INT)
          .column("v", option)
          .row("00000001", cell.apply(text("63")))
          .row("00000002", cell.apply(text(middle)));
    }

    /** The body offset of {@code middle}'s first byte. */
    int offsetOf(String middle) {
      int size = body(middle).bytes().size();
      return size - cell.apply(text(middle)).length() / 2 + valueAt + 1;
    }

    /** What the value decodes to with replacement, as the JDK decodes it. */
    String decoded(String middle) {
      byte[] b = ByteBufUtil.decodeHexDump(text(middle));
      return new String(b, ascii() ? StandardCharsets.US_ASCII : StandardCharsets.UTF_8);
    }
  }

  static Stream<Arguments> badValues() {
    return Stream.of(Place.values())
        .flatMap(p -> (p.ascii() ? BAD_ASCII : BAD_UTF8).stream().map(bad -> Arguments.of(p, bad)));
  }

  static Stream<Arguments> goodValues() {
    return Stream.of(Place.values())
        .flatMap(
            p -> (p.ascii() ? GOOD_ASCII : GOOD_UTF8).stream().map(good -> Arguments.of(p, good)));
  }

  /** The sinks under test; CountingSink wants every column, so it gets every value decoded. */
  static List<Supplier<RowSink>> sinks() {
    return List.of(
        RowsCollector::new,
        () -> new JsonLinesSink(new StringBuilder()),
        ColumnarSink::new,
        CountingSink::new,
        RecordingSink::new);
  }

  private static void assertBadText(CqlParseException e, Place place, String bad, String what) {
    String m = what + ": " + e.getMessage();
    assertEquals(Reason.INVALID_VALUE, e.reason(), m);
    assertEquals("value", e.field(), m);
    assertEquals(place.offsetOf(bad), e.offset(), m);
    assertEquals(1, e.row(), m);
    assertEquals(1, e.column(), m);
    assertEquals("v", e.columnName(), m);
    assertSame(place.textType, e.type(), m);
    // the hex snippet marks the first bad byte
    assertTrue(e.hexSnippet().contains(">" + bad.substring(0, 2)), m);
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("badValues")
  void rejectsBadTextAtItsFirstByteFromEveryBufferIntoEverySink(Place place, String bad) {
    for (Form form : Form.values()) {
      for (Supplier<RowSink> sink : sinks()) {
        RowSink s = sink.get();
        CqlParseException e =
            assertThrows(
                CqlParseException.class,
                () ->
                    Decoding.read(
                        new ResultReader(4), form.convert.apply(place.body(bad).build()), s, null));
        assertBadText(e, place, bad, form + " into " + s.getClass().getSimpleName());
      }
    }
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("badValues")
  void rejectsBadTextStreamedInPiecesLikeTheWholeBody(Place place, String bad) {
    byte[] bytes = place.body(bad).bytes().toArray();
    for (int size : new int[] {1, 2, 3, 7, 13, bytes.length}) {
      for (Supplier<RowSink> sink : sinks()) {
        for (boolean direct : new boolean[] {false, true}) {
          RowSink s = sink.get();
          CqlParseException e =
              assertThrows(
                  CqlParseException.class,
                  () -> streamed(new ResultReader(4), bytes, size, direct, s));
          assertBadText(
              e,
              place,
              bad,
              "pieces of "
                  + size
                  + (direct ? ", direct" : "")
                  + " into "
                  + s.getClass().getSimpleName());
        }
      }
    }
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("badValues")
  void decodesBadTextWithReplacementCharactersWhenLenient(Place place, String bad) {
    String expected = place.decoded(bad);
    assertTrue(expected.contains("\uFFFD"), expected);
    for (Form form : Form.values()) {
      RowsCollector rows = new RowsCollector();
      Decoding.read(
          new ResultReader(4, LENIENT), form.convert.apply(place.body(bad).build()), rows, null);
      assertEquals("acb", place.value.apply(rows.rows().get(0).getObject(1)), form + ": row 0");
      assertEquals(expected, place.value.apply(rows.rows().get(1).getObject(1)), form.name());
      for (Supplier<RowSink> sink : sinks()) {
        RowSink s = sink.get();
        assertDoesNotThrow(
            () ->
                Decoding.read(
                    new ResultReader(4, LENIENT),
                    form.convert.apply(place.body(bad).build()),
                    s,
                    null),
            form.name());
      }
    }
    RowsCollector rows = new RowsCollector();
    streamed(new ResultReader(4, LENIENT), place.body(bad).bytes().toArray(), 3, true, rows);
    assertEquals(expected, place.value.apply(rows.rows().get(1).getObject(1)), "streamed");
    StringBuilder json = new StringBuilder();
    Decoding.read(
        new ResultReader(4, LENIENT), place.body(bad).build(), new JsonLinesSink(json), null);
    assertTrue(Corpus.json(json.toString()).toString().contains("\uFFFD"), json.toString());
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("goodValues")
  void acceptsValidTextIncludingAnEncodedReplacementCharacter(Place place, String good) {
    String expected = place.decoded(good);
    for (Form form : Form.values()) {
      for (ParseLimits limits : List.of(ParseLimits.defaults(), LENIENT)) {
        RowsCollector rows = new RowsCollector();
        Decoding.read(
            new ResultReader(4, limits), form.convert.apply(place.body(good).build()), rows, null);
        assertEquals(
            expected, place.value.apply(rows.rows().get(1).getObject(1)), form + " " + limits);
      }
      for (Supplier<RowSink> sink : sinks()) {
        RowSink s = sink.get();
        assertDoesNotThrow(
            () ->
                Decoding.read(
                    new ResultReader(4), form.convert.apply(place.body(good).build()), s, null),
            form.name());
      }
    }
  }

  /** A bad byte after valid multi-byte sequences and an encoded U+FFFD: the offset counts bytes. */
  @ParameterizedTest
  @EnumSource(Form.class)
  void pointsAtTheFirstBadByteAfterValidMultiByteText(Form form) {
    // "é", U+FFFD, "漢", an emoji, then a cut sequence and a later bad byte
    String middle = "c3a9" + "efbfbd" + "e6bca2" + "f09f9880" + "e6bc" + "41" + "ff";
    for (Place place : List.of(Place.CELL_TEXT, Place.LIST_TEXT, Place.VECTOR_TEXT)) {
      CqlParseException e =
          assertThrows(
              CqlParseException.class,
              () ->
                  Decoding.read(
                      new ResultReader(4),
                      form.convert.apply(place.body(middle).build()),
                      new RecordingSink(),
                      null));
      assertEquals(Reason.INVALID_VALUE, e.reason(), e::getMessage);
      assertEquals(place.offsetOf(middle) + 2 + 3 + 3 + 4, e.offset(), e::getMessage);
      assertTrue(e.hexSnippet().contains(">e6 bc 41"), e::getMessage);
    }
    String ascii = "7f" + "41" + "c3a9";
    CqlParseException e =
        assertThrows(
            CqlParseException.class,
            () ->
                Decoding.read(
                    new ResultReader(4),
                    form.convert.apply(Place.CELL_ASCII.body(ascii).build()),
                    new RecordingSink(),
                    null));
    assertEquals(Place.CELL_ASCII.offsetOf(ascii) + 2, e.offset(), e::getMessage);
  }

  /** A sink that does not want a column gets its cells skipped undecoded: they are not checked. */
  @Test
  void cellsOfColumnsASinkSkipsAreNotChecked() {
    for (Place place : Place.values()) {
      String bad = place.ascii() ? "80" : "ff";
      ColumnarSink columnar = new ColumnarSink().selectColumns(0);
      Decoding.read(new ResultReader(4), place.body(bad).build(), columnar, null);
      assertEquals(2, columnar.rowCount(), place.name());
      StringBuilder json = new StringBuilder();
      JsonLinesSink lines = new JsonLinesSink(json);
      lines.selectColumns(0);
      Decoding.read(new ResultReader(4), place.body(bad).build(), lines, null);
      assertFalse(json.toString().isEmpty(), place.name());
    }
  }

  /**
   * The strict check costs no allocation on valid text, ASCII or not, including encoded U+FFFD: a
   * strict parse allocates what a lenient one does (the strings), after warm-up.
   */
  @Test
  void strictTextAllocatesNothingMoreThanLenientOnValidText() {
    RowsBodies.Builder b =
        RowsBodies.rows().column("t", TEXT).column("a", ASCII).column("l", list(TEXT));
    String[] texts = {"616263646566", "c3a9e6bca2f09f9880", "61efbfbd62", "e6bca2".repeat(20)};
    for (int row = 0; row < 2_000; row++) {
      String t = texts[row % texts.length];
      b.row(t, "6162637e", "00000002" + lp(t) + lp(texts[(row + 1) % texts.length]));
    }
    byte[] bytes = b.bytes().toArray();
    long strict = Long.MAX_VALUE;
    long lenient = Long.MAX_VALUE;
    for (int i = 0; i < 20; i++) {
      strict = Math.min(strict, allocated(new ResultReader(4), bytes));
      lenient = Math.min(lenient, allocated(new ResultReader(4, LENIENT), bytes));
    }
    assertTrue(strict <= lenient + 1024, "strict " + strict + " B, lenient " + lenient + " B");
  }

  private static long allocated(ResultReader reader, byte[] bytes) {
    ByteBuf body = Unpooled.wrappedBuffer(bytes); // not leak-tracked: tracking allocates
    CountingSink sink = new CountingSink();
    long before = Allocations.current();
    reader.read(body, sink);
    long allocated = Allocations.current() - before;
    body.release();
    assertEquals(2_000, sink.rows());
    return allocated;
  }

  @Test
  void replaceMalformedTextIsOffByDefaultAndKeptByToBuilder() {
    assertFalse(ParseLimits.defaults().replaceMalformedText());
    assertFalse(ParseLimits.builder().build().replaceMalformedText());
    assertTrue(LENIENT.replaceMalformedText());
    assertTrue(LENIENT.toBuilder().build().replaceMalformedText());
    assertFalse(LENIENT.toBuilder().replaceMalformedText(false).build().replaceMalformedText());
    assertTrue(LENIENT.toString().contains("replaceMalformedText=true"), LENIENT.toString());
  }

  /**
   * The first malformed byte is where the JDK's UTF-8 decoder with REPORT stops: every sequence of
   * one and two bytes, every three-byte sequence from E0 to FF with telling third bytes, every
   * four-byte one from F0 to FF with telling last bytes, and random mixes of valid and invalid
   * sequences.
   */
  @Test
  void firstMalformedByteIsWhereTheJdkDecoderReportsIt() {
    int[] edges = {0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xff};
    List<byte[]> inputs = new ArrayList<>();
    for (int b1 = 0; b1 < 256; b1++) {
      inputs.add(new byte[] {(byte) b1});
      for (int b2 = 0; b2 < 256; b2++) {
        inputs.add(new byte[] {(byte) b1, (byte) b2});
        if (b1 >= 0xe0) {
          for (int b3 : edges) {
            inputs.add(new byte[] {(byte) b1, (byte) b2, (byte) b3});
            if (b1 >= 0xf0) {
              for (int b4 : edges) {
                inputs.add(new byte[] {(byte) b1, (byte) b2, (byte) b3, (byte) b4});
              }
            }
          }
        }
      }
    }
    Random random = new Random(77);
    String[] pieces = {
      "41",
      "c3a9",
      "efbfbd",
      "e6bca2",
      "f09f9880",
      "f48fbfbf",
      "80",
      "c3",
      "e6bc",
      "f09f98",
      "c080",
      "eda080",
      "edbfbf",
      "f4908080",
      "f5",
      "ff",
      "e08080",
      "f08f8080"
    };
    for (int i = 0; i < 20_000; i++) {
      StringBuilder hex = new StringBuilder();
      for (int n = random.nextInt(8); n >= 0; n--) {
        hex.append(pieces[random.nextInt(pieces.length)]);
      }
      inputs.add(ByteBufUtil.decodeHexDump(hex));
    }
    for (byte[] b : inputs) {
      int expected = jdkMalformedAt(b);
      ByteBuf heap = Unpooled.wrappedBuffer(b);
      int at =
          TextDeserializer.firstMalformedUtf8(
              new String(b, StandardCharsets.UTF_8), heap, 0, b.length);
      assertEquals(expected, at, () -> ByteBufUtil.hexDump(b));
      heap.release();
    }
  }

  /** Where the JDK's REPORT decoder finds the first malformed input, or -1. */
  private static int jdkMalformedAt(byte[] b) {
    CharsetDecoder decoder =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(b);
    CoderResult r = decoder.decode(in, CharBuffer.allocate(b.length * 2 + 2), true);
    return r.isError() ? in.position() : -1;
  }

  /** Streams {@code bytes} into {@code sink} in pieces of {@code size}. */
  private static void streamed(
      ResultReader reader, byte[] bytes, int size, boolean direct, RowSink sink) {
    try (ResultStream s = reader.stream(sink, null, bytes.length)) {
      for (int at = 0; at < bytes.length; at += size) {
        int n = Math.min(size, bytes.length - at);
        ByteBuf piece =
            direct
                ? ByteBufAllocator.DEFAULT.directBuffer(n)
                : Unpooled.buffer(n + 3).writerIndex(3).readerIndex(3);
        piece.writeBytes(bytes, at, n);
        try {
          s.feed(piece);
        } finally {
          piece.release();
        }
      }
      assertTrue(s.isComplete());
      s.result();
    }
  }

  /** {@code hex} with its [int] length. */
  static String lp(String hex) {
    return String.format("%08x", hex.length() / 2) + hex;
  }

  /** {@code hex} with a one-byte unsigned vint length (under 128 bytes). */
  private static String vlp(String hex) {
    return String.format("%02x", hex.length() / 2) + hex;
  }
}
