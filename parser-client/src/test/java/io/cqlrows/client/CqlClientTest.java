package io.cqlrows.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.capture.pcap.PcapRecordingHandler;
import io.cqlrows.capture.pcap.TcpConnection;
import io.cqlrows.capture.pcap.TcpReassembler;
import io.cqlrows.capture.replay.CaptureReplay;
import io.cqlrows.capture.replay.ReplayedResult;
import io.cqlrows.core.PagingState;
import io.cqlrows.core.PreparedResult;
import io.cqlrows.core.ProtocolFeatures;
import io.cqlrows.core.RowsResult;
import io.cqlrows.core.VoidResult;
import io.cqlrows.core.sink.Row;
import io.cqlrows.core.sink.RowsCollector;
import io.cqlrows.netty.EventLoops;
import io.cqlrows.netty.frame.Compression;
import io.cqlrows.netty.frame.CqlConnectionException;
import io.cqlrows.netty.frame.CqlServerError;
import io.cqlrows.netty.frame.Opcode;
import io.cqlrows.netty.request.DecodedRequest;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.EventLoopGroup;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@link CqlClient} against {@link FakeCqlServer} on a local socket, in v4 and v5, with and without
 * LZ4: the handshake, rows, concurrent streams, errors, closing, prepared statements with {@code
 * Skip_metadata} and {@code Metadata_changed}, paging, and envelopes larger than a segment.
 */
class CqlClientTest {
  private static final long TIMEOUT_SECONDS = 10;
  private static EventLoopGroup group;

  private FakeCqlServer server;
  private CqlClient client;

  @BeforeAll
  static void startGroup() {
    group = EventLoops.nio(2);
  }

  @AfterAll
  static void stopGroup() throws InterruptedException {
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
  }

  @AfterEach
  void closeConnections() throws Exception {
    if (client != null) {
      client.close().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    }
    if (server != null) {
      server.close();
    }
  }

  @ParameterizedTest
  @CsvSource({"4, NONE", "4, LZ4", "5, NONE", "5, LZ4"})
  void queryCompletesWithTheRows(int version, Compression compression) throws Exception {
    connect(version, compression);
    RowsCollector rows = new RowsCollector();
    QueryResult result = get(client.query("SELECT stream, query FROM ks.t", rows, 0, null));

    RowsResult r = result.rows();
    assertEquals(1, r.rowCount());
    assertFalse(result.hasMorePages());
    assertEquals("SELECT stream, query FROM ks.t", rows.rows().get(0).getString("query"));

    DecodedRequest options = server.requests.get(0);
    assertEquals(Opcode.OPTIONS, options.opcode());
    DecodedRequest startup = server.requests.get(1);
    assertEquals(Opcode.STARTUP, startup.opcode());
    assertEquals(
        compression == Compression.LZ4
            ? Map.of("CQL_VERSION", "3.0.0", "COMPRESSION", "lz4")
            : Map.of("CQL_VERSION", "3.0.0"),
        startup.options());
    assertEquals(0, options.streamId());
    assertEquals(0, startup.streamId());
    assertEquals(ProtocolFeatures.NONE, client.features());
    DecodedRequest query = server.requests.get(2);
    assertEquals(version, query.version());
    assertEquals(version == 4 && compression == Compression.LZ4 ? 0x01 : 0, query.headerFlags());
    assertEquals(CqlClient.DEFAULT_CONSISTENCY.code(), query.consistency());
    assertEquals(query.streamId(), rows.rows().get(0).getInt("stream"));
  }

  @ParameterizedTest
  @CsvSource({"4, NONE", "5, LZ4"})
  void concurrentQueriesCompleteIndependently(int version, Compression compression)
      throws Exception {
    connect(version, compression);
    List<String> parsed = Collections.synchronizedList(new ArrayList<>());
    RowsCollector held = new RowsCollector();
    RowsCollector release = new RowsCollector();
    CompletableFuture<QueryResult> first =
        client.query("HOLD me", new NotingSink("HOLD", parsed, held), 0, null);
    CompletableFuture<QueryResult> second =
        client.query("RELEASE", new NotingSink("RELEASE", parsed, release), 0, null);

    get(second);
    get(first);
    assertEquals(List.of("RELEASE", "HOLD"), parsed, "answered out of order");
    assertEquals("HOLD me", held.rows().get(0).getString("query"));
    assertEquals("RELEASE", release.rows().get(0).getString("query"));
    int heldStream = held.rows().get(0).getInt("stream");
    assertNotEquals(heldStream, release.rows().get(0).getInt("stream"));
    assertEquals(streamOf("HOLD me"), heldStream);
  }

  @ParameterizedTest
  @CsvSource({"4, LZ4", "5, NONE"})
  void anErrorFailsOnlyItsRequest(int version, Compression compression) throws Exception {
    connect(version, compression);
    CompletableFuture<QueryResult> held = client.query("HOLD it", new RowsCollector(), 0, null);
    CompletableFuture<QueryResult> failing = client.query("FAIL now", new RowsCollector(), 0, null);
    CompletableFuture<QueryResult> release = client.query("RELEASE", new RowsCollector(), 0, null);

    CqlServerError error = assertInstanceOf(CqlServerError.class, failure(failing));
    assertEquals(CqlServerError.INVALID, error.code());
    assertEquals("cannot run: FAIL now", error.serverMessage());
    assertEquals(1, get(held).rows().rowCount());
    assertEquals(1, get(release).rows().rowCount());
    assertEquals(
        1,
        get(client.query("SELECT again", new RowsCollector(), 0, null)).rows().rowCount(),
        "the connection goes on");
  }

  @ParameterizedTest
  @CsvSource({"4, NONE", "5, LZ4"})
  void closingTheClientFailsRequestsInFlight(int version, Compression compression)
      throws Exception {
    connect(version, compression);
    CompletableFuture<QueryResult> pending = client.query("NEVER", new RowsCollector(), 0, null);
    await(() -> server.queries().contains("NEVER"));
    get(client.close());

    CqlConnectionException e = assertInstanceOf(CqlConnectionException.class, failure(pending));
    assertEquals(CqlConnectionException.Reason.CLOSED_BY_CLIENT, e.reason());
    CqlConnectionException late =
        assertInstanceOf(
            CqlConnectionException.class,
            failure(client.query("SELECT late", new RowsCollector(), 0, null)));
    assertEquals(CqlConnectionException.Reason.CLOSED_BY_CLIENT, late.reason());
    client = null;
  }

  @ParameterizedTest
  @CsvSource({"4, LZ4", "5, NONE"})
  void theServerClosingFailsRequestsInFlight(int version, Compression compression)
      throws Exception {
    connect(version, compression);
    CompletableFuture<QueryResult> pending = client.query("NEVER", new RowsCollector(), 0, null);
    CompletableFuture<QueryResult> closing = client.query("CLOSE", new RowsCollector(), 0, null);
    for (CompletableFuture<QueryResult> f : List.of(pending, closing)) {
      CqlConnectionException e = assertInstanceOf(CqlConnectionException.class, failure(f));
      assertEquals(CqlConnectionException.Reason.CLOSED_BY_SERVER, e.reason());
    }
  }

  @ParameterizedTest
  @CsvSource({"4, NONE", "4, LZ4", "5, NONE", "5, LZ4"})
  void executeSkipsMetadataAndDecodesWithThePreparedColumns(int version, Compression compression)
      throws Exception {
    connect(version, compression);
    PreparedResult prepared = get(client.prepare("SELECT id, name FROM ks.t WHERE id = ?"));
    assertEquals(CannedResponses.PREPARED_ID, ByteBufUtil.hexDump(prepared.id()));
    assertEquals(2, prepared.resultColumns().size());

    RowsCollector rows = new RowsCollector();
    QueryResult result = get(client.execute(prepared, rows, 0, null, int32(42)));
    assertTrue(result.rows().metadata().noMetadata());
    assertEquals(42, rows.rows().get(0).getInt("id"));
    assertEquals("executed", rows.rows().get(0).getString("name"));

    DecodedRequest execute = last(Opcode.EXECUTE);
    assertEquals(CannedResponses.PREPARED_ID, execute.id());
    assertEquals(0x01 | 0x02, execute.flags(), "values and Skip_metadata");
    assertEquals(version >= 5 ? "0a" : null, execute.resultMetadataId());
    assertEquals(List.of("0000002a"), execute.values());
  }

  @Test
  void metadataChangedReplacesTheStatementsColumnsAndMetadataId() throws Exception {
    connect(5, Compression.LZ4);
    PreparedResult prepared = get(client.prepare("SELECT * FROM ks.t WHERE id = ?"));
    assertEquals(
        VoidResult.KIND, get(client.query("ALTER", new RowsCollector(), 0, null)).result().kind());

    RowsCollector changed = new RowsCollector();
    QueryResult first = get(client.execute(prepared, changed, 0, null, int32(1)));
    assertTrue(first.rows().metadata().metadataChanged());
    assertEquals("0a", last(Opcode.EXECUTE).resultMetadataId(), "the stale id");
    assertEquals("extra", changed.rows().get(0).getString("extra"));
    PreparedStatement statement = client.statement(prepared);
    assertArrayEquals(new byte[] {0x0B}, statement.resultMetadataId());
    assertEquals(3, statement.resultColumns().size());

    RowsCollector again = new RowsCollector();
    QueryResult second = get(client.execute(prepared, again, 0, null, int32(2)));
    assertEquals("0b", last(Opcode.EXECUTE).resultMetadataId(), "the new id");
    assertTrue(second.rows().metadata().noMetadata());
    Row row = again.rows().get(0);
    assertEquals(2, row.getInt("id"));
    assertEquals("extra", row.getString("extra"), "decoded with the new columns");
  }

  @ParameterizedTest
  @CsvSource({"4, NONE", "5, NONE"})
  void pagingStateLeadsToTheNextPage(int version, Compression compression) throws Exception {
    connect(version, compression);
    RowsCollector rows = new RowsCollector();
    QueryResult page1 = get(client.query("PAGE", rows, 1, null));
    assertTrue(page1.hasMorePages());
    assertEquals(
        Optional.of(PagingState.of(new byte[] {(byte) 0xCA, (byte) 0xFE})), page1.pagingState());
    QueryResult page2 = get(client.query("PAGE", rows, 1, page1.pagingState().orElseThrow()));
    assertFalse(page2.hasMorePages());
    assertEquals(Optional.empty(), page2.pagingState());
    assertEquals(1, rows.rows().get(0).getInt("page"));
    DecodedRequest second = last(Opcode.QUERY);
    assertEquals(1, second.pageSize());
    assertEquals("cafe", second.pagingState());
  }

  /** A 300 KB value and a 400 KB result: on v5, slices of non-self-contained segments. */
  @ParameterizedTest
  @CsvSource({"4, LZ4", "5, NONE", "5, LZ4"})
  void envelopesLargerThanASegmentGoBothWays(int version, Compression compression)
      throws Exception {
    connect(version, compression);
    byte[] value = new byte[300_000];
    for (int i = 0; i < value.length; i++) {
      value[i] = (byte) (i % 251);
    }
    RowsCollector echo = new RowsCollector();
    get(client.query("ECHO", echo, 0, null, value, null, new byte[0]));
    assertEquals(ByteBuffer.wrap(value), echo.rows().get(0).getBytes(0));
    assertTrue(echo.rows().get(1).isNull(0));
    assertEquals(0, echo.rows().get(2).getBytes(0).remaining());

    RowsCollector big = new RowsCollector();
    get(client.query("BIG 400000", big, 0, null));
    assertEquals(400_000, big.rows().get(0).getBytes(0).remaining());
  }

  /**
   * A {@link PcapRecordingHandler} added at the head by the connect customizer records the
   * connection from its first byte: the pcap replays with STARTUP, the query and its rows.
   */
  @ParameterizedTest
  @CsvSource({"4, NONE", "4, LZ4", "5, NONE", "5, LZ4"})
  void theCustomizerCanRecordTheWholeConnection(
      int version, Compression compression, @TempDir Path dir) throws Exception {
    server = new FakeCqlServer(group, version, compression);
    Path pcap = dir.resolve("conn.pcap");
    PcapRecordingHandler recorder = new PcapRecordingHandler(pcap);
    client =
        get(
            CqlClient.connect(
                "127.0.0.1",
                server.port(),
                version,
                compression,
                group,
                p -> p.addFirst("pcap", recorder)));
    RowsCollector live = new RowsCollector();
    get(client.query("SELECT recorded FROM ks.t", live, 0, null));
    get(client.close());
    client = null;
    assertNull(recorder.recordingError());

    List<TcpConnection> connections = TcpReassembler.reassemble(pcap);
    assertEquals(1, connections.size());
    TcpConnection c = connections.get(0);
    assertFalse(c.startedMidStream(), "the handshake was recorded");
    List<ReplayedResult> replayed =
        CaptureReplay.results(c.serverToClient().bytes(), c.clientToServer().bytes());
    assertEquals(1, replayed.size());
    assertEquals("SELECT recorded FROM ks.t", replayed.get(0).query());
    assertEquals(
        live.rows().get(0).getInt("stream"), replayed.get(0).rows().get(0).getInt("stream"));
    assertEquals("SELECT recorded FROM ks.t", replayed.get(0).rows().get(0).getString("query"));
  }

  @Test
  void aCustomizerThatThrowsFailsTheConnect() throws Exception {
    server = new FakeCqlServer(group, 4, Compression.NONE);
    IllegalStateException e =
        assertInstanceOf(
            IllegalStateException.class,
            failure(
                CqlClient.connect(
                    "127.0.0.1",
                    server.port(),
                    4,
                    Compression.NONE,
                    group,
                    p -> {
                      throw new IllegalStateException("no");
                    })));
    assertEquals("no", e.getMessage());
  }

  @Test
  void anErrorAnsweringStartupFailsTheConnect() throws Exception {
    server = new FakeCqlServer(group, 5, Compression.NONE);
    server.refuseStartup = true;
    CqlServerError e =
        assertInstanceOf(
            CqlServerError.class,
            failure(CqlClient.connect("127.0.0.1", server.port(), 5, Compression.NONE, group)));
    assertEquals(0x000A, e.code());
  }

  @Test
  void aRefusedConnectionFailsTheConnect() throws Exception {
    FakeCqlServer closed = new FakeCqlServer(group, 4, Compression.NONE);
    int port = closed.port();
    closed.close();
    assertThrows(
        ExecutionException.class,
        () -> get(CqlClient.connect("127.0.0.1", port, 4, Compression.NONE, group)));
  }

  @Test
  void rejectsVersionsAndCompressionsItCannotSpeak() {
    assertThrows(
        IllegalArgumentException.class,
        () -> CqlClient.connect("127.0.0.1", 9042, 3, Compression.NONE, group));
    assertThrows(
        IllegalArgumentException.class,
        () -> CqlClient.connect("127.0.0.1", 9042, 5, Compression.SNAPPY, group));
  }

  /** v4 Snappy: STARTUP asks for it, requests go uncompressed, responses are read either way. */
  @Test
  void snappyOnV4SendsRequestsUncompressed() throws Exception {
    connect(4, Compression.SNAPPY);
    RowsCollector rows = new RowsCollector();
    get(client.query("SELECT stream, query FROM ks.t", rows, 0, null));
    assertEquals(1, rows.rows().size());
    assertEquals("snappy", server.requests.get(1).options().get("COMPRESSION"));
    assertEquals(0, server.requests.get(2).headerFlags());
  }

  private void connect(int version, Compression compression) throws Exception {
    server = new FakeCqlServer(group, version, compression);
    client = get(CqlClient.connect("127.0.0.1", server.port(), version, compression, group));
    assertEquals(version, client.protocolVersion());
  }

  private int streamOf(String query) {
    return server.requests.stream()
        .filter(r -> query.equals(r.query()))
        .findFirst()
        .orElseThrow()
        .streamId();
  }

  private DecodedRequest last(Opcode opcode) {
    DecodedRequest last = null;
    for (DecodedRequest r : server.requests) {
      if (r.opcode() == opcode) {
        last = r;
      }
    }
    return last;
  }

  private static byte[] int32(int v) {
    return ByteBuffer.allocate(4).putInt(v).array();
  }

  private static <T> T get(CompletableFuture<T> future) throws Exception {
    return future.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
  }

  private static Throwable failure(CompletableFuture<?> future) {
    ExecutionException e =
        assertThrows(ExecutionException.class, () -> future.get(TIMEOUT_SECONDS, TimeUnit.SECONDS));
    return e.getCause();
  }

  private static void await(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out");
      }
      Thread.sleep(5);
    }
  }
}
