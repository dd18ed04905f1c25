package io.cqlrows.netty.request;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.cqlrows.core.PagingState;
import io.cqlrows.core.ProtocolFeatures;
import io.cqlrows.netty.frame.Compression;
import io.cqlrows.netty.frame.Opcode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Encodes every request and reads it back with the frame decoder and an independent reader. */
class RequestsTest {
  private static final ByteBufAllocator ALLOC = ByteBufAllocator.DEFAULT;

  @ParameterizedTest
  @ValueSource(ints = {4, 5})
  void optionsIsAnEmptyUncompressedEnvelope(int version) {
    ByteBuf options = new Requests(version, Compression.LZ4).options(ALLOC, 7);
    assertEquals(String.format("0%d0000070500000000", version), ByteBufUtil.hexDump(options));
    options.release();
  }

  @ParameterizedTest
  @ValueSource(ints = {4, 5})
  void startupCarriesTheOptionsAndIsNeverCompressed(int version) {
    Requests requests = new Requests(version, Compression.LZ4);
    ByteBuf startup = requests.startup(ALLOC, 0, Requests.startupOptions(Compression.LZ4));
    assertEquals(0, startup.getByte(1), "flags");
    DecodedRequest r = single(Compression.NONE, startup);
    assertEquals(Opcode.STARTUP, r.opcode());
    assertEquals(version, r.version());
    assertEquals(List.of("CQL_VERSION", "COMPRESSION"), List.copyOf(r.options().keySet()));
    assertEquals(Map.of("CQL_VERSION", "3.0.0", "COMPRESSION", "lz4"), r.options());
    assertEquals(Map.of("CQL_VERSION", "3.0.0"), Requests.startupOptions(Compression.NONE));
  }

  @ParameterizedTest
  @ValueSource(ints = {4, 5})
  void queryWithEveryParameterReadsBack(int version) {
    ByteBuf direct = ALLOC.directBuffer().writeInt(42);
    QueryParameters p =
        QueryParameters.of(Consistency.QUORUM)
            .withValues(Unpooled.wrappedBuffer(new byte[] {1, 2}), null, direct)
            .withPageSize(100)
            .withPagingState(PagingState.of(new byte[] {(byte) 0xAB, (byte) 0xCD}))
            .withSerialConsistency(Consistency.LOCAL_SERIAL)
            .withDefaultTimestamp(1_700_000_000_000_000L);
    ByteBuf query =
        new Requests(version, Compression.NONE)
            .query(ALLOC, 300, "SELECT * FROM ks.t WHERE a = ? AND b = ? AND c = ?", p);
    assertEquals(4, direct.readableBytes(), "values are read, not consumed");
    direct.release();

    DecodedRequest r = single(Compression.NONE, query);
    assertEquals(Opcode.QUERY, r.opcode());
    assertEquals(300, r.streamId());
    assertEquals(0, r.headerFlags());
    assertEquals("SELECT * FROM ks.t WHERE a = ? AND b = ? AND c = ?", r.query());
    assertEquals(Consistency.QUORUM.code(), r.consistency());
    assertEquals(0x01 | 0x04 | 0x08 | 0x10 | 0x20, r.flags());
    assertEquals(List.of("0102", "NULL", "0000002a"), r.values());
    assertEquals(100, r.pageSize());
    assertEquals("abcd", r.pagingState());
    assertEquals(Consistency.LOCAL_SERIAL.code(), r.serialConsistency());
    assertEquals(1_700_000_000_000_000L, r.timestamp());
  }

  @Test
  void queryFlagsAreAByteOnV4AndAnIntOnV5() {
    QueryParameters p = QueryParameters.of(Consistency.ONE).withPageSize(5000);
    ByteBuf v4 = new Requests(4, Compression.NONE).query(ALLOC, 0, "Q", p);
    ByteBuf v5 = new Requests(5, Compression.NONE).query(ALLOC, 0, "Q", p);
    // [long string] "Q", consistency, flags, page size
    assertEquals("0000000151" + "0001" + "04" + "00001388", ByteBufUtil.hexDump(v4, 9, 12));
    assertEquals("0000000151" + "0001" + "00000004" + "00001388", ByteBufUtil.hexDump(v5, 9, 15));
    assertEquals(12, v4.getInt(5));
    assertEquals(15, v5.getInt(5));
    v4.release();
    v5.release();
  }

  @ParameterizedTest
  @ValueSource(ints = {4, 5})
  void tracingSetsTheEnvelopesTracingFlagOfQueryAndExecute(int version) {
    Requests requests = new Requests(version, Compression.NONE);
    QueryParameters traced = QueryParameters.of(Consistency.ONE).withTracing(true);
    ByteBuf query = requests.query(ALLOC, 3, "Q", traced);
    ByteBuf execute = requests.execute(ALLOC, 4, new byte[] {1}, new byte[] {2}, traced);
    ByteBuf plain = requests.query(ALLOC, 5, "Q", traced.withTracing(false));
    try {
      assertEquals(0x02, query.getByte(1), "flags: tracing");
      assertEquals(0x02, execute.getByte(1), "flags: tracing");
      assertEquals(0x00, plain.getByte(1));
      assertEquals(
          ByteBufUtil.hexDump(plain, 2 + 2, plain.readableBytes() - 4),
          ByteBufUtil.hexDump(query, 2 + 2, query.readableBytes() - 4),
          "the body is the same: tracing is a header flag, not a query parameter");
      assertEquals(0, traced.flags() & 0x02, "not Skip_metadata, which is flag 0x02 of the body");
    } finally {
      query.release();
      execute.release();
      plain.release();
    }
  }

  @Test
  void theNextPageIsTracedAsThePageBeforeIt() {
    QueryParameters traced = QueryParameters.of(Consistency.ONE).withTracing(true);
    assertEquals(true, traced.withPageSize(10).withPagingState(null).tracing());
    assertEquals(false, QueryParameters.of(Consistency.ONE).tracing());
  }

  @ParameterizedTest
  @ValueSource(ints = {4, 5})
  void unsetAndEmptyValuesAreDistinct(int version) {
    QueryParameters p =
        QueryParameters.of(Consistency.ONE)
            .withValues(List.of(QueryParameters.UNSET, ByteBuffer.allocate(0)));
    DecodedRequest r =
        single(Compression.NONE, new Requests(version, Compression.NONE).query(ALLOC, 1, "Q", p));
    assertEquals(List.of("UNSET", ""), r.values());
    assertEquals(0x01, r.flags());
  }

  @Test
  void prepareHasFlagsOnlyOnV5() {
    DecodedRequest v4 =
        single(
            Compression.NONE,
            new Requests(4, Compression.NONE).prepare(ALLOC, 2, "SELECT v FROM t WHERE k = ?"));
    DecodedRequest v5 =
        single(
            Compression.NONE,
            new Requests(5, Compression.NONE).prepare(ALLOC, 2, "SELECT v FROM t WHERE k = ?"));
    assertEquals("SELECT v FROM t WHERE k = ?", v4.query());
    assertEquals(-1, v4.prepareFlags());
    assertEquals("SELECT v FROM t WHERE k = ?", v5.query());
    assertEquals(0, v5.prepareFlags());
  }

  @Test
  void executeSendsTheResultMetadataIdOnlyOnV5() {
    byte[] id = {1, 2, 3, 4};
    byte[] metadataId = {9, 8};
    QueryParameters p =
        QueryParameters.of(Consistency.LOCAL_ONE)
            .withValues(new byte[] {0, 0, 0, 7})
            .withSkipMetadata(true);
    DecodedRequest v4 =
        single(Compression.NONE, new Requests(4, Compression.NONE).execute(ALLOC, 3, id, null, p));
    DecodedRequest v5 =
        single(
            Compression.NONE,
            new Requests(5, Compression.NONE).execute(ALLOC, 3, id, metadataId, p));
    for (DecodedRequest r : List.of(v4, v5)) {
      assertEquals(Opcode.EXECUTE, r.opcode());
      assertEquals("01020304", r.id());
      assertEquals(Consistency.LOCAL_ONE.code(), r.consistency());
      assertEquals(0x01 | 0x02, r.flags());
      assertEquals(List.of("00000007"), r.values());
    }
    assertNull(v4.resultMetadataId());
    assertEquals("0908", v5.resultMetadataId());
  }

  /**
   * ScyllaDB's SCYLLA_USE_METADATA_ID (transport/server.cc reads EXECUTE as {@code <id><result
   * metadata id><parameters>} on v4 when it is on): the same layout as v5 with v4's flags byte.
   */
  @Test
  void v4ExecuteCarriesTheResultMetadataIdUnderScyllasExtension() {
    ProtocolFeatures scylla =
        ProtocolFeatures.NONE.withExtension(ProtocolFeatures.SCYLLA_USE_METADATA_ID);
    Requests requests = new Requests(4, Compression.NONE, scylla);
    assertEquals(scylla, requests.features());
    QueryParameters p =
        QueryParameters.of(Consistency.LOCAL_ONE)
            .withValues(new byte[] {0, 0, 0, 7})
            .withSkipMetadata(true);
    ByteBuf envelope = requests.execute(ALLOC, 3, new byte[] {1, 2}, new byte[] {9, 8, 7}, p);
    assertEquals(
        "04000003"
            + "0a"
            + "00000016"
            + "00020102"
            + "0003090807"
            + "000a"
            + "03"
            + "0001"
            + "0000000400000007",
        ByteBufUtil.hexDump(envelope));
    envelope.release();
    assertThrows(
        IllegalArgumentException.class, () -> requests.execute(ALLOC, 3, new byte[] {1}, null, p));
  }

  @Test
  void startupNamesTheExtensionsAfterTheCassandraOptions() {
    ProtocolFeatures scylla =
        ProtocolFeatures.NONE
            .withExtension(ProtocolFeatures.TABLETS_ROUTING_V1)
            .withExtension(ProtocolFeatures.SCYLLA_USE_METADATA_ID);
    assertEquals(
        List.of("CQL_VERSION", "COMPRESSION", "SCYLLA_USE_METADATA_ID", "TABLETS_ROUTING_V1"),
        List.copyOf(Requests.startupOptions(Compression.LZ4, scylla).keySet()));
    assertEquals(
        Requests.startupOptions(Compression.LZ4),
        Requests.startupOptions(Compression.LZ4, ProtocolFeatures.NONE));
  }

  @Test
  void v4Lz4CompressesEveryBodyAfterStartup() {
    Requests lz4 = new Requests(4, Compression.LZ4);
    Requests plain = new Requests(4, Compression.NONE);
    QueryParameters p =
        QueryParameters.of(Consistency.ONE).withValues(new byte[200]).withPageSize(10);
    ByteBuf[] compressed = {
      lz4.query(ALLOC, 1, "SELECT * FROM t WHERE k = ?", p),
      lz4.prepare(ALLOC, 2, "SELECT * FROM t"),
      lz4.execute(ALLOC, 3, new byte[] {5}, null, p)
    };
    ByteBuf[] uncompressed = {
      plain.query(ALLOC, 1, "SELECT * FROM t WHERE k = ?", p),
      plain.prepare(ALLOC, 2, "SELECT * FROM t"),
      plain.execute(ALLOC, 3, new byte[] {5}, null, p)
    };
    for (int i = 0; i < 3; i++) {
      assertEquals(0x01, compressed[i].getByte(1), "flag 0x01");
      assertEquals(
          uncompressed[i].readableBytes() - 9,
          compressed[i].getInt(9),
          "4-byte big-endian uncompressed length");
    }
    assertEquals(compressed[0].getInt(5), compressed[0].readableBytes() - 9);
    assertEquals(
        decodeAll(Compression.NONE, uncompressed),
        decodeAll(Compression.LZ4, compressed).stream().map(r -> withHeaderFlags(r, 0)).toList());
  }

  @Test
  void v5BodiesAreNeverCompressedInTheEnvelope() {
    ByteBuf query =
        new Requests(5, Compression.LZ4)
            .query(ALLOC, 1, "SELECT * FROM t", QueryParameters.of(Consistency.ONE));
    assertEquals(0, query.getByte(1));
    assertEquals("SELECT * FROM t", single(Compression.NONE, query).query());
  }

  @Test
  void setStreamIdPatchesTheHeader() {
    ByteBuf query =
        new Requests(5, Compression.NONE).query(ALLOC, 0, "Q", QueryParameters.of(Consistency.ONE));
    Requests.setStreamId(query, 32767);
    assertEquals(32767, single(Compression.NONE, query).streamId());
  }

  @Test
  void multiByteTextIsCountedInBytes() {
    String cql = "SELECT * FROM t WHERE name = 'Ærøskøbing ✓'";
    ByteBuf query =
        new Requests(4, Compression.NONE).query(ALLOC, 0, cql, QueryParameters.of(Consistency.ONE));
    assertEquals(cql.getBytes(StandardCharsets.UTF_8).length, query.getInt(9));
    assertEquals(cql, single(Compression.NONE, query).query());
  }

  @Test
  void rejectsWhatTheProtocolCannotCarry() {
    assertThrows(IllegalArgumentException.class, () -> new Requests(3, Compression.NONE));
    assertThrows(IllegalArgumentException.class, () -> new Requests(6, Compression.NONE));
    assertThrows(IllegalArgumentException.class, () -> new Requests(5, Compression.SNAPPY));
    // v4 Snappy: STARTUP names it, requests go uncompressed (the flag is per frame)
    Requests snappy = new Requests(4, Compression.SNAPPY);
    assertEquals("snappy", Requests.startupOptions(Compression.SNAPPY).get("COMPRESSION"));
    io.netty.buffer.ByteBuf q = snappy.query(ALLOC, 1, "Q");
    try {
      assertEquals(0, q.getByte(1));
    } finally {
      q.release();
    }
    Requests v5 = new Requests(5, Compression.NONE);
    QueryParameters p = QueryParameters.of(Consistency.ONE);
    assertThrows(IllegalArgumentException.class, () -> v5.query(ALLOC, 32768, "Q", p));
    assertThrows(IllegalArgumentException.class, () -> v5.query(ALLOC, -1, "Q", p));
    assertThrows(
        IllegalArgumentException.class, () -> v5.execute(ALLOC, 0, new byte[] {1}, null, p));
    assertThrows(
        IllegalArgumentException.class,
        () -> v5.execute(ALLOC, 0, new byte[70_000], new byte[] {1}, p));
    char[] big = new char[70_000];
    Arrays.fill(big, 'x');
    assertThrows(
        IllegalArgumentException.class,
        () -> v5.startup(ALLOC, 0, Map.of("CQL_VERSION", new String(big))));
    assertThrows(IllegalArgumentException.class, () -> p.withValues(new byte[70_000][]));
    assertThrows(IllegalArgumentException.class, () -> p.withDefaultTimestamp(-1));
  }

  @Test
  void parametersAreImmutable() {
    QueryParameters base = QueryParameters.of(Consistency.ONE);
    QueryParameters paged = base.withPageSize(10).withPagingState(PagingState.of(new byte[] {1}));
    assertEquals(0, base.flags());
    assertEquals(0x04 | 0x08, paged.flags());
    assertEquals(0, base.withPageSize(-5).flags(), "no page size");
    assertEquals(Optional.of(PagingState.of(new byte[] {1})), paged.pagingState());
    assertEquals(Optional.empty(), base.pagingState());
    assertEquals(0x04, paged.withPagingState(null).flags(), "null: the first page again");
  }

  private static DecodedRequest single(Compression compression, ByteBuf envelope) {
    List<DecodedRequest> all = DecodedRequest.decodeEnvelopes(compression, envelope);
    assertEquals(1, all.size());
    return all.get(0);
  }

  private static List<DecodedRequest> decodeAll(Compression compression, ByteBuf... envelopes) {
    return DecodedRequest.decodeEnvelopes(compression, envelopes);
  }

  private static DecodedRequest withHeaderFlags(DecodedRequest r, int flags) {
    return new DecodedRequest(
        r.version(),
        flags,
        r.streamId(),
        r.opcode(),
        r.query(),
        r.prepareFlags(),
        r.id(),
        r.resultMetadataId(),
        r.consistency(),
        r.flags(),
        r.values(),
        r.pageSize(),
        r.pagingState(),
        r.serialConsistency(),
        r.timestamp(),
        r.options());
  }
}
