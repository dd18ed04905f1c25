package io.cqlrows.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cqlrows.capture.gen.StatementStats;
import io.cqlrows.capture.gen.SyntheticCapture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A generated 1 GiB capture (64 connections, 16 open at once and interleaved, with reordered,
 * retransmitted and overlapping segments), digested and counted by the packaged jar in a JVM of
 * {@value #HEAP}: the totals equal the generator's expectation, and so do the rows it replays.
 * Tagged load: {@code mvn -Pload -pl parser-cli -am verify} runs it.
 */
@Tag("load")
class LargeCaptureLoadIT {
  static final String HEAP = "-Xmx128m";
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path dir;
  private static Path capture;
  private static SyntheticCapture.Expected expected;

  @BeforeAll
  static void generate() throws Exception {
    capture = dir.resolve("large.pcap");
    expected =
        SyntheticCapture.write(
            SyntheticCapture.spec()
                .seed(27)
                .connections(64)
                .concurrency(16)
                .statements(12)
                .targetBytes(1L << 30)
                .errorRate(0.03)
                .reorderRate(0.01)
                .retransmitRate(0.005)
                .overlapRate(0.002)
                .lossRate(0)
                .unansweredRate(0.01)
                .build(),
            capture);
    assertTrue(Files.size(capture) >= 1L << 30, "a capture of at least 1 GiB");
  }

  @AfterAll
  static void delete() throws Exception {
    Files.deleteIfExists(capture);
  }

  @Test
  void digestsWithTheGeneratorsTotalsInABoundedHeap() throws Exception {
    JarProcess.Result r =
        JarProcess.run(
            dir,
            List.of(HEAP),
            Map.of(),
            List.of("digest", "--format", "json", "--top", "0", capture.toString()));
    assertEquals(0, r.status(), r.err());
    JsonNode report = JSON.readTree(r.text());
    assertEquals(expected.connections(), report.get("cql_connections").asInt());

    Map<String, Long> byOpcode = new HashMap<>();
    double totalMs = 0;
    long answered = 0;
    long errorsByOpcode = 0;
    for (JsonNode o : report.get("opcodes")) {
      byOpcode.put(
          o.get("opcode").asText(), o.get("count").asLong() + o.get("unanswered").asLong());
      totalMs += o.get("total_ms").asDouble();
      answered += o.get("count").asLong();
      errorsByOpcode += o.get("errors").asLong();
    }
    assertEquals(expected.requests(SyntheticCapture.QUERY), byOpcode.get("QUERY"));
    assertEquals(expected.requests(SyntheticCapture.PREPARE), byOpcode.get("PREPARE"));
    assertEquals(expected.requests(SyntheticCapture.EXECUTE), byOpcode.get("EXECUTE"));
    assertEquals(expected.requests(SyntheticCapture.BATCH), byOpcode.get("BATCH"));
    assertEquals(expected.requests(SyntheticCapture.STARTUP), byOpcode.get("STARTUP"));
    assertEquals(expected.requests(SyntheticCapture.OPTIONS), byOpcode.get("OPTIONS"));
    assertEquals(expected.responses(), answered);
    // each opcode's total is rounded to a microsecond
    assertEquals(expected.sumResponseNanos() / 1e6, totalMs, byOpcode.size() * 1e-3);

    long rows = 0;
    long unanswered = 0;
    for (JsonNode s : report.get("statements")) {
      rows += s.get("rows").asLong();
      unanswered += s.get("unanswered").asLong();
    }
    long expectedRows = 0;
    long expectedErrors = 0;
    for (StatementStats s : expected.statements().values()) {
      expectedRows += s.rows();
      expectedErrors += s.errors();
    }
    assertEquals(expectedRows, rows);
    assertEquals(expectedErrors, errorsByOpcode);
    assertTrue(expectedErrors > 0, "some requests failed");
    assertTrue(unanswered > 0, "some requests are unanswered");
    assertEquals(report.get("statement_count").asLong(), report.get("statements").size());
  }

  @Test
  void replayPrintsEveryRowInABoundedHeap() throws Exception {
    JarProcess.Result r =
        JarProcess.run(
            dir,
            List.of(HEAP),
            Map.of(),
            List.of("replay", "--format", "csv", "--columns", "id", capture.toString()));
    assertEquals(0, r.status(), r.err());
    long rows = 0;
    for (StatementStats s : expected.statements().values()) {
      rows += s.rows();
    }
    // each result is a header line "id", its rows, and an empty line between results
    long printed;
    try (var lines = Files.lines(r.out())) {
      printed = lines.filter(l -> !l.isEmpty() && !l.equals("id")).count();
    }
    assertEquals(rows, printed);
  }

  @Test
  void statsDecodesEveryRowInABoundedHeap() throws Exception {
    JarProcess.Result r =
        JarProcess.run(dir, List.of(HEAP), Map.of(), List.of("stats", capture.toString()));
    assertEquals(0, r.status(), r.err());
    Matcher m =
        Pattern.compile("total: (\\d+) connections, (\\d+) rows, (\\d+) cells").matcher(r.text());
    assertTrue(m.find(), r.text());
    long rows = 0;
    for (StatementStats s : expected.statements().values()) {
      rows += s.rows();
    }
    assertEquals(expected.connections(), Integer.parseInt(m.group(1)));
    assertEquals(rows, Long.parseLong(m.group(2)));
    assertEquals(rows * 3, Long.parseLong(m.group(3)), "3 columns per row");
  }
}
