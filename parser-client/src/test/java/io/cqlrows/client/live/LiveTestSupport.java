package io.cqlrows.client.live;

import static io.cqlrows.client.live.LiveClients.get;

import com.datastax.oss.driver.api.core.CqlSession;
import io.cqlrows.client.CqlClient;
import io.cqlrows.netty.EventLoops;
import io.netty.channel.EventLoopGroup;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/**
 * The lifecycle every live test class shares: the server ({@link CassandraServer#get()}), one Java
 * driver session and one event loop group per class, and at most one {@link CqlClient} per test,
 * closed after it. Subclasses' own {@code @BeforeAll} methods run after this one's, so they can use
 * {@link #session}. Test classes run one at a time; the fields are per class.
 */
@Tag("live")
abstract class LiveTestSupport {
  /** The driver session of the running class: schema, data, and the driver's view of rows. */
  static CqlSession session;

  /** The event loop group of the running class's clients. */
  static EventLoopGroup group;

  /** The current test's client, closed after the test. */
  CqlClient client;

  @BeforeAll
  static void openSessionAndGroup() {
    session = LiveDriver.open(CassandraServer.get());
    group = EventLoops.nio(2);
  }

  @AfterAll
  static void closeSessionAndGroup() throws InterruptedException {
    if (session != null) {
      session.close();
      session = null;
    }
    if (group != null) {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
      group = null;
    }
  }

  @AfterEach
  void closeClient() {
    if (client != null) {
      get(client.close());
      client = null;
    }
  }
}
