package io.cqlrows.arrow;

import static io.cqlrows.core.RowsBodies.map;
import static io.cqlrows.core.RowsBodies.opt;
import static io.cqlrows.core.RowsBodies.rows;
import static io.cqlrows.core.RowsBodies.vector;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.core.CqlParseException;
import io.cqlrows.core.ResultReader;
import io.cqlrows.core.RowsBodies;
import io.cqlrows.core.type.NativeType;
import io.netty.buffer.ByteBuf;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.channels.Channels;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.FixedSizeListVector;
import org.apache.arrow.vector.ipc.ArrowFileReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.util.ByteArrayReadableSeekableByteChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ArrowSink}'s rules: cells without a value, Decimal128, map keys, batches, reuse,
 * ownership, and the IPC writers. Every test closes its {@link RootAllocator}, which fails on an
 * outstanding buffer, error paths included.
 */
class ArrowSinkTest {
  private static final String FLOAT_CLASS = "org.apache.cassandra.db.marshal.FloatType";

  private BufferAllocator allocator;
  private final ResultReader reader = new ResultReader(4);

  @BeforeEach
  void allocator() {
    allocator = new RootAllocator();
  }

  @AfterEach
  void noBufferIsLeft() {
    allocator.close(); // throws IllegalStateException naming any outstanding buffer
  }

  private void read(ByteBuf body, ArrowSink sink) {
    try {
      reader.read(body, sink);
    } finally {
      body.release();
    }
  }

  @Test
  void nullNotSetAndEmptyCellsAreNullsAndCounted() {
    ByteBuf body =
        rows()
            .column("i", NativeType.INT.optionId())
            .column("t", NativeType.TEXT.optionId())
            .row("00000007", "") // an empty text is a value
            .row(null, null)
            .row("", "61") // an empty int is not
            .raw("fffffffe" + "00000001" + "62")
            .rowCount(4)
            .build();
    try (ArrowSink sink = new ArrowSink(allocator)) {
      read(body, sink);
      VectorSchemaRoot root = sink.root();
      assertEquals(4, root.getRowCount());
      IntVector i = (IntVector) root.getVector("i");
      VarCharVector t = (VarCharVector) root.getVector("t");
      assertEquals(7, i.get(0));
      assertEquals("", t.getObject(0).toString());
      assertTrue(i.isNull(1) && t.isNull(1));
      assertTrue(i.isNull(2));
      assertEquals("a", t.getObject(2).toString());
      assertTrue(i.isNull(3));
      assertEquals(1, sink.notSetCells());
      assertEquals(1, sink.emptyCells());
      assertEquals(3, i.getNullCount());
    }
  }

  @Test
  void decimalsAsDecimal128AtTheChosenScale() {
    ArrowMapping exact = ArrowMapping.defaults().withDecimal128(2, RoundingMode.UNNECESSARY);
    try (ArrowSink sink = new ArrowSink(allocator, exact)) {
      read(decimals("1.5", "-12345678901234567890.25", "0E+2147483647"), sink);
      DecimalVector d = (DecimalVector) sink.root().getVector(0);
      assertEquals(new BigDecimal("1.50"), d.getObject(0));
      assertEquals(new BigDecimal("-12345678901234567890.25"), d.getObject(1));
      assertEquals(new BigDecimal("0.00"), d.getObject(2));
    }
  }

  @Test
  void aDecimalThatDoesNotFitIsAnErrorWithItsRowAndColumn() {
    ArrowMapping exact = ArrowMapping.defaults().withDecimal128(2, RoundingMode.UNNECESSARY);
    try (ArrowSink sink = new ArrowSink(allocator, exact)) {
      ArrowMappingException scale =
          assertThrows(ArrowMappingException.class, () -> read(decimals("1.5", "1.255"), sink));
      assertEquals(ArrowMappingException.Reason.DECIMAL_SCALE, scale.reason());
      assertEquals(1, scale.row());
      assertEquals(0, scale.column());
      assertEquals("1.255", scale.value());
      // an exponent no Decimal128 holds is refused without computing its digits
      ArrowMappingException huge =
          assertThrows(ArrowMappingException.class, () -> read(decimals("1E+2147483647"), sink));
      assertEquals(ArrowMappingException.Reason.DECIMAL_PRECISION, huge.reason());
    }
  }

  @Test
  void roundingToTheScaleAlsoForTinyValues() {
    ArrowMapping halfEven = ArrowMapping.defaults().withDecimal128(2, RoundingMode.HALF_EVEN);
    ArrowMapping up = ArrowMapping.defaults().withDecimal128(2, RoundingMode.UP);
    try (ArrowSink sink = new ArrowSink(allocator, halfEven);
        ArrowSink upSink = new ArrowSink(allocator, up)) {
      read(decimals("1.255", "1E-2147483647", "-1E-2147483647"), sink);
      DecimalVector d = (DecimalVector) sink.root().getVector(0);
      assertEquals(new BigDecimal("1.26"), d.getObject(0));
      assertEquals(new BigDecimal("0.00"), d.getObject(1));
      assertEquals(new BigDecimal("0.00"), d.getObject(2));
      read(decimals("1E-2147483647", "-1E-2147483647"), upSink);
      DecimalVector u = (DecimalVector) upSink.root().getVector(0);
      assertEquals(new BigDecimal("0.01"), u.getObject(0));
      assertEquals(new BigDecimal("-0.01"), u.getObject(1));
    }
  }

  /** One decimal column with these values. */
  private static ByteBuf decimals(String... values) {
    RowsBodies.Builder b = rows().column("d", NativeType.DECIMAL.optionId());
    for (String v : values) {
      BigDecimal d = new BigDecimal(v);
      String unscaled = io.netty.buffer.ByteBufUtil.hexDump(d.unscaledValue().toByteArray());
      b.row(String.format("%08x", d.scale()) + unscaled);
    }
    return b.build();
  }

  @Test
  void inetsAreTheirAddressBytesOrTheirText() {
    ArrowMapping text = ArrowMapping.defaults().withInetAsText();
    assertEquals(true, text.inetAsText());
    assertEquals(false, ArrowMapping.defaults().inetAsText());
    try (ArrowSink bytes = new ArrowSink(allocator);
        ArrowSink strings = new ArrowSink(allocator, text)) {
      read(inets(), bytes);
      read(inets(), strings);
      VarBinaryVector b = (VarBinaryVector) bytes.root().getVector(0);
      assertEquals("0a000001", io.netty.buffer.ByteBufUtil.hexDump(b.get(0)));
      VarCharVector t = (VarCharVector) strings.root().getVector(0);
      assertEquals("10.0.0.1", t.getObject(0).toString());
      assertEquals("2001:db8:0:0:0:0:0:1", t.getObject(1).toString());
      assertEquals(true, t.isNull(2));
      assertEquals(
          org.apache.arrow.vector.types.pojo.ArrowType.Utf8.INSTANCE,
          strings.root().getSchema().getFields().get(0).getType());
    }
  }

  /** Rows of one inet column: 10.0.0.1, 2001:db8::1, NULL. */
  private static ByteBuf inets() {
    return rows()
        .column("a", NativeType.INET.optionId())
        .row("0a000001")
        .row("20010db8000000000000000000000001")
        .row((String) null)
        .build();
  }

  @Test
  void aNullMapKeyIsAnError() {
    ByteBuf body =
        rows()
            .column("m", map(opt(0x0009), opt(0x0009)))
            .row("00000001" + "ffffffff" + "00000004" + "00000001")
            .build();
    try (ArrowSink sink = new ArrowSink(allocator)) {
      ArrowMappingException e = assertThrows(ArrowMappingException.class, () -> read(body, sink));
      assertEquals(ArrowMappingException.Reason.NULL_MAP_KEY, e.reason());
      assertEquals("m", e.columnName());
    }
  }

  @Test
  void aTruncatedBodyLeavesNothingBehindOnceClosed() {
    ByteBuf full = vectors(5);
    ByteBuf cut = full.retainedSlice(0, full.readableBytes() - 7);
    full.release();
    try (ArrowSink sink = new ArrowSink(allocator)) {
      CqlParseException e = assertThrows(CqlParseException.class, () -> read(cut, sink));
      assertEquals(CqlParseException.Reason.TRUNCATED, e.reason());
    }
  }

  /**
   * Real bodies of every CQL type with bytes flipped: each parse ends normally or with the parser's
   * or the mapping's exception, and closing the sink and the allocator finds nothing.
   */
  @Test
  void damagedBodiesEndInTypedErrorsAndLeaveNoBuffer() {
    java.util.Random random = new java.util.Random(42);
    List<byte[]> bodies = new ArrayList<>();
    for (io.cqlrows.testing.Corpus.Envelope e :
        io.cqlrows.testing.Corpus.envelopes(
            io.cqlrows.testing.Corpus.bytes("a-v4", "conn-01.s2c.bin"))) {
      if (e.opcode() == 0x08
          && e.body().length > 8
          && e.body()[3] == 2
          && (e.body()[7] & 0x04) == 0) {
        bodies.add(e.body());
      }
    }
    int failures = 0;
    try (ArrowSink sink = new ArrowSink(allocator).reuseVectors(true)) {
      for (int round = 0; round < 3000; round++) {
        byte[] b = bodies.get(random.nextInt(bodies.size())).clone();
        for (int flips = 1 + random.nextInt(3); flips > 0; flips--) {
          b[8 + random.nextInt(b.length - 8)] ^= (byte) (1 << random.nextInt(8));
        }
        try {
          read(io.netty.buffer.Unpooled.wrappedBuffer(b), sink);
        } catch (CqlParseException | ArrowMappingException expected) {
          failures++;
        }
      }
    }
    assertTrue(failures > 0, "some damage was detected");
  }

  @Test
  void batchesOfAtMostNRowsGoToTheListener() {
    List<float[]> firsts = new ArrayList<>();
    List<Integer> counts = new ArrayList<>();
    try (ArrowSink sink =
        new ArrowSink(allocator)
            .maxBatchRows(2)
            .onBatch(
                root -> {
                  counts.add(root.getRowCount());
                  if (root.getRowCount() == 0) {
                    return;
                  }
                  FixedSizeListVector v = (FixedSizeListVector) root.getVector(0);
                  Float4Vector child = (Float4Vector) v.getDataVector();
                  firsts.add(new float[] {child.get(0), child.get(1), child.get(2)});
                })) {
      read(vectors(5), sink);
      assertEquals(List.of(2, 2, 1), counts);
      assertEquals(3, sink.batches());
      assertArrayEquals(new float[] {0, 1, 2}, firsts.get(0));
      assertArrayEquals(new float[] {20, 21, 22}, firsts.get(1));
      assertArrayEquals(new float[] {40, 41, 42}, firsts.get(2));
      read(vectors(0), sink);
      assertEquals(List.of(2, 2, 1, 0), counts, "an empty result is one empty batch");
    }
  }

  @Test
  void maxBatchRowsWithoutAListenerIsRefused() {
    try (ArrowSink sink = new ArrowSink(allocator).maxBatchRows(2)) {
      assertThrows(IllegalStateException.class, () -> read(vectors(1), sink));
    }
  }

  @Test
  void reuseKeepsTheRootForTheSameSchemaOnly() {
    try (ArrowSink sink = new ArrowSink(allocator).reuseVectors(true)) {
      read(vectors(3), sink);
      VectorSchemaRoot first = sink.root();
      read(vectors(2), sink);
      assertSame(first, sink.root());
      assertEquals(2, sink.root().getRowCount());
      FixedSizeListVector v = (FixedSizeListVector) sink.root().getVector(0);
      assertEquals(0, v.getNullCount());
      assertEquals(0, v.getDataVector().getNullCount());
      read(rows().column("i", NativeType.INT.optionId()).row("00000001").build(), sink);
      assertNotSame(first, sink.root());
    }
  }

  @Test
  void aNullVectorIsNullInTheListAndZerosInTheChild() {
    ByteBuf body =
        rows()
            .column("v", vector(FLOAT_CLASS, 3))
            .row(floats(1, 2, 3))
            .row((String) null)
            .row(floats(7, 8, 9))
            .build();
    try (ArrowSink sink = new ArrowSink(allocator).reuseVectors(true)) {
      read(vectors(3), sink); // leaves 10, 11, 12 in row 1's slots
      read(body, sink);
      FixedSizeListVector v = (FixedSizeListVector) sink.root().getVector(0);
      Float4Vector child = (Float4Vector) v.getDataVector();
      assertTrue(v.isNull(1));
      assertEquals(1, v.getNullCount());
      assertEquals(0f, child.get(3));
      assertEquals(0f, child.get(5));
      assertEquals(7f, child.get(6));
    }
  }

  @Test
  void takeRootHandsOwnershipOver() {
    VectorSchemaRoot taken;
    try (ArrowSink sink = new ArrowSink(allocator)) {
      read(vectors(2), sink);
      taken = sink.takeRoot();
      assertNull(sink.root());
      read(vectors(1), sink);
    }
    assertEquals(2, taken.getRowCount());
    taken.close();
  }

  @Test
  void selectedColumnsOnly() {
    ByteBuf body =
        rows()
            .column("a", NativeType.INT.optionId())
            .column("b", NativeType.TEXT.optionId())
            .row("00000001", "78")
            .build();
    try (ArrowSink sink = new ArrowSink(allocator).selectColumnsByName("b")) {
      read(body, sink);
      assertEquals(1, sink.root().getFieldVectors().size());
      assertEquals("x", ((VarCharVector) sink.root().getVector("b")).getObject(0).toString());
    }
  }

  @Test
  void theFileWriterWritesOneBatchPerPageUnderOneSchema() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ArrowSink sink = new ArrowSink(allocator).reuseVectors(true);
        ArrowIpcWriter out = ArrowIpcWriter.file(Channels.newChannel(bytes))) {
      sink.onBatch(out);
      read(vectors(3), sink);
      read(vectors(2), sink);
      assertEquals(2, out.batches());
      assertEquals(5, out.rows());
      IllegalStateException other =
          assertThrows(
              IllegalStateException.class,
              () ->
                  read(
                      rows().column("i", NativeType.INT.optionId()).row("00000001").build(), sink));
      assertTrue(other.getMessage() != null);
    }
    try (ArrowFileReader in =
        new ArrowFileReader(
            new ByteArrayReadableSeekableByteChannel(bytes.toByteArray()), allocator)) {
      assertEquals(2, in.getRecordBlocks().size());
      assertTrue(in.loadNextBatch());
      VectorSchemaRoot r = in.getVectorSchemaRoot();
      assertEquals(3, r.getRowCount());
      Float4Vector child = (Float4Vector) ((FixedSizeListVector) r.getVector(0)).getDataVector();
      assertEquals(21f, child.get(7));
      assertTrue(in.loadNextBatch());
      assertEquals(2, r.getRowCount());
    }
  }

  @Test
  void theStreamWriterEndsItsStream() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ArrowSink sink = new ArrowSink(allocator);
        ArrowIpcWriter out = ArrowIpcWriter.stream(Channels.newChannel(bytes))) {
      sink.onBatch(out);
      read(vectors(3), sink);
      read(vectors(1), sink); // a new root with the same schema: still one stream
    }
    try (ArrowStreamReader in =
        new ArrowStreamReader(new java.io.ByteArrayInputStream(bytes.toByteArray()), allocator)) {
      assertTrue(in.loadNextBatch());
      assertEquals(3, in.getVectorSchemaRoot().getRowCount());
      assertTrue(in.loadNextBatch());
      assertEquals(1, in.getVectorSchemaRoot().getRowCount());
      assertTrue(!in.loadNextBatch());
    }
  }

  /** {@code n} rows of {@code vector<float, 3>}: row r is {@code 10r, 10r + 1, 10r + 2}. */
  private static ByteBuf vectors(int n) {
    RowsBodies.Builder b = rows().column("v", vector(FLOAT_CLASS, 3));
    for (int r = 0; r < n; r++) {
      b.row(floats(10 * r, 10 * r + 1, 10 * r + 2));
    }
    return b.build();
  }

  private static String floats(float... values) {
    StringBuilder sb = new StringBuilder();
    for (float f : values) {
      sb.append(String.format("%08x", Float.floatToRawIntBits(f)));
    }
    return sb.toString();
  }
}
