package io.cqlrows.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.core.PreparedResult;
import io.cqlrows.core.TabletRouting;
import io.cqlrows.core.sink.RowsCollector;
import io.cqlrows.netty.EventLoops;
import io.cqlrows.netty.frame.Compression;
import io.cqlrows.netty.frame.CqlServerError;
import io.cqlrows.netty.frame.Opcode;
import io.cqlrows.netty.request.DecodedRequest;
import io.netty.channel.EventLoopGroup;
import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link CqlClient} against {@link FakeCqlServer#scylla}, a server that answers as ScyllaDB's
 * transport/server.cc does: v5 refused with a protocol error in a v4 header, the extensions of
 * docs/dev/protocol-extensions.md advertised in SUPPORTED and applied when STARTUP names them.
 */
class ScyllaClientTest {
  private static final long TIMEOUT_SECONDS = 10;
  private static final String[] ALL = {
    "SCYLLA_LWT_ADD_METADATA_MARK",
    "SCYLLA_RATE_LIMIT_ERROR",
    "TABLETS_ROUTING_V1",
    "SCYLLA_USE_METADATA_ID"
  };
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
  @EnumSource(
      value = Compression.class,
      names = {"NONE", "LZ4"})
  void askedForV5ItReconnectsOnV4AndNegotiatesEveryExtension(Compression compression)
      throws Exception {
    server = FakeCqlServer.scylla(group, compression, ALL);
    client = get(CqlClient.connect("127.0.0.1", server.port(), 5, compression, group));

    assertEquals(4, client.protocolVersion());
    assertEquals(2, server.connections.get(), "the refused v5 connection, then the v4 one");
    assertEquals(
        List.of(
            "SCYLLA_USE_METADATA_ID",
            "SCYLLA_LWT_ADD_METADATA_MARK",
            "TABLETS_ROUTING_V1",
            "SCYLLA_RATE_LIMIT_ERROR"),
        List.copyOf(client.features().extensions()));
    assertEquals(0x80000000, client.features().lwtMask());
    assertEquals(OptionalInt.of(0xF000), client.features().rateLimitErrorCode());

    // every request the server read came on the v4 connection: OPTIONS, then STARTUP
    assertEquals(Opcode.OPTIONS, server.requests.get(0).opcode());
    DecodedRequest startup = server.requests.get(1);
    assertEquals(4, startup.version());
    Map<String, String> expected = new LinkedHashMap<>();
    expected.put("CQL_VERSION", "3.0.0");
    if (compression == Compression.LZ4) {
      expected.put("COMPRESSION", "lz4");
    }
    expected.put("SCYLLA_USE_METADATA_ID", "");
    expected.put("SCYLLA_LWT_ADD_METADATA_MARK", "LWT_OPTIMIZATION_META_BIT_MASK=2147483648");
    expected.put("TABLETS_ROUTING_V1", "");
    expected.put("SCYLLA_RATE_LIMIT_ERROR", "");
    assertEquals(List.copyOf(expected.entrySet()), List.copyOf(startup.options().entrySet()));

    RowsCollector rows = new RowsCollector();
    get(client.query("SELECT stream, query FROM ks.t", rows, 0, null));
    assertEquals("SELECT stream, query FROM ks.t", rows.rows().get(0).getString("query"));
  }

  @Test
  void onlyTheOfferedExtensionsAreAskedFor() throws Exception {
    server = FakeCqlServer.scylla(group, Compression.NONE, "TABLETS_ROUTING_V1");
    client = get(CqlClient.connect("127.0.0.1", server.port(), 4, Compression.NONE, group));
    assertEquals(1, server.connections.get());
    assertEquals(List.of("TABLETS_ROUTING_V1"), List.copyOf(client.features().extensions()));
    assertEquals(
        Map.of("CQL_VERSION", "3.0.0", "TABLETS_ROUTING_V1", ""), server.requests.get(1).options());
  }

  @ParameterizedTest
  @EnumSource(
      value = Compression.class,
      names = {"NONE", "LZ4"})
  void v4PreparedStatementsCarryAndFollowTheResultMetadataId(Compression compression)
      throws Exception {
    server = FakeCqlServer.scylla(group, compression, ALL);
    client = get(CqlClient.connect("127.0.0.1", server.port(), 4, compression, group));

    PreparedResult prepared = get(client.prepare("SELECT id, name FROM ks.t WHERE id = ?"));
    assertArrayEquals(new byte[] {0x0A}, prepared.resultMetadataId());
    assertEquals(2, prepared.resultColumns().size());

    RowsCollector rows = new RowsCollector();
    get(client.execute(prepared, rows, 0, null, int32(7)));
    DecodedRequest execute = last(Opcode.EXECUTE);
    assertEquals("0a", execute.resultMetadataId());
    assertTrue((execute.flags() & 0x02) != 0, "Skip_metadata");
    assertEquals(7, rows.rows().get(0).getInt("id"));
    assertEquals("executed", rows.rows().get(0).getString("name"));

    // the table changes: the next execution reports Metadata_changed with the new id and columns
    get(client.query("ALTER", new RowsCollector(), 0, null));
    RowsCollector changed = new RowsCollector();
    QueryResult result = get(client.execute(prepared, changed, 0, null, int32(8)));
    assertTrue(result.rows().metadata().metadataChanged());
    assertEquals("extra", changed.rows().get(0).getString("extra"));
    assertArrayEquals(new byte[] {0x0B}, client.statement(prepared).resultMetadataId());

    RowsCollector after = new RowsCollector();
    QueryResult third = get(client.execute(prepared, after, 0, null, int32(9)));
    assertEquals("0b", last(Opcode.EXECUTE).resultMetadataId());
    assertTrue(third.rows().metadata().noMetadata(), "decoded with the adopted columns");
    assertEquals("extra", after.rows().get(0).getString("extra"));
  }

  @Test
  void lightweightTransactionsAreMarked() throws Exception {
    server = FakeCqlServer.scylla(group, Compression.NONE, ALL);
    client = get(CqlClient.connect("127.0.0.1", server.port(), 4, Compression.NONE, group));
    PreparedResult lwt = get(client.prepare("UPDATE ks.t SET name = 'x' WHERE id = ? IF EXISTS"));
    PreparedResult plain = get(client.prepare("SELECT id, name FROM ks.t WHERE id = ?"));
    assertTrue(lwt.isLwt());
    assertEquals(0x80000001, lwt.preparedFlags());
    assertFalse(plain.isLwt());
    assertEquals(0x00000001, plain.preparedFlags());
  }

  @Test
  void withoutTheExtensionTheLwtBitIsNotInterpreted() throws Exception {
    server = FakeCqlServer.scylla(group, Compression.NONE, "SCYLLA_USE_METADATA_ID");
    client = get(CqlClient.connect("127.0.0.1", server.port(), 4, Compression.NONE, group));
    PreparedResult lwt = get(client.prepare("UPDATE ks.t SET name = 'x' WHERE id = ? IF EXISTS"));
    assertFalse(lwt.isLwt());
    assertEquals(0x00000001, lwt.preparedFlags(), "the server does not set it either");
  }

  @ParameterizedTest
  @EnumSource(
      value = Compression.class,
      names = {"NONE", "LZ4"})
  void tabletRoutingArrivesWithTheResult(Compression compression) throws Exception {
    server = FakeCqlServer.scylla(group, compression, ALL);
    client = get(CqlClient.connect("127.0.0.1", server.port(), 4, compression, group));
    RowsCollector rows = new RowsCollector();
    QueryResult result = get(client.query("TABLETS", rows, 0, null));

    TabletRouting tablets = result.tablets();
    assertEquals(CannedResponses.TABLET_FIRST, tablets.firstToken());
    assertEquals(CannedResponses.TABLET_LAST, tablets.lastToken());
    assertEquals(
        List.of(
            new TabletRouting.Replica(UUID.fromString(CannedResponses.REPLICA_1), 1),
            new TabletRouting.Replica(UUID.fromString(CannedResponses.REPLICA_2), 0)),
        tablets.replicas());
    assertEquals("TABLETS", rows.rows().get(0).getString("query"));

    assertNull(get(client.query("SELECT 1", new RowsCollector(), 0, null)).tablets());
  }

  @Test
  void theRateLimitErrorHasItsFields() throws Exception {
    server = FakeCqlServer.scylla(group, Compression.NONE, ALL);
    client = get(CqlClient.connect("127.0.0.1", server.port(), 4, Compression.NONE, group));
    CqlServerError e =
        assertInstanceOf(
            CqlServerError.class, failure(client.query("RATELIMIT", new RowsCollector(), 0, null)));
    assertEquals(CannedResponses.RATE_LIMIT_ERROR, e.code());
    assertTrue(e.isRateLimitError());
    assertEquals("Rate_limit_error", e.codeName());
    assertEquals(CqlServerError.OP_WRITE, e.opType());
    assertTrue(e.rejectedByCoordinator());

    // the connection goes on
    get(client.query("SELECT 2", new RowsCollector(), 0, null));
  }

  @Test
  void withoutTheExtensionARateLimitIsAConfigError() throws Exception {
    server = FakeCqlServer.scylla(group, Compression.NONE, "SCYLLA_USE_METADATA_ID");
    client = get(CqlClient.connect("127.0.0.1", server.port(), 4, Compression.NONE, group));
    CqlServerError e =
        assertInstanceOf(
            CqlServerError.class, failure(client.query("RATELIMIT", new RowsCollector(), 0, null)));
    assertEquals(0x2300, e.code());
    assertFalse(e.isRateLimitError());
    assertEquals(-1, e.opType());
  }

  @Test
  void aServerThatRefusesV4TooFailsTheConnectWithItsError() throws Exception {
    server = new FakeCqlServer(group, 4, Compression.NONE);
    server.refuseStartupWith = "Invalid or unsupported protocol version: 4";
    CqlServerError e =
        assertInstanceOf(
            CqlServerError.class,
            failure(CqlClient.connect("127.0.0.1", server.port(), 4, Compression.NONE, group)));
    assertEquals(0x000A, e.code());
    assertEquals(1, server.connections.get(), "no fallback below v4");
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
}
