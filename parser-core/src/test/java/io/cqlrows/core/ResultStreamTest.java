package io.cqlrows.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.core.sink.ColumnarSink;
import io.cqlrows.core.sink.CountingSink;
import io.cqlrows.testing.Allocations;
import io.cqlrows.testing.Corpus;
import io.cqlrows.testing.CqlBytes;
import io.cqlrows.testing.RecordingSink;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.IntUnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * {@link ResultStream} gives exactly what {@link ResultReader#read} gives on the whole body, for
 * every way of cutting the body into pieces: whole, byte by byte, random cuts, cuts inside cells,
 * vints and vectors (every cut position of the real corpus bodies is covered by byte-by-byte).
 */
class ResultStreamTest {

  /** Every RESULT body of the a-v4 corpus, with the prepared columns its EXECUTE needs. */
  @SuppressWarnings("ArrayRecordComponent") // a holder of bytes, never compared
  private record Body(byte[] bytes, ResultColumns prepared) {}

  private static List<Body> corpusBodies() {
    List<Body> out = new ArrayList<>();
    Map<String, ResultColumns> prepared = new HashMap<>();
    ResultReader reader = new ResultReader(4);
    for (String conn : List.of("conn-00", "conn-01")) {
      List<com.fasterxml.jackson.databind.JsonNode> expected =
          io.cqlrows.testing.CorpusAssertions.expectedResults("a-v4", conn);
      int rowsSeen = 0;
      for (Corpus.Envelope e : Corpus.envelopes(Corpus.bytes("a-v4", conn + ".s2c.bin"))) {
        if (e.opcode() != 0x08) {
          continue;
        }
        ByteBuf body = e.bodyBuf();
        try {
          ResultColumns columns = null;
          if (body.getInt(0) == RowsResult.KIND && (body.getInt(4) & 0x0004) != 0) {
            String id = expected.get(rowsSeen).get("request").get("prepared_id").asText();
            columns = prepared.get(id);
          }
          CqlResult r = reader.read(body, new CountingSink(), columns);
          if (r instanceof PreparedResult p) {
            prepared.put("0x" + io.netty.buffer.ByteBufUtil.hexDump(p.id()), p.resultColumns());
          } else if (r instanceof RowsResult) {
            rowsSeen++;
          }
          out.add(new Body(e.body(), columns));
        } finally {
          body.release();
        }
      }
    }
    assertTrue(out.size() > 30, "bodies: " + out.size());
    return out;
  }

  /** What a sink saw: the canonical JSON rendering of the result (values, NULLs, empties). */
  private record Seen(StringBuilder json, io.cqlrows.core.sink.JsonLinesSink sink) {
    Seen() {
      this(new StringBuilder());
    }

    Seen(StringBuilder json) {
      this(json, new io.cqlrows.core.sink.JsonLinesSink(json));
    }

    List<String> result() {
      return List.of(json.toString());
    }
  }

  private static List<String> whole(ResultReader reader, Body b) {
    Seen seen = new Seen();
    ByteBuf buf = Unpooled.wrappedBuffer(b.bytes);
    reader.read(buf, seen.sink(), b.prepared);
    return seen.result();
  }

  /** Streams {@code bytes} in pieces of the sizes {@code cut} gives (called with the offset). */
  private static List<String> streamed(
      ResultReader reader,
      byte[] bytes,
      ResultColumns prepared,
      IntUnaryOperator cut,
      boolean direct) {
    Seen seen = new Seen();
    try (ResultStream s = reader.stream(seen.sink(), prepared, bytes.length)) {
      int at = 0;
      do {
        int n = Math.min(bytes.length - at, Math.max(1, cut.applyAsInt(at)));
        ByteBuf piece =
            direct
                ? ByteBufAllocator.DEFAULT.directBuffer(n)
                : Unpooled.buffer(n + 3).writerIndex(3).readerIndex(3); // reader index not 0
        piece.writeBytes(bytes, at, n);
        try {
          s.feed(piece);
        } finally {
          piece.release();
        }
        at += n;
      } while (at < bytes.length);
      assertTrue(s.isComplete());
      s.result();
    }
    return seen.result();
  }

  @Test
  void everyCorpusBodyStreamsToTheSameEventsWholeByteByByteAndInRandomPieces() {
    ResultReader reader = new ResultReader(4);
    Random random = new Random(8);
    for (Body b : corpusBodies()) {
      List<String> expected = whole(reader, b);
      assertEquals(expected, streamed(reader, b.bytes, b.prepared, at -> b.bytes.length, false));
      assertEquals(expected, streamed(reader, b.bytes, b.prepared, at -> 1, false), "byte by byte");
      for (int i = 0; i < 5; i++) {
        int max = 1 + random.nextInt(Math.max(1, b.bytes.length / 3));
        assertEquals(
            expected,
            streamed(reader, b.bytes, b.prepared, at -> 1 + random.nextInt(max), i % 2 == 0),
            "random pieces up to " + max);
      }
    }
  }

  /** A page of vectors, cut inside lengths, inside elements and across several rows. */
  @Test
  void vectorRowsCutAnywhereStreamLikeTheWholeBody() {
    RowsBodies.Builder builder =
        RowsBodies.rows()
            .column("id", 0x0009)
            .column("v", RowsBodies.vector(RowsBodies.MARSHAL + "FloatType", 64))
            .column("t", RowsBodies.vector(RowsBodies.MARSHAL + "UTF8Type", 3));
    Random random = new Random(3);
    for (int r = 0; r < 50; r++) {
      StringBuilder v = new StringBuilder();
      for (int i = 0; i < 64; i++) {
        v.append(String.format("%08x", Float.floatToIntBits(random.nextFloat())));
      }
      // vector<text, 3>: vint-prefixed elements, one long enough for a two-byte vint
      String text = "01" + "61" + "00" + "8100" + "62".repeat(256);
      builder.row(String.format("%08x", r), r % 7 == 0 ? null : v.toString(), text);
    }
    ByteBuf whole = builder.build();
    byte[] bytes = new byte[whole.readableBytes()];
    whole.readBytes(bytes);
    whole.release();
    ResultReader reader = new ResultReader(4);
    List<String> expected = whole(reader, new Body(bytes, null));
    assertEquals(expected, streamed(reader, bytes, null, at -> 1, false));
    for (int size : new int[] {2, 3, 5, 7, 255, 256, 257, 1000, 4096}) {
      assertEquals(expected, streamed(reader, bytes, null, at -> size, true), "pieces of " + size);
    }
  }

  @Test
  void aMalformedCellFailsWithTheSameErrorAsTheWholeBody() {
    ByteBuf body =
        RowsBodies.rows()
            .column("a", 0x0009)
            .column("b", 0x0009)
            .row("00000001", "00000002")
            .row("00000003", "000004")
            .build();
    byte[] bytes = new byte[body.readableBytes()];
    body.readBytes(bytes);
    body.release();
    ResultReader reader = new ResultReader(4);
    CqlParseException expected =
        assertThrows(
            CqlParseException.class,
            () -> reader.read(Unpooled.wrappedBuffer(bytes), new RecordingSink()));
    for (int size = 1; size <= bytes.length; size++) {
      int n = size;
      CqlParseException e =
          assertThrows(
              CqlParseException.class,
              () -> streamed(reader, bytes, null, at -> n, false),
              "pieces of " + n);
      assertEquals(expected.reason(), e.reason(), "pieces of " + n);
      assertEquals(expected.offset(), e.offset(), "pieces of " + n);
      assertEquals(expected.row(), e.row(), "pieces of " + n);
      assertEquals(expected.column(), e.column(), "pieces of " + n);
      assertEquals(expected.field(), e.field(), "pieces of " + n);
      assertEquals(expected.detail(), e.detail(), "pieces of " + n);
    }
  }

  @Test
  void aBodyThatEndsEarlyNamesTheLastCompleteRow() {
    ByteBuf body =
        RowsBodies.rows()
            .column("a", 0x0009)
            .row("00000001")
            .row("00000002")
            .row("00000003")
            .build();
    int length = body.readableBytes();
    RecordingSink sink = new RecordingSink();
    ResultStream s = new ResultReader(4).stream(sink, null, length);
    try {
      s.feed(body.retainedSlice(body.readerIndex(), length - 6));
    } finally {
      body.release();
    }
    assertEquals(2, s.rowsDelivered());
    CqlParseException e = s.truncatedError();
    s.close();
    assertEquals(CqlParseException.Reason.TRUNCATED, e.reason());
    assertEquals(2, e.row());
    assertEquals(length - 6, e.offset());
    assertThrows(IllegalStateException.class, () -> s.feed(Unpooled.EMPTY_BUFFER));
  }

  @Test
  void refusesBytesPastTheBodyAndReadsNonRowsResultsWhenComplete() {
    byte[] setKeyspace = CqlBytes.create().int32(3).string("ks").toArray();
    ResultStream s = new ResultReader(4).stream(new RecordingSink(), null, setKeyspace.length);
    s.feed(Unpooled.wrappedBuffer(setKeyspace, 0, 3));
    assertThrows(IllegalStateException.class, s::result);
    assertThrows(IllegalArgumentException.class, () -> s.feed(Unpooled.wrappedBuffer(setKeyspace)));
    s.feed(Unpooled.wrappedBuffer(setKeyspace, 3, setKeyspace.length - 3));
    assertEquals("ks", ((SetKeyspaceResult) s.result()).keyspace());
    s.close();
  }

  /** A body of {@code rows} rows of one {@code vector<float, dimension>} column. */
  private static ByteBuf floatVectorRows(int dimension, int rows) {
    RowsBodies.Builder builder =
        RowsBodies.rows()
            .column("v", RowsBodies.vector(RowsBodies.MARSHAL + "FloatType", dimension));
    String cell = "3f800000".repeat(dimension);
    for (int r = 0; r < rows; r++) {
      builder.row(cell);
    }
    return builder.build();
  }

  /** Memory: a sink that keeps nothing runs with about one row and one step held. */
  @Test
  void holdsOnlyTheRowInProgress() {
    int dimension = 1536;
    int rows = 300;
    ByteBuf body = floatVectorRows(dimension, rows);
    int length = body.readableBytes();
    ColumnarSink sink = new ColumnarSink();
    int maxHeld = 0;
    try (ResultStream s = new ResultReader(4).stream(new CountingSink(), null, length)) {
      for (int at = 0; at < length; at += 65536) {
        int n = Math.min(65536, length - at);
        s.feed(body.slice(body.readerIndex() + at, n));
        maxHeld = Math.max(maxHeld, s.bytesHeld());
      }
      assertEquals(rows, s.rowsDelivered());
    } finally {
      body.release();
    }
    int rowBytes = 4 + dimension * 4;
    assertTrue(maxHeld < rowBytes, "held " + maxHeld + " bytes, a row is " + rowBytes);
    assertEquals(0, sink.rowCount());
  }

  /**
   * The first piece is parsed in place once the metadata is all in it: feeding a 1.8 MB piece of
   * vector rows allocates far less than a copy of it (the row in progress at its end is held).
   */
  @Test
  void parsesTheFirstPieceInPlace() {
    int dimension = 1536;
    int rows = 300;
    ByteBuf body = floatVectorRows(dimension, rows);
    int length = body.readableBytes();
    int first = length - 1000; // ends inside the last row
    ResultReader reader = new ResultReader(4);
    try {
      for (int round = 0; round < 2; round++) { // the first round loads and links the classes
        try (ResultStream s = reader.stream(new CountingSink(), null, length)) {
          long before = Allocations.current();
          s.feed(body.slice(body.readerIndex(), first));
          long allocated = Allocations.current() - before;
          assertEquals(rows - 1, s.rowsDelivered());
          assertTrue(allocated < first / 8, allocated + " bytes allocated for a piece of " + first);
          s.feed(body.slice(body.readerIndex() + first, length - first));
          assertEquals(rows, s.rowsDelivered());
        }
      }
    } finally {
      body.release();
    }
  }

  /**
   * Hostile bodies: corpus bodies with random bytes changed, streamed in random pieces, end as the
   * whole-body read does: the same JSON, or the same typed error (reason, field, offset, row,
   * column).
   */
  @Test
  void corruptedBodiesFailOrSucceedExactlyAsTheWholeBodyDoes() {
    ResultReader reader = new ResultReader(4);
    Random random = new Random(11);
    List<Body> bodies = corpusBodies();
    int failures = 0;
    for (int i = 0; i < 1000; i++) {
      Body original = bodies.get(random.nextInt(bodies.size()));
      byte[] bytes = original.bytes.clone();
      int flips = 1 + random.nextInt(4);
      for (int f = 0; f < flips; f++) {
        bytes[random.nextInt(bytes.length)] = (byte) random.nextInt(256);
      }
      Body b = new Body(bytes, original.prepared);
      String expected;
      CqlParseException expectedError = null;
      try {
        expected = whole(reader, b).get(0);
      } catch (CqlParseException e) {
        expected = null;
        expectedError = e;
      }
      int max = 1 + random.nextInt(Math.max(1, bytes.length / 2));
      try {
        String got =
            streamed(reader, bytes, b.prepared, at -> 1 + random.nextInt(max), random.nextBoolean())
                .get(0);
        assertEquals(expected, got, "case " + i);
      } catch (CqlParseException e) {
        failures++;
        if (expectedError == null) {
          throw new AssertionError("case " + i + ": the stream failed, the whole read did not", e);
        }
        // the same error; only its hex snippet may show fewer bytes (those that had arrived)
        String where = "case " + i + ": " + e.getMessage();
        assertEquals(expectedError.reason(), e.reason(), where);
        assertEquals(expectedError.field(), e.field(), where);
        assertEquals(expectedError.offset(), e.offset(), where);
        assertEquals(expectedError.row(), e.row(), where);
        assertEquals(expectedError.column(), e.column(), where);
      }
    }
    assertTrue(failures > 100, "corruptions that failed: " + failures);
  }
}
