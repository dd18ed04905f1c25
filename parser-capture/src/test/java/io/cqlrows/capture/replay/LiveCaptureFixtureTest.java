package io.cqlrows.capture.replay;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.capture.pcap.TcpConnection;
import io.cqlrows.capture.pcap.TcpReassembler;
import io.cqlrows.core.PreparedResult;
import io.cqlrows.core.RowsResult;
import io.cqlrows.core.sink.Row;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The capture fixture {@code io/cqlrows/captures/live-v5-lz4.pcap}, recorded by {@code
 * CaptureLiveTest} (tag live) from our own {@code CqlClient} talking protocol v5 with LZ4 to
 * Cassandra 5.0.6: the corpus's {@code scalars} and {@code vectors} tables, and a prepared {@code
 * SELECT} executed with {@code Skip_metadata}, replayed without a server by the test API. The
 * {@code cqlrows} command's replay of it, the README's main job, is tested in parser-cli.
 */
class LiveCaptureFixtureTest {
  static final String FIXTURE = "/io/cqlrows/captures/live-v5-lz4.pcap";
  static final String KEYSPACE = "cqlrows_live";

  /** {@code scalars.c_text} of id 41 (data.cql), with a combining accent and surrogate pairs. */
  static final String UNICODE =
      "Gr\u00fc\u00dfe \u2014 \u4f60\u597d \u2014 \u3053\u3093\u306b"
          + "\u3061\u306f \u2014 \ud83d\ude00\ud83c\udf89 \u2014 \u05e9\u05dc\u05d5\u05dd \u2014 "
          + "e\u0301 \u2014 \ud834\udd1e";

  @Test
  void theFixtureHoldsOneWholeConnection() throws IOException {
    List<TcpConnection> connections = TcpReassembler.reassemble(fixture());
    assertEquals(1, connections.size());
    TcpConnection c = connections.get(0);
    assertFalse(c.startedMidStream(), "the handshake was recorded");
    assertFalse(c.hasGaps());
    assertTrue(c.closed(), "the connection was closed in the recording");
    assertTrue(Files.size(fixture()) < 300 * 1024, "fixture size");
  }

  @Test
  void replaysEveryResultWithItsQuery() throws IOException {
    TcpConnection c = TcpReassembler.reassemble(fixture()).get(0);
    List<ReplayedResult> results =
        CaptureReplay.results(c.serverToClient().bytes(), c.clientToServer().bytes());
    assertEquals(5, results.size(), "2 QUERYs, 1 PREPARE, 2 EXECUTEs");
    for (ReplayedResult r : results) {
      assertNull(r.error(), r.query());
    }

    ReplayedResult scalars = results.get(0);
    assertEquals("SELECT * FROM " + KEYSPACE + ".scalars", scalars.query());
    assertEquals(41, scalars.rows().size());
    Row one = byId(scalars.rows(), 1);
    assertEquals("hello text", one.getString("c_text"));
    assertEquals(1234567890123L, one.getLong("c_bigint"));
    assertEquals(new BigDecimal("3.14159265358979323846"), one.getObject("c_decimal"));
    Row empty = byId(scalars.rows(), 3);
    assertTrue(empty.isEmpty(empty.indexOf("c_int")), "id 3: an empty int");
    assertEquals("", empty.getString("c_text"));
    Row unicode = byId(scalars.rows(), 41);
    assertEquals(UNICODE, unicode.getString("c_text"));
    assertEquals(70_010, byId(scalars.rows(), 42).getString("c_text").length());

    ReplayedResult vectors = results.get(1);
    assertEquals("SELECT * FROM " + KEYSPACE + ".vectors", vectors.query());
    assertEquals(4, vectors.rows().size());
    assertArrayEquals(
        new float[] {1.5f, -2.25f, 3.0f}, byId(vectors.rows(), 1).getFloatVector("v_float3"));
    float[] extremes = byId(vectors.rows(), 3).getFloatVector("v_float3");
    assertTrue(Float.isNaN(extremes[0]));
    assertEquals(Float.POSITIVE_INFINITY, extremes[1]);
    assertEquals(1536, byId(vectors.rows(), 1).getFloatVector("v_float1536").length);
    assertEquals(
        List.of("alpha", "", "\u00fcn\u00ef\ud83d\ude00"),
        byId(vectors.rows(), 1).getObject("v_text3"));

    assertInstanceOf(PreparedResult.class, results.get(2).result());
    for (int i = 3; i < 5; i++) {
      ReplayedResult executed = results.get(i);
      assertEquals("SELECT * FROM " + KEYSPACE + ".vectors WHERE id = ?", executed.query());
      RowsResult rows = assertInstanceOf(RowsResult.class, executed.result());
      assertTrue(rows.metadata().noMetadata(), "Skip_metadata: rows without metadata");
      assertEquals(1, executed.rows().size());
      Row row = executed.rows().get(0);
      Row same = byId(vectors.rows(), row.getInt("id"));
      assertArrayEquals(
          same.getFloatVector("v_float3"),
          row.getFloatVector("v_float3"),
          "decoded with the PREPARED columns");
    }
  }

  private static Row byId(List<Row> rows, int id) {
    return rows.stream()
        .filter(r -> r.getInt("id") == id)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no row with id " + id));
  }

  private static Path fixture() {
    try {
      return Path.of(LiveCaptureFixtureTest.class.getResource(FIXTURE).toURI());
    } catch (URISyntaxException | NullPointerException e) {
      throw new AssertionError("no test resource " + FIXTURE, e);
    }
  }
}
