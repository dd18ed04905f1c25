package io.cqlrows.netty.live;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.cqlrows.core.sink.CountingSink;
import io.cqlrows.netty.EventLoops;
import io.cqlrows.netty.client.CqlClient;
import io.cqlrows.netty.client.QueryResult;
import io.cqlrows.netty.fault.Fault;
import io.cqlrows.netty.fault.FaultProxy;
import io.cqlrows.testing.Corpus;
import io.netty.channel.EventLoopGroup;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link CqlClient} through a {@link FaultProxy} to the live {@link CassandraServer}: without a
 * fault, queries work and the proxy counts the responses (v4, v4 + LZ4, v5, v5 + LZ4); a
 * dropped response leaves its request unanswered while the next one is answered; a response
 * cut in half fails the request that waits for it.
 */
@Tag("live")
class FaultProxyLiveTest {
  private static final String RELEASE = "SELECT release_version FROM system.local";
  private static EventLoopGroup group;
  private FaultProxy proxy;
  private CqlClient client;

  @BeforeAll
  static void openGroup() {
    group = EventLoops.nio(1);
  }

  @AfterAll
  static void closeGroup() throws InterruptedException {
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
  }

  @BeforeEach
  void startProxy() throws InterruptedException {
    CassandraServer server = CassandraServer.get();
    proxy = FaultProxy.start(server.host(), server.port());
  }

  @AfterEach
  void closeAll() {
    if (client != null) {
      client.close();
      client = null;
    }
    proxy.close();
  }

  private CqlClient connect(Combo combo) {
    client = LiveClients.get(CqlClient.connect(proxy.host(), proxy.port(), combo.version(),
        combo.compression(), group));
    assertEquals(combo.version(), client.protocolVersion());
    return client;
  }

  @ParameterizedTest
  @EnumSource(Combo.class)
  void queriesPassThrough(Combo combo) {
    connect(combo);
    assertEquals(Corpus.json("[[\"5.0.6\"]]"), LiveClients.query(client, RELEASE, 0)
        .get("rows"));
    CountingSink columns = new CountingSink();
    QueryResult all = LiveClients.get(client.query("SELECT * FROM system_schema.columns",
        columns, 0, null));
    assertTrue(all.rows().rowCount() > 100, all.rows() + " rows");
    assertEquals(4, proxy.responsesSeen(), "SUPPORTED, READY and two RESULTs");
    assertEquals(1, proxy.connectionsAccepted());
    assertTrue(proxy.bytesToClient() > 1_000 && proxy.bytesToServer() > 0,
        proxy.bytesToClient() + " bytes to the client, " + proxy.bytesToServer() + " back");
  }

  /** v4 frames, v5 uncompressed segments (rewritten) and LZ4 segments (stored anew). */
  @ParameterizedTest
  @EnumSource(value = Combo.class, names = {"V4", "V5", "V5_LZ4"})
  void aDroppedResponseLeavesItsRequestUnanswered(Combo combo) throws Exception {
    Fault drop = Fault.dropAfterResponses(2);
    proxy.faultNextConnection(drop);
    connect(combo);
    CompletableFuture<QueryResult> lost = client.query(RELEASE, new CountingSink(), 0, null);
    assertEquals(2, drop.fired().get(LiveClients.TIMEOUT_SECONDS, TimeUnit.SECONDS)
        .response());
    assertEquals(Corpus.json("[[\"5.0.6\"]]"), LiveClients.query(client, RELEASE, 0)
        .get("rows"));
    assertFalse(lost.isDone(), "the dropped response's request");
  }

  @ParameterizedTest
  @EnumSource(value = Combo.class, names = {"V4", "V5_LZ4"})
  void aCutResponseFailsItsRequest(Combo combo) throws Exception {
    Fault cut = Fault.cutAfterResponses(2);
    proxy.faultNextConnection(cut);
    connect(combo);
    CompletableFuture<QueryResult> request =
        client.query("SELECT * FROM system_schema.columns", new CountingSink(), 0, null);
    assertThrows(ExecutionException.class,
        () -> request.get(LiveClients.TIMEOUT_SECONDS, TimeUnit.SECONDS));
    assertTrue(cut.hasFired());
    assertFalse(client.channel().isActive());
  }
}
