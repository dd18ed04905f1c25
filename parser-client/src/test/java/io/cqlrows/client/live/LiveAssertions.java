package io.cqlrows.client.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import io.cqlrows.testing.Corpus;

/** Compares our JSON rendering of a result with the driver's, cell by cell. */
final class LiveAssertions {
  /** What {@code vec_counter.v} holds in row id 1 (data.cql: {@code [1, -2]}). */
  static final JsonNode VEC_COUNTER_1 = Corpus.json("[\"1\",\"-2\"]");

  private LiveAssertions() {}

  /**
   * Asserts that {@code ours} ({@code {"columns": .., "rows": ..}} from {@link
   * io.cqlrows.core.sink.JsonLinesSink} lines) equals {@code driver} ({@link
   * LiveClients#driverQuery}): the same columns (keyspace, table, name, CQL type) and the same rows
   * in the same order, every cell equal as a JSON tree.
   *
   * <p>The one cell the driver cannot decode, {@code vec_counter.v} (driver 4.19.2 assumes 8-byte
   * packed counters; Cassandra length-prefixes each), must be {@code ["1","-2"]} in ours; any other
   * driver failure fails the test.
   */
  static void assertSameRows(String what, JsonNode driver, JsonNode ours) {
    assertEquals(driver.get("columns"), ours.get("columns"), what + ": columns");
    JsonNode expRows = driver.get("rows");
    JsonNode actRows = ours.get("rows");
    assertEquals(expRows.size(), actRows.size(), what + ": row count");
    for (int r = 0; r < expRows.size(); r++) {
      JsonNode exp = expRows.get(r);
      JsonNode act = actRows.get(r);
      assertEquals(exp.size(), act.size(), what + ": cells in row " + r);
      for (int c = 0; c < exp.size(); c++) {
        String where =
            what + ": row " + r + ", column " + ours.get("columns").get(c).get("name").asText();
        JsonNode e = exp.get(c);
        if (e.isObject() && e.has("driver_error")) {
          JsonNode column = ours.get("columns").get(c);
          if (!column.get("table").asText().equals("vec_counter")
              || !column.get("name").asText().equals("v")) {
            fail(where + ": the driver failed: " + e.get("driver_error").asText());
          }
          assertEquals(VEC_COUNTER_1, act.get(c), where + " (driver cannot decode it)");
        } else if (!e.equals(act.get(c))) {
          assertEquals(LiveClients.brief(e), LiveClients.brief(act.get(c)), where);
          assertEquals(e, act.get(c), where);
        }
      }
    }
  }
}
