package io.cqlrows.core;

import static io.cqlrows.core.RowsBodies.custom;
import static io.cqlrows.core.RowsBodies.opt;
import static io.cqlrows.core.RowsBodies.vectorClass;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.cqlrows.testing.RecordingSink;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A body in a {@link CompositeByteBuf} of several buffers (a v5 envelope gathered from its
 * segments) is read buffer by buffer: the events and errors must be those of the same bytes in one
 * buffer, wherever the buffers split the rows, and the body must be left as it was.
 */
class CompositeBodyTest {

  /** 40 rows of int, text and a vector of 3 floats; every 7th row's text is NULL. */
  private static ByteBuf body(String brokenVectorCell) {
    RowsBodies.Builder b =
        RowsBodies.rows()
            .column("i", opt(0x09))
            .column("s", opt(0x0D))
            .column("v", custom(vectorClass("FloatType", 3)));
    for (int r = 0; r < 40; r++) {
      String vector =
          r == 33 && brokenVectorCell != null
              ? brokenVectorCell
              : String.format("%08x%08x%08x", Float.floatToIntBits(r), Float.floatToIntBits(-r), r);
      b.row(String.format("%08x", r), r % 7 == 0 ? null : "6869".repeat(r % 5), vector);
    }
    return b.rowCount(40).build();
  }

  /**
   * The bytes of {@code body} in buffers of {@code piece} bytes, heap and direct in turn; with
   * {@code sliced}, a slice of such a composite whose first buffer starts with other bytes (as a
   * frame's body is a slice of the composite of its segments).
   */
  private static ByteBuf split(ByteBuf body, int piece, boolean sliced) {
    CompositeByteBuf c = Unpooled.compositeBuffer(Integer.MAX_VALUE);
    if (sliced) {
      c.addComponent(true, Unpooled.buffer().writeBytes(new byte[] {9, 9, 9}));
    }
    boolean direct = false;
    for (int at = body.readerIndex(); at < body.writerIndex(); at += piece, direct = !direct) {
      int n = Math.min(piece, body.writerIndex() - at);
      ByteBuf part = direct ? Unpooled.directBuffer(n) : Unpooled.buffer(n);
      c.addComponent(true, part.writeBytes(body, at, n));
    }
    return sliced ? c.slice(3, c.readableBytes() - 3) : c;
  }

  static Stream<Arguments> splits() {
    return Stream.of(1, 3, 7, 16, 29, 64, 1000, 100_000)
        .flatMap(n -> Stream.of(Arguments.of(n, false), Arguments.of(n, true)));
  }

  @ParameterizedTest
  @MethodSource("splits")
  void readsTheSameEventsAsOneBuffer(int piece, boolean sliced) {
    List<String> whole = Decoding.events(body(null));
    ByteBuf original = body(null);
    ByteBuf c = split(original, piece, sliced);
    original.release();
    RecordingSink sink = new RecordingSink();
    Decoding.read(new ResultReader(4), c, sink, null); // checks indices and refCnt, releases
    assertEquals(whole, sink.events());
  }

  @ParameterizedTest
  @MethodSource("splits")
  void failsWithTheErrorOfOneBuffer(int piece, boolean sliced) {
    String broken = "0000000000000000"; // 8 bytes where the vector needs 12
    CqlParseException expected = Decoding.error(body(broken));
    ByteBuf original = body(broken);
    ByteBuf c = split(original, piece, sliced);
    original.release();
    CqlParseException e =
        assertThrows(
            CqlParseException.class,
            () -> Decoding.read(new ResultReader(4), c, new RecordingSink(), null));
    assertEquals(expected.reason(), e.reason());
    assertEquals(expected.offset(), e.offset());
    assertEquals(expected.row(), e.row());
    assertEquals(expected.column(), e.column());
    assertEquals(33, e.row());
  }
}
