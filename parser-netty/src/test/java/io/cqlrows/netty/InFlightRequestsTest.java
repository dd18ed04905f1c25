package io.cqlrows.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.core.RowsResult;
import io.cqlrows.core.VoidResult;
import io.cqlrows.netty.frame.Compression;
import io.cqlrows.netty.frame.CqlConnectionException;
import io.cqlrows.netty.frame.CqlConnectionException.Reason;
import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.netty.frame.CqlServerError;
import io.cqlrows.netty.internal.FrameErrors;
import io.cqlrows.netty.request.Consistency;
import io.cqlrows.netty.request.QueryParameters;
import io.cqlrows.netty.rows.RowsResponse;
import io.cqlrows.testing.CqlBytes;
import io.cqlrows.testing.RecordingSink;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The requests in flight of a connection ({@link CqlPipeline#send}) on an {@link EmbeddedChannel}
 * whose clock the test moves: stream ids picked and freed, deadlines, orphaned ids and their late
 * answers, cancelling, the limit on orphans, and how every pending request fails when the
 * connection ends (closed by either side, reset, a broken byte stream).
 */
class InFlightRequestsTest {
  private static final Duration TIMEOUT = Duration.ofSeconds(2);
  private static final int INT = 0x0009;

  private final EmbeddedChannel channel = new EmbeddedChannel();
  private final List<Object> downstream = new ArrayList<>();
  private CqlPipeline cql;

  private void install(int maxOrphans) {
    channel.freezeTime();
    cql =
        CqlPipeline.builder(4, Compression.NONE)
            .requestTimeout(TIMEOUT)
            .maxOrphans(maxOrphans)
            .install(channel.pipeline());
    channel
        .pipeline()
        .addLast(
            new ChannelInboundHandlerAdapter() {
              @Override
              public void channelRead(ChannelHandlerContext ctx, Object msg) {
                downstream.add(msg);
                ReferenceCountUtil.release(msg);
              }

              @Override
              public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                downstream.add(cause);
              }
            });
  }

  @AfterEach
  void finish() {
    channel.finishAndReleaseAll();
  }

  /** Sends a QUERY and returns its future; the written request is read back by {@link #sent}. */
  private CompletableFuture<RowsResponse> query(RecordingSink sink) {
    return cql.send(
        cql.requests()
            .query(channel.alloc(), 0, "SELECT v FROM ks.t", QueryParameters.of(Consistency.ONE)),
        sink);
  }

  /** The stream id of the next request written to the socket. */
  private int sent() {
    ByteBuf request = channel.readOutbound();
    try {
      return request.getShort(request.readerIndex() + 2);
    } finally {
      request.release();
    }
  }

  private void answer(int stream, int opcode, CqlBytes body) {
    channel.writeInbound(CqlTestFrames.frame(0x84, 0, stream, opcode, body.toArray()));
  }

  private void answerRows(int stream, int value) {
    answer(
        stream,
        0x08,
        CqlBytes.create()
            .int32(2)
            .int32(0x0001)
            .int32(1)
            .string("ks")
            .string("t")
            .columnSpec("v", INT)
            .int32(1)
            .bytes(String.format("%08x", value)));
  }

  private void answerVoid(int stream) {
    answer(stream, 0x08, CqlBytes.create().int32(1));
  }

  private void advance(Duration d) {
    channel.advanceTimeBy(d.toNanos(), TimeUnit.NANOSECONDS);
    channel.runScheduledPendingTasks();
  }

  private static Throwable failure(CompletableFuture<?> future) {
    assertTrue(future.isDone(), "done");
    ExecutionException e = assertThrows(ExecutionException.class, future::get);
    return e.getCause();
  }

  private static CqlConnectionException connectionFailure(
      CompletableFuture<?> future, Reason reason) {
    CqlConnectionException e = assertInstanceOf(CqlConnectionException.class, failure(future));
    assertEquals(reason, e.reason());
    return e;
  }

  @Test
  void eachRequestTakesAFreeIdAndItsAnswerCompletesItThenFreesTheId() throws Exception {
    install(8);
    RecordingSink a = new RecordingSink();
    RecordingSink b = new RecordingSink();
    CompletableFuture<RowsResponse> fa = query(a);
    CompletableFuture<RowsResponse> fb = query(b);
    int ida = sent();
    int idb = sent();
    assertNotEquals(ida, idb);
    assertEquals(2, cql.rows().pendingCount());

    answerRows(idb, 7); // out of order
    answerVoid(ida);
    assertEquals(1, assertInstanceOf(RowsResult.class, fb.get().result()).rowCount());
    assertTrue(b.events().contains("0:int 7"));
    assertInstanceOf(VoidResult.class, fa.get().result());
    assertEquals(List.of(), a.events());
    assertEquals(0, cql.rows().pendingCount());
    assertEquals(List.of(), downstream, "nothing of a sent request goes downstream");
  }

  @Test
  void anErrorFailsOnlyItsRequest() throws Exception {
    install(8);
    CompletableFuture<RowsResponse> failing = query(new RecordingSink());
    CompletableFuture<RowsResponse> other = query(new RecordingSink());
    int id = sent();
    int otherId = sent();
    answer(id, 0x00, CqlBytes.create().int32(0x2200).string("bad query"));
    CqlServerError error = assertInstanceOf(CqlServerError.class, failure(failing));
    assertEquals(0x2200, error.code());
    assertFalse(other.isDone());
    answerVoid(otherId);
    assertInstanceOf(VoidResult.class, other.get().result());
    assertTrue(channel.isOpen());
  }

  @Test
  void aDeadlineFailsTheRequestAndItsLateAnswerReachesNoOtherRequest() throws Exception {
    install(8);
    RecordingSink lateSink = new RecordingSink();
    CompletableFuture<RowsResponse> late = query(lateSink);
    int lateId = sent();
    advance(TIMEOUT.minusMillis(1));
    assertFalse(late.isDone());
    advance(Duration.ofMillis(1));
    CqlConnectionException e = connectionFailure(late, Reason.REQUEST_TIMEOUT);
    assertEquals(lateId, e.streamId());
    assertEquals(1, cql.rows().orphanedCount());

    // a new request gets another id; the late answer on the orphaned one is dropped
    RecordingSink nextSink = new RecordingSink();
    CompletableFuture<RowsResponse> next = query(nextSink);
    int nextId = sent();
    assertNotEquals(lateId, nextId);
    answerRows(lateId, 1);
    assertFalse(next.isDone(), "the late answer completed another request");
    assertEquals(List.of(), nextSink.events());
    assertEquals(List.of(), lateSink.events(), "nor reached the sink that gave up");
    assertEquals(List.of(), downstream, "nor went downstream");
    assertEquals(0, cql.rows().orphanedCount(), "the orphaned id is free again");

    answerRows(nextId, 2);
    assertTrue(nextSink.events().contains("0:int 2"));
    assertEquals(1, ((RowsResult) next.get().result()).rowCount());
  }

  @Test
  void anOrphanedIdIsNeverHandedOutBeforeItsAnswerCame() throws Exception {
    install(8);
    CompletableFuture<RowsResponse> late = query(new RecordingSink());
    int lateId = sent();
    advance(TIMEOUT);
    connectionFailure(late, Reason.REQUEST_TIMEOUT);

    // every other id in use: the orphaned one is not taken
    List<CompletableFuture<RowsResponse>> others = new ArrayList<>();
    for (int i = 1; i < 32768; i++) {
      others.add(query(new RecordingSink()));
      assertNotEquals(lateId, sent());
    }
    CompletableFuture<RowsResponse> refused = query(new RecordingSink());
    assertEquals(
        Reason.STREAMS_EXHAUSTED, connectionFailure(refused, Reason.STREAMS_EXHAUSTED).reason());
    assertNull(channel.readOutbound(), "nothing written for it");

    // the late answer frees the id, which the next request takes, and answers only its own
    answerVoid(lateId);
    RecordingSink sink = new RecordingSink();
    CompletableFuture<RowsResponse> reused = query(sink);
    assertEquals(lateId, sent());
    assertFalse(reused.isDone());
    answerRows(lateId, 9);
    assertTrue(sink.events().contains("0:int 9"));
    assertEquals(0, others.stream().filter(CompletableFuture::isDone).count());
  }

  @Test
  void cancellingAFutureOrphansItsIdTheSameWay() {
    install(8);
    RecordingSink sink = new RecordingSink();
    CompletableFuture<RowsResponse> f = query(sink);
    int id = sent();
    assertTrue(f.cancel(true));
    assertThrows(CancellationException.class, f::join);
    assertEquals(1, cql.rows().orphanedCount());
    assertEquals(0, cql.rows().pendingCount());
    ByteBuf late = CqlTestFrames.frame(0x84, 0, id, 0x08, CqlBytes.create().int32(1).toArray());
    channel.writeInbound(late);
    assertEquals(0, late.refCnt(), "released");
    assertEquals(List.of(), sink.events());
    assertEquals(List.of(), downstream);
    assertEquals(0, cql.rows().orphanedCount());
  }

  @Test
  void aFrameErrorOnAnOrphanedStreamFreesItQuietly() {
    install(8);
    CompletableFuture<RowsResponse> f = query(new RecordingSink());
    int id = sent();
    advance(TIMEOUT);
    connectionFailure(f, Reason.REQUEST_TIMEOUT);
    channel
        .pipeline()
        .fireExceptionCaught(
            FrameErrors.frameError(
                CqlFrameException.Reason.BAD_PRELUDE, id, 10, "late and broken", null));
    assertEquals(0, cql.rows().orphanedCount());
    assertEquals(List.of(), downstream, "nobody waits for it");
    assertTrue(channel.isOpen());
  }

  @Test
  void tooManyOrphansBreakTheConnection() {
    install(2);
    List<CompletableFuture<RowsResponse>> stale = new ArrayList<>();
    for (int i = 0; i < 3; i++) { // sent at 0, 10 and 20 ms
      stale.add(query(new RecordingSink()));
      sent();
      advance(Duration.ofMillis(10));
    }
    CompletableFuture<RowsResponse> young = query(new RecordingSink()); // at 30 ms
    sent();
    advance(TIMEOUT.minusMillis(15)); // 2015 ms: two time out, two orphans are allowed
    assertTrue(channel.isOpen());
    assertFalse(young.isDone());
    assertFalse(stale.get(2).isDone());
    advance(Duration.ofMillis(10)); // 2025 ms: the third, one orphan too many
    for (CompletableFuture<RowsResponse> f : stale) {
      connectionFailure(f, Reason.REQUEST_TIMEOUT);
    }
    connectionFailure(young, Reason.TOO_MANY_ORPHANS);
    assertFalse(channel.isOpen(), "closed");
    assertInstanceOf(CqlConnectionException.class, downstream.get(0));
    connectionFailure(query(new RecordingSink()), Reason.TOO_MANY_ORPHANS);
  }

  @Test
  void aRequestMayHaveItsOwnDeadline() {
    install(8);
    CompletableFuture<RowsResponse> quick =
        cql.send(
            cql.requests()
                .query(channel.alloc(), 0, "SELECT 1", QueryParameters.of(Consistency.ONE)),
            new RecordingSink(),
            Duration.ofMillis(100));
    CompletableFuture<RowsResponse> normal = query(new RecordingSink());
    advance(Duration.ofMillis(100));
    connectionFailure(quick, Reason.REQUEST_TIMEOUT);
    assertFalse(normal.isDone());
    assertThrows(
        IllegalArgumentException.class,
        () ->
            cql.send(
                cql.requests()
                    .query(channel.alloc(), 0, "SELECT 1", QueryParameters.of(Consistency.ONE)),
                new RecordingSink(),
                Duration.ZERO));
  }

  @Test
  void closingFailsEveryPendingRequestAtOnceAsClosedByTheClient() {
    install(8);
    CompletableFuture<RowsResponse> a = query(new RecordingSink());
    CompletableFuture<RowsResponse> b = query(new RecordingSink());
    channel.close();
    connectionFailure(a, Reason.CLOSED_BY_CLIENT);
    connectionFailure(b, Reason.CLOSED_BY_CLIENT);
    connectionFailure(query(new RecordingSink()), Reason.CLOSED_BY_CLIENT);
  }

  @Test
  void theServerClosingFailsThemAsClosedByTheServerEvenInsideAFrame() {
    install(8);
    CompletableFuture<RowsResponse> a = query(new RecordingSink());
    int id = sent();
    byte[] whole =
        CqlTestFrames.frameBytes(0x84, 0, id, 0x08, CqlBytes.create().int32(1).toArray());
    channel.writeInbound(channel.alloc().buffer().writeBytes(whole, 0, whole.length - 2));
    assertFalse(a.isDone());
    channel.unsafe().close(channel.voidPromise()); // the peer's FIN: no close() from a handler
    CqlConnectionException e = connectionFailure(a, Reason.CLOSED_BY_SERVER);
    CqlFrameException cut = assertInstanceOf(CqlFrameException.class, e.getCause());
    assertEquals(CqlFrameException.Reason.TRUNCATED, cut.reason());
  }

  @Test
  void aResetFailsEveryPendingRequestAndClosesTheChannel() {
    install(8);
    CompletableFuture<RowsResponse> a = query(new RecordingSink());
    IOException reset = new IOException("Connection reset by peer");
    channel.pipeline().fireExceptionCaught(reset);
    CqlConnectionException e = connectionFailure(a, Reason.RESET);
    assertSame(reset, e.getCause());
    assertFalse(channel.isOpen());
  }

  /**
   * A write the socket refuses (the server is gone) ends the connection for every request, with the
   * reason the socket gave, not only for the one written.
   */
  @Test
  void aWriteTheSocketRefusesFailsEveryRequestWithTheSocketsReason() {
    install(8);
    CompletableFuture<RowsResponse> pending = query(new RecordingSink());
    sent();
    channel
        .pipeline()
        .addFirst(
            new ChannelOutboundHandlerAdapter() {
              @Override
              public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
                ReferenceCountUtil.release(msg);
                promise.setFailure(new IOException("Broken pipe"));
              }
            });
    CompletableFuture<RowsResponse> written = query(new RecordingSink());
    connectionFailure(written, Reason.CLOSED_BY_SERVER);
    connectionFailure(pending, Reason.CLOSED_BY_SERVER);
    assertFalse(channel.isOpen());
    connectionFailure(query(new RecordingSink()), Reason.CLOSED_BY_SERVER);
  }

  @Test
  void aBrokenByteStreamFailsEveryPendingRequestWithItsErrorAndClosesTheChannel() {
    install(8);
    CompletableFuture<RowsResponse> a = query(new RecordingSink());
    CompletableFuture<RowsResponse> b = query(new RecordingSink());
    channel.writeInbound(
        channel
            .alloc()
            .buffer()
            .writeBytes(
                new byte[] {0x47, 0x45, 0x54, 0x20, 0x2f, 0x20, 0x48, 0x54, 0x54})); // "GET / HTT"
    for (CompletableFuture<RowsResponse> f : List.of(a, b)) {
      CqlFrameException e = assertInstanceOf(CqlFrameException.class, failure(f));
      assertEquals(CqlFrameException.Reason.BAD_VERSION, e.reason());
      assertTrue(e.connectionLevel());
    }
    assertFalse(channel.isOpen());
  }

  @Test
  void aStreamedAnswerPastItsDeadlineStopsReachingTheSink() throws Exception {
    install(8);
    cql.streamResultsFrom(1);
    RecordingSink sink = new RecordingSink();
    CompletableFuture<RowsResponse> f = query(sink);
    int id = sent();
    // three rows of one int column; the first row's bytes arrive before the deadline
    byte[] frame =
        CqlTestFrames.frameBytes(
            0x84,
            0,
            id,
            0x08,
            CqlBytes.create()
                .int32(2)
                .int32(0x0001)
                .int32(1)
                .string("ks")
                .string("t")
                .columnSpec("v", INT)
                .int32(3)
                .bytes("00000001")
                .bytes("00000002")
                .bytes("00000003")
                .toArray());
    int cut = frame.length - 16;
    channel.writeInbound(channel.alloc().buffer().writeBytes(frame, 0, cut));
    assertTrue(sink.events().contains("0:int 1"));
    advance(TIMEOUT);
    connectionFailure(f, Reason.REQUEST_TIMEOUT);
    List<String> seen = List.copyOf(sink.events());
    channel.writeInbound(channel.alloc().buffer().writeBytes(frame, cut, frame.length - cut));
    assertEquals(seen, sink.events(), "no row after the deadline");
    assertEquals(0, cql.rows().orphanedCount(), "the id is free once the body is over");
    assertEquals(List.of(), downstream);

    RecordingSink after = new RecordingSink();
    CompletableFuture<RowsResponse> next = query(after);
    answerRows(sent(), 5);
    assertTrue(after.events().contains("0:int 5"));
    assertTrue(next.isDone());
  }
}
