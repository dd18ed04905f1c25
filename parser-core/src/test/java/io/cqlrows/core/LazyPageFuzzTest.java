package io.cqlrows.core;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.cqlrows.core.LazyAssertions.Feed;
import io.cqlrows.core.sink.CountingSink;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;

/**
 * Coverage-guided differential fuzzing of lazy pages: any body read into a {@link LazyPageSink}
 * must give what it gives read into a {@link io.cqlrows.core.sink.RowsCollector}: the same result,
 * or the same error (reason, offset, row, column); and for ROWS every cell, read back through
 * {@code getObject}, the typed getter of its value and the vector views, equals the eager row's
 * ({@link LazyAssertions}). The body is borrowed and its reference count is back where it was once
 * the page is released.
 *
 * <p><b>Input.</b> The framing of {@link ResultReaderFuzzTest}'s inputs, with its own configuration
 * byte, so that its seeds serve here too:
 *
 * <pre>
 * byte 0: bits 0-1  protocol version 3 + (0-3): 3, 4, 5, 6
 *         bits 2-3  the lazy read: 0 the body as given (a slice of a larger heap array),
 *                   1 a copying sink, 2 a ResultStream fed in pieces, 3 a pooled direct buffer
 *         bit 4     ParseLimits.replaceMalformedText
 *         bit 5     ResultReader.rawCellsWithoutMetadata
 *         bits 6-7  the pieces' size: 1, 7, 64 or 1,000 bytes
 * then:   [u16 length][body] [u16 length][body] ... (a length past the end takes the rest)
 * </pre>
 *
 * A PREPARED result's result columns are passed with every later body (for {@code No_metadata}
 * rows).
 *
 * <p><b>Runs.</b> In {@code mvn verify} over the committed inputs in {@code
 * src/test/resources/io/cqlrows/core/LazyPageFuzzTestInputs/readsBackAsEager/} (regression mode);
 * {@code JAZZER_FUZZ=1} fuzzes (docs/testing.md, "Fuzzing").
 */
class LazyPageFuzzTest {
  private static final int[] PIECES = {1, 7, 64, 1000};

  @FuzzTest(maxDuration = "5m")
  void readsBackAsEager(byte[] input) {
    if (input.length < 1) {
      return;
    }
    int config = input[0] & 0xFF;
    int version = 3 + (config & 3);
    int lazyRead = (config >> 2) & 3;
    ParseLimits limits =
        ParseLimits.defaults().toBuilder().replaceMalformedText((config & 0x10) != 0).build();
    boolean raw = (config & 0x20) != 0;
    int pieceSize = PIECES[(config >> 6) & 3];
    Feed feed = lazyRead == 1 ? Feed.COPYING : lazyRead == 2 ? Feed.PIECES : Feed.WHOLE;

    ResultColumns prepared = null;
    int at = 1;
    while (at + 2 <= input.length) {
      int length = Math.min(((input[at] & 0xFF) << 8) | (input[at + 1] & 0xFF), input.length - at);
      at += 2;
      length = Math.min(length, input.length - at);
      ByteBuf body = buffer(input, at, length, lazyRead == 3);
      at += length;
      try {
        LazyAssertions.assertLazyEqualsEager(
            () -> new ResultReader(version, limits).rawCellsWithoutMetadata(raw),
            body,
            prepared,
            feed,
            pieceSize);
        prepared = preparedColumns(version, limits, body, prepared);
      } finally {
        body.release();
      }
    }
  }

  /** The result columns a PREPARED body carries, else {@code previous}. */
  private static ResultColumns preparedColumns(
      int version, ParseLimits limits, ByteBuf body, ResultColumns previous) {
    try {
      CqlResult r = new ResultReader(version, limits).read(body.duplicate(), new CountingSink());
      return r instanceof PreparedResult p ? p.resultColumns() : previous;
    } catch (CqlParseException e) {
      return previous;
    }
  }

  /** The body in a pooled direct buffer, or in the middle of a larger heap array. */
  private static ByteBuf buffer(byte[] input, int at, int length, boolean direct) {
    if (direct) {
      return PooledByteBufAllocator.DEFAULT.directBuffer(length).writeBytes(input, at, length);
    }
    byte[] padded = new byte[length + 16];
    System.arraycopy(input, at, padded, 8, length);
    return Unpooled.wrappedBuffer(padded, 8, length);
  }
}
