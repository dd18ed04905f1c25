package io.cqlrows.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.cqlrows.testing.Corpus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;

/** {@code cqlrows digest} in-process: tables, JSON, SVG, raw streams and usage mistakes. */
class DigestCliTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  /** Request envelopes by opcode in the client streams of a corpus capture: a plain count. */
  private static Map<Integer, Integer> requestsByOpcode(String capture) {
    Map<Integer, Integer> count = new HashMap<>();
    for (String conn : new String[] {"conn-00", "conn-01"}) {
      for (Corpus.Envelope e : Corpus.envelopes(Corpus.bytes(capture, conn + ".c2s.bin"))) {
        count.merge(e.opcode(), 1, Integer::sum);
      }
    }
    return count;
  }

  private Path corpusPcap(String capture) throws IOException {
    Path file = dir.resolve(capture + ".pcap");
    Files.write(file, Corpus.bytes(capture, "capture.pcap"));
    return file;
  }

  @Test
  void jsonCountsEveryStatementRequestOfTheCapture() throws IOException {
    CliRun r = CliRun.of("digest", "--format", "json", "--top", "0", corpusPcap("a-v4").toString());
    assertEquals(0, r.status(), r.err());
    JsonNode report = JSON.readTree(r.out());
    assertTrue(report.get("timed").asBoolean());
    assertEquals(2, report.get("cql_connections").asInt());

    Map<Integer, Integer> plain = requestsByOpcode("a-v4");
    long statements = 0;
    for (JsonNode s : report.get("statements")) {
      statements += s.get("count").asLong() + s.get("unanswered").asLong();
      assertTrue(s.get("min_ms").asDouble() <= s.get("p50_ms").asDouble());
      assertTrue(s.get("p50_ms").asDouble() <= s.get("max_ms").asDouble());
      assertTrue(s.get("max_ms").asDouble() <= s.get("total_ms").asDouble() + 1e-9);
    }
    // QUERY 0x07, EXECUTE 0x0A, BATCH 0x0D
    long expected =
        (long) plain.getOrDefault(0x07, 0)
            + plain.getOrDefault(0x0A, 0)
            + plain.getOrDefault(0x0D, 0);
    assertEquals(expected, statements);
    assertEquals(report.get("statement_count").asLong(), report.get("statements").size());

    long opcodes = 0;
    for (JsonNode o : report.get("opcodes")) {
      opcodes += o.get("count").asLong() + o.get("unanswered").asLong();
    }
    assertEquals(plain.values().stream().mapToInt(Integer::intValue).sum(), opcodes);
  }

  @Test
  void theTableListsTheTopStatementsAndEachSection() throws IOException {
    CliRun r = CliRun.of("digest", "--top", "3", corpusPcap("a-v4").toString());
    assertEquals(0, r.status(), r.err());
    long statementRows =
        r.out()
            .lines()
            .dropWhile(l -> !l.startsWith("by statement"))
            .skip(2)
            .takeWhile(l -> !l.isEmpty())
            .count();
    assertEquals(3, statementRows);
    assertTrue(r.out().lines().anyMatch(l -> l.startsWith("by connection")));
    assertTrue(r.out().lines().anyMatch(l -> l.startsWith("by opcode")));
  }

  @Test
  void writesAnSvgImageOfTheResponseTimes() throws Exception {
    Path svg = dir.resolve("times.svg");
    CliRun r = CliRun.of("digest", "--svg", svg.toString(), corpusPcap("b-v5").toString());
    assertEquals(0, r.status(), r.err());
    DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
    f.setNamespaceAware(true);
    f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    Document d = f.newDocumentBuilder().parse(svg.toFile());
    assertEquals("svg", d.getDocumentElement().getLocalName());
    assertTrue(d.getElementsByTagName("rect").getLength() > 0);
  }

  @Test
  void rawStreamsHaveCountsButNoTimes() throws IOException {
    Path s2c = dir.resolve("conn-01.s2c.bin");
    Files.write(s2c, Corpus.bytes("a-v4", "conn-01.s2c.bin"));
    Files.write(dir.resolve("conn-01.c2s.bin"), Corpus.bytes("a-v4", "conn-01.c2s.bin"));
    CliRun r = CliRun.of("digest", "--format", "json", s2c.toString());
    assertEquals(0, r.status(), r.err());
    JsonNode report = JSON.readTree(r.out());
    assertFalse(report.get("timed").asBoolean());
    JsonNode first = report.get("statements").get(0);
    assertTrue(first.get("count").asLong() > 0);
    assertTrue(first.get("p99_ms").isNull());
  }

  @Test
  void usageMistakesAreSaidAsSuch() {
    assertEquals(2, CliRun.of("digest", "--format", "csv", "x.pcap").status());
    assertEquals(2, CliRun.of("replay", "--top", "3", "x.pcap").status());
    assertEquals(2, CliRun.of("digest", "--max-open-connections", "0", "x.pcap").status());
    CliRun help = CliRun.of("digest", "--help");
    assertEquals(0, help.status());
    assertTrue(help.out().contains("--svg FILE"));
  }

  @Test
  void aFileThatIsNoCaptureIsOneLineAndStatusOne() throws IOException {
    Path text = dir.resolve("notes.txt");
    Files.writeString(text, "not a capture at all\n");
    CliRun r = CliRun.of("digest", text.toString());
    assertEquals(1, r.status());
    assertEquals(1, r.err().lines().count(), r.err());
    assertEquals("", r.out());
  }
}
