package io.cqlrows.client.live;

import static io.cqlrows.client.live.LiveClients.get;
import static io.cqlrows.client.live.LiveClients.int32;
import static io.cqlrows.client.live.LiveCorpus.KEYSPACE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import io.cqlrows.capture.Tshark;
import io.cqlrows.capture.digest.Digest;
import io.cqlrows.capture.digest.DigestReport;
import io.cqlrows.capture.pcap.PcapRecordingHandler;
import io.cqlrows.capture.replay.FileReplay;
import io.cqlrows.capture.replay.ReplayListener;
import io.cqlrows.client.QueryResult;
import io.cqlrows.core.CqlResult;
import io.cqlrows.core.PreparedResult;
import io.cqlrows.core.RowSink;
import io.cqlrows.core.RowsResult;
import io.cqlrows.core.sink.CountingSink;
import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.netty.frame.CqlServerError;
import io.cqlrows.netty.frame.Opcode;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Checks {@link Digest} against a workload whose answers are known: one {@link
 * io.cqlrows.client.CqlClient} connection, recorded by a {@link PcapRecordingHandler}, runs four
 * statements a fixed, different number of times each (a QUERY of all {@value #ITEMS} rows of a
 * table, a prepared SELECT by id that finds one row or none, an INSERT by QUERY with values, and a
 * SELECT of a table that does not exist, which the server refuses with Invalid, 0x2200), one
 * request at a time, interleaved. The digest of the recording must count each statement's answers,
 * errors, rows and pages as the client saw them, leave nothing unanswered, and time every answer
 * above 0 and within the workload's wall time.
 *
 * <p>No BATCH: {@code CqlClient} cannot send one.
 *
 * <p>Where {@code tshark} is installed, Wireshark's CQL dissector is the reference: in v4, with or
 * without LZ4 (Wireshark 4.0 decompresses LZ4 bodies), the multiset of the answers the replay hears
 * ({@link ReplayListener#onResponse}: request opcode, {@link
 * ReplayListener.Response#elapsedNanos()}, rows, error code) equals tshark's ({@code
 * cql.response_time}, {@code cql.result.rows.row_count}, {@code cql.error_code}, each answer joined
 * to its request's opcode by {@code cql.response_to} and {@code cql.stream}); a classic pcap has
 * microseconds, so both times are whole microseconds and must be equal. The digest's total time,
 * rows and error codes per request opcode equal tshark's sums. Wireshark 4.0 decodes nothing of a
 * v5 connection (it refuses the version byte 5, even in the OPTIONS and STARTUP envelopes that go
 * before the first segment), so there the test only requires that what tshark does decode be among
 * the replay's answers.
 */
class DigestLiveTest extends LiveTestSupport {
  static final String SELECT_ALL = "SELECT * FROM " + KEYSPACE + ".digest_items";
  static final String SELECT_BY_ID = "SELECT * FROM " + KEYSPACE + ".digest_items WHERE id = ?";
  static final String INSERT = "INSERT INTO " + KEYSPACE + ".digest_writes (id, v) VALUES (?, ?)";
  static final String MISSING_TABLE = "SELECT * FROM " + KEYSPACE + ".digest_no_such_table";

  /** Runs of each statement, different so that a mix-up shows. */
  static final int SELECT_ALL_RUNS = 7;

  static final int SELECT_BY_ID_RUNS = 11;
  static final int INSERT_RUNS = 13;
  static final int MISSING_TABLE_RUNS = 5;

  /** Rows of {@code digest_items}. */
  static final int ITEMS = 40;

  /** The ids the prepared SELECT asks for in turn: three rows, and one that is not there. */
  static final int[] IDS = {1, 2, 3, ITEMS + 1};

  static final long TSHARK_TIMEOUT_SECONDS = 60;

  @BeforeAll
  static void createTheTables() {
    ddl(
        "CREATE KEYSPACE IF NOT EXISTS "
            + KEYSPACE
            + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
    ddl("DROP TABLE IF EXISTS " + KEYSPACE + ".digest_items");
    ddl("DROP TABLE IF EXISTS " + KEYSPACE + ".digest_writes");
    ddl(
        "CREATE TABLE "
            + KEYSPACE
            + ".digest_items (id int PRIMARY KEY, name text, qty bigint, price double)");
    ddl("CREATE TABLE " + KEYSPACE + ".digest_writes (id int PRIMARY KEY, v text)");
    PreparedStatement insert =
        session.prepare(
            "INSERT INTO " + KEYSPACE + ".digest_items (id, name, qty, price) VALUES (?, ?, ?, ?)");
    for (int id = 0; id < ITEMS; id++) {
      session.execute(insert.bind(id, "item " + id, 1000L * id, id / 4.0));
    }
  }

  private static void ddl(String cql) {
    session.execute(SimpleStatement.newInstance(cql).setTimeout(Duration.ofSeconds(60)));
  }

  /** What the client saw of one statement. */
  static final class Seen {
    long count;
    long errors;
    long rows;
    long pages;

    void add(QueryResult r) {
      count++;
      if (r.result() instanceof RowsResult rows) {
        this.rows += rows.rowCount();
        pages++;
      }
    }
  }

  /**
   * One answer: its request's opcode, its response time, the rows of a ROWS result (else 0) and the
   * code of an ERROR (else -1).
   */
  record Answer(Opcode request, long elapsedNanos, long rows, int errorCode) {}

  @ParameterizedTest
  @EnumSource(Combo.class)
  void theDigestCountsAndTimesWhatTheClientSaw(Combo combo) throws Exception {
    Path file = LiveClients.capturesDir().resolve("digest-" + combo + ".pcap");
    PcapRecordingHandler recorder = new PcapRecordingHandler(file);
    Map<String, Seen> seen = new LinkedHashMap<>();
    for (String s : List.of(SELECT_ALL, SELECT_BY_ID, INSERT, MISSING_TABLE)) {
      seen.put(s, new Seen());
    }

    long connectionStart = System.nanoTime();
    client = LiveClients.connect(combo, group, p -> p.addFirst("pcap", recorder));
    assertEquals(combo.version(), client.protocolVersion());
    PreparedResult byId = get(client.prepare(SELECT_BY_ID));
    long workloadStart = System.nanoTime();
    int[] runs = {SELECT_ALL_RUNS, SELECT_BY_ID_RUNS, INSERT_RUNS, MISSING_TABLE_RUNS};
    int[] done = new int[4];
    for (int round = 0;
        done[0] + done[1] + done[2] + done[3] < runs[0] + runs[1] + runs[2] + runs[3];
        round++) {
      if (done[0] < runs[0]) {
        seen.get(SELECT_ALL).add(get(client.query(SELECT_ALL, new CountingSink(), 0, null)));
        done[0]++;
      }
      if (done[1] < runs[1]) {
        int id = IDS[done[1] % IDS.length];
        seen.get(SELECT_BY_ID)
            .add(get(client.execute(byId, new CountingSink(), 0, null, int32(id))));
        done[1]++;
      }
      if (done[2] < runs[2]) {
        byte[] v = (combo + " " + round).getBytes(StandardCharsets.UTF_8);
        QueryResult r = get(client.query(INSERT, new CountingSink(), 0, null, int32(done[2]), v));
        assertFalse(r.result() instanceof RowsResult, "an INSERT returns no rows");
        seen.get(INSERT).add(r);
        done[2]++;
      }
      if (done[3] < runs[3]) {
        CompletableFuture<QueryResult> f = client.query(MISSING_TABLE, new CountingSink(), 0, null);
        ExecutionException e =
            assertThrows(
                ExecutionException.class,
                () -> f.get(LiveClients.TIMEOUT_SECONDS, TimeUnit.SECONDS));
        CqlServerError error = assertInstanceOf(CqlServerError.class, e.getCause());
        assertEquals(CqlServerError.INVALID, error.code());
        seen.get(MISSING_TABLE).count++;
        seen.get(MISSING_TABLE).errors++;
        done[3]++;
      }
    }
    long workloadNanos = System.nanoTime() - workloadStart;
    get(client.close());
    client = null;
    long connectionNanos = System.nanoTime() - connectionStart;
    assertNull(recorder.recordingError());
    assertEquals((long) SELECT_ALL_RUNS * ITEMS, seen.get(SELECT_ALL).rows);

    DigestReport report =
        Digest.of(file, FileReplay.builder().build(), new Digest.Limits(10_000, 10_000, 0));
    assertTrue(report.timed());
    assertEquals(1, report.tcpConnections());
    assertEquals(1, report.cqlConnections());
    assertEquals(List.of(), report.notes());
    assertEquals(seen.size(), report.statementCount());
    Map<String, DigestReport.Entry> statements = byName(report.statements());
    assertEquals(seen.keySet(), statements.keySet());
    for (Map.Entry<String, Seen> e : seen.entrySet()) {
      Seen s = e.getValue();
      DigestReport.Entry d = statements.get(e.getKey());
      String what = combo + " " + e.getKey();
      assertEquals(s.count, d.count(), what + ": count");
      assertEquals(s.errors, d.errors(), what + ": errors");
      assertEquals(
          s.errors == 0 ? Map.of() : Map.of(CqlServerError.INVALID, s.errors),
          d.errorCodes(),
          what + ": error codes");
      assertEquals(0, d.undecodable(), what + ": undecodable");
      assertEquals(0, d.unanswered(), what + ": unanswered");
      assertEquals(s.rows, d.rows(), what + ": rows");
      assertEquals(s.pages, d.pages(), what + ": pages");
      assertTrue(d.responseBytes() >= 9 * s.count, what + ": response bytes");
      DigestReport.Times t = d.times();
      assertNotNull(t, what + ": times");
      assertEquals(s.count, t.count(), what + ": timed answers");
      assertTrue(t.min() > 0, what + ": min " + t.min());
      assertTrue(t.max() < workloadNanos, what + ": max " + t.max() + " >= " + workloadNanos);
      assertTrue(t.min() <= t.p50() && t.p50() <= t.p95(), what + ": percentiles");
      assertTrue(t.p95() <= t.p99() && t.p99() <= t.max(), what + ": percentiles");
    }
    assertEquals(SELECT_ALL_RUNS, seen.get(SELECT_ALL).count);
    assertEquals(SELECT_BY_ID_RUNS, seen.get(SELECT_BY_ID).count);
    assertEquals(INSERT_RUNS, seen.get(INSERT).count);
    assertEquals(MISSING_TABLE_RUNS, seen.get(MISSING_TABLE).errors);

    Map<String, DigestReport.Entry> opcodes = byName(report.opcodes());
    Map<String, Long> counts = new TreeMap<>();
    opcodes.forEach((k, v) -> counts.put(k, v.count()));
    assertEquals(
        Map.of(
            "OPTIONS", 1L,
            "STARTUP", 1L,
            "PREPARE", 1L,
            "QUERY", (long) SELECT_ALL_RUNS + INSERT_RUNS + MISSING_TABLE_RUNS,
            "EXECUTE", (long) SELECT_BY_ID_RUNS),
        counts,
        combo + ": answers by request opcode");
    for (DigestReport.Entry d : report.opcodes()) {
      assertEquals(0, d.unanswered(), combo + " " + d.name() + ": unanswered");
    }

    List<Answer> ours = replayAnswers(file);
    assertEquals(
        3 + SELECT_ALL_RUNS + SELECT_BY_ID_RUNS + INSERT_RUNS + MISSING_TABLE_RUNS, ours.size());
    for (Answer a : ours) {
      assertTrue(
          a.elapsedNanos() > 0 && a.elapsedNanos() < connectionNanos,
          combo + ": " + a + " (connection " + connectionNanos + " ns)");
    }
    for (DigestReport.Entry d : report.opcodes()) {
      Opcode op = Opcode.valueOf(d.name());
      assertEquals(sum(ours, op, Answer::elapsedNanos), d.times().total(), combo + " " + op);
      assertEquals(sum(ours, op, Answer::rows), d.rows(), combo + " " + op);
    }

    Assumptions.assumeTrue(Tshark.available(), "tshark is not installed: no comparison with it");
    List<Answer> theirs = tsharkAnswers(file, CassandraServer.get().port());
    if (combo.version() == 4) {
      assertEquals(sorted(ours), sorted(theirs), combo + ": answers, ours vs tshark's");
      for (DigestReport.Entry d : report.opcodes()) {
        Opcode op = Opcode.valueOf(d.name());
        String what = combo + " " + op + ", digest vs tshark: ";
        assertEquals(sum(theirs, op, Answer::elapsedNanos), d.times().total(), what + "total time");
        assertEquals(sum(theirs, op, Answer::rows), d.rows(), what + "rows");
        Map<Integer, Long> codes = new TreeMap<>();
        theirs.stream()
            .filter(t -> t.request() == op && t.errorCode() >= 0)
            .forEach(t -> codes.merge(t.errorCode(), 1L, Long::sum));
        assertEquals(codes, d.errorCodes(), what + "error codes");
      }
    } else {
      // Wireshark 4.0 decodes none of v5 (not even the bare OPTIONS/STARTUP envelopes before the
      // first segment: it refuses version byte 5); whatever a later one decodes must agree.
      assertTrue(
          subMultiset(theirs, ours), combo + ": tshark's answers " + theirs + " not among ours");
    }
    System.err.printf(
        "[cqlrows] %s: %d answers, %d compared with tshark; workload %d ms%n",
        combo, ours.size(), theirs.size(), workloadNanos / 1_000_000);
  }

  private static Map<String, DigestReport.Entry> byName(List<DigestReport.Entry> entries) {
    Map<String, DigestReport.Entry> out = new LinkedHashMap<>();
    for (DigestReport.Entry e : entries) {
      assertNull(out.put(e.name(), e), "twice: " + e.name());
    }
    return out;
  }

  private static long sum(List<Answer> answers, Opcode request, ToLongFunction<Answer> what) {
    return answers.stream().filter(a -> a.request() == request).mapToLong(what).sum();
  }

  private static List<Answer> sorted(List<Answer> answers) {
    List<Answer> out = new ArrayList<>(answers);
    out.sort(
        Comparator.comparing(Answer::request)
            .thenComparingLong(Answer::elapsedNanos)
            .thenComparingLong(Answer::rows)
            .thenComparingInt(Answer::errorCode));
    return out;
  }

  /** Whether every answer of {@code part} is in {@code all}, as many times at least. */
  private static boolean subMultiset(List<Answer> part, List<Answer> all) {
    List<Answer> left = new ArrayList<>(all);
    for (Answer a : part) {
      if (!left.remove(a)) {
        return false;
      }
    }
    return true;
  }

  /** Every answer of the capture, heard by a listener of a {@link FileReplay}. */
  private static List<Answer> replayAnswers(Path file) throws IOException {
    List<Answer> out = new ArrayList<>();
    FileReplay.builder()
        .build()
        .replay(
            file,
            connection ->
                new ReplayListener() {
                  private long rows;
                  private int errorCode = -1;

                  @Override
                  public RowSink sinkFor(Response response) {
                    return new CountingSink();
                  }

                  @Override
                  public void onResult(Response response, CqlResult result) {
                    if (result instanceof RowsResult r) {
                      rows = r.rowCount();
                    }
                  }

                  @Override
                  public void onServerError(Response response, CqlServerError error) {
                    errorCode = error.code();
                  }

                  @Override
                  public void onError(Response response, CqlFrameException error) {
                    throw new AssertionError(response + ": " + error, error);
                  }

                  @Override
                  public void onResponse(Response response) {
                    assertNotNull(response.request(), "the request of " + response);
                    out.add(
                        new Answer(
                            response.request().opcode(), response.elapsedNanos(), rows, errorCode));
                    rows = 0;
                    errorCode = -1;
                  }
                });
    return out;
  }

  /** {@code tshark} from the PATH, if any. */
  /**
   * The answers tshark's CQL dissector matched to a request: each with its request's opcode (from
   * the request's frame, {@code cql.response_to}, and the answer's {@code cql.stream}), its {@code
   * cql.response_time}, its {@code cql.result.rows.row_count} and its {@code cql.error_code}. The
   * workload has one request in flight at a time, so a frame of the server carries at most one
   * answer (a frame of reassembled PDUs lists the fields of each).
   */
  private static List<Answer> tsharkAnswers(Path file, int port)
      throws IOException, InterruptedException {
    List<String> command =
        new ArrayList<>(
            List.of(
                Tshark.COMMAND,
                "-n",
                "-r",
                file.toString(),
                "-d",
                "tcp.port==" + port + ",cql",
                "-Y",
                "cql",
                "-T",
                "fields",
                "-E",
                "separator=/t",
                "-E",
                "occurrence=a",
                "-E",
                "aggregator=,"));
    for (String field :
        List.of(
            "frame.number",
            "tcp.dstport",
            "cql.opcode",
            "cql.stream",
            "cql.response_to",
            "cql.response_time",
            "cql.result.rows.row_count",
            "cql.error_code")) {
      command.add("-e");
      command.add(field);
    }
    Path out = Files.createTempFile("tshark-", ".tsv");
    try {
      Process p =
          new ProcessBuilder(command)
              .redirectError(ProcessBuilder.Redirect.DISCARD)
              .redirectOutput(out.toFile())
              .start();
      if (!p.waitFor(TSHARK_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError("tshark ran for more than " + TSHARK_TIMEOUT_SECONDS + " s");
      }
      assertEquals(0, p.exitValue(), "tshark's exit code");
      Map<String, Opcode> requests = new HashMap<>(); // "frame/stream" -> opcode
      List<String[]> responses = new ArrayList<>();
      for (String line : Files.readAllLines(out)) {
        String[] f = line.split("\t", -1);
        assertEquals(8, f.length, line);
        String[] opcodes = f[2].split(",", -1);
        String[] streams = f[3].split(",", -1);
        assertEquals(opcodes.length, streams.length, line);
        if (Integer.parseInt(f[1]) == port) {
          for (int i = 0; i < opcodes.length; i++) {
            requests.put(f[0] + "/" + streams[i], Opcode.fromCode(Integer.parseInt(opcodes[i])));
          }
        } else if (!f[4].isEmpty()) {
          assertEquals(1, opcodes.length, "one answer per frame: " + line);
          responses.add(new String[] {f[4] + "/" + f[3], f[5], f[6], f[7]});
        }
      }
      List<Answer> answers = new ArrayList<>();
      for (String[] r : responses) {
        Opcode request = requests.get(r[0]);
        assertNotNull(request, "tshark's request " + r[0]);
        answers.add(
            new Answer(
                request,
                new BigDecimal(r[1]).movePointRight(9).longValueExact(),
                r[2].isEmpty() ? 0 : Long.parseLong(r[2]),
                r[3].isEmpty() ? -1 : Integer.parseInt(r[3])));
      }
      return answers;
    } finally {
      Files.deleteIfExists(out);
    }
  }
}
