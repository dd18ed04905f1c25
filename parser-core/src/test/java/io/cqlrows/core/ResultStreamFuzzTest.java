package io.cqlrows.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.cqlrows.testing.RecordingSink;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.List;

/**
 * Coverage-guided differential fuzzing of {@link ResultReader#stream}: any body, fed in any pieces,
 * must give exactly what {@link ResultReader#read} gives for the whole body: the same sink events
 * in the same order, the same result kind, or the same error (reason and offset).
 *
 * <p><b>Input.</b>
 *
 * <pre>
 * byte 0:  bits 0-1 protocol version 3 + (0-3): 3, 4, 5, 6
 * byte 1:  n, the number of piece sizes that follow (0: the whole body in one piece)
 * then:    n x [u16 size] (used in turn, round and round; 0 is an empty piece), then the body
 * </pre>
 *
 * <p><b>Runs.</b> In {@code mvn verify} over the committed inputs in {@code
 * src/test/resources/io/cqlrows/core/ResultStreamFuzzTestInputs/streamsAnyBodyInAnyPieces/}
 * (regression mode); {@code JAZZER_FUZZ=1} fuzzes (docs/testing.md, "Fuzzing").
 */
class ResultStreamFuzzTest {
  /** More empty pieces than this in a row end the input (a body fed nothing forever). */
  private static final int MAX_EMPTY_PIECES = 64;

  @FuzzTest(maxDuration = "5m")
  void streamsAnyBodyInAnyPieces(byte[] input) {
    if (input.length < 2) {
      return;
    }
    int version = 3 + (input[0] & 3);
    int n = input[1] & 0xFF;
    int at = 2 + 2 * n;
    if (at > input.length) {
      return;
    }
    int[] sizes = new int[Math.max(n, 1)];
    for (int i = 0; i < n; i++) {
      sizes[i] = ((input[2 + 2 * i] & 0xFF) << 8) | (input[3 + 2 * i] & 0xFF);
    }
    byte[] body = java.util.Arrays.copyOfRange(input, at, input.length);
    if (n == 0) {
      sizes[0] = Math.max(body.length, 1);
    }

    RecordingSink whole = new RecordingSink();
    Outcome expected = whole(new ResultReader(version), body, whole);
    RecordingSink streamed = new RecordingSink();
    Outcome actual = streamed(new ResultReader(version), body, sizes, streamed);
    if (actual == null) {
      return; // the pieces never reached the end of the body
    }
    assertEquals(expected, actual);
    assertEquals(whole.events(), streamed.events(), "the same events, in the same order");
  }

  /** What a read ended with: a result kind, or an error's reason and offset. */
  private record Outcome(int kind, CqlParseException.Reason reason, int offset) {
    static Outcome of(CqlResult r) {
      return new Outcome(r.kind(), null, -1);
    }

    static Outcome of(CqlParseException e) {
      return new Outcome(-1, e.reason(), e.offset());
    }
  }

  private static Outcome whole(ResultReader reader, byte[] body, RecordingSink sink) {
    ByteBuf buf = Unpooled.wrappedBuffer(body);
    try {
      return Outcome.of(reader.read(buf, sink));
    } catch (CqlParseException e) {
      return Outcome.of(e);
    } finally {
      assertEquals(1, buf.refCnt(), "the reader borrows the body");
      buf.release();
    }
  }

  /** The streamed read, or null if the pieces stopped before the body's end. */
  private static Outcome streamed(
      ResultReader reader, byte[] body, int[] sizes, RecordingSink sink) {
    try (ResultStream s = reader.stream(sink, null, body.length)) {
      int at = 0;
      int empty = 0;
      for (int i = 0; at < body.length || body.length == 0; i++) {
        int size = Math.min(sizes[i % sizes.length], body.length - at);
        if (size == 0 && ++empty > MAX_EMPTY_PIECES) {
          return null;
        }
        ByteBuf piece = Unpooled.wrappedBuffer(body, at, size);
        try {
          s.feed(piece);
          assertEquals(1, piece.refCnt(), "the stream borrows each piece");
        } finally {
          piece.release();
        }
        at += size;
        if (body.length == 0) {
          break;
        }
      }
      assertTrue(s.isComplete(), "complete after the last byte");
      return Outcome.of(s.result());
    } catch (CqlParseException e) {
      return Outcome.of(e);
    }
  }

  /** For the seeds' writer: version byte, piece sizes, body. */
  static byte[] input(int version, List<Integer> sizes, byte[] body) {
    byte[] out = new byte[2 + 2 * sizes.size() + body.length];
    out[0] = (byte) (version - 3);
    out[1] = (byte) sizes.size();
    for (int i = 0; i < sizes.size(); i++) {
      out[2 + 2 * i] = (byte) (sizes.get(i) >>> 8);
      out[3 + 2 * i] = (byte) (int) sizes.get(i);
    }
    System.arraycopy(body, 0, out, 2 + 2 * sizes.size(), body.length);
    return out;
  }
}
