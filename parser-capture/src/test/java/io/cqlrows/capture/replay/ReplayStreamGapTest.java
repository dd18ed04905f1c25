package io.cqlrows.capture.replay;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.cqlrows.core.CqlResult;
import io.cqlrows.core.ParseLimits;
import io.cqlrows.core.ProtocolFeatures;
import io.cqlrows.core.RowSink;
import io.cqlrows.core.sink.CountingSink;
import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.testing.Corpus;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Gaps in the server's stream of a real connection (a-v4 conn-01: 34 requests on stream 0, each
 * answered before the next is sent), written as a capture hands them on: each request, then its
 * response, with capture times. Every response whole in what is written is decoded and paired with
 * its own request; those the gaps cut are not, and their requests are unanswered.
 */
class ReplayStreamGapTest {
  private static final byte[] C2S = Corpus.bytes("a-v4", "conn-01.c2s.bin");
  private static final byte[] S2C = Corpus.bytes("a-v4", "conn-01.s2c.bin");

  /** Bytes [from, to) of the server's stream are missing. */
  private record Gap(int from, int to) {}

  /** The offsets of the envelopes of a v4 stream, and its length last. */
  private static int[] starts(byte[] stream) {
    List<Integer> out = new ArrayList<>();
    int p = 0;
    while (p < stream.length) {
      out.add(p);
      p +=
          9
              + (((stream[p + 5] & 0xFF) << 24)
                  | ((stream[p + 6] & 0xFF) << 16)
                  | ((stream[p + 7] & 0xFF) << 8)
                  | (stream[p + 8] & 0xFF));
    }
    out.add(p);
    return out.stream().mapToInt(Integer::intValue).toArray();
  }

  private static long requestNanos(int k) {
    return 1_000_000_000L + 2_000_000L * k;
  }

  /** What the listener heard: answered and unanswered requests, by number. */
  private static final class Heard {
    final List<Integer> answered = new ArrayList<>();
    final List<Integer> unanswered = new ArrayList<>();
    final List<Long> elapsed = new ArrayList<>();
    Optional<CqlFrameException> failure;
  }

  private static int number(Request r) {
    return (int) ((r.timestampNanos() - 1_000_000_000L) / 2_000_000L);
  }

  private static Heard replay(List<Gap> gaps) {
    int[] req = starts(C2S);
    int[] resp = starts(S2C);
    assertEquals(35, req.length);
    assertEquals(35, resp.length);
    Heard heard = new Heard();
    ReplayListener listener =
        new ReplayListener() {
          @Override
          public RowSink sinkFor(Response response) {
            return new CountingSink();
          }

          @Override
          public void onResult(Response response, CqlResult result) {}

          @Override
          public void onError(Response response, CqlFrameException error) {
            throw new AssertionError("response " + response.streamId() + ": " + error);
          }

          @Override
          public void onResponse(Response response) {
            heard.answered.add(number(response.request()));
            heard.elapsed.add(response.elapsedNanos());
          }

          @Override
          public void onUnanswered(Request request) {
            heard.unanswered.add(number(request));
          }
        };
    ReplayStream stream =
        new ReplayStream(
            "conn-01",
            false,
            ProtocolFeatures.NONE,
            new PreparedStatements(),
            ParseLimits.defaults(),
            listener);
    int server = 0; // the next server byte not yet written or given up
    for (int k = 0; k < 34; k++) {
      stream.write(true, C2S, req[k], req[k + 1] - req[k], requestNanos(k));
      long at = requestNanos(k) + 1_000_000L;
      int end = resp[k + 1];
      while (server < end) {
        Gap g = null;
        for (Gap x : gaps) {
          if (x.to() > server && (g == null || x.from() < g.from())) {
            g = x;
          }
        }
        if (g != null && g.from() <= server) {
          stream.gap(false, g.to() - server);
          server = g.to();
        } else {
          int to = g == null ? end : Math.min(end, g.from());
          stream.write(false, S2C, server, to - server, at);
          server = to;
        }
      }
    }
    stream.close();
    heard.failure = stream.failure();
    return heard;
  }

  private static List<Integer> allBut(int... missing) {
    List<Integer> out = new ArrayList<>();
    for (int k = 0; k < 34; k++) {
      out.add(k);
    }
    for (int m : missing) {
      out.remove(Integer.valueOf(m));
    }
    return out;
  }

  @Test
  void withoutGapsEveryResponseIsPaired() {
    Heard h = replay(List.of());

    assertEquals(allBut(), h.answered);
    assertEquals(List.of(), h.unanswered);
    h.elapsed.forEach(e -> assertEquals(1_000_000L, e));
    assertEquals(Optional.empty(), h.failure);
  }

  @Test
  void gapsInsideFramesLoseThoseFramesOnly() {
    int[] resp = starts(S2C);
    // inside the bodies of responses 4 and 6: response 5, whole between them, is decoded too
    List<Gap> gaps =
        List.of(
            new Gap(resp[4] + 100, resp[4] + 1600),
            new Gap(resp[6] + 20, resp[6] + 40),
            // the end of response 22 and most of the large 23, in two gaps
            new Gap(resp[23] - 10, resp[23] - 5),
            new Gap(resp[23] + 9, resp[23] + 700_000));
    Heard h = replay(gaps);

    assertEquals(allBut(4, 6, 22, 23), h.answered);
    // unanswered when the next response on their stream came: the client had sent another
    assertEquals(List.of(4, 6, 22, 23), h.unanswered);
    h.elapsed.forEach(e -> assertEquals(1_000_000L, e));
    assertEquals(Optional.empty(), h.failure);
  }

  @Test
  void aGapOverAHeaderResumesAtTheNextProvableFrame() {
    int[] resp = starts(S2C);
    // from the end of response 9 into response 10's header: 11 is proved by the two after it
    Heard h = replay(List.of(new Gap(resp[10] - 3, resp[10] + 4)));

    assertEquals(allBut(9, 10), h.answered);
    assertEquals(List.of(9, 10), h.unanswered);
    assertEquals(Optional.empty(), h.failure);
  }
}
