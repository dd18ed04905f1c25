package io.cqlrows.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.cqlrows.client.FakeCqlServer;
import io.cqlrows.netty.EventLoops;
import io.cqlrows.netty.frame.Compression;
import io.cqlrows.testing.Corpus;
import io.netty.channel.EventLoopGroup;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code cqlrows query} against the netty module's fake CQL server (which answers {@code PAGE} with
 * two pages, {@code FAIL} with an Invalid error, {@code CLOSE} by closing, and any other {@code
 * SELECT} with one row of its stream id and text): every page in every format, the row limit,
 * server errors and lost connections on one line, authentication, and usage errors. The live tests
 * run the same command against Cassandra.
 */
class QueryCommandTest {
  private static EventLoopGroup group;
  private FakeCqlServer server;
  @TempDir Path dir;

  @BeforeAll
  static void startGroup() {
    group = EventLoops.nio(1);
  }

  @AfterAll
  static void stopGroup() throws InterruptedException {
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
  }

  @AfterEach
  void stopServer() throws InterruptedException {
    if (server != null) {
      server.close();
    }
  }

  private CliRun query(int version, Compression compression, String... args) throws Exception {
    if (server == null) {
      server = new FakeCqlServer(group, version, compression);
    }
    // the fake server speaks one version and one compression; Cassandra negotiates
    // stderr is not a terminal here: no progress line, and each statement's row count; no cqlsh
    // configuration file of the user running the tests
    String[] all = new String[args.length + 8];
    all[0] = "query";
    all[1] = "--port";
    all[2] = Integer.toString(server.port());
    all[3] = "--protocol";
    all[4] = Integer.toString(version);
    all[5] = "--compression";
    all[6] = compression.name().toLowerCase(java.util.Locale.ROOT);
    all[7] = "--no-cqlshrc";
    System.arraycopy(args, 0, all, 8, args.length);
    return CliRun.of(all);
  }

  @ParameterizedTest
  @CsvSource({"4, NONE", "4, LZ4", "5, NONE", "5, LZ4"})
  void everyPageAsJsonLines(int version, Compression compression) throws Exception {
    CliRun r = query(version, compression, "--format", "jsonl", "PAGE");
    assertEquals(0, r.status(), r.err());
    assertEquals(List.of("{\"page\":1}", "{\"page\":2}"), r.lines());
    assertTrue(r.err().contains("2 rows in 2 pages"), r.err());
  }

  @Test
  void quietPrintsNothingButTheResults() throws Exception {
    CliRun r = query(4, Compression.NONE, "--quiet", "--format", "jsonl", "PAGE");
    assertEquals(0, r.status(), r.err());
    assertEquals(2, r.lines().size());
    assertEquals("", r.err(), "no row count, no progress");
  }

  @Test
  void timingPrintsEachStatementsTimePagesAndRows() throws Exception {
    CliRun r = query(5, Compression.LZ4, "--timing", "--format", "jsonl", "PAGE", "SELECT x");
    assertEquals(0, r.status(), r.err());
    List<String> lines = r.err().lines().toList();
    assertEquals(2, lines.size(), r.err());
    java.util.regex.Pattern timing =
        java.util.regex.Pattern.compile(
            "cqlrows: (\\d+) rows? in (\\d+) pages?, (\\d+\\.\\d) ms, ([\\d,]+) rows/s");
    java.util.regex.Matcher first = timing.matcher(lines.get(0));
    assertTrue(first.matches(), lines.get(0));
    assertEquals("2", first.group(1));
    assertEquals("2", first.group(2));
    assertTrue(Double.parseDouble(first.group(3)) > 0, lines.get(0));
    java.util.regex.Matcher second = timing.matcher(lines.get(1));
    assertTrue(second.matches(), lines.get(1));
    assertEquals("1", second.group(1));
  }

  @Test
  void timingAndSchemaChangeLinesAreWhatTheyReport() {
    assertEquals("done in 1.5 ms", QueryCommand.timing(false, 0, 0, 1_500_000));
    assertEquals(
        "1,000 rows in 2 pages, 500.0 ms, 2,000 rows/s",
        QueryCommand.timing(true, 1000, 2, 500_000_000));
    assertEquals(
        "CREATED TABLE ks.t",
        QueryCommand.describe(
            new io.cqlrows.core.SchemaChangeResult("CREATED", "TABLE", "ks", "t", List.of())));
    assertEquals(
        "DROPPED KEYSPACE ks",
        QueryCommand.describe(
            new io.cqlrows.core.SchemaChangeResult("DROPPED", "KEYSPACE", "ks", "", List.of())));
    assertEquals(
        "CREATED FUNCTION ks.f(int, text)",
        QueryCommand.describe(
            new io.cqlrows.core.SchemaChangeResult(
                "CREATED", "FUNCTION", "ks", "f", List.of("int", "text"))));
  }

  @Test
  void csvWritesItsHeaderOncePerStatement() throws Exception {
    CliRun r = query(5, Compression.LZ4, "--format", "csv", "PAGE", "PAGE");
    assertEquals(0, r.status(), r.err());
    assertEquals(List.of("page", "1", "2", "page", "1", "2"), r.lines());
  }

  @Test
  void maxRowsStopsPagingAndAsksForNoMore() throws Exception {
    CliRun r = query(4, Compression.NONE, "--format", "jsonl", "--max-rows", "1", "PAGE");
    assertEquals(0, r.status(), r.err());
    assertEquals(List.of("{\"page\":1}"), r.lines());
    long pageRequests = server.queries().stream().filter("PAGE"::equals).count();
    assertEquals(1, pageRequests);
  }

  @Test
  void tableAndVerticalLayouts() throws Exception {
    CliRun table = query(4, Compression.NONE, "--format", "table", "SELECT x");
    assertEquals(0, table.status(), table.err());
    assertEquals("stream  query", table.lines().get(0), "the row count is on stderr");
    CliRun vertical = query(4, Compression.NONE, "--format", "vertical", "SELECT x");
    assertEquals(0, vertical.status(), vertical.err());
    List<String> lines = vertical.lines();
    assertTrue(lines.get(0).startsWith("-[ RECORD 1 ]"), lines.toString());
    assertTrue(lines.get(2).equals("query  | SELECT x"), lines.toString());
  }

  @Test
  void thePagesOfAStatementAreOneTable() throws Exception {
    CliRun table = query(5, Compression.NONE, "--format", "table", "PAGE", "PAGE");
    assertEquals(0, table.status(), table.err());
    assertEquals(
        List.of("page", "----", "1", "2", "page", "----", "1", "2"),
        table.lines(),
        "one header per statement, its pages under it");
    CliRun vertical = query(5, Compression.NONE, "--format", "vertical", "PAGE");
    assertEquals(0, vertical.status(), vertical.err());
    List<String> records =
        vertical.lines().stream().filter(l -> l.startsWith("-[ RECORD ")).toList();
    assertEquals(2, records.size(), vertical.out());
    assertTrue(records.get(1).startsWith("-[ RECORD 2 ]"), "numbered across pages: " + records);
  }

  @Test
  void arrowBatchRowsGathersPagesIntoBatches() throws Exception {
    Path file = dir.resolve("gathered.arrow");
    CliRun r =
        query(
            5,
            Compression.LZ4,
            "--format",
            "arrow",
            "--output",
            file.toString(),
            "--page-size",
            "2",
            "--arrow-batch-rows",
            "5",
            "PAGES 13");
    assertEquals(0, r.status(), r.err());
    List<Integer> sizes = new ArrayList<>();
    List<Integer> ids = new ArrayList<>();
    try (RootAllocator allocator = new RootAllocator();
        ArrowFileReader in = new ArrowFileReader(Files.newByteChannel(file), allocator)) {
      VectorSchemaRoot root = in.getVectorSchemaRoot();
      while (in.loadNextBatch()) {
        sizes.add(root.getRowCount());
        IntVector id = (IntVector) root.getVector("id");
        for (int i = 0; i < root.getRowCount(); i++) {
          ids.add(id.get(i));
        }
      }
    }
    assertEquals(List.of(6, 6, 1), sizes, "pages of 2 rows gathered to at least 5, then the rest");
    for (int i = 0; i < 13; i++) {
      assertEquals(i, ids.get(i), "every row once, in order");
    }
  }

  @Test
  void theArrowOptionsAreForArrowOutput() throws Exception {
    CliRun r = query(5, Compression.LZ4, "--format", "jsonl", "--arrow-batch-rows", "5", "PAGE");
    assertEquals(2, r.status(), r.err());
    QueryOptions defaults =
        QueryOptions.parse(
            new String[] {"query", "--format", "arrow", "--output", "x.arrow", "SELECT 1"},
            java.util.Map.of());
    assertEquals(QueryOptions.Arrow.DEFAULTS, defaults.arrow());
    assertTrue(defaults.arrow().mapping().inetAsText(), "inet as text by default");
    QueryOptions chosen =
        QueryOptions.parse(
            new String[] {
              "query",
              "--format",
              "arrow",
              "--output",
              "x.arrow",
              "--arrow-decimal",
              "4",
              "--arrow-inet",
              "binary",
              "SELECT 1"
            },
            java.util.Map.of());
    assertEquals(4, chosen.arrow().mapping().decimalScale());
    assertTrue(!chosen.arrow().mapping().inetAsText());
  }

  @Test
  void arrowToAFile() throws Exception {
    Path file = dir.resolve("pages.arrow");
    CliRun r = query(5, Compression.LZ4, "--format", "arrow", "--output", file.toString(), "PAGE");
    assertEquals(0, r.status(), r.err());
    try (RootAllocator allocator = new RootAllocator();
        ArrowFileReader in = new ArrowFileReader(Files.newByteChannel(file), allocator)) {
      assertEquals(2, in.getRecordBlocks().size(), "one record batch per page");
      VectorSchemaRoot root = in.getVectorSchemaRoot();
      assertTrue(in.loadNextBatch());
      assertEquals(1, ((IntVector) root.getVector("page")).get(0));
      assertTrue(in.loadNextBatch());
      assertEquals(2, ((IntVector) root.getVector("page")).get(0));
    }
  }

  /**
   * SIGINT while a statement waits for its page: the page still arrives (the server answers the
   * held request once the signal is sent), the output is ended, and the JVM exits 130; the Arrow
   * file holds the pages written before, readable. Runs the command as a process.
   */
  @Test
  void ctrlCLeavesAValidFileAndExits130() throws Exception {
    server = new FakeCqlServer(group, 4, Compression.NONE);
    Path file = dir.resolve("pages.arrow");
    Process p =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--add-opens=java.base/java.nio=ALL-UNNAMED",
                "-cp",
                System.getProperty("java.class.path"),
                CqlRowsCli.class.getName(),
                "query",
                "--port",
                Integer.toString(server.port()),
                "--protocol",
                "4",
                "--compression",
                "none",
                "--quiet",
                "--timeout",
                "60",
                "--format",
                "arrow",
                "--output",
                file.toString(),
                "PAGE",
                "HOLD the page in flight",
                "SELECT never sent")
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("out.txt").toFile())
            .start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!server.queries().contains("HOLD the page in flight") && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    assertTrue(
        server.queries().contains("HOLD the page in flight"),
        "the command reached the second statement");
    Process kill = new ProcessBuilder("kill", "-INT", Long.toString(p.pid())).start();
    assertEquals(0, kill.waitFor());
    Thread.sleep(500); // the signal lands while the page is awaited
    server.answerHeld();
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "exited");
    assertEquals(130, p.exitValue(), Files.readString(dir.resolve("out.txt")));
    assertFalse(server.queries().contains("SELECT never sent"), "no statement after Ctrl-C");
    try (RootAllocator allocator = new RootAllocator();
        ArrowFileReader in = new ArrowFileReader(Files.newByteChannel(file), allocator)) {
      assertEquals(2, in.getRecordBlocks().size(), "the two pages of PAGE");
    }
    try (RootAllocator allocator = new RootAllocator();
        ArrowFileReader in =
            new ArrowFileReader(Files.newByteChannel(dir.resolve("pages-2.arrow")), allocator)) {
      assertEquals(1, in.getRecordBlocks().size(), "the page in flight, finished after Ctrl-C");
    }
  }

  /**
   * SIGINT while the command connects to a peer that accepts the connection and never answers
   * (neither the CQL handshake nor, with --ssl, the TLS one): exit 130 at once, not after the 120 s
   * of --timeout. Runs the command as a process.
   */
  @ParameterizedTest
  @CsvSource({"false", "true"})
  void ctrlCWhileConnectingExitsAtOnce(boolean tls) throws Exception {
    try (ServerSocket silent = new ServerSocket(0, 4, InetAddress.getByName("127.0.0.1"))) {
      List<String> command =
          new ArrayList<>(
              List.of(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "--add-opens=java.base/java.nio=ALL-UNNAMED",
                  "-cp",
                  System.getProperty("java.class.path"),
                  CqlRowsCli.class.getName(),
                  "query",
                  "--port",
                  Integer.toString(silent.getLocalPort()),
                  "--quiet",
                  "--timeout",
                  "120"));
      if (tls) {
        command.add("--ssl-insecure");
      }
      command.add("SELECT 1");
      Process p =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("out.txt").toFile())
              .start();
      silent.setSoTimeout(60_000);
      try (Socket accepted = silent.accept()) {
        // the client is connected and waits for an answer that never comes
        if (tls) {
          assertEquals(0x16, accepted.getInputStream().read(), "a TLS ClientHello");
        } else {
          assertEquals(0x05, accepted.getInputStream().read(), "a v5 OPTIONS");
        }
        Thread.sleep(200);
        long start = System.nanoTime();
        Process kill = new ProcessBuilder("kill", "-INT", Long.toString(p.pid())).start();
        assertEquals(0, kill.waitFor());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "exited");
        long millis = (System.nanoTime() - start) / 1_000_000;
        assertEquals(130, p.exitValue(), Files.readString(dir.resolve("out.txt")));
        // a second on an idle machine; the margin is for a loaded one, far below --timeout
        assertTrue(millis < 5_000, "exited " + millis + " ms after SIGINT");
      } finally {
        p.destroyForcibly();
      }
    }
  }

  @Test
  void statementsFromAFileOnePerLine() throws Exception {
    Path file = dir.resolve("statements.cql");
    Files.writeString(file, "-- a comment\nSELECT one\n\nSELECT two\n", StandardCharsets.UTF_8);
    CliRun r = query(4, Compression.NONE, "--format", "jsonl", "--file", file.toString());
    assertEquals(0, r.status(), r.err());
    JsonNode first = Corpus.json(r.lines().get(0));
    JsonNode second = Corpus.json(r.lines().get(1));
    assertEquals("SELECT one", first.get("query").asText());
    assertEquals("SELECT two", second.get("query").asText());
  }

  @Test
  void aServerErrorIsOneLineWithItsNameAndExitOne() throws Exception {
    CliRun r = query(4, Compression.NONE, "FAIL now");
    assertEquals(1, r.status());
    assertEquals(1, r.err().lines().count(), r.err());
    assertTrue(r.err().startsWith("cqlrows: Invalid: "), r.err());
  }

  @Test
  void aClosedConnectionSaysSoWithTheServer() throws Exception {
    CliRun r = query(4, Compression.NONE, "CLOSE");
    assertEquals(1, r.status());
    assertEquals("cqlrows: 127.0.0.1:" + server.port() + " closed the connection", r.err().strip());
  }

  @Test
  void aServerThatNeverAnswersTimesOut() throws Exception {
    CliRun r = query(4, Compression.NONE, "--timeout", "1", "NEVER");
    assertEquals(1, r.status());
    assertEquals(
        "cqlrows: 127.0.0.1:" + server.port() + ": no response within 1 s (--timeout)",
        r.err().strip());
  }

  @Test
  void aRefusedConnectionNamesHostAndPort() throws Exception {
    server = new FakeCqlServer(group, 4, Compression.NONE);
    int port = server.port();
    server.close();
    server = null;
    CliRun r = CliRun.of("query", "--port", Integer.toString(port), "SELECT 1");
    assertEquals(1, r.status());
    assertTrue(r.err().startsWith("cqlrows: cannot connect to 127.0.0.1:" + port), r.err());
    assertEquals(1, r.err().lines().count(), r.err());
  }

  @Test
  void authenticatesWithThePasswordFromTheEnvironment() throws Exception {
    server = new FakeCqlServer(group, 5, Compression.LZ4);
    server.password = System.getenv("PATH"); // an environment variable every test JVM has
    CliRun r =
        query(
            5,
            Compression.LZ4,
            "--user",
            "cassandra",
            "--password-env",
            "PATH",
            "--format",
            "jsonl",
            "PAGE");
    assertEquals(0, r.status(), r.err());
    assertEquals(2, r.lines().size());
    CliRun anonymous = query(5, Compression.LZ4, "PAGE");
    assertEquals(1, anonymous.status());
    assertEquals(
        "cqlrows: 127.0.0.1:"
            + server.port()
            + " requires authentication: give --user U (and --password-env VAR)",
        anonymous.err().strip());
    server.password = "something else";
    CliRun wrong =
        query(5, Compression.LZ4, "--user", "cassandra", "--password-env", "PATH", "PAGE");
    assertEquals(1, wrong.status());
    assertTrue(wrong.err().startsWith("cqlrows: Bad credentials: "), wrong.err());
  }

  @Test
  void badOptionsAreUsageErrorsWithTheQueryHelp() {
    for (String[] args :
        new String[][] {
          {"query", "--bogus"},
          {"query", "--format", "xml", "Q"},
          {"query", "--timeout", "-1", "Q"},
          {"query", "--format", "arrow", "Q"},
          {"query", "--password-env", "X", "Q"},
          {"query", "--protocol", "3", "Q"},
          {"query", "--consistency", "MOST", "Q"},
          {"query", "--protocol", "5", "--compression", "snappy", "Q"}
        }) {
      CliRun r = CliRun.of(args);
      assertEquals(2, r.status(), String.join(" ", args));
      assertTrue(r.err().contains("usage: cqlrows query"), r.err());
    }
    CliRun help = CliRun.of("query", "--help");
    assertEquals(0, help.status());
    for (String option :
        new String[] {
          "--host",
          "--port",
          "--protocol",
          "--compression",
          "--user",
          "--password-env",
          "--keyspace",
          "--consistency",
          "--page-size",
          "--format",
          "--output",
          "--max-rows",
          "--streaming",
          "--quiet",
          "--file",
          "--timeout"
        }) {
      assertTrue(help.out().contains(option), option);
    }
    assertFalse(help.out().contains("--password "), "no option takes the password itself");
  }
}
