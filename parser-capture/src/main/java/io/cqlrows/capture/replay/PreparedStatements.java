package io.cqlrows.capture.replay;

import io.cqlrows.core.ResultColumns;
import java.util.HashMap;
import java.util.Map;

/**
 * The prepared statements seen in a capture: statement id to CQL text and result columns, from
 * PREPARE requests and their PREPARED results, updated by {@code Metadata_changed} results (v5, or
 * v4 with ScyllaDB's {@code SCYLLA_USE_METADATA_ID}). Shared by all connections of one capture (a
 * driver may prepare on one connection and execute on another). Not thread-safe.
 */
public final class PreparedStatements {
  /** One statement: its text (null if its PREPARE was not seen) and current result columns. */
  record Statement(String query, ResultColumns columns) {}

  private final Map<String, Statement> byId = new HashMap<>();

  /** Records a PREPARED result for {@code id} (hex with {@code 0x}). */
  void prepared(String id, String query, ResultColumns columns) {
    byId.put(id, new Statement(query, columns));
  }

  /** Replaces the result columns of {@code id} after {@code Metadata_changed}. */
  void metadataChanged(String id, ResultColumns columns) {
    Statement s = byId.get(id);
    byId.put(id, new Statement(s == null ? null : s.query(), columns));
  }

  /** The statement, or null if its PREPARED result was not seen. */
  Statement get(String id) {
    return id == null ? null : byId.get(id);
  }

  /** Number of statements known. */
  public int size() {
    return byId.size();
  }
}
