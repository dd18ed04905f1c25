package io.cqlrows.core;

import static io.cqlrows.core.Decoding.assertError;
import static io.cqlrows.core.RowsBodies.custom;
import static io.cqlrows.core.RowsBodies.list;
import static io.cqlrows.core.RowsBodies.map;
import static io.cqlrows.core.RowsBodies.opt;
import static io.cqlrows.core.RowsBodies.udt;
import static io.cqlrows.core.RowsBodies.vectorClass;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.core.CqlParseException.Reason;
import io.cqlrows.core.type.CustomType;
import io.cqlrows.core.type.NativeType;
import io.cqlrows.core.type.VectorType;
import io.cqlrows.testing.CqlBytes;
import io.cqlrows.testing.RecordingSink;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * RESULT bodies (native_protocol_v5.spec section 4.2.5): every kind, ROWS metadata in wire order,
 * the row loop, limits.
 */
class ResultReaderTest {
  private static final String INT = opt(0x0009);
  private static final String TEXT = opt(0x000D);
  private static final String FLOAT3 = vectorClass("FloatType", 3);

  /** Offset of the first col_spec name with Global_tables_spec "ks"/"t", no paging state. */
  private static final int FIRST_COL_SPEC = 4 + 4 + 4 + 4 + 3;

  private static CqlResult read(ByteBuf body) {
    return Decoding.read(new ResultReader(4), body, new RecordingSink(), null);
  }

  // ---- kinds ----

  @Test
  void readsVoid() {
    CqlResult r = read(CqlBytes.create().int32(1).toByteBuf());
    assertInstanceOf(VoidResult.class, r);
    assertEquals(1, r.kind());
  }

  @Test
  void readsSetKeyspace() {
    CqlResult r = read(CqlBytes.create().int32(3).string("my_ks").toByteBuf());
    assertEquals(new SetKeyspaceResult("my_ks"), r);
  }

  @Test
  void readsSchemaChangeForKeyspaceTableAndFunction() {
    assertEquals(
        new SchemaChangeResult("CREATED", "KEYSPACE", "ks", "", List.of()),
        read(
            CqlBytes.create()
                .int32(5)
                .string("CREATED")
                .string("KEYSPACE")
                .string("ks")
                .toByteBuf()));
    assertEquals(
        new SchemaChangeResult("UPDATED", "TABLE", "ks", "t", List.of()),
        read(
            CqlBytes.create()
                .int32(5)
                .string("UPDATED")
                .string("TABLE")
                .string("ks")
                .string("t")
                .toByteBuf()));
    assertEquals(
        new SchemaChangeResult("DROPPED", "FUNCTION", "ks", "f", List.of("int", "text")),
        read(
            CqlBytes.create()
                .int32(5)
                .string("DROPPED")
                .string("FUNCTION")
                .string("ks")
                .string("f")
                .int16(2)
                .string("int")
                .string("text")
                .toByteBuf()));
    assertEquals(
        new SchemaChangeResult("CREATED", "AGGREGATE", "ks", "a", List.of()),
        read(
            CqlBytes.create()
                .int32(5)
                .string("CREATED")
                .string("AGGREGATE")
                .string("ks")
                .string("a")
                .int16(0)
                .toByteBuf()));
  }

  /** A PREPARED body: id cafe, variables (k int, x text), pk [pk...], result (id int, v float3). */
  private static ByteBuf prepared(int version, int... pk) {
    CqlBytes b = CqlBytes.create().int32(4).int16(2).hex("cafe");
    if (version >= 5) {
      b.int16(3).hex("abcdef");
    }
    b.int32(1).int32(2);
    if (version >= 4) {
      b.int32(pk.length);
      for (int i : pk) {
        b.int16(i);
      }
    }
    b.string("ks").string("t").columnSpec("k", 0x0009).columnSpec("x", 0x000D);
    RowsBodies.rows().column("id", INT).column("v", custom(FLOAT3)).metadata(b);
    return b.toByteBuf();
  }

  @Test
  void readsPreparedV4WithPartitionKeyIndexes() {
    ResultReader reader = new ResultReader(4);
    PreparedResult p = (PreparedResult) Decoding.read(reader, prepared(4, 0), null, null);
    assertArrayEquals(new byte[] {(byte) 0xca, (byte) 0xfe}, p.id());
    assertNull(p.resultMetadataId());
    assertArrayEquals(new int[] {0}, p.partitionKeyIndexes());
    assertEquals(
        List.of(
            new ColumnSpec("ks", "t", "k", NativeType.INT),
            new ColumnSpec("ks", "t", "x", NativeType.TEXT)),
        p.variables());
    assertEquals(
        List.of(
            new ColumnSpec("ks", "t", "id", NativeType.INT),
            new ColumnSpec("ks", "t", "v", new VectorType(NativeType.FLOAT, 3))),
        p.resultColumns().specs());
  }

  @Test
  void readsPreparedV5WithResultMetadataId() {
    ResultReader reader = new ResultReader(5);
    PreparedResult p = (PreparedResult) Decoding.read(reader, prepared(5, 1, 0), null, null);
    assertArrayEquals(new byte[] {(byte) 0xca, (byte) 0xfe}, p.id());
    assertArrayEquals(new byte[] {(byte) 0xab, (byte) 0xcd, (byte) 0xef}, p.resultMetadataId());
    assertArrayEquals(new int[] {1, 0}, p.partitionKeyIndexes());
    assertEquals(2, p.resultColumns().size());
  }

  @Test
  void readsPreparedV3WithoutPartitionKeyIndexes() {
    PreparedResult p = (PreparedResult) Decoding.read(new ResultReader(3), prepared(3), null, null);
    assertArrayEquals(new int[0], p.partitionKeyIndexes());
    assertEquals(2, p.variables().size());
    assertEquals(2, p.resultColumns().size());
  }

  @Test
  void decodesNoMetadataRowsWithPreparedResultColumns() {
    ResultReader reader = new ResultReader(5);
    PreparedResult p = (PreparedResult) Decoding.read(reader, prepared(5), null, null);
    ByteBuf rows =
        RowsBodies.rows().noMetadata(2).row("00000007", "3f800000 40000000 40400000").build();
    RecordingSink sink = new RecordingSink();
    RowsResult r = (RowsResult) Decoding.read(reader, rows, sink, p.resultColumns());
    assertEquals(
        List.of("start 1", "row 0", "0:int 7", "1:floatvector [1.0, 2.0, 3.0]", "/row 0", "end 1"),
        sink.events());
    assertTrue(r.metadata().noMetadata());
    assertSame(p.resultColumns(), r.metadata().columns());
  }

  @Test
  void rejectsInvalidPartitionKeyCount() {
    ByteBuf negative =
        CqlBytes.create().int32(4).int16(1).hex("01").int32(1).int32(0).int32(-1).toByteBuf();
    assertError(Decoding.error(negative), Reason.INVALID_COUNT, "pk_count", 4 + 3 + 8, -1, -1);
    ByteBuf beyond =
        CqlBytes.create()
            .int32(4)
            .int16(1)
            .hex("01")
            .int32(1)
            .int32(0)
            .int32(3)
            .int16(0)
            .toByteBuf();
    assertError(Decoding.error(beyond), Reason.TRUNCATED, "pk_count", 4 + 3 + 8, -1, -1);
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 6, 9, -1, 0x7fffffff})
  void rejectsUnknownResultKind(int kind) {
    CqlParseException e = Decoding.error(CqlBytes.create().int32(kind).toByteBuf());
    assertError(e, Reason.UNKNOWN_RESULT_KIND, "kind", 0, -1, -1);
  }

  @ParameterizedTest
  @ValueSource(ints = {0x0016, 0x001f, 0x0023, 0x0032, 0xffff})
  void rejectsUnknownOptionId(int id) {
    RowsBodies.Builder b = RowsBodies.rows().column("a", INT).column("b", opt(id));
    // after the first col_spec ("a", int) and the second name ("b")
    int offset = FIRST_COL_SPEC + 3 + 2 + 3;
    CqlParseException e = Decoding.error(b.build());
    assertError(e, Reason.UNKNOWN_TYPE_ID, "option id", offset, -1, 1);
    assertEquals("b", e.columnName());
  }

  @Test
  void readsPerColumnTableSpecs() {
    RowsResult r =
        (RowsResult)
            read(RowsBodies.rows().perColumnTables().column("a", INT).row("00000001").build());
    assertEquals(new ColumnSpec("ks", "t", "a", NativeType.INT), r.metadata().columns().get(0));
  }

  // ---- metadata flags ----

  @Test
  void readsPagingStateOfHasMorePages() {
    RowsResult r =
        (RowsResult)
            read(RowsBodies.rows().pagingState("010203").column("a", INT).row("00000001").build());
    assertTrue(r.metadata().hasMorePages());
    assertArrayEquals(new byte[] {1, 2, 3}, r.metadata().pagingState().orElseThrow().bytes());
    assertNull(r.metadata().newMetadataId());
  }

  @Test
  void readsNullPagingStateAsNoNextPage() {
    RowsResult r =
        (RowsResult)
            read(
                CqlBytes.create()
                    .int32(2)
                    .int32(3)
                    .int32(1)
                    .int32(-1)
                    .string("ks")
                    .string("t")
                    .columnSpec("a", 9)
                    .int32(0)
                    .toByteBuf());
    assertEquals(
        RowsMetadata.FLAG_HAS_MORE_PAGES,
        r.metadata().flags() & RowsMetadata.FLAG_HAS_MORE_PAGES,
        "the flag as sent");
    assertFalse(r.metadata().hasMorePages(), "nothing to ask for the next page with");
    assertEquals(Optional.empty(), r.metadata().pagingState());
  }

  /** Cassandra's encoder writes paging_state, then new_metadata_id (section 4.2.5.2's order). */
  @Test
  void readsNewMetadataIdAfterPagingState() {
    RowsBodies.Builder b =
        RowsBodies.rows()
            .pagingState("010203")
            .newMetadataId("abcd")
            .column("a", INT)
            .row("00000001");
    assertTrue(
        b.hex().startsWith("00000002" + "0000000b" + "00000001" + "00000003010203" + "0002abcd"));
    RecordingSink sink = new RecordingSink();
    RowsResult r = (RowsResult) Decoding.read(new ResultReader(5), b.build(), sink, null);
    assertTrue(r.metadata().metadataChanged());
    assertArrayEquals(new byte[] {1, 2, 3}, r.metadata().pagingState().orElseThrow().bytes());
    assertArrayEquals(new byte[] {(byte) 0xab, (byte) 0xcd}, r.metadata().newMetadataId());
    assertEquals(List.of("start 1", "row 0", "0:int 1", "/row 0", "end 1"), sink.events());
  }

  @Test
  void readsNewMetadataIdWithoutPagingState() {
    RowsResult r =
        (RowsResult)
            read(RowsBodies.rows().newMetadataId("01").column("a", INT).row("00000001").build());
    assertFalse(r.metadata().hasMorePages());
    assertArrayEquals(new byte[] {1}, r.metadata().newMetadataId());
  }

  /** No_metadata + Has_more_pages: flags 0x6, 2 columns, a 3-byte paging state, 0 rows. */
  @Test
  void readsSpecNoMetadataPagingExample() {
    ByteBuf body =
        CqlBytes.create().hex("00000002 00000006 00000002 00000003 010203 00000000").toByteBuf();
    ResultColumns prepared =
        ResultColumns.of(
            List.of(
                new ColumnSpec("ks", "t", "a", NativeType.INT),
                new ColumnSpec("ks", "t", "b", NativeType.TEXT)));
    RecordingSink sink = new RecordingSink();
    RowsResult r = (RowsResult) Decoding.read(new ResultReader(4), body, sink, prepared);
    assertEquals(0, r.rowCount());
    assertArrayEquals(new byte[] {1, 2, 3}, r.metadata().pagingState().orElseThrow().bytes());
    assertEquals(List.of("start 0", "end 0"), sink.events());
  }

  @Test
  void rejectsNoMetadataWithoutPreparedColumns() {
    CqlParseException e =
        Decoding.error(RowsBodies.rows().noMetadata(2).row("00000001", "02").build());
    assertError(e, Reason.METADATA_MISMATCH, "columns_count", 8, -1, -1);
  }

  @Test
  void deliversRawBlobsForNoMetadataWhenEnabled() {
    ResultReader reader = new ResultReader(4).rawCellsWithoutMetadata(true);
    RecordingSink sink = new RecordingSink();
    RowsResult r =
        (RowsResult)
            Decoding.read(
                reader,
                RowsBodies.rows().noMetadata(2).row("00000001", "").row(null, "cafe").build(),
                sink,
                null);
    assertEquals(
        List.of(
            "start 2",
            "row 0",
            "0:blob 00000001",
            "1:blob ",
            "/row 0",
            "row 1",
            "0:null",
            "1:blob cafe",
            "/row 1",
            "end 2"),
        sink.events());
    assertEquals("column1", r.metadata().columns().get(1).name());
    assertInstanceOf(CustomType.class, r.metadata().columns().get(1).type());
  }

  /**
   * A raw No_metadata result's columns_count is backed by no column specs: the reader makes up
   * columns only once rows_count has been checked against the bytes, and only for a result with
   * rows. Otherwise a few bytes could make it build thousands of columns: the fuzz input
   * ResultReaderFuzzTestInputs/readsAnyBody/crash-a72e9d8f claims 28,530 columns, which would take
   * 4.9 MB, in a 141-byte body.
   */
  @Test
  void makesUpRawColumnsOnlyForTheRowsTheBytesCarry() {
    com.sun.management.ThreadMXBean mx =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    ResultReader reader = new ResultReader(4).rawCellsWithoutMetadata(true);
    // 65,535 columns claimed, one row of three cells
    ByteBuf claimed =
        CqlBytes.create()
            .int32(2)
            .int32(RowsMetadata.FLAG_NO_METADATA)
            .int32(65_535)
            .int32(1)
            .int32(1)
            .hex("00")
            .int32(-1)
            .int32(-1)
            .toByteBuf();
    // 65,535 columns, no rows
    ByteBuf empty =
        CqlBytes.create()
            .int32(2)
            .int32(RowsMetadata.FLAG_NO_METADATA)
            .int32(65_535)
            .int32(0)
            .toByteBuf();
    RecordingSink sink = new RecordingSink();
    Decoding.read(
        reader,
        CqlBytes.create()
            .int32(2)
            .int32(RowsMetadata.FLAG_NO_METADATA)
            .int32(1)
            .int32(0)
            .toByteBuf(),
        sink,
        null); // warm up the classes
    long before = mx.getCurrentThreadAllocatedBytes();
    CqlParseException e = Decoding.error(reader, claimed, null);
    RowsResult r = (RowsResult) Decoding.read(reader, empty, sink, null);
    long allocated = mx.getCurrentThreadAllocatedBytes() - before;
    assertError(e, Reason.TRUNCATED, "rows_count", 12, -1, -1);
    assertEquals(65_535, r.metadata().columnCount());
    assertEquals(0, r.metadata().columns().size());
    assertEquals(0, r.rowCount());
    assertTrue(allocated < 64 * 1024, "allocated " + allocated + " bytes");
  }

  @Test
  void rejectsColumnCountDifferentFromPrepared() {
    ResultColumns prepared =
        ResultColumns.of(List.of(new ColumnSpec("ks", "t", "a", NativeType.INT)));
    CqlParseException e =
        Decoding.error(
            new ResultReader(4),
            RowsBodies.rows().noMetadata(2).row("00000001", "00000002").build(),
            prepared);
    assertError(e, Reason.METADATA_MISMATCH, "columns_count", 8, -1, -1);
  }

  // ---- cells ----

  @Test
  void deliversNotSetForLengthMinusTwo() {
    RecordingSink sink = new RecordingSink();
    Decoding.read(
        new ResultReader(4),
        RowsBodies.rows()
            .column("a", INT)
            .column("b", TEXT)
            .rowCount(1)
            .raw("fffffffe ffffffff")
            .build(),
        sink,
        null);
    assertEquals(
        List.of("start 1", "row 0", "0:notset", "1:null", "/row 0", "end 1"), sink.events());
  }

  @ParameterizedTest
  @ValueSource(ints = {-3, -1000, Integer.MIN_VALUE})
  void rejectsCellLengthBelowMinusTwo(int length) {
    RowsBodies.Builder b =
        RowsBodies.rows()
            .column("a", INT)
            .column("b", TEXT)
            .row("00000001", "61")
            .cell("00000002")
            .rowCount(2);
    int offset = b.bytes().size();
    b.raw(String.format("%08x", length));
    CqlParseException e = Decoding.error(b.build());
    assertError(e, Reason.INVALID_LENGTH, "cell length", offset, 1, 1);
    assertEquals("b", e.columnName());
    assertEquals(NativeType.TEXT, e.type());
  }

  @Test
  void rejectsCellBeyondBody() {
    RowsBodies.Builder b = RowsBodies.rows().column("a", INT).rowCount(1).raw("00000004 0000");
    int offset = b.bytes().size() - 2;
    assertError(Decoding.error(b.build()), Reason.TRUNCATED, "cell", offset, 0, 0);
  }

  @Test
  void rejectsNegativeRowsCount() {
    RowsBodies.Builder b = RowsBodies.rows().column("a", INT).rowCount(-1);
    int offset = b.bytes().size() - 4;
    assertError(Decoding.error(b.build()), Reason.INVALID_COUNT, "rows_count", offset, -1, -1);
  }

  @Test
  void rejectsHugeRowsCountWithoutAllocating() {
    com.sun.management.ThreadMXBean mx =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    RowsBodies.Builder b =
        RowsBodies.rows()
            .column("a", INT)
            .column("b", INT)
            .rowCount(Integer.MAX_VALUE)
            .raw("00000004 00000001");
    int offset = b.bytes().size() - 12;
    ByteBuf body = b.build();
    ResultReader reader = new ResultReader(4);
    RecordingSink sink = new RecordingSink();
    CqlParseException e;
    long before = mx.getCurrentThreadAllocatedBytes();
    try {
      e = assertThrows(CqlParseException.class, () -> reader.read(body, sink));
    } finally {
      assertEquals(1, body.refCnt());
      body.release();
    }
    long allocated = mx.getCurrentThreadAllocatedBytes() - before;
    assertError(e, Reason.TRUNCATED, "rows_count", offset, -1, -1);
    assertTrue(allocated < 1 << 20, "allocated " + allocated + " bytes");
    assertEquals(List.of(), sink.events());
  }

  @Test
  void rejectsColumnsCountAboveMaxColumns() {
    ResultReader reader = new ResultReader(4, ParseLimits.builder().maxColumns(2).build());
    ByteBuf body =
        RowsBodies.rows()
            .column("a", INT)
            .column("b", INT)
            .column("c", INT)
            .row("00000001", "00000002", "00000003")
            .build();
    assertError(
        Decoding.error(reader, body, null), Reason.LIMIT_EXCEEDED, "columns_count", 8, -1, -1);
    ByteBuf huge = CqlBytes.create().int32(2).int32(1).int32(65_536).toByteBuf();
    assertError(Decoding.error(huge), Reason.LIMIT_EXCEEDED, "columns_count", 8, -1, -1);
  }

  @Test
  void rejectsNegativeColumnsCount() {
    ByteBuf body = CqlBytes.create().int32(2).int32(1).int32(-1).toByteBuf();
    assertError(Decoding.error(body), Reason.INVALID_COUNT, "columns_count", 8, -1, -1);
  }

  @Test
  void rejectsColumnsCountBeyondBytes() {
    ByteBuf body =
        CqlBytes.create().int32(2).int32(1).int32(60_000).string("ks").string("t").toByteBuf();
    assertEquals(Reason.TRUNCATED, Decoding.error(body).reason());
  }

  /** A list of list of ... 100,000 deep, in [option] bytes. */
  private static String deepListOption(int depth) {
    return "0020".repeat(depth) + INT;
  }

  @Test
  void rejectsOptionNestingDeeperThanMaxTypeDepth() {
    ByteBuf body = RowsBodies.rows().column("v", deepListOption(100_000)).row("00000000").build();
    CqlParseException e = Decoding.error(body);
    int firstOption = FIRST_COL_SPEC + 3;
    int offset = firstOption + 2 * ParseLimits.DEFAULT_MAX_TYPE_DEPTH;
    assertError(e, Reason.TYPE_TOO_DEEP, "option", offset, -1, 0);
  }

  @Test
  void acceptsOptionNestingAtMaxTypeDepth() {
    ResultReader reader = new ResultReader(4, ParseLimits.builder().maxTypeDepth(3).build());
    RecordingSink sink = new RecordingSink();
    Decoding.read(
        reader,
        RowsBodies.rows().column("v", deepListOption(2)).row("00000000").build(),
        sink,
        null);
    assertEquals("0:object []", sink.events().get(2));
    CqlParseException e =
        Decoding.error(
            reader, RowsBodies.rows().column("v", deepListOption(3)).row("00000000").build(), null);
    assertEquals(Reason.TYPE_TOO_DEEP, e.reason());
  }

  @Test
  void reportsStackExhaustionAsTypeTooDeep() {
    ResultReader reader =
        new ResultReader(4, ParseLimits.builder().maxTypeDepth(Integer.MAX_VALUE).build());
    ByteBuf body = RowsBodies.rows().column("v", deepListOption(100_000)).row("00000000").build();
    assertEquals(Reason.TYPE_TOO_DEEP, Decoding.error(reader, body, null).reason());
  }

  @Test
  void rejectsCustomTypeNameNestingDeeperThanMaxTypeDepth() {
    String name = MARSHAL_LIST.repeat(100) + "Int32Type" + ")".repeat(100);
    ByteBuf body = RowsBodies.single(name, "00000000");
    CqlParseException e = Decoding.error(body);
    assertError(e, Reason.TYPE_TOO_DEEP, "custom type name", FIRST_COL_SPEC + 3 + 2, -1, 0);
  }

  private static final String MARSHAL_LIST = RowsBodies.MARSHAL + "ListType(";

  // ---- a complete body: id int, v vector<float, 3> of ks.t; rows (1, [1, 2, 3]), (2, null) ----

  @Test
  void readsSpecCompleteExampleBody() {
    String hex =
        "00000002 00000001 00000002 0002 6b73 0001 74 0002 6964 0009 0001 76 0000 0059"
            + toHex(FLOAT3)
            + "00000002"
            + "00000004 00000001 0000000c 3f800000 40000000 40400000"
            + "00000004 00000002 ffffffff";
    ByteBuf body = CqlBytes.create().hex(hex).toByteBuf();
    assertEquals(0xa1, body.readableBytes());
    RecordingSink sink = new RecordingSink();
    RowsResult r = (RowsResult) Decoding.read(new ResultReader(4), body, sink, null);
    assertEquals(
        List.of(
            "start 2",
            "row 0",
            "0:int 1",
            "1:floatvector [1.0, 2.0, 3.0]",
            "/row 0",
            "row 1",
            "0:int 2",
            "1:null",
            "/row 1",
            "end 2"),
        sink.events());
    assertEquals(2, r.rowCount());
    assertEquals(
        List.of(
            new ColumnSpec("ks", "t", "id", NativeType.INT),
            new ColumnSpec("ks", "t", "v", new VectorType(NativeType.FLOAT, 3))),
        r.metadata().columns().specs());
  }

  private static String toHex(String s) {
    return RowsBodies.str(s).substring(4);
  }

  // ---- sink interplay, ownership, reuse ----

  @Test
  void skipsUnwantedColumnsWithoutDecoding() {
    RecordingSink recording = new RecordingSink();
    RowSink sink = new SkippingSink(recording, 1);
    // column 1 is an int of 3 bytes: an error only if decoded
    Decoding.read(
        new ResultReader(4),
        RowsBodies.rows()
            .column("a", INT)
            .column("bad", INT)
            .column("c", TEXT)
            .row("00000001", "000002", "63")
            .row("00000002", "", null)
            .build(),
        sink,
        null);
    assertEquals(
        List.of(
            "start 2",
            "row 0",
            "0:int 1",
            "2:string c",
            "/row 0",
            "row 1",
            "0:int 2",
            "2:null",
            "/row 1",
            "end 2"),
        recording.events());
  }

  @Test
  void asksWantsColumnAfterResultStart() {
    List<String> calls = new ArrayList<>();
    RowSink sink =
        new RowSink() {
          @Override
          public void onResultStart(RowsMetadata metadata, int rowCount) {
            calls.add("start " + metadata.columns().size());
          }

          @Override
          public boolean wantsColumn(int column) {
            calls.add("wants " + column);
            return true;
          }

          @Override
          public void onRowStart(int row) {
            calls.add("row " + row);
          }

          @Override
          public void onRowEnd(int row) {}

          @Override
          public void onNull(int column) {}

          @Override
          public void onNotSet(int column) {}

          @Override
          public void onEmpty(int column) {}

          @Override
          public void onObject(int column, Object value) {}
        };
    Decoding.read(
        new ResultReader(4),
        RowsBodies.rows()
            .column("a", INT)
            .column("b", INT)
            .row("00000001", "00000002")
            .row("00000003", "00000004")
            .build(),
        sink,
        null);
    assertEquals(List.of("start 2", "wants 0", "wants 1", "row 0", "row 1"), calls);
  }

  @Test
  void rejectsUdtTypeWithMoreFieldsThanMaxUdtFields() {
    ResultReader reader = new ResultReader(4, ParseLimits.builder().maxUdtFields(2).build());
    String type = udt("ks", "u", "a", INT, "b", INT, "c", INT);
    CqlParseException e = Decoding.error(reader, RowsBodies.singleOption(type, ""), null);
    // the field count follows the option id and the two strings "ks" and "u"
    assertError(e, Reason.LIMIT_EXCEEDED, "field count", FIRST_COL_SPEC + 3 + 2 + 4 + 3, -1, 0);
  }

  @Test
  void ignoresTrailingBytesAfterLastRow() {
    RowsResult r =
        (RowsResult)
            read(
                RowsBodies.rows().column("a", INT).row("00000001").trailing("deadbeef 00").build());
    assertEquals(1, r.rowCount());
    assertEquals(
        VoidResult.class, read(CqlBytes.create().int32(1).hex("ffff").toByteBuf()).getClass());
  }

  @Test
  void leavesBodyIndicesAndRefCntUnchanged() {
    byte[] bytes =
        RowsBodies.rows()
            .column("a", INT)
            .column("b", TEXT)
            .row("00000001", "61")
            .bytes()
            .toArray();
    ByteBuf buf = Unpooled.buffer(bytes.length + 20);
    try {
      buf.writeZero(7).writeBytes(bytes).writeZero(3);
      buf.readerIndex(7);
      buf.writerIndex(7 + bytes.length);
      new ResultReader(4).read(buf, new RecordingSink());
      assertEquals(7, buf.readerIndex());
      assertEquals(7 + bytes.length, buf.writerIndex());
      assertEquals(1, buf.refCnt());
    } finally {
      assertTrue(buf.release());
    }
  }

  @Test
  void reusesColumnsForIdenticalMetadata() {
    ResultReader reader = new ResultReader(4);
    RowsResult page1 =
        (RowsResult)
            Decoding.read(
                reader,
                RowsBodies.rows()
                    .pagingState("01")
                    .column("a", INT)
                    .column("v", custom(FLOAT3))
                    .row("00000001", null)
                    .build(),
                new RecordingSink(),
                null);
    RowsResult page2 =
        (RowsResult)
            Decoding.read(
                reader,
                RowsBodies.rows()
                    .column("a", INT)
                    .column("v", custom(FLOAT3))
                    .row("00000002", null)
                    .build(),
                new RecordingSink(),
                null);
    assertSame(page1.metadata().columns(), page2.metadata().columns());
    assertSame(
        reader.deserializersFor(page1.metadata().columns()),
        reader.deserializersFor(page2.metadata().columns()));
    RowsResult other =
        (RowsResult)
            Decoding.read(
                reader,
                RowsBodies.rows()
                    .column("a", INT)
                    .column("w", custom(FLOAT3))
                    .row("00000002", null)
                    .build(),
                new RecordingSink(),
                null);
    assertNotSame(page1.metadata().columns(), other.metadata().columns());
    assertEquals("w", other.metadata().columns().get(1).name());
  }

  @Test
  void reportsOffsetsRelativeToReaderIndex() {
    RowsBodies.Builder b = RowsBodies.rows().column("a", INT).row("000001");
    byte[] bytes = b.bytes().toArray();
    CqlParseException alone = Decoding.error(b.build());
    ByteBuf buf = Unpooled.buffer(bytes.length + 7);
    buf.writeBytes(new byte[] {1, 2, 3, 4, 5, 6, 7}).writeBytes(bytes);
    buf.readerIndex(7);
    CqlParseException inside = Decoding.error(new ResultReader(4), buf, null);
    assertError(alone, Reason.LENGTH_MISMATCH, "value", bytes.length - 3, 0, 0);
    assertError(inside, Reason.LENGTH_MISMATCH, "value", bytes.length - 3, 0, 0);
  }

  // ---- truncation at every offset ----

  /** Every native type, a list, a map, a UDT and two vectors; rows of values, NULLs, empties. */
  static RowsBodies.Builder everyTypeBody() {
    RowsBodies.Builder b =
        RowsBodies.rows()
            .column("ascii", opt(0x01))
            .column("bigint", opt(0x02))
            .column("blob", opt(0x03))
            .column("boolean", opt(0x04))
            .column("counter", opt(0x05))
            .column("decimal", opt(0x06))
            .column("double", opt(0x07))
            .column("float", opt(0x08))
            .column("int", opt(0x09))
            .column("timestamp", opt(0x0B))
            .column("uuid", opt(0x0C))
            .column("text", opt(0x0D))
            .column("varint", opt(0x0E))
            .column("timeuuid", opt(0x0F))
            .column("inet", opt(0x10))
            .column("date", opt(0x11))
            .column("time", opt(0x12))
            .column("smallint", opt(0x13))
            .column("tinyint", opt(0x14))
            .column("duration", opt(0x15))
            .column("list", list(INT))
            .column("map", map(TEXT, INT))
            .column("udt", udt("ks", "u", "a", INT, "b", TEXT))
            .column("vf", custom(FLOAT3))
            .column("vt", custom(vectorClass("UTF8Type", 2)));
    String[] row = {
      "616263",
      "7fffffffffffffff",
      "cafe",
      "01",
      "0000000000000005",
      "0000000001",
      "40d2fa0800000000",
      "4697d040",
      "7f500000",
      "000001337f62ee79",
      "49157efcef3c9de31698af801fb40b2a",
      "e381bee38197e381a6",
      "661efdf2e3b19f7c045f15",
      "af5943a3ea3c11e1ab63c42c032279f0",
      "413436a9",
      "80000001",
      "0000000000000001",
      "7fff",
      "7f",
      "0000f077359400",
      "00000002 00000004 00000001 ffffffff",
      "00000001 00000001 6b 00000004 00000007",
      "00000004 00000001 00000002 6869",
      "3f800000 40000000 40400000",
      "80c8" + "61".repeat(200) + "00",
    };
    b.row(row);
    String[] nulls = new String[row.length];
    b.row(nulls);
    String[] empties = new String[row.length];
    java.util.Arrays.fill(empties, "");
    return b.row(empties);
  }

  @Test
  void decodesEveryTypeBody() {
    List<String> events = Decoding.events(everyTypeBody().build());
    assertEquals(2 + 3 * (2 + 25), events.size());
    assertEquals("row 1", events.get(28));
    assertEquals("24:object [" + "a".repeat(200) + ", ]", events.get(26));
  }

  @Test
  void rejectsEveryTruncationWithTruncated() {
    byte[] bytes = everyTypeBody().bytes().toArray();
    ResultReader reader = new ResultReader(4);
    Decoding.read(reader, Unpooled.wrappedBuffer(bytes), new RecordingSink(), null);
    for (int n = 0; n < bytes.length; n++) {
      final int length = n;
      ByteBuf prefix = Unpooled.buffer(n).writeBytes(bytes, 0, n);
      CqlParseException e = Decoding.error(reader, prefix, null);
      assertEquals(Reason.TRUNCATED, e.reason(), () -> "prefix " + length + ": " + e.getMessage());
      assertTrue(e.offset() >= 0 && e.offset() <= length, () -> "prefix " + length + ": " + e);
    }
  }

  /** Forwards every event except those of one column, which it does not want. */
  private static final class SkippingSink implements RowSink {
    private final RecordingSink delegate;
    private final int skipped;

    SkippingSink(RecordingSink delegate, int skipped) {
      this.delegate = delegate;
      this.skipped = skipped;
    }

    @Override
    public void onResultStart(RowsMetadata metadata, int rowCount) {
      delegate.onResultStart(metadata, rowCount);
    }

    @Override
    public void onResultEnd(int rowCount) {
      delegate.onResultEnd(rowCount);
    }

    @Override
    public boolean wantsColumn(int column) {
      return column != skipped;
    }

    @Override
    public void onRowStart(int row) {
      delegate.onRowStart(row);
    }

    @Override
    public void onRowEnd(int row) {
      delegate.onRowEnd(row);
    }

    @Override
    public void onNull(int column) {
      delegate.onNull(column);
    }

    @Override
    public void onNotSet(int column) {
      delegate.onNotSet(column);
    }

    @Override
    public void onEmpty(int column) {
      delegate.onEmpty(column);
    }

    @Override
    public void onObject(int column, Object value) {
      delegate.onObject(column, value);
    }

    @Override
    public void onInt(int column, int value) {
      delegate.onInt(column, value);
    }

    @Override
    public void onString(int column, String value) {
      delegate.onString(column, value);
    }
  }
}
