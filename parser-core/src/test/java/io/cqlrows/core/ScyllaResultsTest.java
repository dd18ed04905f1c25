package io.cqlrows.core;

import static io.cqlrows.core.RowsBodies.opt;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.core.sink.RowsCollector;
import io.cqlrows.testing.CqlBytes;
import io.netty.buffer.ByteBuf;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * RESULT bodies as ScyllaDB writes them on a v4 connection with extensions on (transport/server.cc
 * {@code fmt_visitor::visit(prepared)} and {@code write(prepared_metadata)}, cql3/result_set.cc
 * {@code calculate_metadata_id}, cql3/result_set.hh {@code LWT_FLAG_MASK}): a PREPARED result under
 * SCYLLA_USE_METADATA_ID carries {@code result_metadata_id} after the statement id, exactly where
 * v5 has it; under SCYLLA_LWT_ADD_METADATA_MARK bit 0x80000000 of the prepared metadata flags marks
 * an LWT; a ROWS result of an EXECUTE may set {@code Metadata_changed} on v4.
 */
class ScyllaResultsTest {
  private static final String INT = opt(0x0009);
  private static final ProtocolFeatures METADATA_ID =
      ProtocolFeatures.NONE.withExtension(ProtocolFeatures.SCYLLA_USE_METADATA_ID);
  private static final ProtocolFeatures LWT =
      ProtocolFeatures.NONE.withExtension(ProtocolFeatures.SCYLLA_LWT_ADD_METADATA_MARK);

  /**
   * A v4 PREPARED body of {@code SELECT id, v FROM ks.t WHERE k = ?} as server.cc writes it: kind
   * 4, {@code [short bytes]} id, the {@code [short bytes]} metadata id when {@code metadataId} is
   * not null, prepared metadata (flags, 1 variable, pk_count 1, index 0, Global_tables_spec ks.t,
   * {@code k int}), result metadata ({@code id int, v text}).
   */
  static ByteBuf preparedV4(byte[] id, byte[] metadataId, int preparedFlags) {
    CqlBytes b = CqlBytes.create().int32(PreparedResult.KIND).int16(id.length).raw(id);
    if (metadataId != null) {
      b.int16(metadataId.length).raw(metadataId);
    }
    b.int32(preparedFlags | RowsMetadata.FLAG_GLOBAL_TABLES_SPEC)
        .int32(1)
        .int32(1)
        .int16(0)
        .string("ks")
        .string("t")
        .columnSpec("k", 0x0009);
    RowsBodies.rows().column("id", INT).column("v", opt(0x000D)).metadata(b);
    return b.toByteBuf();
  }

  @Test
  void aV4PreparedResultCarriesTheResultMetadataIdUnderTheExtension() {
    byte[] id = hex("5d6f7a7c2b0c4e2a9e1f00112233aabb");
    byte[] metadataId = hex("0f1e2d3c4b5a69788796a5b4c3d2e1f0");
    PreparedResult p =
        (PreparedResult)
            Decoding.read(
                new ResultReader(4, ParseLimits.defaults(), METADATA_ID),
                preparedV4(id, metadataId, 0),
                null,
                null);
    assertArrayEquals(id, p.id());
    assertArrayEquals(metadataId, p.resultMetadataId());
    assertEquals(1, p.variables().size());
    assertArrayEquals(new int[] {0}, p.partitionKeyIndexes());
    assertEquals(
        List.of("id", "v"), p.resultColumns().specs().stream().map(ColumnSpec::name).toList());
  }

  /**
   * Random 16-byte ids (ScyllaDB's metadata id is the first half of a SHA-256): every one reads
   * with the extension; without it the same body is misread (the id taken as flags and counts), so
   * the extension must come from the connection, not from guessing.
   */
  @Test
  void everyRandomMetadataIdReadsWithTheExtensionAndNoneWithout() {
    Random random = new Random(20_000);
    int misread = 0;
    for (int i = 0; i < 2_000; i++) {
      byte[] id = new byte[16];
      byte[] metadataId = new byte[16];
      random.nextBytes(id);
      random.nextBytes(metadataId);
      PreparedResult p =
          (PreparedResult)
              Decoding.read(
                  new ResultReader(4, ParseLimits.defaults(), METADATA_ID),
                  preparedV4(id, metadataId, 0),
                  null,
                  null);
      assertArrayEquals(metadataId, p.resultMetadataId());
      assertEquals(2, p.resultColumns().size());
      ByteBuf body = preparedV4(id, metadataId, 0);
      try {
        CqlResult r = new ResultReader(4).read(body, new RowsCollector());
        if (!(r instanceof PreparedResult q)
            || q.resultColumns() == null
            || q.resultColumns().size() != 2) {
          misread++;
        }
      } catch (CqlParseException e) {
        misread++;
      } finally {
        body.release();
      }
    }
    assertEquals(2_000, misread);
  }

  @Test
  void withoutTheExtensionAV4PreparedResultHasNoMetadataId() {
    PreparedResult p =
        (PreparedResult)
            Decoding.read(new ResultReader(4), preparedV4(hex("cafe"), null, 0), null, null);
    assertNull(p.resultMetadataId());
    assertEquals(2, p.resultColumns().size());
  }

  @ParameterizedTest
  @ValueSource(ints = {3, 4})
  void theExtensionAppliesToEveryVersionScyllaSpeaks(int version) {
    assertTrue(METADATA_ID.hasResultMetadataId(version));
    assertFalse(ProtocolFeatures.NONE.hasResultMetadataId(version));
    assertTrue(ProtocolFeatures.NONE.hasResultMetadataId(5));
  }

  @Test
  void theLwtBitMarksALightweightTransactionUnderTheMask() {
    ResultReader reader = new ResultReader(4, ParseLimits.defaults(), LWT);
    PreparedResult lwt =
        (PreparedResult) Decoding.read(reader, preparedV4(hex("01"), null, 0x80000000), null, null);
    assertTrue(lwt.isLwt());
    assertEquals(0x80000001, lwt.preparedFlags());
    assertEquals(1, lwt.variables().size(), "the bit carries no bytes");
    PreparedResult plain =
        (PreparedResult) Decoding.read(reader, preparedV4(hex("02"), null, 0), null, null);
    assertFalse(plain.isLwt());
    assertEquals(0x00000001, plain.preparedFlags());
  }

  @Test
  void withoutTheExtensionTheLwtBitIsOnlyAFlag() {
    PreparedResult p =
        (PreparedResult)
            Decoding.read(new ResultReader(4), preparedV4(hex("01"), null, 0x80000000), null, null);
    assertFalse(p.isLwt());
    assertEquals(0x80000001, p.preparedFlags());
  }

  @Test
  void bothExtensionsTogether() {
    ProtocolFeatures both =
        METADATA_ID.withExtension(ProtocolFeatures.SCYLLA_LWT_ADD_METADATA_MARK);
    PreparedResult p =
        (PreparedResult)
            Decoding.read(
                new ResultReader(4, ParseLimits.defaults(), both),
                preparedV4(hex("01"), hex("aa"), 0x80000000),
                null,
                null);
    assertTrue(p.isLwt());
    assertArrayEquals(hex("aa"), p.resultMetadataId());
  }

  /**
   * A v4 ROWS result of an EXECUTE whose metadata id was stale (server.cc writes Metadata_changed
   * with the new id before the column specs, as on v5).
   */
  @Test
  void aV4RowsResultWithMetadataChangedCarriesTheNewIdAndColumns() {
    ByteBuf body =
        CqlBytes.create()
            .int32(2)
            .int32(RowsMetadata.FLAG_GLOBAL_TABLES_SPEC | RowsMetadata.FLAG_METADATA_CHANGED)
            .int32(1)
            .int16(2)
            .hex("beef")
            .string("ks")
            .string("t")
            .columnSpec("id", 0x0009)
            .int32(1)
            .bytes("00000007")
            .toByteBuf();
    RowsCollector rows = new RowsCollector();
    RowsResult r =
        (RowsResult)
            Decoding.read(
                new ResultReader(4, ParseLimits.defaults(), METADATA_ID), body, rows, null);
    assertTrue(r.metadata().metadataChanged());
    assertArrayEquals(hex("beef"), r.metadata().newMetadataId());
    assertEquals(7, rows.rows().get(0).getInt("id"));
  }

  @Test
  void withFeaturesKeepsTheReadersSettings() {
    ResultReader raw = new ResultReader(4).rawCellsWithoutMetadata(true);
    ResultReader scylla = raw.withFeatures(METADATA_ID);
    assertEquals(METADATA_ID, scylla.features());
    assertEquals(4, scylla.protocolVersion());
    assertNotEquals(raw.features(), scylla.features());
    RowsCollector rows = new RowsCollector();
    Decoding.read(scylla, RowsBodies.rows().noMetadata(1).row("00000001").build(), rows, null);
    assertEquals(1, rows.rows().size(), "raw cells without metadata, as the original");
  }

  private static byte[] hex(String hex) {
    return io.netty.buffer.ByteBufUtil.decodeHexDump(hex);
  }
}
