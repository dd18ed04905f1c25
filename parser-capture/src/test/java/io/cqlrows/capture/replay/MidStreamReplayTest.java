package io.cqlrows.capture.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.cqlrows.core.CqlResult;
import io.cqlrows.core.ParseLimits;
import io.cqlrows.core.RowSink;
import io.cqlrows.core.RowsResult;
import io.cqlrows.core.sink.JsonLinesSink;
import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.netty.internal.SegmentFormat;
import io.cqlrows.netty.internal.StreamSync;
import io.cqlrows.testing.Corpus;
import io.cqlrows.testing.CorpusAssertions;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Captures that start in the middle of a connection: decoding starts at the first provable frame or
 * segment boundary, and every result from there on equals the driver's decoding.
 */
class MidStreamReplayTest {

  @ParameterizedTest
  @CsvSource({
    "a-v4, 1000, ",
    "a-v4, 700000, ",
    "e-v4-paging, 1234567, ",
    "b-v5, 50000, UNCOMPRESSED",
    "b-v5, 1300000, UNCOMPRESSED",
    "c-v5-lz4, 20000, LZ4",
    "e-v5-paging, 999999, UNCOMPRESSED",
  })
  void decodesFromTheFirstProvableBoundary(String capture, int cut, SegmentFormat format) {
    byte[] all = Corpus.bytes(capture, "conn-01.s2c.bin");
    byte[] tail = Arrays.copyOfRange(all, cut, all.length);
    StreamSync.Start start = StreamSync.find(Unpooled.wrappedBuffer(tail), 1 << 28);
    assertNotNull(start);
    assertEquals(format, start.segments());

    List<JsonNode> expected = CorpusAssertions.expectedResults(capture, "conn-01");
    List<JsonNode> actual = replayMidStream(tail);
    assertTrue(actual.size() > 0, "some results after the cut");
    int skipped = expected.size() - actual.size();
    assertTrue(skipped >= 0);
    for (int i = 0; i < actual.size(); i++) {
      JsonNode want = expected.get(skipped + i);
      if (want.get("columns_from").asText().equals("response")) {
        CorpusAssertions.assertSameResult(want, actual.get(i));
      }
    }
  }

  @Test
  void failsWhenNoBoundaryCanBeProved() {
    byte[] noise = new byte[5000];
    new java.util.Random(7).nextBytes(noise);
    CqlFrameException e = assertThrows(CqlFrameException.class, () -> replayMidStream(noise));
    assertTrue(e.connectionLevel());
    assertEquals(CqlFrameException.Reason.NO_BOUNDARY, e.reason());
  }

  @Test
  void findsNothingInRandomBytes() {
    byte[] noise = new byte[1 << 16];
    new java.util.Random(11).nextBytes(noise);
    assertNull(StreamSync.find(Unpooled.wrappedBuffer(noise), 1 << 28));
  }

  private static List<JsonNode> replayMidStream(byte[] s2c) {
    List<JsonNode> out = new ArrayList<>();
    StringBuilder line = new StringBuilder();
    JsonLinesSink json = new JsonLinesSink(line);
    ConnectionReplay.replay(
        "x",
        null,
        s2c,
        true,
        new PreparedStatements(),
        ParseLimits.defaults(),
        new ReplayListener() {
          @Override
          public RowSink sinkFor(Response response) {
            line.setLength(0);
            json.setLeadingMembers("\"stream\":" + response.streamId());
            return json;
          }

          @Override
          public void onResult(Response response, CqlResult result) {
            if (result instanceof RowsResult) {
              out.add(Corpus.json(line.toString()));
            }
          }

          @Override
          public void onError(Response response, CqlFrameException error) {
            throw error;
          }
        });
    return out;
  }
}
