package io.cqlrows.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.cqlrows.testing.Corpus;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's main job: {@code cqlrows replay} on the capture fixture {@code
 * io/cqlrows/captures/live-v5-lz4.pcap} (parser-netty's test resources, recorded by its {@code
 * CaptureLiveTest} from the example client talking protocol v5 with LZ4 to Cassandra 5.0.6).
 */
class LiveCaptureFixtureCliTest {
  static final String FIXTURE = "/io/cqlrows/captures/live-v5-lz4.pcap";
  static final String KEYSPACE = "cqlrows_live";

  @TempDir Path dir;

  /**
   * The README's main job: {@code cqlrows replay --format table --columns ...} on the fixture,
   * which prints every result as a table a newcomer can read (no result falls back to vertical
   * blocks at the default width).
   */
  @Test
  void theReplayCommandPrintsTheTables() throws IOException {
    CliRun r =
        CliRun.of(
            "replay",
            "--format",
            "table",
            "--columns",
            "id,c_int,c_double,c_text,v_float3,v_float1536",
            fixture().toString());
    assertEquals(0, r.status(), r.err());
    assertEquals("", r.err());
    assertTrue(!r.out().contains("-[ RECORD"), "tables, not vertical blocks: " + r.out());
    assertTrue(r.out().contains("\nid  c_double"), "the scalars' header: " + r.out());
    assertTrue(r.out().contains("\nid  v_float1536"), "the vectors' header: " + r.out());
    assertTrue(r.out().contains("SELECT * FROM " + KEYSPACE + ".scalars: 41 rows"), r.out());
    assertTrue(r.out().contains("SELECT * FROM " + KEYSPACE + ".vectors: 4 rows"), r.out());
    String executed = "SELECT * FROM " + KEYSPACE + ".vectors WHERE id = ?: 1 row";
    assertTrue(r.out().indexOf(executed) < r.out().lastIndexOf(executed), "two EXECUTEs");
  }

  @Test
  void theReplayCommandWritesJsonLines() throws IOException {
    CliRun r = CliRun.of("replay", "--format", "jsonl", fixture().toString());
    assertEquals(0, r.status(), r.err());
    List<String> lines = r.out().lines().toList();
    assertEquals(4, lines.size(), "ROWS results");
    JsonNode vectors = Corpus.json(lines.get(1));
    assertEquals("vector<float, 3>", column(vectors, "v_float3").get("type").asText());
    assertEquals(
        Corpus.json("[\"1.5\",\"-2.25\",\"3.0\"]"),
        vectors.get("rows").get(0).get(index(vectors, "v_float3")));
  }

  private static JsonNode column(JsonNode result, String name) {
    return result.get("columns").get(index(result, name));
  }

  private static int index(JsonNode result, String name) {
    JsonNode columns = result.get("columns");
    for (int i = 0; i < columns.size(); i++) {
      if (columns.get(i).get("name").asText().equals(name)) {
        return i;
      }
    }
    throw new AssertionError("no column " + name);
  }

  /** The fixture as a file (it sits in parser-netty's test-jar). */
  private Path fixture() throws IOException {
    Path file = dir.resolve("live-v5-lz4.pcap");
    if (!Files.exists(file)) {
      try (InputStream in = LiveCaptureFixtureCliTest.class.getResourceAsStream(FIXTURE)) {
        if (in == null) {
          throw new AssertionError("no test resource " + FIXTURE);
        }
        Files.copy(in, file);
      }
    }
    return file;
  }
}
