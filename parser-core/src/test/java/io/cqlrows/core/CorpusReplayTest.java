package io.cqlrows.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.cqlrows.core.sink.JsonLinesSink;
import io.cqlrows.testing.Corpus;
import io.cqlrows.testing.CorpusAssertions;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Replays every server-to-client capture of the a-v4 corpus (real Cassandra 5.0.6 bytes) through
 * {@link ResultReader} and the {@link JsonLinesSink}, and compares every ROWS result, value by
 * value, with what the Apache Cassandra Java driver 4.19.2 decoded from the same bytes.
 *
 * <p>{@code No_metadata} results (EXECUTE with skip-metadata) are decoded with the columns of the
 * PREPARED result earlier in the same stream; which statement an EXECUTE ran is taken from the
 * corpus's {@code request.prepared_id} until the client-to-server side can be read.
 */
class CorpusReplayTest {
  private static final String CAPTURE = "a-v4";

  @ParameterizedTest
  @ValueSource(strings = {"conn-00", "conn-01"})
  void everyRowsResultEqualsTheDriversDecoding(String conn) {
    List<JsonNode> expected = expectedResults(conn);
    List<JsonNode> actual = replay(conn);
    assertEquals(expected.size(), actual.size(), "ROWS results in " + conn);
    for (int i = 0; i < expected.size(); i++) {
      CorpusAssertions.assertSameResult(expected.get(i), actual.get(i));
    }
  }

  /**
   * Every prefix of real ROWS bodies (the all-types tables) is a TRUNCATED error, never another
   * exception and never a partial success.
   */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "SELECT * FROM corpus.vectors",
        "SELECT * FROM corpus.collections",
        "SELECT * FROM corpus.udts",
        "SELECT * FROM corpus.scalars"
      })
  void everyTruncationOfARealBodyIsReportedAsTruncated(String query) {
    byte[] body = rowsBody(query);
    ResultReader reader = new ResultReader(4);
    for (int n = 0; n < body.length; n++) {
      ByteBuf prefix = io.netty.buffer.Unpooled.wrappedBuffer(body, 0, n);
      try {
        CqlParseException e =
            org.junit.jupiter.api.Assertions.assertThrows(
                CqlParseException.class,
                () -> reader.read(prefix, new io.cqlrows.core.sink.CountingSink()),
                "prefix of " + n + " bytes");
        assertEquals(CqlParseException.Reason.TRUNCATED, e.reason(), "prefix of " + n + " bytes");
        assertTrue(e.offset() >= 0 && e.offset() <= n, "offset " + e.offset() + " within " + n);
      } finally {
        prefix.release();
      }
    }
  }

  private static byte[] rowsBody(String query) {
    List<JsonNode> expected = expectedResults("conn-01");
    for (JsonNode r : expected) {
      if (r.get("query").asText().equals(query)) {
        int frame = r.get("file_offset").asInt();
        for (Corpus.Envelope e : Corpus.envelopes(Corpus.bytes(CAPTURE, "conn-01.s2c.bin"))) {
          if (e.offset() == frame) {
            return e.body();
          }
        }
      }
    }
    throw new AssertionError("no ROWS result for " + query);
  }

  private static List<JsonNode> expectedResults(String conn) {
    return CorpusAssertions.expectedResults(CAPTURE, conn);
  }

  /** Decodes every ROWS result of the capture into one parsed JSON line each. */
  private static List<JsonNode> replay(String conn) {
    List<JsonNode> expected = expectedResults(conn);
    ResultReader reader = new ResultReader(4);
    Map<String, ResultColumns> prepared = new HashMap<>();
    List<JsonNode> out = new ArrayList<>();
    StringBuilder line = new StringBuilder();
    JsonLinesSink sink = new JsonLinesSink(line);
    for (Corpus.Envelope e : Corpus.envelopes(Corpus.bytes(CAPTURE, conn + ".s2c.bin"))) {
      if (e.opcode() != 0x08) {
        continue;
      }
      ByteBuf body = e.bodyBuf();
      try {
        ResultColumns columns = null;
        if (body.getInt(0) == RowsResult.KIND && (body.getInt(4) & 0x0004) != 0) {
          String id = expected.get(out.size()).get("request").get("prepared_id").asText();
          columns = prepared.get(id);
          assertNotNull(columns, "PREPARED result for " + id);
        }
        line.setLength(0);
        sink.setLeadingMembers("\"stream\":" + e.stream());
        CqlResult result = reader.read(body, sink, columns);
        if (result instanceof PreparedResult p) {
          prepared.put("0x" + ByteBufUtil.hexDump(p.id()), p.resultColumns());
        } else if (result instanceof RowsResult) {
          out.add(Corpus.json(line.toString()));
        }
        assertEquals(1, body.refCnt(), "the reader must not retain or release the body");
      } finally {
        body.release();
      }
    }
    return out;
  }
}
