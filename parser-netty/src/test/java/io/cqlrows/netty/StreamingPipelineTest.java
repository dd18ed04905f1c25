package io.cqlrows.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.core.CqlParseException;
import io.cqlrows.core.ParseLimits;
import io.cqlrows.core.ResultReader;
import io.cqlrows.core.RowsBodies;
import io.cqlrows.core.RowsResult;
import io.cqlrows.core.sink.CountingSink;
import io.cqlrows.core.sink.JsonLinesSink;
import io.cqlrows.netty.frame.Compression;
import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.netty.frame.Frame;
import io.cqlrows.netty.internal.SegmentBuilder;
import io.cqlrows.netty.rows.RowsFailure;
import io.cqlrows.netty.rows.RowsFrameHandler;
import io.cqlrows.netty.rows.RowsResponse;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Rows reach the sink while a large ROWS frame is still arriving, through the Netty decoders and
 * the rows handler, with results identical to whole-frame parsing for every way of splitting the
 * input: whole, byte by byte, random reads, and v5 segment boundaries (inside cells, vints and
 * vectors), uncompressed and LZ4.
 */
class StreamingPipelineTest {
  private static final int STREAM = 7;

  /** Stream results of at least this many bytes (small, so small bodies stream in tests). */
  private static final int THRESHOLD = 1024;

  /** How the body travels. */
  enum Wire {
    V4,
    V5,
    V5_LZ4;

    /** The RESULT frame carrying {@code body}, as the server sends it. */
    byte[] encode(byte[] body) {
      if (this == V4) {
        return CqlTestFrames.frameBytes(0x84, 0, STREAM, 0x08, body);
      }
      byte[] envelope = CqlTestFrames.frameBytes(0x85, 0, STREAM, 0x08, body);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      int max = 131071;
      boolean selfContained = envelope.length <= max;
      for (int i = 0; i < envelope.length; i += max) {
        byte[] payload = Arrays.copyOfRange(envelope, i, Math.min(envelope.length, i + max));
        out.writeBytes(
            this == V5
                ? SegmentBuilder.uncompressed(payload, selfContained)
                : SegmentBuilder.lz4(payload, selfContained));
      }
      return out.toByteArray();
    }

    EmbeddedChannel channel(boolean stream) {
      EmbeddedChannel ch = new EmbeddedChannel();
      CqlPipeline cql =
          CqlPipeline.install(
                  ch.pipeline(),
                  this == V4 ? 4 : 5,
                  this == V5_LZ4 ? Compression.LZ4 : Compression.NONE,
                  ParseLimits.defaults(),
                  null)
              .streamResultsFrom(stream ? THRESHOLD : 0);
      if (this != V4) {
        cql.switchToSegments();
      }
      return ch;
    }

    RowsFrameHandler rows(EmbeddedChannel ch) {
      return (RowsFrameHandler) ch.pipeline().get(CqlPipeline.ROWS_FRAME_HANDLER);
    }
  }

  /** A page of id int, v vector<float, 96>, t vector<text, 2> with NULLs: about 420 B/row. */
  private static byte[] page(int rows, long seed) {
    Random random = new Random(seed);
    RowsBodies.Builder b =
        RowsBodies.rows()
            .column("id", 0x0009)
            .column("v", RowsBodies.vector(RowsBodies.MARSHAL + "FloatType", 96))
            .column("t", RowsBodies.vector(RowsBodies.MARSHAL + "UTF8Type", 2));
    for (int r = 0; r < rows; r++) {
      StringBuilder v = new StringBuilder();
      for (int i = 0; i < 96; i++) {
        v.append(String.format("%08x", Float.floatToIntBits(random.nextFloat() - 0.5f)));
      }
      String text = "8081" + "78".repeat(129) + "00";
      b.row(String.format("%08x", r), r % 11 == 3 ? null : v.toString(), r % 5 == 0 ? null : text);
    }
    ByteBuf body = b.build();
    try {
      byte[] out = new byte[body.readableBytes()];
      body.readBytes(out);
      return out;
    } finally {
      body.release();
    }
  }

  private static String whole(byte[] body) {
    StringBuilder json = new StringBuilder();
    new ResultReader(4).read(Unpooled.wrappedBuffer(body), new JsonLinesSink(json));
    return json.toString();
  }

  /** Writes {@code wire} in reads of the sizes {@code cut} gives; returns the sink's JSON. */
  private static String replay(
      Wire wire,
      byte[] wireBytes,
      boolean streamDecoder,
      boolean streamRequest,
      java.util.function.IntSupplier cut) {
    EmbeddedChannel ch = wire.channel(streamDecoder);
    StringBuilder json = new StringBuilder();
    JsonLinesSink sink = new JsonLinesSink(json);
    if (streamRequest) {
      wire.rows(ch).expectStreaming(STREAM, sink, null);
    } else {
      wire.rows(ch).expect(STREAM, sink);
    }
    for (int at = 0; at < wireBytes.length; ) {
      int n = Math.min(wireBytes.length - at, Math.max(1, cut.getAsInt()));
      ch.writeInbound(Unpooled.wrappedBuffer(wireBytes, at, n));
      at += n;
    }
    Object out = ch.readInbound();
    assertInstanceOf(RowsResponse.class, out, () -> "got " + out);
    assertNull(ch.readInbound());
    assertFalse(ch.finish());
    return json.toString();
  }

  static Stream<Arguments> wires() {
    return Stream.of(Wire.values())
        .flatMap(
            w ->
                Stream.of(
                    Arguments.of(w, true, true),
                    Arguments.of(w, true, false),
                    Arguments.of(w, false, true)));
  }

  @ParameterizedTest(name = "{0} streaming decoder {1}, streaming request {2}")
  @MethodSource("wires")
  void everySplitGivesTheWholeFrameResult(Wire wire, boolean decoder, boolean request) {
    byte[] body = page(700, 1); // ~300 KB: three v5 segments
    byte[] wireBytes = wire.encode(body);
    String expected = whole(body);
    Random random = new Random(2);
    assertEquals(expected, replay(wire, wireBytes, decoder, request, () -> wireBytes.length));
    assertEquals(expected, replay(wire, wireBytes, decoder, request, () -> 65536));
    for (int i = 0; i < 4; i++) {
      int max = 1 + random.nextInt(i % 2 == 0 ? 300 : 20000);
      assertEquals(
          expected,
          replay(wire, wireBytes, decoder, request, () -> 1 + random.nextInt(max)),
          "random reads up to " + max);
    }
  }

  @ParameterizedTest
  @EnumSource(Wire.class)
  void byteByByteGivesTheWholeFrameResult(Wire wire) {
    byte[] body = page(12, 3); // ~5 KB, over the streaming threshold
    byte[] wireBytes = wire.encode(body);
    assertEquals(whole(body), replay(wire, wireBytes, true, true, () -> 1));
  }

  /** The point of it: rows reach the sink before the frame is complete. */
  @ParameterizedTest
  @EnumSource(Wire.class)
  void rowsArriveBeforeTheFrameIsComplete(Wire wire) {
    byte[] body = page(700, 4);
    byte[] wireBytes = wire.encode(body);
    EmbeddedChannel ch = wire.channel(true);
    CountingSink sink = new CountingSink();
    wire.rows(ch).expectStreaming(STREAM, sink, null);
    int half = wireBytes.length / 2;
    ch.writeInbound(Unpooled.wrappedBuffer(wireBytes, 0, half));
    assertNull(ch.readInbound(), "no response before the last byte");
    long early = sink.rows();
    assertTrue(early > 100, "rows before the frame is complete: " + early);
    ch.writeInbound(Unpooled.wrappedBuffer(wireBytes, half, wireBytes.length - half));
    RowsResponse response = ch.readInbound();
    assertEquals(700, ((RowsResult) response.result()).rowCount());
    assertEquals(700, sink.rows());
    assertFalse(ch.finish());
  }

  /** A connection that ends mid-body fails the stream, naming the last complete row. */
  @ParameterizedTest
  @EnumSource(Wire.class)
  void aTruncatedConnectionNamesTheLastCompleteRow(Wire wire) {
    byte[] body = page(700, 5);
    byte[] wireBytes = wire.encode(body);
    EmbeddedChannel ch = wire.channel(true);
    CountingSink sink = new CountingSink();
    wire.rows(ch).expectStreaming(STREAM, sink, null);
    ch.writeInbound(Unpooled.wrappedBuffer(wireBytes, 0, wireBytes.length * 2 / 3));
    long delivered = sink.rows();
    assertTrue(delivered > 0);
    ch.close();
    List<Object> out = new ArrayList<>();
    for (Object o; (o = ch.readInbound()) != null; ) {
      out.add(o);
    }
    RowsFailure failure =
        (RowsFailure)
            out.stream()
                .filter(RowsFailure.class::isInstance)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no failure in " + out));
    assertEquals(STREAM, failure.streamId());
    assertTrue(failure.cause().connectionLevel());
    CqlParseException e = failure.parseError();
    assertEquals(CqlParseException.Reason.TRUNCATED, e.reason());
    assertEquals(CqlFrameException.Reason.TRUNCATED, failure.cause().reason());
    assertEquals(delivered, e.row(), "the row that was cut: the last complete one is before it");
  }

  /** A malformed cell fails the stream; the connection goes on with the next frame. */
  @ParameterizedTest
  @EnumSource(Wire.class)
  void aMalformedCellFailsOnlyItsStream(Wire wire) {
    byte[] body = page(700, 6);
    // the int cell of row 600 claims 3 bytes: find it by its value
    byte[] id = {0, 0, 0, 4, 0, 0, 0x02, 0x58};
    int at = indexOf(body, id);
    body[at + 3] = 3;
    byte[] next = page(3, 7);
    EmbeddedChannel ch = wire.channel(true);
    CountingSink broken = new CountingSink();
    StringBuilder json = new StringBuilder();
    wire.rows(ch).expectStreaming(STREAM, broken, null);
    ch.writeInbound(Unpooled.wrappedBuffer(wire.encode(body)));
    RowsFailure failure = ch.readInbound();
    assertFalse(failure.cause().connectionLevel());
    assertEquals(600, failure.parseError().row());
    assertEquals(600, broken.rows());
    wire.rows(ch).expectStreaming(STREAM, new JsonLinesSink(json), null);
    ch.writeInbound(Unpooled.wrappedBuffer(wire.encode(next)));
    assertInstanceOf(RowsResponse.class, ch.readInbound());
    assertEquals(whole(next), json.toString());
    assertFalse(ch.finish());
  }

  /** A RESULT nobody registered for reaches the next handler as one whole frame. */
  @ParameterizedTest
  @EnumSource(Wire.class)
  void anUnregisteredStreamedResultPassesOnAsAWholeFrame(Wire wire) {
    byte[] body = page(300, 8);
    EmbeddedChannel ch = wire.channel(true);
    ch.writeInbound(Unpooled.wrappedBuffer(wire.encode(body)));
    Frame frame = ch.readInbound();
    try {
      assertEquals(STREAM, frame.streamId());
      byte[] got = new byte[frame.body().readableBytes()];
      frame.body().getBytes(frame.body().readerIndex(), got);
      assertTrue(Arrays.equals(body, got));
    } finally {
      frame.release();
    }
    assertFalse(ch.finish());
  }

  private static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    throw new AssertionError("not found");
  }
}
