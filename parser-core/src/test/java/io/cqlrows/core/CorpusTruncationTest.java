package io.cqlrows.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.cqlrows.core.sink.CountingSink;
import io.cqlrows.testing.CheckingSink;
import io.cqlrows.testing.Corpus;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every RESULT body of the corpus (ROWS with metadata, ROWS with {@code No_metadata} decoded with
 * their prepared columns, {@code Metadata_changed} ROWS, PREPARED) truncated at every offset is a
 * {@link CqlParseException.Reason#TRUNCATED} error at an offset within the prefix, never another
 * error, another exception or a result.
 *
 * <p>Captures a-v4 and b-v5 (both connections; v5 through its segments) and the first pages of
 * e-v4-paging. A ROWS body over {@link #MAX_BYTES} bytes is first cut to its first rows (at least
 * one; {@code rows_count} rewritten): every metadata byte and every kind of cell is still cut at
 * every offset, without the quadratic cost of a 1.2 MB page.
 */
class CorpusTruncationTest {
  /** ROWS bodies are cut to their first rows beyond this size. */
  static final int MAX_BYTES = 2048;

  static Stream<Arguments> bodies() {
    List<Arguments> out = new ArrayList<>();
    int all = Integer.MAX_VALUE;
    collect(out, "a-v4/conn-00", 4, Corpus.bytes("a-v4", "conn-00.s2c.bin"), all);
    collect(out, "a-v4/conn-01", 4, Corpus.bytes("a-v4", "conn-01.s2c.bin"), all);
    collect(
        out, "b-v5/conn-00", 5, Corpus.v5Envelopes(Corpus.bytes("b-v5", "conn-00.s2c.bin")), all);
    collect(
        out, "b-v5/conn-01", 5, Corpus.v5Envelopes(Corpus.bytes("b-v5", "conn-01.s2c.bin")), all);
    // the pages all share their metadata: the first two (and the driver's SELECT) will do
    collect(out, "e-v4-paging/conn-01", 4, Corpus.bytes("e-v4-paging", "conn-01.s2c.bin"), 3);
    return out.stream();
  }

  /**
   * Adds every RESULT body of a stream, with the columns a No_metadata one needs: those of the
   * latest PREPARED or Metadata_changed result with as many columns that decode it whole.
   */
  private static void collect(
      List<Arguments> out, String where, int version, byte[] stream, int maxBodies) {
    List<ResultColumns> known = new ArrayList<>();
    ResultReader reader = new ResultReader(version);
    int n = 0;
    for (Corpus.Envelope e : Corpus.envelopes(stream)) {
      if (e.opcode() != 0x08) {
        continue;
      }
      if (n++ == maxBodies) {
        break;
      }
      byte[] body = e.body();
      int kind = FuzzSeedsWriter.readInt(body, 0);
      ResultColumns columns = null;
      if (kind == RowsResult.KIND) {
        int flags = FuzzSeedsWriter.readInt(body, 4);
        body = FuzzSeedsWriter.cut(body, -1, MAX_BYTES);
        if ((flags & RowsMetadata.FLAG_NO_METADATA) != 0) {
          columns = columnsFor(reader, body, known);
          assertNotNull(columns, where + " at " + e.offset() + ": no prepared columns fit");
        }
      }
      CqlResult result =
          Decoding.read(reader, Unpooled.wrappedBuffer(body), new CountingSink(), columns);
      if (result instanceof PreparedResult p) {
        known.add(0, p.resultColumns());
      } else if (result instanceof RowsResult r && r.metadata().metadataChanged()) {
        known.add(0, r.metadata().columns());
      }
      out.add(
          Arguments.of(
              where + " @" + e.offset() + " kind " + kind + " (" + body.length + " bytes)",
              version,
              body,
              columns));
    }
  }

  private static ResultColumns columnsFor(
      ResultReader reader, byte[] body, List<ResultColumns> known) {
    for (ResultColumns c : known) {
      try {
        Decoding.read(reader, Unpooled.wrappedBuffer(body), new CountingSink(), c);
        return c;
      } catch (CqlParseException wrongOnes) {
        // not the statement that ran
      }
    }
    return null;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("bodies")
  void everyPrefixIsTruncated(String name, int version, byte[] body, ResultColumns columns) {
    ResultReader reader = new ResultReader(version);
    for (int n = 0; n < body.length; n++) {
      ByteBuf prefix = Unpooled.wrappedBuffer(body, 0, n);
      try {
        reader.read(prefix, new CheckingSink(new CountingSink()), columns);
        fail(name + ": a prefix of " + n + " bytes was read as a result");
      } catch (CqlParseException e) {
        final int length = n;
        assertEquals(
            CqlParseException.Reason.TRUNCATED,
            e.reason(),
            () -> name + ", prefix of " + length + " bytes: " + e.getMessage());
        assertTrue(
            e.offset() >= 0 && e.offset() <= n,
            () -> name + ", prefix of " + length + " bytes: offset " + e.offset());
      } finally {
        assertEquals(1, prefix.refCnt());
        prefix.release();
      }
    }
  }
}
