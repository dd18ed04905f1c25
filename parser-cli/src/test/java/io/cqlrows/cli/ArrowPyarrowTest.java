package io.cqlrows.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.cqlrows.testing.Corpus;
import io.cqlrows.testing.CorpusAssertions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code cqlrows replay --format arrow} on every corpus capture, read back by the reader data
 * people use: pyarrow ({@code src/test/python/check_arrow.py}) opens every file with {@code
 * pyarrow.ipc.open_file}, compares every value with what the Apache Cassandra Java driver decoded
 * from the same bytes, and reads each float vector column as a {@code (rows, N)} NumPy array
 * without a copy. Where python3 with pyarrow and numpy is missing the tests are skipped with that
 * reason, unless {@code CQLROWS_REQUIRE_PYARROW} is set (CI sets it), when they fail.
 */
class ArrowPyarrowTest {
  private static final Path SCRIPT = Path.of("src/test/python/check_arrow.py");

  @TempDir Path dir;

  @BeforeAll
  static void pyarrowIsThere() throws Exception {
    String missing = Pyarrow.missing();
    Assumptions.assumeTrue(missing == null, missing);
  }

  @ParameterizedTest
  @ValueSource(strings = {"a-v4", "b-v5", "c-v5-lz4", "d-v4-lz4", "e-v4-paging", "e-v5-paging"})
  void pyarrowReadsEveryResultAsTheDriverDecodedIt(String capture) throws Exception {
    for (String conn : new String[] {"conn-00", "conn-01"}) {
      Path s2c = dir.resolve(conn + ".s2c.bin");
      Files.write(s2c, Corpus.bytes(capture, conn + ".s2c.bin"));
      Files.write(dir.resolve(conn + ".c2s.bin"), Corpus.bytes(capture, conn + ".c2s.bin"));
      Path out = dir.resolve(capture + "-" + conn);
      CliRun r =
          CliRun.of("replay", "--format", "arrow", "--output", out.toString(), s2c.toString());
      assertEquals(0, r.status(), r.err());
      assertEquals("", r.err());
      int results = CorpusAssertions.expectedResults(capture, conn).size();
      assertEquals(results, r.lines().size(), "one line per file written");
      JsonNode summary = check(capture, conn + ".s2c.bin", out);
      assertEquals(results, summary.get("files").asInt());
      assertEquals(results, summary.get("results").asInt());
      assertTrue(summary.get("values").asInt() > 0);
      if (conn.equals("conn-01")) {
        assertTrue(summary.get("zero_copy").size() > 0, "a float vector column read by NumPy");
      }
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"a-v4", "b-v5"})
  void pyarrowReadsTheResultsOfATcpdumpCapture(String capture) throws Exception {
    Path pcap = dir.resolve("capture.pcap");
    Files.write(pcap, Corpus.bytes(capture, "capture.pcap"));
    Path out = dir.resolve("out");
    CliRun r =
        CliRun.of("replay", "--format", "arrow", "--output", out.toString(), pcap.toString());
    assertEquals(0, r.status(), r.err());
    JsonNode summary = check(capture, "*", out);
    assertEquals(Corpus.jsonLines(capture, "results.jsonl").size(), summary.get("files").asInt());
  }

  /** The a-v4 page of 200 x {@code vector<float, 1536>} is one NumPy matrix over the file. */
  @Test
  void theEmbeddingPageIsAZeroCopyMatrix() throws Exception {
    Path out = arrowFilesOfAV4Conn01();
    JsonNode summary = check("a-v4", "conn-01.s2c.bin", out);
    List<String> shapes = new ArrayList<>();
    for (JsonNode z : summary.get("zero_copy")) {
      shapes.add(z.get("column").asText() + " " + z.get("shape"));
    }
    assertTrue(shapes.contains("v [200,1536]"), shapes.toString());
  }

  /** The checker is not a rubber stamp: two files swapped are reported. */
  @Test
  void theCheckerFindsAResultInTheWrongPlace() throws Exception {
    Path out = arrowFilesOfAV4Conn01();
    List<Path> files;
    try (Stream<Path> s = Files.list(out)) {
      files = s.sorted().toList();
    }
    Path a = files.get(1);
    Path b = files.get(2);
    Path tmp = out.resolve("swap");
    Files.move(a, tmp);
    Files.move(b, a);
    Files.move(tmp, b);
    Process p = checker("a-v4", "conn-01.s2c.bin", out);
    p.getInputStream().readAllBytes();
    assertTrue(p.waitFor(300, TimeUnit.SECONDS));
    assertEquals(1, p.exitValue());
  }

  @Test
  void oneFilePerQueryOfAStream() throws Exception {
    Path s2c = dir.resolve("conn-01.s2c.bin");
    Files.write(s2c, Corpus.bytes("e-v4-paging", "conn-01.s2c.bin"));
    Path file = dir.resolve("pages.arrow");
    CliRun r =
        CliRun.of(
            "replay",
            "--format",
            "arrow",
            "--output",
            file.toString(),
            "--stream",
            "0",
            s2c.toString());
    assertEquals(0, r.status(), r.err());
    assertEquals(
        List.of(file + "\t1 rows", dir.resolve("pages-2.arrow") + "\t5000 rows"), r.lines());
    Process p =
        new ProcessBuilder(
                "python3",
                "-c",
                String.join(
                    "\n",
                    "import sys, pyarrow as pa, pyarrow.ipc as ipc",
                    "r = ipc.open_file(pa.memory_map(sys.argv[1]))",
                    "print(r.num_record_batches, r.read_all().num_rows)"),
                dir.resolve("pages-2.arrow").toString())
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    assertTrue(p.waitFor(120, TimeUnit.SECONDS));
    assertEquals("51 5000", out, "50 pages of 100 rows and the final empty page");
  }

  /** {@code replay --format arrow} of a-v4's conn-01 (both sides) into a new directory. */
  private Path arrowFilesOfAV4Conn01() throws IOException {
    Path s2c = dir.resolve("conn-01.s2c.bin");
    Files.write(s2c, Corpus.bytes("a-v4", "conn-01.s2c.bin"));
    Files.write(dir.resolve("conn-01.c2s.bin"), Corpus.bytes("a-v4", "conn-01.c2s.bin"));
    Path out = dir.resolve("out");
    assertEquals(
        0,
        CliRun.of("replay", "--format", "arrow", "--output", out.toString(), s2c.toString())
            .status());
    return out;
  }

  private JsonNode check(String capture, String s2c, Path out) throws Exception {
    Process p = checker(capture, s2c, out);
    String stdout = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(300, TimeUnit.SECONDS), "the checker finished");
    String stderr = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertNotEquals(2, p.exitValue(), stderr);
    assertEquals(0, p.exitValue(), capture + " " + s2c + ":\n" + stderr);
    return Corpus.json(stdout);
  }

  private Process checker(String capture, String s2c, Path out) throws IOException {
    Path results = dir.resolve(capture + "-results.jsonl");
    Files.write(results, Corpus.bytes(capture, "results.jsonl"));
    return new ProcessBuilder("python3", SCRIPT.toString(), results.toString(), s2c, out.toString())
        .start();
  }
}
