package io.cqlrows.capture.replay;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.core.CqlResult;
import io.cqlrows.core.PreparedResult;
import io.cqlrows.core.ProtocolFeatures;
import io.cqlrows.core.RowSink;
import io.cqlrows.core.RowsResult;
import io.cqlrows.core.TabletRouting;
import io.cqlrows.core.sink.Row;
import io.cqlrows.core.sink.RowsCollector;
import io.cqlrows.netty.ScyllaSession;
import io.cqlrows.netty.frame.Compression;
import io.cqlrows.netty.frame.CqlFrameException;
import io.cqlrows.netty.frame.CqlServerError;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A ScyllaDB v4 session with every extension on ({@link ScyllaSession}), replayed through {@link
 * CaptureReplay}: the extensions come from the captured STARTUP, so the PREPARED results keep their
 * statements, every EXECUTE result is decoded with its prepared (or changed) columns, the tablet
 * routing and the rate-limit error are read.
 */
class ScyllaSessionReplayTest {

  @ParameterizedTest
  @EnumSource(value = Compression.class)
  void everyExecuteResultIsDecodedWithItsPreparedColumns(Compression compression) {
    ScyllaSession.Bytes session = ScyllaSession.write(compression);
    List<ReplayedResult> results =
        CaptureReplay.results(session.serverToClient(), session.clientToServer());
    assertEquals(7, results.size());
    assertTrue(results.stream().noneMatch(ReplayedResult::failed), results.toString());

    ReplayedResult users = results.get(0);
    assertEquals(ScyllaSession.USERS_QUERY, users.query());
    assertEquals("grace", users.rows().get(1).getString("name"));

    PreparedResult select = (PreparedResult) results.get(1).result();
    assertArrayEquals(ScyllaSession.SELECT_ID, select.id());
    assertArrayEquals(ScyllaSession.SELECT_METADATA_ID, select.resultMetadataId());
    assertFalse(select.isLwt());
    PreparedResult update = (PreparedResult) results.get(2).result();
    assertTrue(update.isLwt());
    assertEquals(0x80000001, update.preparedFlags());

    ReplayedResult first = results.get(3);
    assertEquals(ScyllaSession.SELECT, first.query());
    assertTrue(((RowsResult) first.result()).metadata().noMetadata());
    Row ada = first.rows().get(0);
    assertEquals(1, ada.getInt("id"));
    assertEquals("ada", ada.getString("name"));
    assertArrayEquals(new float[] {1, 2, 3}, ada.getFloatVector("embedding"));
    assertEquals(
        new TabletRouting(
            ScyllaSession.TABLET_FIRST,
            ScyllaSession.TABLET_LAST,
            List.of(
                new TabletRouting.Replica(ScyllaSession.HOST_1, 0),
                new TabletRouting.Replica(ScyllaSession.HOST_2, 1))),
        first.tablets());

    ReplayedResult applied = results.get(4);
    assertEquals(ScyllaSession.UPDATE_IF, applied.query());
    assertTrue(applied.rows().get(0).getBoolean("[applied]"));
    assertNull(applied.tablets());

    ReplayedResult changed = results.get(5);
    RowsResult changedRows = (RowsResult) changed.result();
    assertTrue(changedRows.metadata().metadataChanged());
    assertArrayEquals(ScyllaSession.ALTERED_METADATA_ID, changedRows.metadata().newMetadataId());
    assertEquals("grace@example.org", changed.rows().get(0).getString("email"));

    ReplayedResult after = results.get(6);
    assertTrue(((RowsResult) after.result()).metadata().noMetadata());
    assertEquals(4, after.rows().get(0).size(), "decoded with the changed columns");
    assertTrue(after.rows().get(0).isNull(after.rows().get(0).indexOf("email")));
    assertArrayEquals(new float[] {1, 2, 3}, after.rows().get(0).getFloatVector("embedding"));
  }

  @ParameterizedTest
  @EnumSource(value = Compression.class)
  void theRateLimitErrorIsReadWithTheCodeFromSupported(Compression compression) {
    ScyllaSession.Bytes session = ScyllaSession.write(compression);
    List<CqlServerError> errors = new ArrayList<>();
    List<String> queries = new ArrayList<>();
    CaptureReplay.replay(
        session.serverToClient(),
        session.clientToServer(),
        ProtocolFeatures.NONE,
        new ReplayListener() {
          @Override
          public RowSink sinkFor(Response response) {
            return new RowsCollector();
          }

          @Override
          public void onResult(Response response, CqlResult result) {}

          @Override
          public void onError(Response response, CqlFrameException error) {
            throw error;
          }

          @Override
          public void onServerError(Response response, CqlServerError error) {
            errors.add(error);
            queries.add(response.query());
          }
        });
    assertEquals(1, errors.size());
    CqlServerError e = errors.get(0);
    assertTrue(e.isRateLimitError());
    assertEquals(0xF000, e.code());
    assertEquals(CqlServerError.OP_WRITE, e.opType());
    assertFalse(e.rejectedByCoordinator());
    assertEquals(List.of(ScyllaSession.INSERT), queries);
  }

  /**
   * Without its client side the STARTUP is unknown: the PREPARED results are misread unless the
   * extension is assumed; assumed, they read (their EXECUTE results stay raw: no requests).
   */
  @Test
  void withoutTheClientSideTheExtensionMustBeAssumed() {
    byte[] s2c = ScyllaSession.write(Compression.NONE).serverToClient();
    List<ReplayedResult> blind = CaptureReplay.results(s2c);
    assertTrue(blind.get(1).failed(), "the metadata id read as flags");
    assertTrue(blind.get(2).failed());

    List<ReplayedResult> assumed = new ArrayList<>();
    CaptureReplay.Collector collector = new CaptureReplay.Collector();
    CaptureReplay.replay(
        s2c,
        null,
        ProtocolFeatures.NONE.withExtension(ProtocolFeatures.SCYLLA_USE_METADATA_ID),
        collector);
    assumed.addAll(collector.results);
    assertTrue(assumed.stream().noneMatch(ReplayedResult::failed));
    assertArrayEquals(
        ScyllaSession.SELECT_METADATA_ID,
        ((PreparedResult) assumed.get(1).result()).resultMetadataId());
    assertEquals("column0", assumed.get(3).rows().get(0).columns().get(0).name(), "raw cells");
  }

  /** A captured STARTUP wins over what the caller assumes. */
  @Test
  void theCapturedStartupOverridesTheAssumedFeatures() {
    ScyllaSession.Bytes session = ScyllaSession.write(Compression.LZ4);
    CaptureReplay.Collector collector = new CaptureReplay.Collector();
    CaptureReplay.replay(
        session.serverToClient(),
        session.clientToServer(),
        ProtocolFeatures.NONE.withExtension(ProtocolFeatures.TABLETS_ROUTING_V1),
        collector);
    assertTrue(collector.results.stream().noneMatch(ReplayedResult::failed));
    assertTrue(((PreparedResult) collector.results.get(2).result()).isLwt());
  }
}
