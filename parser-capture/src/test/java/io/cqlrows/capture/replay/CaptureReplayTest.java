package io.cqlrows.capture.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.core.RowsResult;
import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.testing.Corpus;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class CaptureReplayTest {

  @ParameterizedTest
  @ValueSource(strings = {"a-v4", "b-v5", "c-v5-lz4", "d-v4-lz4"})
  void readsTheControlConnectionOfEveryFramingAndCompression(String capture) {
    List<ReplayedResult> results = CaptureReplay.results(Corpus.bytes(capture, "conn-00.s2c.bin"));
    List<ReplayedResult> rows =
        results.stream().filter(r -> r.result() instanceof RowsResult).toList();
    assertEquals(3, rows.size(), "system.local twice and system.peers_v2");
    assertEquals("capture", rows.get(0).rows().get(0).getString("cluster_name"));
    assertTrue(results.stream().noneMatch(ReplayedResult::failed));
  }

  @ParameterizedTest
  @ValueSource(strings = {"b-v5", "c-v5-lz4"})
  void gathersTheLargeV5FrameSplitAcrossSegments(String capture) {
    List<ReplayedResult> results = CaptureReplay.results(Corpus.bytes(capture, "conn-01.s2c.bin"));
    ReplayedResult vec1536 =
        results.stream()
            .filter(
                r ->
                    r.result() instanceof RowsResult rr
                        && rr.metadata().columns().indexOf("v") >= 0
                        && rr.metadata()
                            .columns()
                            .get(rr.metadata().columns().indexOf("v"))
                            .type()
                            .toString()
                            .equals("vector<float, 1536>"))
            .findFirst()
            .orElseThrow();
    int expected = capture.equals("b-v5") ? 200 : 60;
    assertEquals(expected, vec1536.rows().size());
    float[] v = vec1536.rows().get(0).getFloatVector("v");
    assertEquals(1536, v.length);
  }

  @ParameterizedTest
  @ValueSource(strings = {"a-v4", "b-v5", "c-v5-lz4", "d-v4-lz4"})
  void namesQueriesAndDecodesPreparedResultsWithTheClientSide(String capture) {
    List<ReplayedResult> results =
        CaptureReplay.results(
            Corpus.bytes(capture, "conn-01.s2c.bin"), Corpus.bytes(capture, "conn-01.c2s.bin"));
    assertEquals("SELECT cluster_name FROM system.local", results.get(0).query());
    ReplayedResult scalars = results.get(1);
    assertEquals("SELECT * FROM corpus.scalars", scalars.query());
    assertEquals(41, scalars.rows().size());
    ReplayedResult executed =
        results.stream()
            .filter(
                r ->
                    "SELECT * FROM corpus.scalars WHERE id = ?".equals(r.query())
                        && r.result() instanceof RowsResult)
            .findFirst()
            .orElseThrow();
    assertTrue(((RowsResult) executed.result()).metadata().noMetadata());
    assertEquals(1, executed.rows().get(0).getInt("id"), "decoded with the PREPARED columns");
  }

  @org.junit.jupiter.api.Test
  void writesACaptureIntoAUsersChannelInChunks() {
    byte[] bytes = Corpus.bytes("a-v4", "conn-00.s2c.bin");
    io.netty.channel.embedded.EmbeddedChannel channel =
        new io.netty.channel.embedded.EmbeddedChannel(
            new io.cqlrows.netty.internal.BytesToFrameDecoder());
    CaptureReplay.writeInbound(channel, bytes, 3);
    int frames = 0;
    for (Object msg; (msg = channel.readInbound()) != null; frames++) {
      io.netty.util.ReferenceCountUtil.release(msg);
    }
    assertTrue(frames > 5, frames + " frames");
    assertFalse(channel.finishAndReleaseAll());
  }

  @ParameterizedTest
  @ValueSource(strings = {"b-v5", "d-v4-lz4"})
  void throwsAConnectionLevelErrorForATruncatedCapture(String capture) {
    byte[] bytes = Corpus.bytes(capture, "conn-01.s2c.bin");
    byte[] cut = Arrays.copyOf(bytes, bytes.length - 7);
    CqlFrameException e = assertThrows(CqlFrameException.class, () -> CaptureReplay.results(cut));
    assertTrue(e.connectionLevel());
    assertEquals(CqlFrameException.Reason.TRUNCATED, e.reason());
    assertTrue(e.offset() > 0 && e.offset() < cut.length, "offset " + e.offset());
  }
}
