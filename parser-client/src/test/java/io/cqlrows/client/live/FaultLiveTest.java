package io.cqlrows.client.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.cqlrows.client.CqlClient;
import io.cqlrows.client.QueryResult;
import io.cqlrows.client.fault.Fault;
import io.cqlrows.client.fault.FaultProxy;
import io.cqlrows.client.fault.ProxyProcess;
import io.cqlrows.core.CqlException;
import io.cqlrows.core.sink.JsonLinesSink;
import io.cqlrows.netty.CqlPipeline;
import io.cqlrows.netty.EventLoops;
import io.cqlrows.netty.frame.CqlConnectionException;
import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.netty.rows.RowsFrameHandler;
import io.cqlrows.testing.LeakCheckExtension;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link CqlClient} through a {@link FaultProxy} to the live {@link CassandraServer}, with {@value
 * #IN_FLIGHT} queries of {@code system_schema.columns} in flight on one connection when the fault
 * strikes, {@value #ANSWERED_FIRST} responses after the handshake. Without a fault every request
 * gets the rows a direct connection reads (v4, v4 + LZ4, v5, v5 + LZ4). With one, in the framings
 * where it differs (v4 frames; v5 segments, uncompressed or LZ4):
 *
 * <ul>
 *   <li>a response cut mid-frame (FIN) fails every pending request at once with {@code
 *       CLOSED_BY_SERVER}, caused by a {@code TRUNCATED} frame error; a reset (RST) with {@code
 *       RESET};
 *   <li>a stalled server fails each request at its deadline with {@code REQUEST_TIMEOUT}, its
 *       stream id orphaned and the connection open; past {@code maxOrphans} the rest fail with
 *       {@code TOO_MANY_ORPHANS} and the connection closes;
 *   <li>a server stream dripped a few bytes at a time delivers every response, rows intact;
 *   <li>a dropped response fails its request alone, with {@code REQUEST_TIMEOUT} at its deadline;
 *       the others complete, and its stream id stays orphaned;
 *   <li>a declared length over {@code ParseLimits.maxFrameBodyLength} fails every pending request
 *       at once with {@code FRAME_TOO_LARGE}, naming the header's stream; a flipped bit in a v5
 *       segment with {@code CRC32_MISMATCH};
 *   <li>the proxy's process killed mid-response ({@link ProxyProcess}) fails every pending request
 *       at once with {@code CLOSED_BY_SERVER} or {@code RESET}.
 * </ul>
 *
 * <p>The requests go to the socket in one write, before any response is read, so that none is being
 * written when the fault strikes; requests written after the server ended the connection have a
 * test of their own. In every case each request ends within its deadline plus one second of being
 * sent, those answered have the direct connection's rows, and after a fault that ends the
 * connection the channel is closed and a request sent then fails at once with the same reason.
 * After each test no buffer has leaked ({@link LeakCheckExtension#collectLeaks()}) and no thread
 * started during it is alive; after the class, no thread it started is (its event loop group's
 * included).
 */
@Tag("live")
class FaultLiveTest {
  /** About 31 KB of rows uncompressed, one frame or one segment each. */
  private static final String COLUMNS = "SELECT * FROM system_schema.columns";

  /** About 1 KB of rows: several responses share a v5 segment. */
  private static final String KEYSPACES = "SELECT * FROM system_schema.keyspaces";

  /** Requests in flight when a fault strikes. */
  private static final int IN_FLIGHT = 30;

  /** The responses to requests that arrive before the fault's target. */
  private static final int ANSWERED_FIRST = 5;

  /** SUPPORTED and READY: the responses the fault counts before the first request's. */
  private static final int HANDSHAKE = 2;

  /** The deadline of the tests that wait for it (a stall, a dropped response). */
  private static final Duration SHORT = Duration.ofSeconds(2);

  /** The deadline of the tests whose fault ends the requests before it. */
  private static final Duration LONG = Duration.ofSeconds(10);

  /** How late after its deadline a request may end. */
  private static final Duration MARGIN = Duration.ofSeconds(1);

  /** The longest "at once" may take: between a fault and the failures it causes. */
  private static final Duration AT_ONCE = Duration.ofMillis(500);

  /** Requests in flight through a dripped stream. */
  private static final int DRIP_REQUESTS = 4;

  /** The bytes a drip forwards every millisecond: a prime, so that chunks split everything. */
  private static final int DRIP_BYTES = 701;

  /** The JDK's thread that waits for child processes: it idles for a minute before it ends. */
  private static final String PROCESS_REAPER = "process reaper";

  /** Netty's shared executor: its thread ends a second after its last task. */
  private static final String GLOBAL_EXECUTOR = "globalEventExecutor";

  private static EventLoopGroup group;
  private static final List<Thread> LOOP_THREADS = new ArrayList<>();

  /** The threads alive before the class's group started. */
  private static Set<Thread> threadsBeforeTheClass;

  /** Per combo and query: its rows on a direct connection, as JSON Lines. */
  private static final Map<String, String> EXPECTED = new HashMap<>();

  private Set<Thread> threadsBefore;
  private FaultProxy proxy;
  private ProxyProcess process;
  private CqlClient client;

  /** The flush gate of {@link #client}'s connection. */
  private FlushGate gate;

  /** Requests sent in this test. */
  private int sent;

  @BeforeAll
  static void startTheGroupAndReadDirectly() throws Exception {
    CassandraServer.get();
    threadsBeforeTheClass = new HashSet<>(Thread.getAllStackTraces().keySet());
    group = EventLoops.nio(2);
    for (EventExecutor loop : group) {
      LOOP_THREADS.add(
          loop.submit((Callable<Thread>) Thread::currentThread).get(10, TimeUnit.SECONDS));
    }
    for (Combo combo : Combo.values()) {
      readDirectly(combo);
    }
  }

  @AfterAll
  static void stopTheGroup() throws InterruptedException {
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(10, TimeUnit.SECONDS);
    for (Thread t : LOOP_THREADS) {
      t.join(TimeUnit.SECONDS.toMillis(5));
      assertFalse(t.isAlive(), t.getName() + " is alive after the group's shutdown");
    }
    LOOP_THREADS.clear();
    assertNoThreadLeft(threadsBeforeTheClass, false);
  }

  @BeforeEach
  void noteTheThreads() {
    threadsBefore = new HashSet<>(Thread.getAllStackTraces().keySet());
    threadsBefore.addAll(LOOP_THREADS);
  }

  @AfterEach
  void closeAndCheck() throws Exception {
    if (client != null) {
      client.close().get(10, TimeUnit.SECONDS);
      client = null;
    }
    if (proxy != null) {
      proxy.close();
      proxy = null;
    }
    if (process != null) {
      process.close();
      process = null;
    }
    assertEquals(List.of(), LeakCheckExtension.collectLeaks(), "leaked buffers");
    assertNoThreadLeft(threadsBefore, true);
  }

  /**
   * No thread but those in {@code before} is alive (waits up to 10 s for them to end), apart from
   * the JDK's process reaper and, when {@code allowGlobalExecutor}, Netty's global executor (its
   * thread ends a second after its last task: the class checks it once).
   */
  private static void assertNoThreadLeft(Set<Thread> before, boolean allowGlobalExecutor)
      throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    List<String> left;
    do {
      left = new ArrayList<>();
      for (Thread t : Thread.getAllStackTraces().keySet()) {
        String name = t.getName();
        if (!before.contains(t)
            && !name.equals(PROCESS_REAPER)
            && !(allowGlobalExecutor && name.startsWith(GLOBAL_EXECUTOR))) {
          left.add(name);
        }
      }
      if (left.isEmpty()) {
        return;
      }
      Thread.sleep(20);
    } while (System.nanoTime() < deadline);
    fail("threads started and still alive 10 s later: " + left);
  }

  /** One request: when it was sent and ended, what its sink got and how it ended. */
  private static final class Flight {
    /** The request's place in the order of sending, in its test. */
    final int index;

    final String cql;
    final long sent = System.nanoTime();
    final StringBuilder rows = new StringBuilder();
    volatile long ended;

    /** Completes once {@link #ended} is set. */
    CompletableFuture<QueryResult> done;

    Flight(int index, String cql) {
      this.index = index;
      this.cql = cql;
    }

    /** The failure, or null for a result. */
    Throwable error() {
      try {
        done.join();
        return null;
      } catch (CompletionException e) {
        return e.getCause();
      }
    }

    Duration took() {
      return Duration.ofNanos(ended - sent);
    }
  }

  /**
   * Holds back the flushes that reach it while {@link #held}, so that the requests written
   * meanwhile go to the socket together, in the flush that follows. At the head of the pipeline (a
   * connect customizer's place), after the v5 segment encoder. Event loop only.
   */
  private static final class FlushGate extends ChannelOutboundHandlerAdapter {
    boolean held;

    @Override
    public void flush(ChannelHandlerContext ctx) {
      if (!held) {
        ctx.flush();
      }
    }
  }

  private void connect(Combo combo, int port, Duration deadline, int maxOrphans) {
    FlushGate connectionGate = new FlushGate();
    client =
        LiveClients.get(
            CqlClient.builder("127.0.0.1", port)
                .protocolVersion(combo.version())
                .compression(combo.compression())
                .requestTimeout(deadline)
                .maxOrphans(maxOrphans)
                .customizer(p -> p.addLast("flushGate", connectionGate))
                .connect(group));
    gate = connectionGate;
    assertEquals(combo.version(), client.protocolVersion());
  }

  /**
   * {@code n} requests of {@code cql}, sent in one task of the connection's event loop and flushed
   * together: the socket gets them in one write, before the loop reads a response, so none is being
   * written when a fault strikes.
   */
  private List<Flight> send(String cql, int n) throws Exception {
    Channel channel = client.channel();
    return channel
        .eventLoop()
        .submit(
            () -> {
              gate.held = true;
              try {
                return sendNow(cql, n);
              } finally {
                gate.held = false;
                channel.flush();
              }
            })
        .get(10, TimeUnit.SECONDS);
  }

  /** {@code n} requests of {@code cql}, in one task of the event loop, each flushed alone. */
  private List<Flight> sendOneByOne(String cql, int n) throws Exception {
    return client.channel().eventLoop().submit(() -> sendNow(cql, n)).get(10, TimeUnit.SECONDS);
  }

  /** {@code n} requests of {@code cql}, sent one after the other, without waiting. */
  private List<Flight> sendNow(String cql, int n) {
    List<Flight> flights = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      Flight f = new Flight(sent++, cql);
      f.done =
          client
              .query(cql, new JsonLinesSink(f.rows), 0, null)
              .whenComplete((r, e) -> f.ended = System.nanoTime());
      flights.add(f);
    }
    return flights;
  }

  /** Waits for every request; each must end within its deadline plus {@link #MARGIN}. */
  private static void awaitAll(List<Flight> flights, Duration deadline)
      throws InterruptedException {
    long limit = deadline.plus(MARGIN).toNanos();
    for (Flight f : flights) {
      try {
        f.done.get(Math.max(0, f.sent + limit - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (ExecutionException e) {
        // a failure: the tests look at it
      } catch (TimeoutException e) {
        fail(
            "request "
                + f.index
                + " still pending "
                + deadline.plus(MARGIN).toMillis()
                + " ms after it was sent (deadline "
                + deadline.toMillis()
                + " ms)");
      }
      assertTrue(
          f.ended - f.sent <= limit,
          "request "
              + f.index
              + " ended after "
              + f.took().toMillis()
              + " ms (deadline "
              + deadline.toMillis()
              + " ms)");
    }
  }

  /** A proxy whose first connection gets {@code fault}; a client through it. */
  private void connectThroughProxy(Combo combo, Fault fault, Duration deadline, int maxOrphans)
      throws InterruptedException {
    CassandraServer server = CassandraServer.get();
    proxy = FaultProxy.start(server.host(), server.port());
    if (fault != null) {
      proxy.faultNextConnection(fault);
    }
    connect(combo, proxy.port(), deadline, maxOrphans);
  }

  /**
   * Sends {@value #IN_FLIGHT} queries, checks that {@code fault} fires, and waits for every
   * request.
   */
  private List<Flight> sendThrough(Fault fault, Duration deadline) throws Exception {
    List<Flight> flights = send(COLUMNS, IN_FLIGHT);
    fault.fired().get(deadline.plus(MARGIN).toMillis(), TimeUnit.MILLISECONDS);
    awaitAll(flights, deadline);
    return flights;
  }

  /** The requests answered; each has the rows of a direct connection. */
  private static List<Flight> answered(Combo combo, List<Flight> flights) {
    List<Flight> answered = new ArrayList<>();
    for (Flight f : flights) {
      if (f.error() == null) {
        String expected = EXPECTED.get(combo + " " + f.cql);
        assertNotNull(expected, "the direct connection's rows, read first");
        String rows = f.rows.toString();
        assertTrue(
            expected.equals(rows),
            "request "
                + f.index
                + ": "
                + rows.length()
                + " chars of rows, not the "
                + expected.length()
                + " of a direct connection");
        answered.add(f);
      }
    }
    return answered;
  }

  /** The requests that failed. */
  private static List<Flight> failed(List<Flight> flights) {
    return flights.stream().filter(f -> f.error() != null).toList();
  }

  /**
   * The requests answered before the fault: all {@value #ANSWERED_FIRST} on v4, whose frames before
   * the target are whole; on v5 those in the target's segment are lost with it.
   */
  private static void assertAnsweredBeforeTheFault(Combo combo, List<Flight> flights) {
    assertAnsweredBeforeTheFault(combo, flights, combo.version() == 4);
  }

  /**
   * The requests answered before the fault: {@value #ANSWERED_FIRST} if {@code all}, else at most
   * that many.
   */
  private static void assertAnsweredBeforeTheFault(Combo combo, List<Flight> flights, boolean all) {
    int answered = answered(combo, flights).size();
    if (all) {
      assertEquals(
          ANSWERED_FIRST,
          answered,
          () -> "requests answered before the fault; " + describe(failed(flights)));
    } else {
      assertTrue(
          answered <= ANSWERED_FIRST,
          () -> answered + " requests answered before the fault; " + describe(failed(flights)));
    }
  }

  /** The rows of the queries on a direct connection, for {@link #answered}. */
  private static void readDirectly(Combo combo) {
    CassandraServer server = CassandraServer.get();
    CqlClient direct =
        LiveClients.get(
            CqlClient.builder(server.host(), server.port())
                .protocolVersion(combo.version())
                .compression(combo.compression())
                .connect(group));
    try {
      for (String cql : List.of(COLUMNS, KEYSPACES)) {
        StringBuilder rows = new StringBuilder();
        LiveClients.get(direct.query(cql, new JsonLinesSink(rows), 0, null));
        assertTrue(
            rows.length() > (cql.equals(COLUMNS) ? 10_000 : 100),
            cql + ": " + rows.length() + " chars of rows");
        EXPECTED.put(combo + " " + cql, rows.toString());
      }
    } finally {
      LiveClients.get(direct.close());
    }
  }

  /** The error's typed reason: a {@link CqlConnectionException}'s or a frame error's. */
  private static CqlException.Reason reason(Throwable error) {
    return assertInstanceOf(CqlException.class, error, "a typed error").reason();
  }

  /** Every failure has one of {@code reasons}; returns how many. */
  private static int assertFailedWith(List<Flight> failed, CqlException.Reason... reasons) {
    List<CqlException.Reason> allowed = List.of(reasons);
    for (Flight f : failed) {
      assertTrue(
          allowed.contains(reason(f.error())),
          "expected " + allowed + ", got: " + describe(failed));
    }
    return failed.size();
  }

  /**
   * The failures, one line per reason (and cause's reason): the requests, in the order they were
   * sent, and the first one's error.
   */
  private static String describe(List<Flight> failed) {
    Map<String, List<Flight>> byReason = new LinkedHashMap<>();
    for (Flight f : failed) {
      Throwable e = f.error();
      String key = e instanceof CqlException c ? c.reason().name() : e.getClass().getName();
      if (e.getCause() instanceof CqlException c) {
        key += " (" + c.reason() + ")";
      }
      byReason.computeIfAbsent(key, k -> new ArrayList<>()).add(f);
    }
    StringBuilder out = new StringBuilder();
    byReason.forEach(
        (reason, flights) ->
            out.append("\n  ")
                .append(reason)
                .append(": ")
                .append(flights.stream().map(f -> f.index).toList())
                .append(", e.g. ")
                .append(flights.get(0).error()));
    return out.toString();
  }

  /** The failures ended together, well before their deadline: not one by one at it. */
  private static void assertAtOnce(List<Flight> failed, Duration deadline) {
    assertFalse(failed.isEmpty(), "requests failed by the fault");
    long first = failed.stream().mapToLong(f -> f.ended).min().orElseThrow();
    long last = failed.stream().mapToLong(f -> f.ended).max().orElseThrow();
    assertTrue(
        last - first <= AT_ONCE.toNanos(),
        failed.size() + " failures over " + (last - first) / 1_000_000 + " ms");
    for (Flight f : failed) {
      assertTrue(
          f.took().compareTo(deadline) < 0,
          "failed after " + f.took().toMillis() + " ms, at its deadline: " + f.error());
    }
  }

  /**
   * The connection broke: its channel closes, and a request sent now fails at once with the same
   * reason as the requests that were pending.
   */
  private void assertBrokenWith(CqlException.Reason reason) throws Exception {
    Channel channel = client.channel();
    assertTrue(channel.closeFuture().await(5, TimeUnit.SECONDS), "the channel closes");
    Flight late = send(KEYSPACES, 1).get(0);
    try {
      late.done.get(5, TimeUnit.SECONDS);
      fail("a request on the broken connection was answered");
    } catch (ExecutionException e) {
      assertEquals(reason, reason(late.error()), late.error().toString());
    } catch (TimeoutException e) {
      fail("a request on the broken connection is still pending after 5 s");
    }
    assertTrue(
        late.took().compareTo(AT_ONCE) <= 0,
        "a request on the broken connection failed" + " after " + late.took().toMillis() + " ms");
  }

  /** The orphaned stream ids of the client's connection, read on its event loop. */
  private int orphans() throws Exception {
    Channel channel = client.channel();
    RowsFrameHandler rows = CqlPipeline.get(channel).rows();
    return channel.eventLoop().submit(rows::orphanedCount).get(5, TimeUnit.SECONDS);
  }

  private static void report(String what, Combo combo, List<Flight> flights) {
    long slowest = flights.stream().mapToLong(f -> f.ended - f.sent).max().orElse(0);
    System.err.printf(
        "[cqlrows] %s, %s: %d answered, %d failed, slowest %d ms%s%n",
        what,
        combo,
        flights.size() - failed(flights).size(),
        failed(flights).size(),
        slowest / 1_000_000,
        describe(failed(flights)));
  }

  @ParameterizedTest
  @EnumSource(Combo.class)
  void withoutAFaultEveryRequestInFlightIsAnswered(Combo combo) throws Exception {
    connectThroughProxy(combo, null, LONG, RowsFrameHandler.DEFAULT_MAX_ORPHANS);
    List<Flight> flights = send(COLUMNS, IN_FLIGHT);
    awaitAll(flights, LONG);
    assertEquals(IN_FLIGHT, answered(combo, flights).size());
    assertEquals(HANDSHAKE + IN_FLIGHT, proxy.responsesSeen(), "responses the proxy followed");
    assertEquals(1, proxy.connectionsAccepted());
    assertTrue(
        proxy.bytesToClient() > IN_FLIGHT * 1_000L, proxy.bytesToClient() + " bytes to the client");
    report("no fault", combo, flights);
  }

  @ParameterizedTest
  @EnumSource(
      value = Combo.class,
      names = {"V4", "V5", "V5_LZ4"})
  void aCutResponseFailsEveryPendingRequestAsClosedByTheServer(Combo combo) throws Exception {
    Fault cut = Fault.cutAfterResponses(HANDSHAKE + ANSWERED_FIRST);
    connectThroughProxy(combo, cut, LONG, RowsFrameHandler.DEFAULT_MAX_ORPHANS);
    List<Flight> flights = sendThrough(cut, LONG);
    assertAnsweredBeforeTheFault(combo, flights);
    List<Flight> failed = failed(flights);
    assertFailedWith(failed, CqlConnectionException.Reason.CLOSED_BY_SERVER);
    for (Flight f : failed) {
      CqlFrameException cause =
          assertInstanceOf(
              CqlFrameException.class, f.error().getCause(), "cut inside a response: " + f.error());
      assertEquals(CqlFrameException.Reason.TRUNCATED, cause.reason(), cause.toString());
    }
    assertAtOnce(failed, LONG);
    assertBrokenWith(CqlConnectionException.Reason.CLOSED_BY_SERVER);
    report("cut", combo, flights);
  }

  @ParameterizedTest
  @EnumSource(
      value = Combo.class,
      names = {"V4", "V5_LZ4"})
  void aResetFailsEveryPendingRequestAsReset(Combo combo) throws Exception {
    Fault reset = Fault.resetAfterResponses(HANDSHAKE + ANSWERED_FIRST);
    connectThroughProxy(combo, reset, LONG, RowsFrameHandler.DEFAULT_MAX_ORPHANS);
    List<Flight> flights = sendThrough(reset, LONG);
    // a RST discards what the proxy's socket had not sent yet, whole responses included
    assertAnsweredBeforeTheFault(combo, flights, false);
    List<Flight> failed = failed(flights);
    assertFailedWith(failed, CqlConnectionException.Reason.RESET);
    assertAtOnce(failed, LONG);
    assertBrokenWith(CqlConnectionException.Reason.RESET);
    report("reset", combo, flights);
  }

  /**
   * The server ends the connection while the client still writes: its reads held back (as by a busy
   * event loop), the client writes one request, which reaches the closed socket (answered with RST
   * after a FIN), then ten in one task of its event loop, each flushed alone: the first write fails
   * and closes the channel, and the requests after it are sent on a closed channel whose end the
   * pipeline has not seen yet. Every request, pending or sent, fails with the way the server ended
   * the connection, whichever of the socket's calls saw it first.
   */
  @ParameterizedTest
  @EnumSource(
      value = Fault.Kind.class,
      names = {"CUT", "RESET"})
  void aRequestWrittenAfterTheServerEndedTheConnectionFailsAlike(Fault.Kind kind) throws Exception {
    Fault fault =
        kind == Fault.Kind.CUT
            ? Fault.cutAfterResponses(HANDSHAKE)
            : Fault.resetAfterResponses(HANDSHAKE);
    connectThroughProxy(Combo.V4, fault, LONG, RowsFrameHandler.DEFAULT_MAX_ORPHANS);
    Channel channel = client.channel();
    channel.eventLoop().submit(() -> channel.config().setAutoRead(false)).get(5, TimeUnit.SECONDS);
    List<Flight> flights = new ArrayList<>(send(KEYSPACES, 1));
    fault.fired().get(LONG.toMillis(), TimeUnit.MILLISECONDS);
    long closed = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (proxy.openConnections() > 0 && System.nanoTime() < closed) {
      Thread.sleep(10);
    }
    assertEquals(0, proxy.openConnections(), "the proxy closed the connection");
    if (kind == Fault.Kind.CUT) {
      flights.addAll(send(KEYSPACES, 1));
      Thread.sleep(100); // the RST that answers it
    }
    assertTrue(channel.isActive(), "the client has not seen the end of the connection");
    flights.addAll(sendOneByOne(KEYSPACES, 10));
    assertFalse(channel.isActive(), "a write failed and the channel closed");
    awaitAll(flights, LONG);
    List<Flight> failed = failed(flights);
    assertEquals(flights.size(), failed.size(), "requests that failed");
    assertFailedWith(
        failed,
        kind == Fault.Kind.CUT
            ? CqlConnectionException.Reason.CLOSED_BY_SERVER
            : CqlConnectionException.Reason.RESET);
    report("write after " + kind, Combo.V4, flights);
  }

  @ParameterizedTest
  @EnumSource(
      value = Combo.class,
      names = {"V4", "V5_LZ4"})
  void aStalledServerFailsEachRequestAtItsDeadline(Combo combo) throws Exception {
    Fault stall = Fault.stallAfterResponses(HANDSHAKE + ANSWERED_FIRST);
    connectThroughProxy(combo, stall, SHORT, RowsFrameHandler.DEFAULT_MAX_ORPHANS);
    List<Flight> flights = sendThrough(stall, SHORT);
    assertAnsweredBeforeTheFault(combo, flights);
    List<Flight> failed = failed(flights);
    assertFailedWith(failed, CqlConnectionException.Reason.REQUEST_TIMEOUT);
    for (Flight f : failed) {
      assertTrue(
          f.took().compareTo(SHORT) >= 0,
          "timed out after " + f.took().toMillis() + " ms, before its deadline");
    }
    assertTrue(client.channel().isActive(), "the connection stays open");
    assertEquals(failed.size(), orphans(), "stream ids orphaned until the answers come");
    report("stall", combo, flights);
  }

  @Test
  void pastMaxOrphansAStalledConnectionBreaks() throws Exception {
    Combo combo = Combo.V4;
    int maxOrphans = 10;
    Fault stall = Fault.stallAfterResponses(HANDSHAKE + ANSWERED_FIRST);
    connectThroughProxy(combo, stall, SHORT, maxOrphans);
    List<Flight> flights = sendThrough(stall, SHORT);
    assertAnsweredBeforeTheFault(combo, flights);
    List<Flight> failed = failed(flights);
    long timedOut =
        failed.stream()
            .filter(f -> reason(f.error()) == CqlConnectionException.Reason.REQUEST_TIMEOUT)
            .count();
    assertEquals(maxOrphans + 1, timedOut, "timeouts: the last one breaks the connection");
    assertEquals(
        failed.size() - timedOut,
        failed.stream()
            .filter(f -> reason(f.error()) == CqlConnectionException.Reason.TOO_MANY_ORPHANS)
            .count(),
        "the others");
    assertBrokenWith(CqlConnectionException.Reason.TOO_MANY_ORPHANS);
    report("stall, maxOrphans " + maxOrphans, combo, flights);
  }

  @ParameterizedTest
  @EnumSource(
      value = Combo.class,
      names = {"V4", "V5_LZ4"})
  void aDrippedStreamDeliversEveryResponseIntact(Combo combo) throws Exception {
    Fault drip = Fault.dripAfterResponses(HANDSHAKE, DRIP_BYTES, Duration.ofMillis(1));
    connectThroughProxy(combo, drip, LONG, RowsFrameHandler.DEFAULT_MAX_ORPHANS);
    List<Flight> flights = send(COLUMNS, DRIP_REQUESTS);
    drip.fired().get(LONG.toMillis(), TimeUnit.MILLISECONDS);
    awaitAll(flights, LONG);
    assertEquals(DRIP_REQUESTS, answered(combo, flights).size(), "requests answered");
    report("drip", combo, flights);
  }

  @ParameterizedTest
  @EnumSource(
      value = Combo.class,
      names = {"V4", "V5", "V5_LZ4"})
  void aDroppedResponseFailsItsRequestAloneAndOrphansItsId(Combo combo) throws Exception {
    Fault drop = Fault.dropAfterResponses(HANDSHAKE + ANSWERED_FIRST);
    connectThroughProxy(combo, drop, SHORT, RowsFrameHandler.DEFAULT_MAX_ORPHANS);
    List<Flight> flights = send(KEYSPACES, IN_FLIGHT);
    drop.fired().get(SHORT.plus(MARGIN).toMillis(), TimeUnit.MILLISECONDS);
    awaitAll(flights, SHORT);
    assertEquals(
        IN_FLIGHT - 1,
        answered(combo, flights).size(),
        () -> "requests answered; " + describe(failed(flights)));
    List<Flight> failed = failed(flights);
    assertEquals(1, assertFailedWith(failed, CqlConnectionException.Reason.REQUEST_TIMEOUT));
    Flight lost = failed.get(0);
    assertTrue(
        lost.took().compareTo(SHORT) >= 0, "timed out after " + lost.took().toMillis() + " ms");
    CqlConnectionException timeout = (CqlConnectionException) lost.error();
    assertEquals(drop.fired().join().streamId(), timeout.streamId(), "the dropped response's");
    assertTrue(client.channel().isActive(), "the connection stays open");
    assertEquals(1, orphans(), "the dropped response's stream id");
    List<Flight> after = send(KEYSPACES, IN_FLIGHT);
    awaitAll(after, SHORT);
    assertEquals(IN_FLIGHT, answered(combo, after).size(), "requests after the drop answered");
    assertEquals(1, orphans(), "the late answer never came");
    report("drop", combo, flights);
  }

  @ParameterizedTest
  @EnumSource(
      value = Combo.class,
      names = {"V4", "V5", "V5_LZ4"})
  void anOversizedLengthFailsEveryPendingRequestAtOnce(Combo combo) throws Exception {
    Fault oversize = Fault.oversizeAfterResponses(HANDSHAKE + ANSWERED_FIRST);
    connectThroughProxy(combo, oversize, LONG, RowsFrameHandler.DEFAULT_MAX_ORPHANS);
    List<Flight> flights = sendThrough(oversize, LONG);
    assertAnsweredBeforeTheFault(combo, flights);
    List<Flight> failed = failed(flights);
    assertFailedWith(failed, CqlFrameException.Reason.FRAME_TOO_LARGE);
    for (Flight f : failed) {
      CqlFrameException e = (CqlFrameException) f.error();
      assertTrue(e.connectionLevel(), e.toString());
      assertEquals(oversize.fired().join().streamId(), e.streamId(), "the header's stream id");
    }
    assertAtOnce(failed, LONG);
    assertBrokenWith(CqlFrameException.Reason.FRAME_TOO_LARGE);
    report("oversize", combo, flights);
  }

  @ParameterizedTest
  @EnumSource(
      value = Combo.class,
      names = {"V5", "V5_LZ4"})
  void aFlippedBitFailsEveryPendingRequestWithACrc32Mismatch(Combo combo) throws Exception {
    Fault flip = Fault.bitflipAfterResponses(HANDSHAKE + ANSWERED_FIRST);
    connectThroughProxy(combo, flip, LONG, RowsFrameHandler.DEFAULT_MAX_ORPHANS);
    List<Flight> flights = sendThrough(flip, LONG);
    assertAnsweredBeforeTheFault(combo, flights);
    List<Flight> failed = failed(flights);
    assertFailedWith(failed, CqlFrameException.Reason.CRC32_MISMATCH);
    for (Flight f : failed) {
      assertTrue(((CqlFrameException) f.error()).connectionLevel(), f.error().toString());
    }
    assertAtOnce(failed, LONG);
    assertBrokenWith(CqlFrameException.Reason.CRC32_MISMATCH);
    report("bit flip", combo, flights);
  }

  @ParameterizedTest
  @EnumSource(
      value = Combo.class,
      names = {"V4", "V5_LZ4"})
  void aKilledServerFailsEveryPendingRequestAtOnce(Combo combo) throws Exception {
    CassandraServer server = CassandraServer.get();
    process =
        ProxyProcess.start(
            server.host(), server.port(), Fault.Kind.STALL, HANDSHAKE + ANSWERED_FIRST);
    connect(combo, process.port(), LONG, RowsFrameHandler.DEFAULT_MAX_ORPHANS);
    List<Flight> flights = send(COLUMNS, IN_FLIGHT);
    assertEquals(
        HANDSHAKE + ANSWERED_FIRST,
        process.fired().get(LONG.toMillis(), TimeUnit.MILLISECONDS),
        "the response the process stalls in");
    long killed = System.nanoTime();
    assertTrue(process.kill(), "the process ended");
    awaitAll(flights, LONG);
    // what the process had not sent yet dies with it, whole responses included
    assertAnsweredBeforeTheFault(combo, flights, false);
    List<Flight> failed = failed(flights);
    assertFailedWith(
        failed,
        CqlConnectionException.Reason.CLOSED_BY_SERVER,
        CqlConnectionException.Reason.RESET);
    for (Flight f : failed) {
      assertTrue(
          f.ended - killed <= MARGIN.toNanos(),
          "failed " + (f.ended - killed) / 1_000_000 + " ms after the kill: " + f.error());
    }
    assertAtOnce(failed, LONG);
    assertBrokenWith(reason(failed.get(0).error()));
    report("killed", combo, flights);
  }
}
