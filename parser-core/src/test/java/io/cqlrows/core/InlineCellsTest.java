package io.cqlrows.core;

import static io.cqlrows.core.Decoding.assertError;
import static io.cqlrows.core.RowsBodies.single;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.cqlrows.core.CqlParseException.Reason;
import io.cqlrows.core.type.NativeType;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The row loop decodes fixed-width native types and text inline, reading heap buffers' arrays
 * directly ({@link InlineCells}): every buffer kind must give the same events and the same errors.
 */
class InlineCellsTest {

  /** Ways a body can reach the parser; each takes and releases the heap original. */
  @SuppressWarnings("ImmutableEnumChecker") // stateless lambdas
  enum Form {
    HEAP(b -> b),
    /** A slice whose array offset is not 0. */
    HEAP_OFFSET(
        b -> {
          ByteBuf wide = Unpooled.buffer(b.readableBytes() + 7);
          wide.writeZero(7).writeBytes(b);
          b.release();
          ByteBuf slice = wide.slice(7, wide.readableBytes() - 7);
          assertNotEquals(0, slice.arrayOffset());
          return slice;
        }),
    DIRECT(b -> copyInto(ByteBufAllocator.DEFAULT.directBuffer(b.readableBytes()), b)),
    POOLED_HEAP(b -> copyInto(ByteBufAllocator.DEFAULT.heapBuffer(b.readableBytes()), b)),
    /** Two components split in the middle: neither an array nor one memory address. */
    COMPOSITE(
        b -> {
          int half = b.readableBytes() / 2;
          CompositeByteBuf c = Unpooled.compositeBuffer();
          c.addComponent(true, Unpooled.copiedBuffer(b.slice(0, half)));
          c.addComponent(
              true, Unpooled.directBuffer().writeBytes(b.slice(half, b.readableBytes() - half)));
          b.release();
          return c;
        });

    final Function<ByteBuf, ByteBuf> convert;

    Form(Function<ByteBuf, ByteBuf> convert) {
      this.convert = convert;
    }

    private static ByteBuf copyInto(ByteBuf target, ByteBuf b) {
      target.writeBytes(b);
      b.release();
      return target;
    }
  }

  static Stream<Arguments> cells() {
    List<Object[]> cells =
        List.of(
            new Object[] {NativeType.BOOLEAN, "01", "0:boolean true"},
            new Object[] {NativeType.TINYINT, "80", "0:tinyint -128"},
            new Object[] {NativeType.SMALLINT, "8001", "0:smallint -32767"},
            new Object[] {NativeType.INT, "fffdcb91", "0:int -144495"},
            new Object[] {NativeType.BIGINT, "8000000000000001", "0:bigint -9223372036854775807"},
            new Object[] {NativeType.COUNTER, "0000000000000102", "0:bigint 258"},
            new Object[] {NativeType.FLOAT, "c697d040", "0:float -19432.125"},
            new Object[] {NativeType.DOUBLE, "c0d2fa0800000000", "0:double -19432.125"},
            new Object[] {NativeType.TIMESTAMP, "ffffffffffffffff", "0:timestamp -1"},
            new Object[] {NativeType.DATE, "7fffffff", "0:date -1"},
            new Object[] {NativeType.TIME, "00004e94914effff", "0:time 86399999999999"},
            new Object[] {
              NativeType.UUID,
              "49157efcef3c9de31698af801fb40b2a",
              "0:uuid 49157efc-ef3c-9de3-1698-af801fb40b2a"
            },
            new Object[] {
              NativeType.TIMEUUID,
              "af5943a3ea3c11e1ab63c42c032279f0",
              "0:uuid af5943a3-ea3c-11e1-ab63-c42c032279f0"
            },
            new Object[] {NativeType.TEXT, "e381bee38197e381a6", "0:string \u307e\u3057\u3066"},
            new Object[] {NativeType.TEXT, "", "0:string "},
            new Object[] {NativeType.TEXT, "61efbfbd62", "0:string a\ufffdb"},
            new Object[] {NativeType.BLOB, "cafe", "0:blob cafe"},
            new Object[] {NativeType.BLOB, "", "0:blob "},
            new Object[] {NativeType.INT, "", "0:empty"},
            new Object[] {NativeType.UUID, "", "0:empty"});
    return Stream.of(Form.values())
        .flatMap(f -> cells.stream().map(c -> Arguments.of(f, c[0], c[1], c[2])));
  }

  @ParameterizedTest
  @MethodSource("cells")
  void decodesTheSameFromEveryBufferKind(Form form, NativeType type, String hex, String event) {
    assertEquals(event, Decoding.cellEvent(form.convert.apply(single(type.optionId(), hex))));
  }

  @ParameterizedTest
  @EnumSource(Form.class)
  void namesTheCellOfAWrongLengthFromEveryBufferKind(Form form) {
    for (NativeType type :
        List.of(
            NativeType.BOOLEAN,
            NativeType.SMALLINT,
            NativeType.INT,
            NativeType.BIGINT,
            NativeType.DOUBLE,
            NativeType.DATE,
            NativeType.UUID)) {
      String hex = "000102";
      ByteBuf body = single(type.optionId(), hex);
      int offset = body.readableBytes() - 3;
      CqlParseException e = Decoding.error(form.convert.apply(body));
      assertError(e, Reason.LENGTH_MISMATCH, "value", offset, 0, 0);
      assertSame(type, e.type());
    }
  }

  @ParameterizedTest
  @EnumSource(Form.class)
  void rejectsATimeOutOfRangeFromEveryBufferKind(Form form) {
    ByteBuf body = single(NativeType.TIME.optionId(), "00004e94914f0000");
    int offset = body.readableBytes() - 8;
    CqlParseException e = Decoding.error(form.convert.apply(body));
    assertError(e, Reason.INVALID_VALUE, "value", offset, 0, 0);
  }

  /** Malformed UTF-8: the error names the first bad byte; lenient, U+FFFD (MalformedTextTest). */
  @ParameterizedTest
  @EnumSource(Form.class)
  void rejectsMalformedUtf8InATextCellFromEveryBufferKind(Form form) {
    ByteBuf body = single(NativeType.TEXT.optionId(), "61ff62");
    int offset = body.readableBytes() - 2;
    CqlParseException e = Decoding.error(form.convert.apply(body));
    assertError(e, Reason.INVALID_VALUE, "value", offset, 0, 0);
    assertSame(NativeType.TEXT, e.type());
    io.cqlrows.testing.RecordingSink sink = new io.cqlrows.testing.RecordingSink();
    Decoding.read(
        new ResultReader(4, ParseLimits.builder().replaceMalformedText(true).build()),
        form.convert.apply(single(NativeType.TEXT.optionId(), "61ff62")),
        sink,
        null);
    assertEquals(
        List.of("0:string a\ufffdb"),
        sink.events().stream().filter(s -> s.startsWith("0:")).toList());
  }

  /** Blobs reach the sink through one re-windowed view; what a sink retains stays its own. */
  @ParameterizedTest
  @EnumSource(Form.class)
  void blobViewsCarryEachCellAndRetainedSlicesSurviveTheNextCell(Form form) {
    ByteBuf body =
        RowsBodies.rows()
            .column("a", 0x0003)
            .column("b", 0x0003)
            .row("0102", "030405")
            .row("", "06")
            .row(null, "0708090a")
            .build();
    List<String> seen = new java.util.ArrayList<>();
    List<ByteBuf> kept = new java.util.ArrayList<>();
    io.cqlrows.core.RowSink sink =
        new io.cqlrows.core.RowSink() {
          @Override
          public void onRowStart(int row) {}

          @Override
          public void onRowEnd(int row) {}

          @Override
          public void onNull(int column) {}

          @Override
          public void onNotSet(int column) {}

          @Override
          public void onEmpty(int column) {}

          @Override
          public void onObject(int column, Object value) {}

          @Override
          public void onBlob(int column, ByteBuf value) {
            seen.add(io.netty.buffer.ByteBufUtil.hexDump(value));
            kept.add(value.retainedSlice());
          }
        };
    ByteBuf input = form.convert.apply(body);
    try {
      new ResultReader(4).read(input, sink, null);
      assertEquals(List.of("0102", "030405", "", "06", "0708090a"), seen);
      assertEquals(seen, kept.stream().map(io.netty.buffer.ByteBufUtil::hexDump).toList());
    } finally {
      kept.forEach(ByteBuf::release);
      assertEquals(1, input.refCnt());
      input.release();
    }
  }
}
