package io.cqlrows.capture.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import com.fasterxml.jackson.databind.JsonNode;
import io.cqlrows.core.CqlResult;
import io.cqlrows.core.ParseLimits;
import io.cqlrows.core.RowSink;
import io.cqlrows.core.RowsResult;
import io.cqlrows.core.sink.JsonLinesSink;
import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.testing.Corpus;
import io.cqlrows.testing.CorpusAssertions;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Both directions of every corpus connection: every ROWS result, including {@code No_metadata}
 * EXECUTE results and the v5 {@code Metadata_changed} sequence, equals the Java driver's decoding
 * and carries the query of its request. No fixture field tells which statement ran: the client side
 * does.
 */
class ConnectionReplayTest {
  static Stream<Arguments> connections() {
    List<Arguments> out = new ArrayList<>();
    for (String c :
        new String[] {"a-v4", "b-v5", "c-v5-lz4", "d-v4-lz4", "e-v4-paging", "e-v5-paging"}) {
      out.add(Arguments.of(c));
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("connections")
  void everyRowsResultEqualsTheDriversDecodingWithItsQuery(String capture) {
    PreparedStatements prepared = new PreparedStatements();
    for (String conn : new String[] {"conn-00", "conn-01"}) {
      List<JsonNode> expected = CorpusAssertions.expectedResults(capture, conn);
      List<JsonNode> actual = replay(capture, conn, prepared);
      assertEquals(expected.size(), actual.size(), conn);
      for (int i = 0; i < expected.size(); i++) {
        CorpusAssertions.assertSameResult(expected.get(i), actual.get(i));
        assertEquals(expected.get(i).get("query").asText(), actual.get(i).get("query").asText());
      }
    }
  }

  private static List<JsonNode> replay(String capture, String conn, PreparedStatements prepared) {
    List<JsonNode> lines = new ArrayList<>();
    StringBuilder line = new StringBuilder();
    JsonLinesSink json = new JsonLinesSink(line);
    ConnectionReplay.replay(
        conn,
        Corpus.bytes(capture, conn + ".c2s.bin"),
        Corpus.bytes(capture, conn + ".s2c.bin"),
        prepared,
        ParseLimits.defaults(),
        new ReplayListener() {
          @Override
          public RowSink sinkFor(Response response) {
            line.setLength(0);
            StringBuilder members =
                new StringBuilder("\"stream\":" + response.streamId() + ",\"query\":");
            io.cqlrows.core.sink.CanonicalJson.appendString(members, response.query());
            json.setLeadingMembers(members.toString());
            return json;
          }

          @Override
          public void onResult(Response response, CqlResult result) {
            if (result instanceof RowsResult) {
              lines.add(Corpus.json(line.toString()));
            }
          }

          @Override
          public void onError(Response response, CqlFrameException error) {
            assertNull(error, "frame-local error on stream " + response.streamId());
          }
        });
    return lines;
  }
}
