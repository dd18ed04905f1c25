package io.cqlrows.netty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.fasterxml.jackson.databind.JsonNode;
import io.cqlrows.core.ParseLimits;
import io.cqlrows.netty.frame.Compression;
import io.cqlrows.netty.frame.Frame;
import io.cqlrows.netty.frame.Opcode;
import io.cqlrows.netty.internal.BytesToFrameDecoder;
import io.cqlrows.testing.Corpus;
import io.cqlrows.testing.CorpusAssertions;
import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The README's quick start is real code: this test takes the {@code java} block between the {@code
 * quickstart:begin} and {@code quickstart:end} markers of {@code README.md}, compiles it against
 * the test classpath ({@link ReadmeBlocks}), and runs it on a RESULT body of the corpus (protocol
 * v4, with and without LZ4), taken from a {@link Frame} of {@link BytesToFrameDecoder} as the quick
 * start says. The rows it returns must be the ones the Java driver decoded from the same bytes
 * ({@code results.jsonl}), its matrix must hold the same floats, and the frame must be untouched
 * afterwards: the reader borrows the body.
 */
class ReadmeQuickStartTest {
  /** A corpus result with the quick start's columns: {@code id int, v vector<float, 128>}. */
  private static final String QUERY = "SELECT id, v FROM corpus.vec128 WHERE id IN (0, 1, 2)";

  private static final int DIMENSION = 128;

  @TempDir static Path work;
  private static Class<?> quickStart;

  @BeforeAll
  static void compileTheQuickStart() throws IOException, ClassNotFoundException {
    quickStart = ReadmeBlocks.compile(ReadmeBlocks.source("quickstart"), work);
  }

  @AfterAll
  static void closeTheLoader() throws IOException {
    ReadmeBlocks.close(quickStart);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"a-v4, NONE", "d-v4-lz4, LZ4"})
  void readsTheRowsTheDriverRead(String capture, Compression compression) throws Throwable {
    JsonNode expected =
        CorpusAssertions.expectedResults(capture, "conn-01").stream()
            .filter(r -> QUERY.equals(r.get("query").asText()))
            .findFirst()
            .orElseThrow();
    Object app = quickStart.getConstructor().newInstance();
    Method embeddingsById = quickStart.getMethod("embeddingsById", ByteBuf.class);
    Method embeddingMatrix = quickStart.getMethod("embeddingMatrix", ByteBuf.class);

    Frame frame = resultFrame(capture, compression, expected.get("frame").asInt());
    try {
      ByteBuf body = frame.body();
      int readerIndex = body.readerIndex();
      int writerIndex = body.writerIndex();
      Map<?, ?> byId = (Map<?, ?>) invoke(embeddingsById, app, body);
      float[] matrix = (float[]) invoke(embeddingMatrix, app, body);
      assertEquals(readerIndex, body.readerIndex(), "the body is borrowed: reader index");
      assertEquals(writerIndex, body.writerIndex(), "the body is borrowed: writer index");
      assertEquals(1, frame.refCnt(), "the body is borrowed: the frame is still ours");

      JsonNode rows = expected.get("rows");
      assertEquals(3, rows.size());
      List<Integer> ids = new ArrayList<>();
      rows.forEach(row -> ids.add(row.get(0).asInt()));
      assertEquals(ids, new ArrayList<>(byId.keySet()), "ids in wire order");
      assertEquals(rows.size() * DIMENSION, matrix.length, "matrix of rows x " + DIMENSION);
      for (int r = 0; r < rows.size(); r++) {
        float[] v = (float[]) byId.get(ids.get(r));
        JsonNode expectedV = rows.get(r).get(1);
        assertEquals(DIMENSION, v.length);
        for (int j = 0; j < DIMENSION; j++) {
          String where = "id " + ids.get(r) + " v[" + j + "]";
          assertEquals(expectedV.get(j).asText(), Float.toString(v[j]), where);
          assertEquals(
              Float.floatToRawIntBits(v[j]),
              Float.floatToRawIntBits(matrix[r * DIMENSION + j]),
              where + " in the matrix");
        }
      }
    } finally {
      frame.release();
    }
  }

  private static Object invoke(Method method, Object target, Object arg) throws Throwable {
    try {
      return method.invoke(target, arg);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  /**
   * Frame number {@code index} (from 0) of the capture's server-to-client bytes, decoded by a
   * {@link BytesToFrameDecoder} from leak-tracked input; every other frame is released. The caller
   * releases the one returned.
   */
  private static Frame resultFrame(String capture, Compression compression, int index) {
    byte[] bytes = Corpus.bytes(capture, "conn-01.s2c.bin");
    EmbeddedChannel channel =
        new EmbeddedChannel(new BytesToFrameDecoder(ParseLimits.defaults(), compression));
    channel.writeInbound(channel.alloc().buffer(bytes.length).writeBytes(bytes));
    Frame found = null;
    int i = 0;
    for (Frame frame; (frame = channel.readInbound()) != null; i++) {
      if (i == index) {
        found = frame;
      } else {
        frame.release();
      }
    }
    assertFalse(channel.finishAndReleaseAll(), "nothing left in the channel");
    assertNotNull(found, "frame " + index + " of " + capture);
    if (found.opcode() != Opcode.RESULT) {
      found.release();
      throw new AssertionError("frame " + index + " of " + capture + " is not a RESULT: " + found);
    }
    return found;
  }
}
