package io.cqlrows.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.core.PreparedResult;
import io.cqlrows.core.sink.RowsCollector;
import io.cqlrows.netty.EventLoops;
import io.cqlrows.netty.frame.Compression;
import io.cqlrows.netty.frame.CqlConnectionException;
import io.cqlrows.testing.LeakCheckExtension;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoopGroup;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link CqlClient} with all {@value #STREAM_IDS} stream ids of its connection in use, against a
 * {@link FakeCqlServer} that answers none of them ({@code HOLD} and {@code NEVER}). What the client
 * does then:
 *
 * <ul>
 *   <li>the next request (QUERY or PREPARE) fails with a {@link CqlConnectionException} ({@code
 *       STREAMS_EXHAUSTED}), at once: a request made on the event loop returns a future that has
 *       already failed. Nothing is written for it (no write reaches the socket), its envelope is
 *       released, its sink sees nothing, and the requests in flight stay in flight on a connection
 *       that stays open;
 *   <li>when one response arrives, its id is free: the next request takes that id and succeeds, and
 *       while it is in flight the request after it fails again;
 *   <li>closing the connection fails every request still in flight with a {@link
 *       CqlConnectionException} ({@code CLOSED_BY_CLIENT}).
 * </ul>
 *
 * <p>Tagged {@code load}: its 32,768 requests take a quarter of a minute, so {@code mvn verify}
 * leaves it out and {@code -Pload} runs it ({@code InFlightRequestsTest} checks the same exhaustion
 * on an embedded channel in every build).
 */
@Tag("load")
class StreamIdExhaustionTest {
  private static final long TIMEOUT_SECONDS = 60;

  /** Stream ids 0 to 32767. */
  private static final int STREAM_IDS = 32768;

  /** OPTIONS and STARTUP. */
  private static final int HANDSHAKE_REQUESTS = 2;

  private static EventLoopGroup group;

  private FakeCqlServer server;
  private CqlClient client;

  /** What the client writes to its socket: the handler at the head of its pipeline. */
  private volatile WriteCounter socketWrites;

  @BeforeAll
  static void startGroup() {
    group = EventLoops.nio(2);
  }

  @AfterAll
  static void stopGroup() throws InterruptedException {
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
  }

  @AfterEach
  void closeConnections() throws Exception {
    if (client != null) {
      client.close().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }
    if (server != null) {
      server.close();
    }
  }

  @ParameterizedTest
  @CsvSource({"4, NONE", "5, LZ4"})
  void theRequestAfterTheLastFreeIdFailsAtOnceAndAFreedIdIsTakenAgain(
      int version, Compression compression) throws Exception {
    server = new FakeCqlServer(group, version, compression);
    client =
        get(
            CqlClient.connect(
                "127.0.0.1",
                server.port(),
                version,
                compression,
                group,
                p -> {
                  WriteCounter counter = new WriteCounter();
                  socketWrites = counter;
                  p.addFirst("socket-writes", counter);
                }));
    PreparedResult prepared = get(client.prepare("SELECT id, name FROM ks.t WHERE id = ?"));

    // every id in use: one request the server answers on demand, the others never
    RowsCollector heldRows = new RowsCollector();
    CompletableFuture<QueryResult> held = client.query("HOLD first", heldRows, 0, null);
    List<CompletableFuture<QueryResult>> never = new ArrayList<>(STREAM_IDS - 1);
    for (int i = 1; i < STREAM_IDS; i++) {
      never.add(client.query("NEVER", new RowsCollector(), 0, null));
    }
    int received = HANDSHAKE_REQUESTS + 1 + STREAM_IDS;
    await(() -> server.requests.size() == received);
    assertEquals(STREAM_IDS, server.queries().size(), "every id is in flight");
    int heldStream = server.requests.get(HANDSHAKE_REQUESTS + 1).streamId();
    long writes = socketWrites.count();

    // one too many, from another thread: fails without a write, its envelope released
    RowsCollector refusedRows = new RowsCollector();
    Throwable refused = failure(client.query("SELECT one too many", refusedRows, 0, null));
    assertExhausted(refused);
    // and on the event loop: the future has failed when the call returns
    CompletableFuture<QueryResult> onLoop =
        onEventLoop(() -> client.query("SELECT on the loop", new RowsCollector(), 0, null));
    assertTrue(onLoop.isCompletedExceptionally(), "failed at once");
    assertExhausted(failure(onLoop));
    CompletableFuture<PreparedResult> prepare =
        onEventLoop(() -> client.prepare("SELECT name FROM ks.t WHERE id = ?"));
    assertTrue(prepare.isCompletedExceptionally(), "PREPARE failed at once");
    assertExhausted(failure(prepare));

    assertEquals(writes, socketWrites.count(), "nothing written for the refused requests");
    assertEquals(List.of(), refusedRows.rows());
    assertEquals(List.of(), LeakCheckExtension.collectLeaks(), "refused envelopes released");
    assertTrue(client.channel().isActive(), "the connection stays open");
    assertFalse(held.isDone());
    assertEquals(
        0,
        never.stream().filter(CompletableFuture::isDone).count(),
        "the requests in flight stay in flight");
    assertEquals(received, server.requests.size());

    // one response frees its id, and the next request takes it
    server.answerHeld();
    assertEquals(1, get(held).rows().rowCount());
    assertEquals(heldStream, heldRows.rows().get(0).getInt("stream"));
    RowsCollector afterRows = new RowsCollector();
    get(client.query("SELECT after", afterRows, 0, null));
    assertEquals(heldStream, afterRows.rows().get(0).getInt("stream"), "the freed id");
    assertEquals("SELECT after", afterRows.rows().get(0).getString("query"));
    assertEquals(heldStream, server.requests.get(received).streamId());

    // its response freed the id again: in one event loop task, a request takes it and the one
    // after it is refused (no response can be read in between)
    List<CompletableFuture<QueryResult>> pair =
        onEventLoop(
            () ->
                List.of(
                    client.execute(prepared, new RowsCollector(), 0, null, new byte[] {0, 0, 0, 7}),
                    client.query("SELECT second", new RowsCollector(), 0, null)));
    assertTrue(pair.get(1).isCompletedExceptionally(), "no free id for the second");
    assertExhausted(failure(pair.get(1)));
    QueryResult executed = get(pair.get(0));
    assertTrue(executed.rows().metadata().noMetadata());
    assertEquals(heldStream, server.requests.get(received + 1).streamId());
    assertEquals(received + 2, server.requests.size(), "the refused QUERY was not written");
    assertEquals(0, never.stream().filter(CompletableFuture::isDone).count());

    get(client.close());
    client = null;
    for (CompletableFuture<QueryResult> f : never) {
      CqlConnectionException e = assertInstanceOf(CqlConnectionException.class, failure(f));
      assertEquals(CqlConnectionException.Reason.CLOSED_BY_CLIENT, e.reason());
    }
  }

  private static void assertExhausted(Throwable failure) {
    CqlConnectionException e = assertInstanceOf(CqlConnectionException.class, failure);
    assertEquals(CqlConnectionException.Reason.STREAMS_EXHAUSTED, e.reason());
  }

  /** Counts the messages written to the socket; one per connection attempt. */
  private static final class WriteCounter extends ChannelOutboundHandlerAdapter {
    private final AtomicLong count = new AtomicLong();

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
      count.incrementAndGet();
      ctx.write(msg, promise);
    }

    long count() {
      return count.get();
    }
  }

  /** Calls {@code call} on the connection's event loop and returns what it returned. */
  private <T> T onEventLoop(Callable<T> call) throws Exception {
    return client.channel().eventLoop().submit(call).get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
  }

  private static <T> T get(CompletableFuture<T> future) throws Exception {
    return future.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
  }

  private static Throwable failure(CompletableFuture<?> future) {
    ExecutionException e =
        assertThrows(ExecutionException.class, () -> future.get(TIMEOUT_SECONDS, TimeUnit.SECONDS));
    return e.getCause();
  }

  private static void await(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out");
      }
      Thread.sleep(5);
    }
  }
}
