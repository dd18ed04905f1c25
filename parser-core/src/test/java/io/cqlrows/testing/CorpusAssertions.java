package io.cqlrows.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * Compares our JSON Lines output for a ROWS result with the corpus's {@code results.jsonl} line for
 * the same result: stream, row count, column names and CQL type spellings, and every value.
 */
public final class CorpusAssertions {
  private CorpusAssertions() {}

  /** The corpus's results for one connection's server-to-client file, in capture order. */
  public static List<JsonNode> expectedResults(String capture, String conn) {
    List<JsonNode> out = new ArrayList<>();
    for (JsonNode r : Corpus.jsonLines(capture, "results.jsonl")) {
      if (r.get("s2c_file").asText().equals(conn + ".s2c.bin")) {
        out.add(r);
      }
    }
    return out;
  }

  /** Asserts that {@code actual} (one line of our JSON Lines output) equals {@code expected}. */
  public static void assertSameResult(JsonNode expected, JsonNode actual) {
    String where =
        expected.get("capture").asText()
            + " frame "
            + expected.get("frame")
            + " ("
            + expected.get("query").asText()
            + ")";
    assertEquals(expected.get("stream").asInt(), actual.get("stream").asInt(), where);
    assertEquals(expected.get("row_count").asInt(), actual.get("row_count").asInt(), where);
    JsonNode expColumns = expected.get("columns");
    JsonNode actColumns = actual.get("columns");
    assertEquals(expColumns.size(), actColumns.size(), where);
    for (int c = 0; c < expColumns.size(); c++) {
      assertEquals(
          expColumns.get(c).get("name").asText(), actColumns.get(c).get("name").asText(), where);
      assertEquals(
          expColumns.get(c).get("type").asText(),
          actColumns.get(c).get("type").asText(),
          where + " column " + c);
    }
    JsonNode expRows = expected.get("rows");
    JsonNode actRows = actual.get("rows");
    assertEquals(expRows.size(), actRows.size(), where);
    for (int r = 0; r < expRows.size(); r++) {
      for (int c = 0; c < expColumns.size(); c++) {
        JsonNode exp = expRows.get(r).get(c);
        JsonNode act = actRows.get(r).get(c);
        if (exp.isObject() && exp.has("driver_error")) {
          assertDriverErrorCell(exp, act, where + " row " + r + " column " + c);
        } else {
          assertEquals(exp, act, where + " row " + r + " column " + c);
        }
      }
    }
  }

  /**
   * The driver cannot decode {@code vector<counter, 2>} (it assumes 8-byte packed counters; the
   * server length-prefixes each element). Ours must be what the bytes mean: {@code 08 <8 bytes>}
   * twice, i.e. {@code ["1","-2"]} for the one row the corpus has.
   */
  private static void assertDriverErrorCell(JsonNode exp, JsonNode act, String where) {
    assertEquals("0x08000000000000000108fffffffffffffffe", exp.get("raw").asText(), where);
    assertEquals(Corpus.json("[\"1\",\"-2\"]"), act, where);
  }
}
