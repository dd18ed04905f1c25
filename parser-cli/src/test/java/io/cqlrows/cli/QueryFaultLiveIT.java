package io.cqlrows.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.cql.Row;
import com.datastax.oss.driver.api.core.cql.SimpleStatement;
import com.fasterxml.jackson.databind.JsonNode;
import io.cqlrows.client.fault.Fault;
import io.cqlrows.client.fault.FaultProxy;
import io.cqlrows.client.fault.ProxyProcess;
import io.cqlrows.client.live.CassandraServer;
import io.cqlrows.client.live.LiveFixtures;
import io.cqlrows.testing.Corpus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.message.ArrowBlock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code cqlrows query}, the packaged {@code target/cqlrows.jar} run as a process ({@link
 * JarProcess}), through a {@link FaultProxy} to the live tests' Cassandra ({@link CassandraServer},
 * the corpus loaded by {@link LiveFixtures}): {@code SELECT id, v FROM vec128} in pages of {@value
 * #PAGE} rows, with a fault in the response to page {@value #PAGES_BEFORE} + 1. Each fault runs in
 * one or two of the formats {@code jsonl}, {@code csv} and {@code arrow --output FILE}, and in the
 * framings where it differs (v4, v5, LZ4 or not): the response cut (FIN) or reset (RST) halfway,
 * stalled halfway ({@code --timeout 2}), its length declared over {@code
 * ParseLimits.maxFrameBodyLength}, a bit of its v5 segment flipped, the proxy's process killed in
 * its middle ({@link ProxyProcess}). Each run must:
 *
 * <ul>
 *   <li>exit with status 1 within the deadline plus {@link #MARGIN} of the fault (the stall: of
 *       {@code --timeout}; the others: well before it);
 *   <li>print exactly one error line on stderr (after the line of the Arrow file written, with its
 *       rows), naming the server and what happened: {@code closed the connection}, {@code reset the
 *       connection}, {@code no response within 2 s (--timeout)}, the frame error ({@code
 *       ParseLimits.maxFrameBodyLength}, {@code CRC32 mismatch});
 *   <li>leave valid output holding exactly the {@value #PAGES_BEFORE} pages before the fault, their
 *       rows in the driver's order and every float as written: each JSON Lines line parses, the CSV
 *       parses as RFC 4180 (a header and whole records), the Arrow file opens with Arrow Java's
 *       {@code ArrowFileReader} and holds one batch per page.
 * </ul>
 */
@Tag("live")
class QueryFaultLiveIT {
  private static final String TABLE = LiveFixtures.KEYSPACE + ".vec128";

  /** Rows per page. */
  private static final int PAGE = 100;

  /** The pages that arrive whole before the fault's response. */
  private static final int PAGES_BEFORE = 3;

  /** SUPPORTED and READY: the responses the fault counts before the first page's. */
  private static final int HANDSHAKE = 2;

  /** {@code --timeout} of the stalled runs, in seconds. */
  private static final int STALL_TIMEOUT = 2;

  /** {@code --timeout} of the other runs: their faults end them well before it. */
  private static final int TIMEOUT = 30;

  /** How long after its deadline (or the fault) a run may take to exit: the JVM ends too. */
  private static final Duration MARGIN = Duration.ofSeconds(3);

  private static final int DIMENSION = 128;

  @TempDir static Path dir;

  private static CassandraServer server;
  private static CqlSession session;

  /** The ids of the rows of the pages before the fault, in the order the server pages them. */
  private static List<Integer> expectedIds;

  /** What goes wrong in the response to page {@value #PAGES_BEFORE} + 1. */
  @SuppressWarnings("ImmutableEnumChecker") // line is a List.of
  enum Failure {
    CUT("closed the connection"),
    RESET("reset the connection"),
    STALL("no response within " + STALL_TIMEOUT + " s (--timeout)"),
    OVERSIZE("ParseLimits.maxFrameBodyLength"),
    BITFLIP("CRC32 mismatch"),
    /** The proxy's process killed: a FIN or a RST, as the kernel closes its sockets. */
    KILLED("closed the connection", "reset the connection");

    /** The stable parts of the error line, one of which it holds. */
    final List<String> line;

    Failure(String... line) {
      this.line = List.of(line);
    }

    Fault fault(int afterResponses) {
      return switch (this) {
        case CUT -> Fault.cutAfterResponses(afterResponses);
        case RESET -> Fault.resetAfterResponses(afterResponses);
        case STALL -> Fault.stallAfterResponses(afterResponses);
        case OVERSIZE -> Fault.oversizeAfterResponses(afterResponses);
        case BITFLIP -> Fault.bitflipAfterResponses(afterResponses);
        case KILLED -> throw new IllegalArgumentException("a process, not a fault");
      };
    }
  }

  @BeforeAll
  static void loadTheCorpus() throws InterruptedException {
    server = CassandraServer.get();
    session = LiveFixtures.openSession(server);
    LiveFixtures.loadCorpus(session);
    expectedIds = new ArrayList<>();
    for (Row row :
        session.execute(SimpleStatement.newInstance("SELECT id FROM " + TABLE).setPageSize(PAGE))) {
      if (expectedIds.size() == PAGES_BEFORE * PAGE) {
        break;
      }
      expectedIds.add(row.getInt(0));
    }
    assertEquals(PAGES_BEFORE * PAGE, expectedIds.size(), "rows of " + TABLE);
  }

  @AfterAll
  static void closeTheSession() {
    if (session != null) {
      session.close();
      session = null;
    }
  }

  /** Fault, format and the connection's options: each fault in the framings where it differs. */
  static Stream<Arguments> runs() {
    List<String> v4 = List.of("--protocol", "4", "--compression", "none");
    List<String> v4Lz4 = List.of("--protocol", "4", "--compression", "lz4");
    List<String> v5 = List.of("--protocol", "5", "--compression", "none");
    List<String> v5Lz4 = List.of("--protocol", "5", "--compression", "lz4");
    return Stream.of(
        Arguments.of(Failure.CUT, "jsonl", v4),
        Arguments.of(Failure.CUT, "csv", v5Lz4),
        Arguments.of(Failure.RESET, "arrow", v5),
        Arguments.of(Failure.STALL, "jsonl", v5Lz4),
        Arguments.of(Failure.STALL, "arrow", v4Lz4),
        Arguments.of(Failure.OVERSIZE, "csv", v4Lz4),
        Arguments.of(Failure.OVERSIZE, "arrow", v5Lz4),
        Arguments.of(Failure.BITFLIP, "jsonl", v5),
        Arguments.of(Failure.BITFLIP, "csv", v5Lz4),
        Arguments.of(Failure.KILLED, "csv", v4),
        Arguments.of(Failure.KILLED, "arrow", v5Lz4));
  }

  @ParameterizedTest(name = "{0}, {1}, {2}")
  @MethodSource("runs")
  void aFaultMidQueryExitsOneWithOneLineAndTheWholePagesBeforeIt(
      Failure failure, String format, List<String> connection) throws Exception {
    int timeout = failure == Failure.STALL ? STALL_TIMEOUT : TIMEOUT;
    Path arrow = dir.resolve(failure + "-" + String.join("", connection) + ".arrow");
    List<String> options =
        new ArrayList<>(
            List.of(
                "--quiet",
                "--timeout",
                Integer.toString(timeout),
                "--page-size",
                Integer.toString(PAGE),
                "--format",
                format));
    if (format.equals("arrow")) {
      options.addAll(List.of("--output", arrow.toString()));
    }
    options.addAll(connection);
    options.add("SELECT id, v FROM " + TABLE);

    int afterResponses = HANDSHAKE + PAGES_BEFORE;
    JarProcess.Result result;
    long struck;
    String address;
    if (failure == Failure.KILLED) {
      try (ProxyProcess process =
          ProxyProcess.start(server.host(), server.port(), Fault.Kind.STALL, afterResponses)) {
        address = "127.0.0.1:" + process.port();
        JarProcess.Started run =
            JarProcess.start(dir, List.of(), Map.of(), query(process.port(), options));
        assertEquals(
            afterResponses,
            process.fired().get(TIMEOUT, TimeUnit.SECONDS),
            "the response the process stalls in");
        struck = System.nanoTime();
        assertTrue(process.kill(), "the process ended");
        result = run.await();
      }
    } else {
      try (FaultProxy proxy = FaultProxy.start(server.host(), server.port())) {
        Fault fault = failure.fault(afterResponses);
        proxy.faultNextConnection(fault);
        address = "127.0.0.1:" + proxy.port();
        JarProcess.Started run =
            JarProcess.start(dir, List.of(), Map.of(), query(proxy.port(), options));
        fault.fired().get(TIMEOUT, TimeUnit.SECONDS);
        struck = System.nanoTime();
        result = run.await();
      }
    }
    Duration took = Duration.ofNanos(System.nanoTime() - struck);
    Duration limit =
        (failure == Failure.STALL ? Duration.ofSeconds(timeout) : Duration.ZERO).plus(MARGIN);
    System.err.printf(
        "[cqlrows] query, %s, %s, %s: exit status %d %d ms after the fault: %s%n",
        failure,
        format,
        connection,
        result.status(),
        took.toMillis(),
        result.err().strip().replace("\n", " | "));

    assertEquals(1, result.status(), result.err());
    assertTrue(
        took.compareTo(limit) <= 0,
        "exited "
            + took.toMillis()
            + " ms after the fault"
            + " (at most "
            + limit.toMillis()
            + " ms)");
    List<String> errLines = new ArrayList<>(result.errLines());
    if (format.equals("arrow")) {
      // the file written, with its rows, as each Arrow export ends
      assertFalse(errLines.isEmpty(), "stderr");
      assertEquals(arrow + "\t" + PAGES_BEFORE * PAGE + " rows", errLines.remove(0));
    }
    assertEquals(1, errLines.size(), "one error line on stderr: " + result.err());
    String line = errLines.get(0);
    assertTrue(line.startsWith("cqlrows: " + address), line);
    assertTrue(
        failure.line.stream().anyMatch(line::contains),
        line + " (expected one of: " + failure.line + ")");

    switch (format) {
      case "jsonl" -> assertJsonLines(result);
      case "csv" -> assertCsv(result);
      case "arrow" -> assertArrow(arrow);
      default -> fail(format);
    }
  }

  /** {@code query --host 127.0.0.1 --port PORT options}. */
  private static List<String> query(int port, List<String> options) {
    List<String> args =
        new ArrayList<>(List.of("query", "--host", "127.0.0.1", "--port", Integer.toString(port)));
    args.addAll(options);
    return args;
  }

  /** Every line parses as JSON; the lines are the rows of the pages before the fault. */
  private static void assertJsonLines(JarProcess.Result result) {
    List<String> lines = result.lines();
    assertEquals(PAGES_BEFORE * PAGE, lines.size(), "JSON Lines: the pages before the fault");
    for (int i = 0; i < lines.size(); i++) {
      JsonNode row = Corpus.json(lines.get(i));
      assertEquals(List.of("id", "v"), fieldNames(row), "line " + i);
      assertRow(i, row.get("id").intValue(), floats(row.get("v")));
    }
  }

  /** The CSV parses (RFC 4180): the header, then the rows of the pages before the fault. */
  private static void assertCsv(JarProcess.Result result) {
    List<List<String>> records = CsvRecords.parse(result.text());
    assertEquals(1 + PAGES_BEFORE * PAGE, records.size(), "CSV: a header and the pages");
    assertEquals(List.of("id", "v"), records.get(0), "the header");
    for (int i = 0; i < PAGES_BEFORE * PAGE; i++) {
      List<String> record = records.get(1 + i);
      assertEquals(2, record.size(), "record " + i + ": " + record);
      assertRow(i, Integer.parseInt(record.get(0)), floats(Corpus.json(record.get(1))));
    }
  }

  /** The Arrow file opens and reads: one batch per page before the fault. */
  private static void assertArrow(Path file) throws Exception {
    assertTrue(Files.isRegularFile(file), file + " exists");
    int rows = 0;
    try (RootAllocator allocator = new RootAllocator();
        ArrowFileReader in = new ArrowFileReader(Files.newByteChannel(file), allocator)) {
      VectorSchemaRoot root = in.getVectorSchemaRoot();
      List<ArrowBlock> blocks = in.getRecordBlocks();
      assertEquals(PAGES_BEFORE, blocks.size(), "Arrow batches: the pages before the fault");
      for (ArrowBlock block : blocks) {
        assertTrue(in.loadRecordBatch(block), "a batch");
        assertEquals(PAGE, root.getRowCount(), "rows in batch of page " + (rows / PAGE + 1));
        IntVector ids = (IntVector) root.getVector("id");
        FixedSizeListVector v = (FixedSizeListVector) root.getVector("v");
        assertEquals(DIMENSION, v.getListSize());
        Float4Vector values = (Float4Vector) v.getDataVector();
        for (int r = 0; r < root.getRowCount(); r++) {
          assertFalse(v.isNull(r), "row " + (rows + r));
          float[] floats = new float[DIMENSION];
          for (int j = 0; j < DIMENSION; j++) {
            floats[j] = values.get(r * DIMENSION + j);
          }
          assertRow(rows + r, ids.get(r), floats);
        }
        rows += root.getRowCount();
      }
    }
    assertEquals(PAGES_BEFORE * PAGE, rows);
  }

  /** Row {@code i} has the id the server pages there, and the vector written for it. */
  private static void assertRow(int i, int id, float[] v) {
    assertEquals(expectedIds.get(i), id, "the id of row " + i);
    float[] expected = LiveFixtures.vec128(id);
    assertEquals(expected.length, v.length, "id " + id);
    for (int j = 0; j < expected.length; j++) {
      if (Float.floatToRawIntBits(expected[j]) != Float.floatToRawIntBits(v[j])) {
        fail("id " + id + ", v[" + j + "] = " + v[j] + " (expected: " + expected[j] + ")");
      }
    }
  }

  /** A vector of the canonical JSON: an array of floats as strings. */
  private static float[] floats(JsonNode v) {
    assertTrue(v.isArray(), String.valueOf(v));
    float[] floats = new float[v.size()];
    for (int j = 0; j < floats.length; j++) {
      floats[j] = Float.parseFloat(v.get(j).textValue());
    }
    return floats;
  }

  private static List<String> fieldNames(JsonNode row) {
    List<String> names = new ArrayList<>();
    row.fieldNames().forEachRemaining(names::add);
    return names;
  }
}
