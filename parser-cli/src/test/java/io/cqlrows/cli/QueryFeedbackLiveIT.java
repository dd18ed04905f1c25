package io.cqlrows.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.datastax.oss.driver.api.core.CqlSession;
import io.cqlrows.client.live.CassandraServer;
import io.cqlrows.client.live.LiveFixtures;
import io.cqlrows.testing.Corpus;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code cqlrows query} (the packaged jar) tells a user at a terminal, against the live tests'
 * Cassandra 5.0.6: schema changes and LWT results, {@code --timing}, {@code --tracing} with the
 * trace of a real query, tables of CJK and emoji text that line up, {@code --json-numbers} read
 * back by Python's {@code json} module, and the prompt on a pseudo-terminal.
 */
@Tag("live")
class QueryFeedbackLiveIT {
  private static final String KS = "cqlrows_cli_feedback";

  @TempDir static Path dir;

  private static CassandraServer server;

  @BeforeAll
  static void start() {
    server = CassandraServer.get();
    try (CqlSession session = LiveFixtures.openSession(server)) {
      session.execute(
          "CREATE KEYSPACE IF NOT EXISTS "
              + KS
              + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
      session.execute(
          "CREATE TABLE IF NOT EXISTS "
              + KS
              + ".words (id int PRIMARY KEY, word text, n bigint, x double, f float, big varint,"
              + " addr inet, price decimal)");
      String[][] words = {
        {"1", "'plain'", "1", "0.5", "0.1", "7", "'10.0.0.1'", "1.5"},
        {
          "2",
          "'日本語のテキスト'",
          "9007199254740992",
          "-1e300",
          "3.4028235e38",
          "9007199254740993",
          "'2001:db8::1'",
          "-12345678901234567890.25"
        },
        {"3", "'😀😀 emoji'", "-9007199254740993", "NaN", "-Infinity", "-42", "null", "null"},
        {"4", "'한국어'", "42", "1.0E-7", "-0.0", "123456789012345678901234567890", "'::1'", "0.125"}
      };
      for (String[] w : words) {
        session.execute(
            "INSERT INTO "
                + KS
                + ".words (id, word, n, x, f, big, addr, price) VALUES ("
                + String.join(", ", w)
                + ")");
      }
    }
  }

  @AfterAll
  static void dropTheKeyspace() {
    try (CqlSession session = LiveFixtures.openSession(server)) {
      session.execute("DROP KEYSPACE IF EXISTS " + KS);
      session.execute("DROP KEYSPACE IF EXISTS " + KS + "_ddl");
    }
  }

  private static List<String> args(String... args) {
    List<String> all =
        new ArrayList<>(
            List.of("query", "--host", server.host(), "--port", Integer.toString(server.port())));
    all.addAll(List.of(args));
    return all;
  }

  private static JarProcess.Result query(Map<String, String> env, String... args) throws Exception {
    return JarProcess.run(dir, List.of(), env, args(args));
  }

  /** Runs {@code python3 script args}, which must exit 0; returns what it printed, trimmed. */
  private static String python(Path script, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("python3", script.toString()));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), "python3 ended");
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    assertEquals(0, p.exitValue(), out);
    return out;
  }

  @Test
  void schemaChangesLwtResultsAndTiming() throws Exception {
    String ks = KS + "_ddl";
    JarProcess.Result r =
        query(
            Map.of(),
            "--timing",
            "--format",
            "jsonl",
            "CREATE KEYSPACE "
                + ks
                + " WITH replication = {'class': 'SimpleStrategy', "
                + "'replication_factor': 1}",
            "CREATE TABLE " + ks + ".t (k int PRIMARY KEY, v text)",
            "INSERT INTO " + ks + ".t (k, v) VALUES (1, 'a') IF NOT EXISTS",
            "INSERT INTO " + ks + ".t (k, v) VALUES (1, 'b') IF NOT EXISTS",
            "UPDATE " + ks + ".t SET v = 'c' WHERE k = 1",
            "DROP TABLE " + ks + ".t",
            "DROP KEYSPACE " + ks);
    assertEquals(0, r.status(), r.err());
    assertEquals(
        List.of(
            Corpus.json("{\"[applied]\":true}"),
            Corpus.json("{\"[applied]\":false,\"k\":1,\"v\":\"a\"}")),
        r.lines().stream().map(Corpus::json).toList(),
        "an LWT prints its [applied] row, with the current values when it did not apply");
    List<String> err = r.errLines();
    List<String> changes =
        err.stream().filter(l -> l.matches("cqlrows: [A-Z]+ [A-Z]+ .*")).toList();
    assertEquals(
        List.of(
            "cqlrows: CREATED KEYSPACE " + ks,
            "cqlrows: CREATED TABLE " + ks + ".t",
            "cqlrows: DROPPED TABLE " + ks + ".t",
            "cqlrows: DROPPED KEYSPACE " + ks),
        changes,
        r.err());
    long done = err.stream().filter(l -> l.matches("cqlrows: done in \\d+\\.\\d ms")).count();
    assertEquals(5, done, "a time for each statement without rows: " + r.err());
    long timed =
        err.stream()
            .filter(l -> l.matches("cqlrows: 1 row in 1 page, \\d+\\.\\d ms, [\\d,]+ rows/s"))
            .count();
    assertEquals(2, timed, "a time for each LWT: " + r.err());
  }

  @Test
  void tracingPrintsTheTraceOfTheQuery() throws Exception {
    JarProcess.Result r =
        query(
            Map.of(),
            "--tracing",
            "--format",
            "csv",
            "SELECT id FROM " + KS + ".words WHERE id = 1");
    assertEquals(0, r.status(), r.err());
    assertEquals(List.of("id", "1"), r.lines(), "the result as without tracing");
    List<String> err = r.errLines();
    int session = -1;
    for (int i = 0; i < err.size(); i++) {
      if (err.get(i).matches("Tracing session: [0-9a-f-]{36}")) {
        session = i;
      }
    }
    assertTrue(session >= 0, r.err());
    assertTrue(err.get(session + 1).matches("activity +source +source_elapsed +thread"), r.err());
    assertTrue(err.get(session + 2).matches("[- ]+"), r.err());
    int events = 0;
    int at = session + 3;
    while (at < err.size() && !err.get(at).startsWith("Request complete")) {
      events++;
      at++;
    }
    assertTrue(events >= 2, events + " events: " + r.err());
    assertTrue(
        err.stream().anyMatch(l -> l.contains("Executing single-partition query")),
        "Cassandra's own words for the read: " + r.err());
    Matcher done =
        Pattern.compile("Request complete: (\\d+) us, coordinator (.+)").matcher(err.get(at));
    assertTrue(done.matches(), r.err());
    assertTrue(Long.parseLong(done.group(1)) > 0, r.err());
  }

  @Test
  void tablesOfWideCharactersLineUp() throws Exception {
    JarProcess.Result r = query(Map.of("COLUMNS", "200"), "SELECT word, id FROM " + KS + ".words");
    assertEquals(0, r.status(), r.err());
    List<String> lines = r.lines();
    assertEquals(6, lines.size(), r.text());
    int start = -1;
    for (String line : lines) {
      int cell = line.lastIndexOf(' ') + 1;
      int column = DisplayWidth.of(line.substring(0, cell));
      start = start < 0 ? column : start;
      assertEquals(start, column, "the id column starts at one terminal column: " + line);
    }
    assertEquals(DisplayWidth.of("日本語のテキスト") + 2, start);
  }

  @Test
  void jsonNumbersAreNumbersInPython() throws Exception {
    String select = "SELECT id, n, x, f, big FROM " + KS + ".words";
    JarProcess.Result strings = query(Map.of(), "--format", "jsonl", select);
    JarProcess.Result numbers = query(Map.of(), "--format", "jsonl", "--json-numbers", select);
    assertEquals(0, strings.status(), strings.err());
    assertEquals(0, numbers.status(), numbers.err());
    Path check = dir.resolve("check_json_numbers.py");
    Files.writeString(
        check,
        String.join(
            "\n",
            "import json, math, sys",
            "strings = [json.loads(l) for l in open(sys.argv[1])]",
            "numbers = [json.loads(l) for l in open(sys.argv[2])]",
            "assert len(strings) == len(numbers) == 4",
            "count = 0",
            "for s, n in zip(sorted(strings, key=lambda r: r['id']),"
                + " sorted(numbers, key=lambda r: r['id'])):",
            "    for k in ('n', 'x', 'f', 'big'):",
            "        a, b = s[k], n[k]",
            "        assert isinstance(a, str), (k, a)",
            "        if isinstance(b, str):",
            "            assert b == a, (k, a, b)",
            "            if k in ('n', 'big'):",
            "                assert abs(int(a)) > 2 ** 53, (k, a)",
            "            else:",
            "                assert not math.isfinite(float(a)), (k, a)",
            "        elif k in ('n', 'big'):",
            "            assert isinstance(b, int) and b == int(a), (k, a, b)",
            "            count += 1",
            "        else:",
            "            assert isinstance(b, float), (k, a, b)",
            "            assert b == float(a) or k == 'f', (k, a, b)",
            "            assert k != 'f' or abs(b - float(a)) <= abs(float(a)) * 1e-7, (k, a, b)",
            "            count += 1",
            "print(count)",
            ""),
        StandardCharsets.UTF_8);
    String out = python(check, strings.out().toString(), numbers.out().toString());
    assertEquals("11", out, "the numbers a reader takes exactly: " + numbers.text());
  }

  @Test
  void arrowBatchesGatheredFromPagesAreReadByPyarrow() throws Exception {
    String missing = Pyarrow.missing();
    org.junit.jupiter.api.Assumptions.assumeTrue(missing == null, missing);
    Path file = dir.resolve("words.arrow");
    JarProcess.Result r =
        query(
            Map.of(),
            "--format",
            "arrow",
            "--output",
            file.toString(),
            "--page-size",
            "1",
            "--arrow-batch-rows",
            "3",
            "--arrow-decimal",
            "2",
            "SELECT id, addr, price FROM " + KS + ".words");
    assertEquals(0, r.status(), r.err());
    Path check = dir.resolve("check_arrow_batches.py");
    Files.writeString(
        check,
        String.join(
            "\n",
            "import sys, decimal",
            "import pyarrow as pa, pyarrow.ipc as ipc",
            "f = ipc.open_file(pa.memory_map(sys.argv[1]))",
            "sizes = [f.get_batch(i).num_rows for i in range(f.num_record_batches)]",
            "assert sizes == [3, 1], sizes",
            "t = f.read_all()",
            "assert t.schema.field('addr').type == pa.string(), t.schema",
            "assert t.schema.field('price').type == pa.decimal128(38, 2), t.schema",
            "rows = {r['id']: r for r in t.to_pylist()}",
            "D = decimal.Decimal",
            "assert rows[1]['addr'] == '10.0.0.1' and rows[1]['price'] == D('1.50'), rows[1]",
            "assert rows[2]['addr'] == '2001:db8:0:0:0:0:0:1', rows[2]",
            "assert rows[2]['price'] == D('-12345678901234567890.25'), rows[2]",
            "assert rows[3]['addr'] is None and rows[3]['price'] is None, rows[3]",
            "assert rows[4]['addr'] == '0:0:0:0:0:0:0:1' and rows[4]['price'] == D('0.12'), rows[4]",
            "print(len(rows))",
            ""),
        StandardCharsets.UTF_8);
    assertEquals("4", python(check, file.toString()));
  }

  @Test
  void thePromptOnATerminal() throws Exception {
    PtySession.Result r =
        new PtySession(
                dir,
                List.of(
                    "query",
                    "--host",
                    server.host(),
                    "--port",
                    Integer.toString(server.port()),
                    "--no-cqlshrc"),
                Map.of())
            .expect("cqlrows> ", 60)
            .line("USE " + KS + ";")
            .expect("cqlrows:" + KS + "> ")
            .line("SELECT id, word")
            .expect("\\.\\.\\.> ")
            .line("  FROM words WHERE id = 2;")
            .expect("2 +日本語のテキスト")
            .expect("cqlrows:" + KS + "> ")
            .line("EXPAND ON")
            .expect("Now expanded output is enabled")
            .line("SELECT id, word FROM words WHERE id = 3;")
            .expect("-\\[ RECORD 1 \\]")
            .expect("word \\| 😀😀 emoji")
            .line("EXPAND OFF")
            .line("TRACING ON")
            .expect("Now tracing is enabled")
            .line("SELECT id FROM words WHERE id = 4;")
            .expect("Tracing session: ")
            .expect("Request complete: ")
            .expect("cqlrows:" + KS + "> ")
            .line("SELEC broken;")
            .expect("cqlrows: Syntax_error")
            .expect("cqlrows:" + KS + "> ")
            .send(PtySession.CTRL_D)
            .run();
    assertTrue(r.passed(), r.problem() + "\n" + r.transcript());
    assertTrue(r.transcript().endsWith("[exit 0]\n"), r.transcript());
    assertTrue(
        Files.readString(dir.resolve(".cassandra/cqlrows_history")).contains("TRACING ON"),
        "the history is kept");
  }
}
