package io.cqlrows.netty.rows;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.core.ColumnSpec;
import io.cqlrows.core.CqlParseException;
import io.cqlrows.core.ParseLimits;
import io.cqlrows.core.ProtocolFeatures;
import io.cqlrows.core.ResultColumns;
import io.cqlrows.core.ResultReader;
import io.cqlrows.core.RowSink;
import io.cqlrows.core.RowsResult;
import io.cqlrows.core.TabletRouting;
import io.cqlrows.core.VoidResult;
import io.cqlrows.core.type.NativeType;
import io.cqlrows.netty.ScyllaSession;
import io.cqlrows.netty.frame.Compression;
import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.netty.frame.Frame;
import io.cqlrows.netty.frame.FrameChunk;
import io.cqlrows.netty.frame.FrameHead;
import io.cqlrows.netty.frame.FramePrelude;
import io.cqlrows.netty.frame.Opcode;
import io.cqlrows.netty.internal.FrameErrors;
import io.cqlrows.netty.request.Requests;
import io.cqlrows.testing.CqlBytes;
import io.cqlrows.testing.RecordingSink;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class RowsFrameHandlerTest {
  private static final int INT = 0x0009;

  @Test
  void failsOnlyTheStreamWithTheBrokenCell() {
    RowsFrameHandler handler = new RowsFrameHandler(new ResultReader(4));
    EmbeddedChannel channel = new EmbeddedChannel(handler);
    RecordingSink sinkA = new RecordingSink();
    RecordingSink sinkB = new RecordingSink();
    handler.expect(1, sinkA);
    handler.expect(2, sinkB);
    assertEquals(2, handler.pendingCount());

    // an int cell of 3 bytes in row 0, column 1
    Frame broken = result(1, rows(CqlBytes.create().bytes("00000001").bytes("000002")), 100);
    Frame good = result(2, rows(CqlBytes.create().bytes("00000007").nullCell()), -1);
    channel.writeInbound(broken, good);
    assertEquals(0, broken.refCnt());
    assertEquals(0, good.refCnt());

    RowsFailure failure = channel.readInbound();
    assertEquals(1, failure.streamId());
    CqlFrameException error = failure.cause();
    assertFalse(error.connectionLevel());
    assertEquals(1, error.streamId());
    CqlParseException cause = failure.parseError();
    assertSame(cause, error.getCause());
    assertEquals(CqlParseException.Reason.LENGTH_MISMATCH, cause.reason());
    assertEquals(0, cause.row());
    assertEquals(1, cause.column());
    assertEquals("v", cause.columnName());
    assertEquals(NativeType.INT, cause.type());
    assertEquals(100 + cause.offset(), error.offset());

    RowsResponse response = channel.readInbound();
    assertEquals(2, response.streamId());
    RowsResult rows = assertInstanceOf(RowsResult.class, response.result());
    assertEquals(1, rows.rowCount());
    assertEquals(
        List.of("start 1", "row 0", "0:int 7", "1:null", "/row 0", "end 1"), sinkB.events());
    assertEquals(0, handler.pendingCount());
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void failsEveryPendingStreamOnAConnectionLevelError() {
    RowsFrameHandler handler = new RowsFrameHandler(new ResultReader(4));
    EmbeddedChannel channel = new EmbeddedChannel(handler);
    handler.expect(7, new RecordingSink());
    handler.expect(3, new RecordingSink());
    CqlFrameException fatal =
        FrameErrors.connectionError(
            CqlFrameException.Reason.CRC24_MISMATCH,
            42,
            "segment header",
            "header CRC24 mismatch",
            null);
    channel.pipeline().fireExceptionCaught(fatal);
    RowsFailure first = channel.readInbound();
    RowsFailure second = channel.readInbound();
    assertEquals(3, first.streamId());
    assertEquals(7, second.streamId());
    assertSame(fatal, first.cause());
    assertTrue(first.cause().connectionLevel());
    assertEquals(0, handler.pendingCount());
    // the exception itself still reaches the end of the pipeline
    assertSame(fatal, assertThrows(CqlFrameException.class, channel::checkException));
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void failsEveryPendingStreamWhenTheChannelCloses() {
    RowsFrameHandler handler = new RowsFrameHandler(new ResultReader(4));
    EmbeddedChannel channel = new EmbeddedChannel(handler);
    handler.expect(5, new RecordingSink());
    channel.close();
    RowsFailure failure = channel.readInbound();
    assertEquals(5, failure.streamId());
    assertTrue(failure.cause().connectionLevel());
    assertNull(failure.parseError());
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void passesNonResultFramesDownstreamUnreleased() {
    RowsFrameHandler handler = new RowsFrameHandler(new ResultReader(4));
    EmbeddedChannel channel = new EmbeddedChannel(handler);
    handler.expect(3, new RecordingSink());
    Frame error = frame(3, Opcode.ERROR, CqlBytes.create().int32(0x2200).string("bad query"));
    Frame event = frame(-1, Opcode.EVENT, CqlBytes.create().string("SCHEMA_CHANGE"));
    channel.writeInbound(error, event);
    assertSame(error, channel.readInbound());
    assertSame(event, channel.readInbound());
    assertTrue(error.release());
    assertTrue(event.release());
    assertEquals(0, handler.pendingCount(), "the ERROR answered stream 3");
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void passesUnregisteredResultDownstreamWhenTheDefaultSinkIsNull() {
    Function<Frame, RowSink> none = f -> null;
    EmbeddedChannel channel = new EmbeddedChannel(new RowsFrameHandler(new ResultReader(4), none));
    Frame frame = result(5, rows(CqlBytes.create().bytes("00000001").bytes("00000002")), -1);
    channel.writeInbound(frame);
    assertSame(frame, channel.readInbound());
    assertTrue(frame.release());
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void parsesUnregisteredResultIntoTheDefaultSinkWithFrameInfo() {
    RecordingSink sink = new RecordingSink();
    RowsFrameHandler handler = new RowsFrameHandler(new ResultReader(4), f -> sink);
    EmbeddedChannel channel = new EmbeddedChannel(handler);
    UUID tracing = UUID.randomUUID();
    FramePrelude prelude = new FramePrelude(tracing, List.of("careful"), Map.of());
    Frame frame =
        new Frame(
            4,
            true,
            Frame.FLAG_TRACING | Frame.FLAG_WARNING,
            6,
            Opcode.RESULT,
            prelude,
            body(rows(CqlBytes.create().bytes("00000001").bytes("00000002"))),
            -1);
    channel.writeInbound(frame);
    RowsResponse response = channel.readInbound();
    assertEquals(6, response.streamId());
    assertEquals(Frame.FLAG_TRACING | Frame.FLAG_WARNING, response.flags());
    assertEquals(List.of("careful"), response.warnings());
    assertEquals(tracing, response.tracingId());
    assertEquals("0:int 1", sink.events().get(2));
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void decodesNoMetadataRowsWithThePreparedColumns() {
    RowsFrameHandler handler = new RowsFrameHandler(new ResultReader(4));
    EmbeddedChannel channel = new EmbeddedChannel(handler);
    RecordingSink sink = new RecordingSink();
    ResultColumns prepared =
        ResultColumns.of(List.of(new ColumnSpec("ks", "t", "n", NativeType.INT)));
    handler.expect(8, sink, prepared);
    // <kind Rows><flags No_metadata><columns_count 1><rows_count 1> cell
    CqlBytes body = CqlBytes.create().int32(2).int32(0x0004).int32(1).int32(1).bytes("0000002a");
    channel.writeInbound(result(8, body, -1));
    RowsResponse response = channel.readInbound();
    assertSame(prepared, ((RowsResult) response.result()).metadata().columns());
    assertEquals("0:int 42", sink.events().get(2));
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void turnsFrameLocalDecoderErrorOfARegisteredStreamIntoAFailure() {
    RowsFrameHandler handler = new RowsFrameHandler(new ResultReader(4));
    EmbeddedChannel channel = new EmbeddedChannel(handler);
    handler.expect(4, new RecordingSink());
    CqlFrameException local =
        FrameErrors.frameError(
            CqlFrameException.Reason.BAD_PRELUDE, 4, 10, "malformed frame prelude", null);
    channel.pipeline().fireExceptionCaught(local);
    RowsFailure failure = channel.readInbound();
    assertSame(local, failure.cause());
    assertNull(failure.parseError());

    CqlFrameException fatal =
        FrameErrors.connectionError(CqlFrameException.Reason.BAD_VERSION, 0, "version byte: 0x07");
    channel.pipeline().fireExceptionCaught(fatal);
    assertSame(fatal, assertThrows(CqlFrameException.class, channel::checkException));
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void rejectsASecondRegistrationForTheSameStream() {
    RowsFrameHandler handler = new RowsFrameHandler(new ResultReader(4));
    handler.expect(1, new RecordingSink());
    assertThrows(IllegalStateException.class, () -> handler.expect(1, new RecordingSink()));
    assertThrows(IllegalArgumentException.class, () -> handler.expect(-1, new RecordingSink()));
    assertTrue(handler.cancel(1));
    assertFalse(handler.cancel(1));
  }

  @Test
  void passesVoidResultSummaryForARegisteredStream() {
    RowsFrameHandler handler = new RowsFrameHandler(new ResultReader(4));
    EmbeddedChannel channel = new EmbeddedChannel(handler);
    RecordingSink sink = new RecordingSink();
    handler.expect(9, sink);
    channel.writeInbound(result(9, CqlBytes.create().int32(1), -1));
    RowsResponse response = channel.readInbound();
    assertInstanceOf(VoidResult.class, response.result());
    assertTrue(sink.events().isEmpty());
    assertFalse(channel.finishAndReleaseAll());
  }

  // ---- ScyllaDB tablets-routing-v1 (transport/server.cc, docs/dev/protocol-extensions.md) ----

  private static final ProtocolFeatures TABLETS =
      ProtocolFeatures.NONE.withExtension(ProtocolFeatures.TABLETS_ROUTING_V1);

  private static Frame withPayload(int streamId, byte[] routing, CqlBytes body) {
    Map<String, byte[]> payload = new LinkedHashMap<>();
    payload.put("other", new byte[] {7});
    payload.put(TabletRouting.PAYLOAD_KEY, routing);
    return new Frame(
        4,
        true,
        Frame.FLAG_CUSTOM_PAYLOAD,
        streamId,
        Opcode.RESULT,
        new FramePrelude(null, List.of(), payload),
        body(body),
        50);
  }

  @Test
  void decodesTheTabletRoutingOfAResultUnderTheExtension() {
    RowsFrameHandler handler =
        new RowsFrameHandler(new ResultReader(4, ParseLimits.defaults(), TABLETS));
    EmbeddedChannel channel = new EmbeddedChannel(handler);
    handler.expect(3, new RecordingSink());
    byte[] value = ScyllaSession.tabletsValue();
    channel.writeInbound(
        withPayload(3, value, rows(CqlBytes.create().bytes("00000001").bytes("00000002"))));
    RowsResponse response = channel.readInbound();
    assertEquals(ScyllaSession.TABLET_FIRST, response.tablets().firstToken());
    assertEquals(2, response.tablets().replicas().size());
    assertEquals(2, response.customPayload().size(), "the raw payload stays");
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void withoutTheExtensionThePayloadStaysRaw() {
    RowsFrameHandler handler = new RowsFrameHandler(new ResultReader(4));
    EmbeddedChannel channel = new EmbeddedChannel(handler);
    handler.expect(3, new RecordingSink());
    channel.writeInbound(
        withPayload(
            3, new byte[] {1, 2, 3}, rows(CqlBytes.create().bytes("00000001").bytes("00000002"))));
    RowsResponse response = channel.readInbound();
    assertNull(response.tablets());
    assertEquals(3, response.customPayload().get(TabletRouting.PAYLOAD_KEY).length);
    assertFalse(channel.finishAndReleaseAll());
  }

  /** A malformed routing value fails its stream only; no row reaches its sink. */
  @Test
  void aMalformedTabletRoutingFailsOnlyItsStream() {
    RowsFrameHandler handler =
        new RowsFrameHandler(new ResultReader(4, ParseLimits.defaults(), TABLETS));
    EmbeddedChannel channel = new EmbeddedChannel(handler);
    RecordingSink bad = new RecordingSink();
    RecordingSink good = new RecordingSink();
    handler.expect(1, bad);
    handler.expect(2, good);
    Frame broken =
        withPayload(
            1,
            new byte[] {0, 0, 0, 8, 1},
            rows(CqlBytes.create().bytes("00000001").bytes("00000002")));
    channel.writeInbound(
        broken, result(2, rows(CqlBytes.create().bytes("00000003").bytes("00000004")), -1));
    assertEquals(0, broken.refCnt());
    RowsFailure failure = channel.readInbound();
    assertEquals(1, failure.streamId());
    assertFalse(failure.cause().connectionLevel());
    assertEquals(CqlParseException.Reason.TRUNCATED, failure.parseError().reason());
    assertTrue(bad.events().isEmpty());
    RowsResponse response = channel.readInbound();
    assertEquals(2, response.streamId());
    assertNull(response.tablets());
    assertEquals("0:int 3", good.events().get(2));
    assertFalse(channel.finishAndReleaseAll());
  }

  /** The same for a streamed body: decoded from the head; a bad one drops the chunks. */
  @Test
  void aStreamedResultCarriesItsTabletRoutingOrFailsBeforeItsRows() {
    byte[] value = ScyllaSession.tabletsValue();
    for (byte[] v : new byte[][] {value, {0, 0, 0, 8, 1}}) {
      RowsFrameHandler handler =
          new RowsFrameHandler(new ResultReader(4, ParseLimits.defaults(), TABLETS));
      EmbeddedChannel channel = new EmbeddedChannel(handler);
      RecordingSink sink = new RecordingSink();
      handler.expectStreaming(4, sink, null);
      byte[] body = rows(CqlBytes.create().bytes("00000001").bytes("00000002")).toArray();
      Map<String, byte[]> payload = Map.of(TabletRouting.PAYLOAD_KEY, v);
      channel.writeInbound(
          new FrameHead(
              4,
              true,
              Frame.FLAG_CUSTOM_PAYLOAD,
              4,
              Opcode.RESULT,
              new FramePrelude(null, List.of(), payload),
              body.length,
              0));
      channel.writeInbound(
          new FrameChunk(4, ByteBufAllocator.DEFAULT.buffer().writeBytes(body, 0, 10), false));
      channel.writeInbound(
          new FrameChunk(
              4, ByteBufAllocator.DEFAULT.buffer().writeBytes(body, 10, body.length - 10), true));
      Object msg = channel.readInbound();
      if (v == value) {
        RowsResponse response = assertInstanceOf(RowsResponse.class, msg);
        assertEquals(ScyllaSession.TABLET_LAST, response.tablets().lastToken());
        assertEquals("0:int 1", sink.events().get(2));
      } else {
        RowsFailure failure = assertInstanceOf(RowsFailure.class, msg);
        assertEquals(4, failure.streamId());
        assertTrue(sink.events().isEmpty(), sink.events().toString());
        assertNull(channel.readInbound());
      }
      assertFalse(channel.finishAndReleaseAll());
    }
  }

  /** A client learns the extensions after installing the handler. */
  @Test
  void negotiatedFeaturesApplyToLaterResults() {
    RowsFrameHandler handler = new RowsFrameHandler(new ResultReader(4));
    assertEquals(ProtocolFeatures.NONE, handler.features());
    handler.negotiated(TABLETS);
    assertEquals(TABLETS, handler.features());
  }

  /** A ROWS body with Global_tables_spec ks.t, columns id int and v int, one row of cells. */
  private static CqlBytes rows(CqlBytes cells) {
    return CqlBytes.create()
        .int32(2) // kind: Rows
        .int32(0x0001)
        .int32(2)
        .string("ks")
        .string("t") // flags, columns_count, global spec
        .columnSpec("id", INT)
        .columnSpec("v", INT)
        .int32(1) // rows_count
        .hex(cells.toHex());
  }

  /**
   * A sink that throws while its body streams in is treated as one that throws on a whole frame: a
   * request sent through send() fails with the sink's exception and the connection goes on, and a
   * registration made with expect() has the exception thrown on; the rest of the body is dropped
   * and the stream id is free again.
   */
  @Test
  void aSinkThatThrowsOnAStreamedBodyFailsOnlyItsRequest() {
    RowsFrameHandler handler = new RowsFrameHandler(new ResultReader(4));
    EmbeddedChannel channel = new EmbeddedChannel(handler);
    IllegalStateException boom = new IllegalStateException("the sink gives up");
    var future =
        handler.send(
            new Requests(4, Compression.NONE).query(channel.alloc(), 0, "SELECT id FROM ks.t"),
            throwingAtRow(2, boom),
            null,
            Duration.ofSeconds(30),
            true);
    ByteBuf written = channel.readOutbound();
    int stream = written.getShort(2);
    written.release();
    streamIn(channel, stream, 5);
    channel.checkException();
    assertTrue(future.isCompletedExceptionally(), "the request failed");
    ExecutionException failed = assertThrows(ExecutionException.class, future::get);
    assertSame(boom, failed.getCause());
    assertTrue(channel.isOpen());
    assertEquals(0, handler.pendingCount());
    assertNull(channel.readInbound());

    handler.expectStreaming(7, throwingAtRow(1, boom), null);
    streamIn(channel, 7, 5);
    assertSame(boom, assertThrows(IllegalStateException.class, channel::checkException));
    RecordingSink sink = new RecordingSink();
    handler.expect(7, sink); // the registration was used up
    channel.writeInbound(result(7, rows(CqlBytes.create().bytes("00000001").nullCell()), -1));
    assertInstanceOf(RowsResponse.class, channel.readInbound());
    assertFalse(channel.finishAndReleaseAll());
  }

  @Test
  void aLazySinkTakesTheFramesBodyAsAPageThatOutlivesTheFrame() {
    RowsFrameHandler handler = new RowsFrameHandler(new ResultReader(4));
    EmbeddedChannel channel = new EmbeddedChannel(handler);
    io.cqlrows.core.LazyPageSink sink = new io.cqlrows.core.LazyPageSink();
    handler.expect(3, sink);
    Frame frame = result(3, rows(CqlBytes.create().bytes("00000007").nullCell()), 100);
    ByteBuf body = frame.body();
    channel.writeInbound(frame);
    assertInstanceOf(RowsResponse.class, channel.readInbound());
    assertEquals(1, body.refCnt(), "the handler released the frame; the page holds the body");
    try (io.cqlrows.core.LazyPage page = sink.poll()) {
      assertEquals(7, page.row(0).getInt(0));
      assertTrue(page.row(0).isNull(1));
    }
    assertEquals(0, body.refCnt(), "released with the page");

    // a streamed body is gathered into the page's own copy, and reaches the sink once complete
    handler.expectStreaming(9, sink, null);
    streamIn(channel, 9, 5);
    channel.checkException();
    assertInstanceOf(RowsResponse.class, channel.readInbound());
    try (io.cqlrows.core.LazyPage page = sink.poll()) {
      assertEquals(5, page.size());
      assertEquals(4, page.row(4).getInt("id"));
    }
    assertNull(sink.poll());
    assertFalse(channel.finishAndReleaseAll());
  }

  /** A sink that throws at the start of row {@code row}. */
  private static RowSink throwingAtRow(int row, RuntimeException e) {
    return new RowSink() {
      @Override
      public void onRowStart(int r) {
        if (r == row) {
          throw e;
        }
      }

      @Override
      public void onRowEnd(int r) {}

      @Override
      public void onNull(int column) {}

      @Override
      public void onNotSet(int column) {}

      @Override
      public void onEmpty(int column) {}

      @Override
      public void onObject(int column, Object value) {}
    };
  }

  /**
   * A ROWS body of {@code rows} rows in a head and two chunks, the last one marked so. Fired
   * without checking for exceptions in between: an exception is left for {@code checkException}.
   */
  private static void streamIn(EmbeddedChannel channel, int stream, int rows) {
    CqlBytes cells = CqlBytes.create();
    for (int r = 0; r < rows; r++) {
      cells.bytes(String.format("%08x", r)).nullCell();
    }
    byte[] body =
        CqlBytes.create()
            .int32(2)
            .int32(0x0001)
            .int32(2)
            .string("ks")
            .string("t")
            .columnSpec("id", INT)
            .columnSpec("v", INT)
            .int32(rows)
            .hex(cells.toHex())
            .toArray();
    channel
        .pipeline()
        .fireChannelRead(
            new FrameHead(4, true, 0, stream, Opcode.RESULT, FramePrelude.NONE, body.length, -1));
    int half = body.length / 2;
    channel
        .pipeline()
        .fireChannelRead(
            new FrameChunk(
                stream, ByteBufAllocator.DEFAULT.buffer().writeBytes(body, 0, half), false));
    channel
        .pipeline()
        .fireChannelRead(
            new FrameChunk(
                stream,
                ByteBufAllocator.DEFAULT.buffer().writeBytes(body, half, body.length - half),
                true));
  }

  private static Frame result(int streamId, CqlBytes body, long bodyOffset) {
    return new Frame(
        4, true, 0, streamId, Opcode.RESULT, FramePrelude.NONE, body(body), bodyOffset);
  }

  private static Frame frame(int streamId, Opcode opcode, CqlBytes body) {
    return new Frame(4, true, 0, streamId, opcode, body(body));
  }

  /** The bytes in a buffer the leak check tracks; the caller owns the buffer and releases it. */
  private static ByteBuf body(CqlBytes bytes) {
    return ByteBufAllocator.DEFAULT.buffer().writeBytes(bytes.toArray());
  }
}
