package io.cqlrows.core;

import static io.cqlrows.core.LazyAssertions.assertLazyEqualsEager;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.core.LazyAssertions.Feed;
import io.cqlrows.testing.Allocations;
import io.cqlrows.testing.Corpus;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.util.IllegalReferenceCountException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Lazy pages against the eager {@link io.cqlrows.core.sink.RowsCollector}: the same results, errors
 * and values for the type samples, every RESULT of the corpus captures and the committed fuzz
 * inputs; and the page's ownership of its bytes.
 */
class LazyPageTest {
  private static ResultReader v4() {
    return new ResultReader(4);
  }

  @ParameterizedTest
  @EnumSource(Feed.class)
  void everyTypeSampleReadsBackAsEager(Feed feed) {
    for (TypeSamples.Sample s : TypeSamples.all()) {
      for (ByteBuf body : List.of(s.body(), s.emptyBody())) {
        try {
          assertLazyEqualsEager(LazyPageTest::v4, body, null, feed, 3);
        } finally {
          body.release();
        }
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Feed.class)
  void everyCorpusResultReadsBackAsEager(Feed feed) {
    int rows = 0;
    int results = 0;
    for (String capture : List.of("a-v4", "e-v4-paging", "b-v5", "e-v5-paging")) {
      for (String conn : List.of("conn-00", "conn-01")) {
        byte[] s2c = Corpus.bytes(capture, conn + ".s2c.bin");
        boolean v5 = capture.contains("v5");
        int version = v5 ? 5 : 4;
        Supplier<ResultReader> readers =
            () -> new ResultReader(version).rawCellsWithoutMetadata(true);
        for (Corpus.Envelope e : Corpus.envelopes(v5 ? Corpus.v5Envelopes(s2c) : s2c)) {
          if (e.opcode() != 0x08) {
            continue;
          }
          ByteBuf body = e.bodyBuf();
          try {
            rows += assertLazyEqualsEager(readers, body, null, feed, 97);
            results++;
          } finally {
            body.release();
          }
        }
      }
    }
    assertTrue(results > 40, results + " results");
    assertTrue(rows > 500, rows + " rows");
  }

  /**
   * The committed inputs of the reader's fuzz target, read as its harness reads them (byte 0's
   * protocol version and raw-cells bit, then {@code [u16 length][body]...}): many are malformed, so
   * this compares the errors above all.
   */
  @Test
  void everyFuzzInputReadsAsEager() throws IOException {
    Path dir =
        Paths.get("src/test/resources/io/cqlrows/core/ResultReaderFuzzTestInputs/readsAnyBody");
    List<Path> inputs = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      files.sorted().forEach(inputs::add);
    }
    assertTrue(inputs.size() > 20, inputs.size() + " inputs");
    for (Path f : inputs) {
      byte[] in = Files.readAllBytes(f);
      if (in.length == 0) {
        continue;
      }
      int version = 3 + (in[0] & 3);
      boolean raw = (in[0] & 0x20) != 0;
      Supplier<ResultReader> readers = () -> new ResultReader(version).rawCellsWithoutMetadata(raw);
      for (byte[] body : bodies(in)) {
        for (Feed feed : Feed.values()) {
          ByteBuf b = Unpooled.wrappedBuffer(body);
          try {
            assertLazyEqualsEager(readers, b, null, feed, 5);
          } catch (AssertionError e) {
            throw new AssertionError(f.getFileName() + " " + feed, e);
          } finally {
            b.release();
          }
        }
      }
    }
  }

  /** The bodies of a fuzz input after its configuration byte: {@code [u16 length][body]...}. */
  static List<byte[]> bodies(byte[] in) {
    List<byte[]> out = new ArrayList<>();
    int at = 1;
    while (at + 2 <= in.length) {
      int n = ((in[at] & 0xFF) << 8) | (in[at + 1] & 0xFF);
      at += 2;
      n = Math.min(n, in.length - at);
      byte[] body = new byte[n];
      System.arraycopy(in, at, body, 0, n);
      out.add(body);
      at += n;
    }
    return out;
  }

  @Test
  void malformedCellsFailAsTheEagerParseFails() {
    String text = RowsBodies.opt(0x0D);
    String ascii = RowsBodies.opt(0x01);
    List<ByteBuf> bodies =
        List.of(
            RowsBodies.singleOption(text, "41c328"), // a cut two-byte sequence
            RowsBodies.singleOption(text, "eda080"), // a surrogate
            RowsBodies.singleOption(ascii, "41ff"),
            RowsBodies.singleOption(RowsBodies.opt(0x12), "ffffffffffffffff"), // time < 0
            RowsBodies.singleOption(RowsBodies.opt(0x09), "000001"), // int of 3 bytes
            RowsBodies.singleOption(RowsBodies.opt(0x10), "0102"), // inet of 2 bytes
            RowsBodies.singleOption(RowsBodies.opt(0x06), "00000001"), // decimal without a value
            RowsBodies.singleOption(RowsBodies.list(RowsBodies.opt(0x09)), "00000001000000050000"),
            RowsBodies.singleOption(RowsBodies.vector("FloatType", 2), "3f800000"),
            RowsBodies.rows().column("a", 0x09).column("b", 0x0D).row("00000001").build(),
            RowsBodies.rows()
                .column("a", 0x09)
                .row("00000001")
                .raw("fffffffd")
                .rowCount(2)
                .build());
    for (ByteBuf body : bodies) {
      try {
        assertLazyEqualsEager(LazyPageTest::v4, body, null, Feed.WHOLE, 1);
        assertLazyEqualsEager(LazyPageTest::v4, body, null, Feed.PIECES, 2);
        ResultReader reader = new ResultReader(4);
        LazyPageSink sink = new LazyPageSink();
        CqlParseException e =
            assertThrows(
                CqlParseException.class,
                () -> reader.read(body.duplicate(), sink),
                io.netty.buffer.ByteBufUtil.hexDump(body));
        assertTrue(e.offset() >= 0 && e.offset() <= body.readableBytes(), "offset " + e.offset());
        assertEquals(0, sink.pageCount());
      } finally {
        body.release();
      }
      assertEquals(0, body.refCnt());
    }
  }

  @Test
  void malformedTextIsReplacedWhenTheLimitsSaySo() {
    ByteBuf body = RowsBodies.singleOption(RowsBodies.opt(0x0D), "41c328");
    ParseLimits replace = ParseLimits.defaults().toBuilder().replaceMalformedText(true).build();
    try {
      assertLazyEqualsEager(() -> new ResultReader(4, replace), body, null, Feed.WHOLE, 1);
      LazyPageSink sink = new LazyPageSink();
      new ResultReader(4, replace).read(body.duplicate(), sink);
      try (LazyPage page = sink.poll()) {
        assertEquals("A\uFFFD(", page.row(0).getString(0));
      }
    } finally {
      body.release();
    }
  }

  @Test
  void aPageRetainsThePooledBodyUntilReleased() {
    ByteBuf body = pooledDirect(mixedBody());
    try {
      LazyPageSink sink = new LazyPageSink();
      new ResultReader(4).read(body, sink);
      assertEquals(2, body.refCnt(), "the page holds a reference");
      LazyPage page = sink.poll();
      assertEquals(0, sink.pageCount());
      LazyRow row = page.row(1);
      assertEquals(7, row.getInt("id"));
      assertEquals("seven", row.getString(1));
      ByteBuffer blob = row.getBytes(2);
      assertTrue(blob.isReadOnly());
      assertEquals(ByteBuffer.wrap(new byte[] {(byte) 0xca, (byte) 0xfe}), blob);
      assertTrue(page.release());
      assertEquals(1, body.refCnt(), "released with the page");
      assertEquals(0, page.refCnt());
      assertThrows(IllegalReferenceCountException.class, () -> row.getInt(0));
      assertThrows(IllegalReferenceCountException.class, () -> row.getObject(1));
      assertThrows(IllegalReferenceCountException.class, () -> row.isNull(1));
      assertThrows(IllegalReferenceCountException.class, page::release);
    } finally {
      body.release();
    }
  }

  @Test
  void aCopyingSinkLeavesTheBodyAlone() {
    ByteBuf body = pooledDirect(mixedBody());
    try (LazyPageSink sink = LazyPageSink.copying()) {
      new ResultReader(4).read(body, sink);
      assertEquals(1, body.refCnt(), "the page copied the rows");
      body.setByte(body.writerIndex() - 1, 0); // the page does not see later changes
      try (LazyPage page = sink.poll()) {
        assertEquals(2, page.size());
        assertEquals("seven", page.row(1).getString(1));
        assertEquals(
            ByteBuffer.wrap(new byte[] {(byte) 0xca, (byte) 0xfe}), page.row(1).getBytes(2));
      }
    } finally {
      body.release();
    }
  }

  @Test
  void aCompositeBodyIsCopiedOnce() {
    byte[] bytes = bytesOf(mixedBody());
    CompositeByteBuf body = Unpooled.compositeBuffer();
    int half = bytes.length / 2;
    body.addComponent(true, pooledDirect(Unpooled.wrappedBuffer(bytes, 0, half)));
    body.addComponent(true, pooledDirect(Unpooled.wrappedBuffer(bytes, half, bytes.length - half)));
    try (LazyPageSink sink = new LazyPageSink()) {
      new ResultReader(4).read(body, sink);
      assertEquals(1, body.refCnt(), "the page holds its own copy");
      try (LazyPage page = sink.poll()) {
        assertEquals("seven", page.row(1).getString(1));
      }
    } finally {
      body.release();
    }
  }

  @Test
  void pagesAccumulateInOrderAndCloseReleasesTheRest() {
    ByteBuf one = RowsBodies.single(0x09, "00000001");
    ByteBuf two = RowsBodies.single(0x09, "00000002");
    ByteBuf three = RowsBodies.single(0x09, "00000003");
    LazyPageSink sink = new LazyPageSink();
    ResultReader reader = new ResultReader(4);
    reader.read(one, sink);
    reader.read(two, sink);
    reader.read(three, sink);
    assertEquals(3, sink.pageCount());
    try (LazyPage first = sink.poll()) {
      assertEquals(1, first.row(0).getInt(0));
    }
    sink.close();
    assertEquals(0, sink.pageCount());
    assertNull(sink.poll());
    for (ByteBuf b : List.of(one, two, three)) {
      assertEquals(1, b.refCnt());
      b.release();
    }
  }

  @Test
  void cellEventsAreRefused() {
    LazyPageSink sink = new LazyPageSink();
    assertThrows(UnsupportedOperationException.class, () -> sink.onRowStart(0));
    assertThrows(UnsupportedOperationException.class, () -> sink.onNull(0));
    assertThrows(UnsupportedOperationException.class, () -> sink.onObject(0, "x"));
    assertThrows(UnsupportedOperationException.class, () -> sink.onInt(0, 1));
  }

  @Test
  void gettersOfAnotherTypeAndBadIndexesAreRefused() {
    ByteBuf body = mixedBody();
    try (LazyPageSink sink = new LazyPageSink()) {
      new ResultReader(4).read(body, sink);
      try (LazyPage page = sink.poll()) {
        LazyRow row = page.row(0);
        assertThrows(IllegalArgumentException.class, () -> row.getString(0));
        assertThrows(IllegalArgumentException.class, () -> page.row(1).getInt(1));
        assertThrows(IllegalArgumentException.class, () -> row.floatVector(0));
        assertThrows(IllegalArgumentException.class, () -> row.getInt("nope"));
        assertThrows(IndexOutOfBoundsException.class, () -> row.getInt(3));
        assertThrows(IndexOutOfBoundsException.class, () -> row.getObject(-1));
        assertThrows(IndexOutOfBoundsException.class, () -> page.row(2));
        assertTrue(row.isNull(1));
        assertNull(row.getString(1));
        assertNull(row.getBytes(2));
        assertFalse(row.isEmpty(0));
        assertEquals(0, row.getInt(0) - 5);
      }
    } finally {
      body.release();
    }
  }

  @Test
  void vectorCellsAreReadInPlace() {
    int rows = 64;
    RowsBodies.Builder b = RowsBodies.rows().column("v", RowsBodies.vector("FloatType", 4));
    for (int r = 0; r < rows; r++) {
      StringBuilder cell = new StringBuilder();
      for (int i = 0; i < 4; i++) {
        cell.append(String.format("%08x", Float.floatToRawIntBits(r + i / 4f)));
      }
      b.row(cell.toString());
    }
    ByteBuf body = b.build();
    try (LazyPageSink sink = new LazyPageSink()) {
      new ResultReader(4).read(body, sink);
      try (LazyPage page = sink.poll()) {
        float[] into = new float[4];
        for (LazyRow row : page) { // warm up
          row.floatVector(0).copyTo(into, 0);
        }
        float sum = 0;
        long before = Allocations.current();
        for (int r = 0; r < rows; r++) {
          page.row(r).floatVector(0).copyTo(into, 0);
          sum += into[3];
        }
        long allocated = Allocations.current() - before;
        assertEquals(rows * (rows - 1) / 2f + rows * 0.75f, sum);
        // a row view and a vector view per row at most, never the elements
        assertTrue(allocated < rows * 64L, allocated + " bytes for " + rows + " rows");
        assertArrayEquals(new float[] {5f, 5.25f, 5.5f, 5.75f}, page.row(5).getFloatVector(0));
        assertEquals(5.5f, page.row(5).floatVector(0).get(2));
      }
    } finally {
      body.release();
    }
  }

  /** Two rows of {@code id int, name text, data blob}: (5, NULL, NULL) and (7, 'seven', 0xcafe). */
  private static ByteBuf mixedBody() {
    return RowsBodies.rows()
        .column("id", 0x09)
        .column("name", 0x0D)
        .column("data", 0x03)
        .row("00000005", null, null)
        .row("00000007", hex("seven"), "cafe")
        .build();
  }

  private static String hex(String s) {
    StringBuilder sb = new StringBuilder();
    for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
      sb.append(String.format("%02x", b));
    }
    return sb.toString();
  }

  private static byte[] bytesOf(ByteBuf b) {
    try {
      byte[] out = new byte[b.readableBytes()];
      b.getBytes(b.readerIndex(), out);
      return out;
    } finally {
      b.release();
    }
  }

  /** A copy of {@code heap} (released) in a pooled direct buffer, which leak detection tracks. */
  private static ByteBuf pooledDirect(ByteBuf heap) {
    try {
      ByteBuf d = PooledByteBufAllocator.DEFAULT.directBuffer(heap.readableBytes());
      return d.writeBytes(heap, heap.readerIndex(), heap.readableBytes());
    } finally {
      heap.release();
    }
  }

  @Test
  void rowsListIsAView() {
    ByteBuf body = mixedBody();
    try (LazyPageSink sink = new LazyPageSink()) {
      new ResultReader(4).read(body, sink);
      try (LazyPage page = sink.poll()) {
        assertEquals(2, page.rows().size());
        assertEquals(page.row(1), page.rows().get(1));
        assertSame(page, page.rows().get(0).page());
        assertThrows(UnsupportedOperationException.class, () -> page.rows().remove(0));
      }
    } finally {
      body.release();
    }
  }
}
