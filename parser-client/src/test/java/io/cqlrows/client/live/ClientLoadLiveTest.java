package io.cqlrows.client.live;

import static io.cqlrows.client.live.LiveClients.get;
import static io.cqlrows.client.live.LiveClients.int32;
import static io.cqlrows.client.live.LiveCorpus.KEYSPACE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.management.GarbageCollectorMXBean;
import com.sun.management.GcInfo;
import io.cqlrows.client.CqlClient;
import io.cqlrows.client.QueryResult;
import io.cqlrows.core.PreparedResult;
import io.cqlrows.core.RowSink;
import io.cqlrows.core.sink.JsonLinesSink;
import io.cqlrows.netty.CqlPipeline;
import io.cqlrows.netty.frame.CqlServerError;
import io.cqlrows.netty.frame.Frame;
import io.cqlrows.testing.Corpus;
import io.cqlrows.testing.LeakCheckExtension;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.ResourceLeakDetector;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * One {@link CqlClient} connection under load, in v4, v4 + LZ4, v5 and v5 + LZ4: {@value #WINDOW}
 * requests in flight at once, sent from the test thread, {@value #REQUESTS} measured (after {@value
 * #WARM_UP} of warm-up, and followed by {@value #PROBE} for the heap probe), a seeded mix of QUERY
 * and prepared EXECUTE over the corpus tables: {@code vec128} rows by id and pages of 100 of its
 * rows, {@code vec1536} rows by id and four at a time, {@code scalars} and {@code collections} rows
 * by id, every small table whole; every 64th request is one the server refuses (a syntax error, a
 * missing table, a 2-byte int bound, a missing value).
 *
 * <p>What it checks, for every request, not a sample:
 *
 * <ul>
 *   <li>a statement that should succeed gives exactly its expected rows: the JSON Lines text
 *       ({@link BulkCopyJsonSink}, the same text as {@link JsonLinesSink}) equals that of a first,
 *       sequential read by our client, which {@link LiveAssertions#assertSameRows} found equal to
 *       the driver's rows of the same statement (once per distinct statement, before the load); one
 *       page, no paging state;
 *   <li>a refused one fails its own future only, with a {@link CqlServerError} of the expected
 *       code, and its sink sees nothing.
 * </ul>
 *
 * <p>And for the connection ({@link StreamGuard}, before the client's handler): no stream id is
 * written again while in flight, no response arrives on an id that is not in flight, at least 1,000
 * requests were on the wire at once, and ids were reused (more requests than ids). No {@code
 * ByteBuf} leaked ({@link LeakCheckExtension#collectLeaks()} after the connection closed, with the
 * build's paranoid leak detection). Heap, measured after a full GC: the requests leave less than
 * {@value #RETAINED_BOUND_MIB} MiB behind, and with the window full the heap holds no more than
 * what the results in flight need ({@link #inFlightBound}).
 *
 * <p>Prints one line per combo: requests/s and the p50, p99 and max latency from the call to the
 * completion of the future (on the event loop).
 *
 * <p>Tagged {@code load} as well as {@code live}: it takes minutes, so {@code mvn verify} leaves it
 * out and {@code mvn verify -Pload} runs it (the CI does, on its own).
 */
@Tag("load")
class ClientLoadLiveTest extends LiveTestSupport {
  /** Requests in flight at most: futures not yet completed. */
  static final int WINDOW = 1024;

  /** Requests of the measured run. */
  static final int REQUESTS = 30_000;

  /** Requests before the measured run: JIT, buffer pools and caches warm up. */
  static final int WARM_UP = 3_000;

  /**
   * Requests of the heap probe. After {@link #PROBE_AT} were sent the connection stops reading, so
   * the window fills however fast the server answers; the heap is measured when it is full, then
   * reading resumes. {@link #PROBE_AT} plus twice the window: room to fill it from empty.
   */
  static final int PROBE = 4_096;

  private static final int PROBE_AT = 2_048;

  /** Every 64th request is refused by the server. */
  private static final int FAILURE_EVERY = 64;

  /** What the requests may leave on the heap, all of them together. */
  static final int RETAINED_BOUND_MIB = 4;

  private static final long MIB = 1 << 20;
  private static final int STREAM_IDS = 32_768;
  private static final long SEED = 20261202L;
  private static final long TIMEOUT_SECONDS = 120;

  /** Error code 0x2000: the statement has a syntax error. */
  private static final int SYNTAX_ERROR = 0x2000;

  /** The groups of the mix and their weights; a request picks a group, then a statement. */
  private static final List<List<Statement>> GROUPS = new ArrayList<>();

  private static final List<Integer> WEIGHTS = new ArrayList<>();

  /** The refused statements, sent in turn as every {@value #FAILURE_EVERY}th request. */
  private static final List<Statement> REFUSED = new ArrayList<>();

  /**
   * One distinct statement of the mix.
   *
   * @param cql the text: sent as QUERY, or prepared and EXECUTEd
   * @param prepared whether it is EXECUTEd
   * @param values the values bound, serialized (none for most QUERYs)
   * @param driverValues the same values for the driver's bound statement
   * @param expected the JSON Lines text of its rows, or null if the server refuses it
   * @param errorCode the code of the server's error when refused, else 0
   * @param expectedBytes what {@code expected} takes on the heap
   */
  @SuppressWarnings("ArrayRecordComponent") // a statement's values, never compared
  record Statement(
      String cql,
      boolean prepared,
      byte[][] values,
      Object[] driverValues,
      String expected,
      int errorCode,
      long expectedBytes) {
    Statement(
        String cql,
        boolean prepared,
        byte[][] values,
        Object[] driverValues,
        String expected,
        int errorCode) {
      this(cql, prepared, values, driverValues, expected, errorCode, heapBytes(expected));
    }

    Statement withExpected(String rows) {
      return new Statement(cql, prepared, values, driverValues, rows, errorCode);
    }

    /** Heap bytes of a text: 1 a char when all are Latin-1, else 2; 0 for none. */
    private static long heapBytes(String text) {
      if (text == null) {
        return 0;
      }
      boolean latin1 = text.chars().allMatch(c -> c < 256);
      return (long) text.length() * (latin1 ? 1 : 2);
    }

    @Override
    public String toString() {
      return (prepared ? "EXECUTE " : "QUERY ")
          + cql
          + (driverValues.length == 0 ? "" : " " + Arrays.toString(driverValues));
    }
  }

  @BeforeAll
  static void readEveryStatementOnceAndCompareWithTheDriver() throws InterruptedException {
    List<String> tables = LiveCorpus.load(session);
    long start = System.nanoTime();
    String vec128ById = "SELECT id, v FROM " + KEYSPACE + ".vec128 WHERE id = ?";
    String vec1536ById = "SELECT id, v FROM " + KEYSPACE + ".vec1536 WHERE id = ?";
    String scalarsById = "SELECT * FROM " + KEYSPACE + ".scalars WHERE id = ?";
    String collectionsById = "SELECT * FROM " + KEYSPACE + ".collections WHERE id = ?";

    List<Statement> vec128Execute = new ArrayList<>();
    for (int id = 0; id < LiveCorpus.VEC128_ROWS; id += 10) {
      vec128Execute.add(execute(vec128ById, id));
    }
    List<Statement> vec128Query = new ArrayList<>();
    for (int id = 3; id < LiveCorpus.VEC128_ROWS; id += 25) {
      vec128Query.add(query("SELECT id, v FROM " + KEYSPACE + ".vec128 WHERE id = " + id));
    }
    List<Statement> vec128Pages = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      long token = Long.MIN_VALUE + i * (Long.MAX_VALUE / 4);
      vec128Pages.add(
          query(
              "SELECT id, v FROM "
                  + KEYSPACE
                  + ".vec128 WHERE token(id) >= "
                  + token
                  + " LIMIT 100"));
    }
    List<Statement> vec1536Execute = new ArrayList<>();
    for (int id = 0; id < LiveCorpus.VEC1536_ROWS; id++) {
      vec1536Execute.add(execute(vec1536ById, id));
    }
    List<Statement> vec1536Query = new ArrayList<>();
    for (int id = 0; id < 80; id += 4) {
      vec1536Query.add(
          query(
              "SELECT id, v FROM "
                  + KEYSPACE
                  + ".vec1536 WHERE id IN ("
                  + id
                  + ", "
                  + (id + 1)
                  + ", "
                  + (id + 2)
                  + ", "
                  + (id + 3)
                  + ")"));
    }
    List<Statement> scalars = new ArrayList<>();
    for (int id : ids("scalars")) {
      scalars.add(execute(scalarsById, id));
    }
    List<Statement> collections = new ArrayList<>();
    for (int id : ids("collections")) {
      collections.add(execute(collectionsById, id));
    }
    List<Statement> wholeTables = new ArrayList<>();
    for (String table : tables) {
      if (!table.equals("vec128") && !table.equals("vec1536")) {
        wholeTables.add(query("SELECT * FROM " + KEYSPACE + "." + table));
      }
    }

    CqlClient first = LiveClients.connect(Combo.V5, group, "load-expected");
    try {
      Map<String, PreparedResult> ours = prepare(first);
      Map<String, PreparedStatement> theirs = new HashMap<>();
      int statements = 0;
      for (List<Statement> g :
          List.of(
              vec128Execute,
              vec128Query,
              vec128Pages,
              vec1536Execute,
              vec1536Query,
              scalars,
              collections,
              wholeTables)) {
        g.replaceAll(s -> s.withExpected(firstRead(first, ours, theirs, s)));
        statements += g.size();
      }
      group(vec128Execute, 34);
      group(vec128Query, 14);
      group(vec128Pages, 3);
      group(vec1536Execute, 10);
      group(vec1536Query, 2);
      group(scalars, 15);
      group(collections, 8);
      group(wholeTables, 8);

      REFUSED.add(refused(query("SELEC id FROM " + KEYSPACE + ".scalars"), SYNTAX_ERROR));
      REFUSED.add(
          refused(query("SELECT id FROM " + KEYSPACE + ".no_such_table"), CqlServerError.INVALID));
      REFUSED.add(
          refused(
              new Statement(
                  vec128ById, true, new byte[][] {{0, 1}}, new Object[] {"0x0001"}, null, 0),
              CqlServerError.INVALID));
      REFUSED.add(
          refused(
              new Statement(scalarsById, true, new byte[0][], new Object[0], null, 0),
              CqlServerError.INVALID));
      for (Statement s : REFUSED) {
        CqlServerError e =
            assertInstanceOf(
                CqlServerError.class,
                failure(send(first, ours, s, new JsonLinesSink(new StringBuilder()))),
                s::toString);
        assertEquals(s.errorCode(), e.code(), s::toString);
      }
      System.err.printf(
          "[cqlrows] load: %d statements read and compared with the driver in" + " %d ms%n",
          statements, (System.nanoTime() - start) / 1_000_000);
    } finally {
      get(first.close());
    }
  }

  @ParameterizedTest
  @EnumSource(Combo.class)
  void aThousandRequestsInFlightOnOneConnectionEachGetTheirOwnAnswer(Combo combo)
      throws InterruptedException {
    // the heap probe holds the answers unread while it measures, for longer than the default
    // deadline on a busy machine: this test is about answers, not deadlines
    CassandraServer server = CassandraServer.get();
    client =
        LiveClients.get(
            CqlClient.builder(server.host(), server.port())
                .protocolVersion(combo.version())
                .compression(combo.compression())
                .requestTimeout(Duration.ofSeconds(TIMEOUT_SECONDS))
                .connect(group));
    StreamGuard guard = new StreamGuard();
    Channel channel = client.channel();
    // after the handshake, in front of the rows handler (v5: the segment decoders are in place)
    LiveClients.get(
        CompletableFuture.runAsync(
            () ->
                channel.pipeline().addBefore(CqlPipeline.ROWS_FRAME_HANDLER, "stream-guard", guard),
            channel.eventLoop()));
    Map<String, PreparedResult> prepared = prepare(client);
    long testStart = System.nanoTime();

    run(client, prepared, WARM_UP, null).assertAllAnswered(combo + " warm-up");
    long baseline = usedHeapAfterGc();
    Run measured = run(client, prepared, REQUESTS, null);
    measured.assertAllAnswered(combo + " measured");
    long after = usedHeapAfterGc();
    Run probe = run(client, prepared, PROBE, channel);
    probe.assertAllAnswered(combo + " heap probe");
    assertTrue(probe.heapAtProbe > 0, combo + ": the window was never full for the heap probe");

    long retained = after - baseline;
    long inFlight = probe.heapAtProbe - baseline;
    long bound = inFlightBound(probe.inFlightBytesAtProbe);
    long[] latencies = measured.latencies.clone();
    Arrays.sort(latencies);
    System.out.printf(
        Locale.ROOT,
        "[cqlrows] load %s: %,d requests (%,d refused), %d in flight"
            + " (max %d on the wire): %,.0f requests/s, latency p50 %.1f ms, p99 %.1f ms, max %.1f"
            + " ms; heap after GC: baseline %.1f MiB, +%.1f MiB with %d in flight (results %.1f MiB,"
            + " bound %.1f MiB), +%.2f MiB after the run (bound %d MiB); leak detection %s;"
            + " %.1f s in all%n",
        combo,
        REQUESTS,
        measured.refused,
        WINDOW,
        guard.maxInFlight(),
        REQUESTS / (measured.nanos / 1e9),
        percentile(latencies, 50) / 1e6,
        percentile(latencies, 99) / 1e6,
        latencies[latencies.length - 1] / 1e6,
        baseline / (double) MIB,
        inFlight / (double) MIB,
        probe.inFlightAtProbe,
        probe.inFlightBytesAtProbe / (double) MIB,
        bound / (double) MIB,
        retained / (double) MIB,
        RETAINED_BOUND_MIB,
        ResourceLeakDetector.getLevel(),
        (System.nanoTime() - testStart) / 1e9);

    assertTrue(
        retained < RETAINED_BOUND_MIB * MIB,
        combo
            + ": "
            + REQUESTS
            + " requests left "
            + retained
            + " bytes on the heap (bound "
            + RETAINED_BOUND_MIB
            + " MiB)");
    assertTrue(
        inFlight < bound,
        combo
            + ": "
            + inFlight
            + " bytes more on the heap with "
            + probe.inFlightAtProbe
            + " requests in flight, whose results need at most "
            + probe.inFlightBytesAtProbe
            + " (bound "
            + bound
            + ")");

    assertEquals(List.of(), guard.violations(), combo + ": stream ids");
    assertEquals(0, guard.inFlight(), combo + ": answered but still in flight");
    assertTrue(
        guard.maxInFlight() >= 1000 && guard.maxInFlight() <= WINDOW,
        combo + ": at most " + guard.maxInFlight() + " requests on the wire at once");
    int sent = WARM_UP + REQUESTS + PROBE;
    assertEquals(
        prepared.size() + sent,
        guard.written(), // the guard joins after the handshake
        combo + ": envelopes written, each once");
    assertTrue(
        guard.reused() >= sent - STREAM_IDS,
        combo + ": " + guard.reused() + " ids written again after their response");

    get(client.close());
    client = null;
    assertEquals(List.of(), LeakCheckExtension.collectLeaks(), combo + ": leaked buffers");
  }

  /**
   * What the heap may hold over the baseline with requests in flight: each result in flight in two
   * {@code StringBuilder}s (the sink's line and the output), each up to twice the text from growth,
   * so 4 times its expected bytes; 16 KiB per request of the window for its future, sink and
   * registrations and, under paranoid leak detection, the trace records (up to 8 stack traces each)
   * of the tracked buffers it goes through: envelope, segments, response slices; and 16 MiB for the
   * rest of the JVM (the Java driver, the event loops' reads).
   */
  static long inFlightBound(long inFlightBytes) {
    return 4 * inFlightBytes + WINDOW * 16L * 1024 + 16 * MIB;
  }

  /** The outcome of one run of the mix. */
  private static final class Run {
    /** Per request, in send order: nanoseconds from the call to the completion. */
    final long[] latencies;

    final AtomicInteger answered = new AtomicInteger();
    final AtomicInteger problems = new AtomicInteger();
    final ConcurrentLinkedQueue<String> firstProblems = new ConcurrentLinkedQueue<>();
    int refused;
    long nanos;
    int inFlightAtProbe;
    long inFlightBytesAtProbe;
    long heapAtProbe;

    Run(int requests) {
      latencies = new long[requests];
    }

    void problem(String what) {
      if (problems.incrementAndGet() <= 5) {
        firstProblems.add(what);
      }
    }

    void assertAllAnswered(String what) {
      assertEquals(0, problems.get(), what + ": wrong answers, the first: " + firstProblems);
      assertEquals(latencies.length, answered.get(), what + ": answered");
    }
  }

  /**
   * Sends {@code requests} of the mix (the same seeded sequence each run) with at most {@link
   * #WINDOW} in flight and checks each answer as it completes; returns when all completed. With a
   * {@code probe} channel (the connection's), the heap probe: after {@link #PROBE_AT} requests were
   * sent the channel stops reading, the window fills, the heap is measured after a full GC, and the
   * channel reads again.
   */
  private static Run run(
      CqlClient client, Map<String, PreparedResult> prepared, int requests, Channel probe)
      throws InterruptedException {
    Run run = new Run(requests);
    Random random = new Random(SEED);
    int totalWeight = WEIGHTS.stream().mapToInt(Integer::intValue).sum();
    Semaphore window = new Semaphore(WINDOW);
    AtomicInteger inFlight = new AtomicInteger();
    AtomicLong inFlightBytes = new AtomicLong();
    long start = System.nanoTime();
    for (int i = 0; i < requests; i++) {
      if (probe != null && i >= PROBE_AT && run.heapAtProbe == 0) {
        if (i == PROBE_AT) {
          probe.config().setAutoRead(false);
        } else if (window.availablePermits() == 0) {
          run.inFlightAtProbe = inFlight.get();
          run.inFlightBytesAtProbe = inFlightBytes.get();
          run.heapAtProbe = usedHeapAfterOneGc();
          probe.config().setAutoRead(true);
        }
      }
      if (!window.tryAcquire(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        fail("no request completed in " + TIMEOUT_SECONDS + " s with " + WINDOW + " in flight");
      }
      Statement s;
      if (i % FAILURE_EVERY == FAILURE_EVERY - 1) {
        s = REFUSED.get((i / FAILURE_EVERY) % REFUSED.size());
        run.refused++;
      } else {
        s = pick(random.nextInt(totalWeight), random);
      }
      long bytes = s.expectedBytes();
      inFlight.incrementAndGet();
      inFlightBytes.addAndGet(bytes);
      StringBuilder out = new StringBuilder();
      int request = i;
      long sentAt = System.nanoTime();
      send(client, prepared, s, new BulkCopyJsonSink(out))
          .whenComplete(
              (result, error) -> {
                try {
                  run.latencies[request] = System.nanoTime() - sentAt;
                  check(run, s, out, result, error);
                } catch (RuntimeException e) {
                  run.problem(s + ": checking the answer failed: " + e);
                } finally {
                  run.answered.incrementAndGet();
                  inFlightBytes.addAndGet(-bytes);
                  inFlight.decrementAndGet();
                  window.release();
                }
              });
    }
    if (!window.tryAcquire(WINDOW, TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
      fail("the last requests did not complete in " + TIMEOUT_SECONDS + " s");
    }
    run.nanos = System.nanoTime() - start;
    return run;
  }

  /** Checks one answer; on the event loop, so a problem is recorded, not thrown. */
  private static void check(
      Run run, Statement s, StringBuilder out, QueryResult result, Throwable error) {
    if (s.expected() == null) {
      if (!(error instanceof CqlServerError e) || e.code() != s.errorCode()) {
        run.problem(
            s
                + ": expected error 0x"
                + Integer.toHexString(s.errorCode())
                + ", got "
                + (error == null ? "a result" : error));
      } else if (out.length() != 0) {
        run.problem(s + ": a refused request wrote rows");
      }
      return;
    }
    if (error != null) {
      run.problem(s + ": " + error);
    } else if (result.rows() == null || result.hasMorePages()) {
      run.problem(s + ": not one page of rows: " + result);
    } else if (!s.expected().contentEquals(out)) {
      run.problem(
          s
              + ": rows differ: "
              + out.length()
              + " chars, expected "
              + s.expected().length()
              + ": "
              + out.substring(0, Math.min(300, out.length())));
    }
  }

  /** Sends one statement: QUERY without paging, or EXECUTE of the connection's prepared one. */
  private static CompletableFuture<QueryResult> send(
      CqlClient client, Map<String, PreparedResult> prepared, Statement s, RowSink sink) {
    return s.prepared()
        ? client.execute(prepared.get(s.cql()), sink, 0, null, s.values())
        : client.query(s.cql(), sink, 0, null, s.values());
  }

  /**
   * The statement's rows by our client, as JSON Lines text, after checking that they equal the
   * driver's rows of the same statement.
   */
  private static String firstRead(
      CqlClient client,
      Map<String, PreparedResult> ours,
      Map<String, PreparedStatement> theirs,
      Statement s) {
    StringBuilder out = new StringBuilder();
    QueryResult result = get(send(client, ours, s, new JsonLinesSink(out)));
    assertFalse(result.hasMorePages(), s::toString);
    ObjectNode driver =
        LiveClients.driverQuery(
            session,
            s.prepared()
                ? theirs.computeIfAbsent(s.cql(), session::prepare).bind(s.driverValues())
                : SimpleStatement.newInstance(s.cql()));
    LiveAssertions.assertSameRows(s.toString(), driver, (ObjectNode) Corpus.json(out.toString()));
    return out.toString();
  }

  /** Prepares every statement of the mix that is EXECUTEd, on this connection. */
  private static Map<String, PreparedResult> prepare(CqlClient client) {
    Map<String, PreparedResult> prepared = new HashMap<>();
    for (String table : List.of("vec128", "vec1536", "scalars", "collections")) {
      String cql =
          (table.startsWith("vec") ? "SELECT id, v" : "SELECT *")
              + " FROM "
              + KEYSPACE
              + "."
              + table
              + " WHERE id = ?";
      prepared.put(cql, get(client.prepare(cql)));
    }
    return prepared;
  }

  /** The ids of a table, ascending. */
  private static int[] ids(String table) {
    return session.execute("SELECT id FROM " + KEYSPACE + "." + table).all().stream()
        .mapToInt(r -> r.getInt(0))
        .sorted()
        .toArray();
  }

  private static Statement query(String cql) {
    return new Statement(cql, false, new byte[0][], new Object[0], null, 0);
  }

  private static Statement execute(String cql, int id) {
    return new Statement(cql, true, new byte[][] {int32(id)}, new Object[] {id}, null, 0);
  }

  private static Statement refused(Statement s, int code) {
    return new Statement(s.cql(), s.prepared(), s.values(), s.driverValues(), null, code);
  }

  private static void group(List<Statement> statements, int weight) {
    GROUPS.add(List.copyOf(statements));
    WEIGHTS.add(weight);
  }

  private static Statement pick(int weighted, Random random) {
    int w = weighted;
    for (int g = 0; g < GROUPS.size(); g++) {
      if (w < WEIGHTS.get(g)) {
        List<Statement> statements = GROUPS.get(g);
        return statements.get(random.nextInt(statements.size()));
      }
      w -= WEIGHTS.get(g);
    }
    throw new IllegalArgumentException("weight " + weighted);
  }

  /** The nearest-rank percentile of sorted values. */
  static long percentile(long[] sorted, int p) {
    int rank = (int) Math.ceil(p / 100.0 * sorted.length);
    return sorted[Math.max(0, rank - 1)];
  }

  /** Used heap after a full GC, the least of three. */
  private static long usedHeapAfterGc() throws InterruptedException {
    long least = Long.MAX_VALUE;
    for (int i = 0; i < 3; i++) {
      least = Math.min(least, usedHeapAfterOneGc());
      Thread.sleep(50);
    }
    return least;
  }

  /**
   * Runs a full GC and returns the heap it left in use, as the collector reported it at its end
   * ({@link GcInfo#getMemoryUsageAfterGc()} of the heap pools), so that what the event loop
   * allocates after the collection does not count.
   */
  private static long usedHeapAfterOneGc() {
    ManagementFactory.getMemoryMXBean().gc();
    GcInfo last = null;
    for (java.lang.management.GarbageCollectorMXBean bean :
        ManagementFactory.getGarbageCollectorMXBeans()) {
      GcInfo info = ((GarbageCollectorMXBean) bean).getLastGcInfo();
      if (info != null && (last == null || info.getEndTime() > last.getEndTime())) {
        last = info;
      }
    }
    assertNotNull(last, "no GC reported");
    long used = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      MemoryUsage after = last.getMemoryUsageAfterGc().get(pool.getName());
      if (pool.getType() == MemoryType.HEAP && after != null) {
        used += after.getUsed();
      }
    }
    return used;
  }

  private static Throwable failure(CompletableFuture<?> future) {
    try {
      Object result = future.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
      throw new AssertionError("expected a failure, got " + result);
    } catch (ExecutionException e) {
      return e.getCause();
    } catch (TimeoutException e) {
      throw new AssertionError("no answer in " + TIMEOUT_SECONDS + " s", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted", e);
    }
  }

  /**
   * Watches stream ids just before the rows handler, which keeps the requests in flight: it sees
   * every envelope the client writes (the stream id is set; a v5 segment encoder, nearer the
   * socket, packs it later) and every response frame the decoders hand the rows handler (a RESULT,
   * or an ERROR). An id written while in flight, or a response on an id not in flight, is a
   * violation. The rows handler frees an id only after its response passed here, so an id that is
   * free for the client is free here too.
   *
   * <p>Used on the connection's event loop; the counters may be read from any thread.
   */
  static final class StreamGuard extends ChannelDuplexHandler {
    private final BitSet inFlightIds = new BitSet(STREAM_IDS);
    private final int[] writes = new int[STREAM_IDS];
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger maxInFlight = new AtomicInteger();
    private final AtomicLong written = new AtomicLong();
    private final AtomicLong reused = new AtomicLong();
    private final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
      if (msg instanceof ByteBuf envelope && envelope.readableBytes() >= 9) {
        int stream = envelope.getShort(envelope.readerIndex() + 2);
        if (stream < 0) {
          violation("a request on stream " + stream);
        } else if (inFlightIds.get(stream)) {
          violation("stream " + stream + " written again while in flight");
        } else {
          inFlightIds.set(stream);
          maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
          if (writes[stream]++ > 0) {
            reused.incrementAndGet();
          }
        }
        written.incrementAndGet();
      } else {
        violation("the client wrote " + msg);
      }
      ctx.write(msg, promise);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      int stream = -1;
      if (msg instanceof Frame f && f.isResponse()) {
        stream = f.streamId(); // -1 for an event
      }
      if (stream >= 0) {
        if (inFlightIds.get(stream)) {
          inFlightIds.clear(stream);
          inFlight.decrementAndGet();
        } else {
          violation("a response on stream " + stream + ", which is not in flight");
        }
      }
      ctx.fireChannelRead(msg);
    }

    private void violation(String what) {
      if (violations.size() < 10) {
        violations.add(what);
      }
    }

    List<String> violations() {
      return List.copyOf(violations);
    }

    int inFlight() {
      return inFlight.get();
    }

    int maxInFlight() {
      return maxInFlight.get();
    }

    long written() {
      return written.get();
    }

    long reused() {
      return reused.get();
    }
  }
}
